"""Fast tests of the user function registry of Python workers (kindling.runtime.lifecycle),
without Spark."""
from __future__ import annotations

import pytest

from kindling.datastream import MapFunction
from kindling.runtime import lifecycle
from kindling.runtime.chain import opened_function
from kindling.runtime.errors import UserFunctionError
from kindling.runtime.task_info import TaskInfo


class Counting(MapFunction):
    def __init__(self, fail_close: bool = False):
        self.opened = self.closed = 0
        self.subtask = None
        self.fail_close = fail_close

    def open(self, runtime_context):
        self.opened += 1
        self.subtask = runtime_context.get_index_of_this_subtask()

    def map(self, value):
        return value

    def close(self):
        self.closed += 1
        if self.fail_close:
            raise OSError("flush failed")


@pytest.fixture
def job(request):
    name = f"test-{request.node.name}"
    yield name
    lifecycle.close_job(name)


def test_open_once_per_parallel_instance_and_job(job):
    first = opened_function(f"{job}/1", Counting(), TaskInfo("m", 0, 2))
    # a later task of the same subtask brings a fresh copy (Spark unpickles per task): the first stays
    assert opened_function(f"{job}/1", Counting(), TaskInfo("m", 0, 2)) is first
    second = opened_function(f"{job}/1", Counting(), TaskInfo("m", 1, 2))
    assert second is not first
    assert (first.opened, first.subtask, second.opened, second.subtask) == (1, 0, 1, 1)
    assert lifecycle.open_count(job) == 2


def test_close_job_closes_each_instance_once_and_only_that_job(job):
    a = opened_function(f"{job}/1", Counting(), TaskInfo("m", 0, 1))
    other = opened_function(f"{job}-other/1", Counting(), TaskInfo("m", 0, 1))
    assert lifecycle.close_job(job) == []
    assert lifecycle.close_job(job) == []
    assert (a.closed, other.closed) == (1, 0)
    assert lifecycle.open_count(job) == 0 and lifecycle.open_count(f"{job}-other") == 1
    lifecycle.close_job(f"{job}-other")
    # a job that runs again after its instances were closed opens new ones
    b = opened_function(f"{job}/1", Counting(), TaskInfo("m", 0, 1))
    assert b is not a and b.opened == 1


def test_close_errors_name_the_operator(job):
    opened_function(f"{job}/1", Counting(fail_close=True), TaskInfo("flushing-writer", 0, 1))
    opened_function(f"{job}/2", Counting(), TaskInfo("fine", 0, 1))
    errors = lifecycle.close_job(job)
    assert len(errors) == 1 and isinstance(errors[0], UserFunctionError)
    assert errors[0].operator_name == "flushing-writer"
    assert "flush failed" in errors[0].user_traceback


class Logging(Counting):
    def __init__(self, path: str):
        super().__init__(fail_close=True)
        self.path = path

    def close(self):
        with open(self.path, "a") as f:
            f.write("closed\n")
        super().close()


def _worker(job: str, directory: str, path: str, ready, stop) -> None:
    lifecycle._serve(directory)  # what a worker does on its first task in local mode
    opened_function(f"{job}/1", Logging(path), TaskInfo("sink", 0, 1))
    ready.set()
    stop.wait(120)


def test_the_driver_closes_a_workers_instances_through_its_socket(job, tmp_path, monkeypatch):
    import multiprocessing

    context = multiprocessing.get_context("fork")
    ready, stop = context.Event(), context.Event()
    path = str(tmp_path / "closes")
    worker = context.Process(target=_worker, args=(job, str(tmp_path), path, ready, stop))
    worker.start()
    try:
        assert ready.wait(60)
        monkeypatch.setattr(lifecycle, "_directory", str(tmp_path))
        errors = lifecycle.end_job(job)
        with open(path) as f:
            assert f.read() == "closed\n"
        assert [e.operator_name for e in errors] == ["sink"] and "flush failed" in errors[0].user_traceback
        assert lifecycle.end_job(job) == []  # once per job
    finally:
        stop.set()
        worker.join(60)


def test_finish_job_raises_the_close_error(job):
    opened_function(f"{job}/1", Counting(fail_close=True), TaskInfo("sink", 0, 1))
    with pytest.raises(UserFunctionError, match="sink"):
        lifecycle.finish_job(job)


def test_a_failure_outside_spark_closes_nothing(job):
    from kindling.runtime.errors import user_function_failure

    f = opened_function(f"{job}/1", Counting(), TaskInfo("m", 0, 1))
    user_function_failure("m", ValueError("boom"))
    assert f.closed == 0
