"""End-to-end tests of user function lifecycle on Spark: ``open()`` once per parallel instance
per job, ``close()`` once when the job ends (finished, failed or cancelled), errors of
``close()`` reported. Spark's Python workers are separate processes, so the functions record
their calls in files."""
from __future__ import annotations

import os
import time
import uuid
from collections import Counter

import pytest

from kindling.common import Duration, JobStatus, WatermarkStrategy
from kindling.datastream import KeyedProcessFunction, MapFunction, RuntimeContext
from kindling.runtime.errors import UserFunctionError


def _log(directory: str, line: str) -> None:
    with open(os.path.join(directory, f"{os.getpid()}.log"), "a") as f:
        f.write(line + "\n")


def _events(directory: str) -> list[list[str]]:
    lines = []
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name)) as f:
            lines += [line.split() for line in f if line.strip()]
    return lines


class Recorder(MapFunction):
    """Logs ``open``/``close`` with its process, identity, subtask and the number of Recorders
    open in its process; optionally fails in ``map`` or ``close``."""

    live = 0  # Recorders open in this process

    def __init__(self, directory: str, fail_on=None, fail_close: bool = False):
        self.directory = directory
        self.fail_on = fail_on
        self.fail_close = fail_close

    def open(self, runtime_context: RuntimeContext):
        Recorder.live += 1
        self.subtask = runtime_context.get_index_of_this_subtask()
        self.token = uuid.uuid4().hex
        _log(self.directory, f"open {self.token} {self.subtask} {Recorder.live} {os.getpid()}")

    def map(self, value):
        if value == self.fail_on:
            raise ValueError(f"cannot map {value}")
        return value

    def close(self):
        Recorder.live -= 1
        _log(self.directory, f"close {self.token} {self.subtask} {Recorder.live} {os.getpid()}")
        if self.fail_close:
            raise OSError("connection lost while flushing")


class KeyedRecorder(KeyedProcessFunction):
    def __init__(self, directory: str):
        self.directory = directory

    def open(self, runtime_context: RuntimeContext):
        self.subtask = runtime_context.get_index_of_this_subtask()
        self.token = uuid.uuid4().hex
        _log(self.directory, f"open {self.token} {self.subtask} 0 {os.getpid()}")

    def process_element(self, value, ctx):
        yield value

    def close(self):
        _log(self.directory, f"close {self.token} {self.subtask} 0 {os.getpid()}")


def _assert_closed_once(events: list[list[str]]) -> None:
    opened = Counter(e[1] for e in events if e[0] == "open")
    closed = Counter(e[1] for e in events if e[0] == "close")
    assert opened, "no function was opened"
    assert max(opened.values()) == 1, "an instance was opened twice"
    assert closed == opened, "every opened instance is closed exactly once"


def _dirs(tmp_path, *names):
    out = []
    for name in names:
        d = tmp_path / name
        d.mkdir()
        out.append(str(d))
    return out


def test_bounded_job_closes_every_opened_instance_before_execute_returns(any_env, tmp_path):
    env = any_env
    maps, keyed = _dirs(tmp_path, "maps", "keyed")
    env.set_parallelism(2)
    (env.from_collection(list(range(40))).map(Recorder(maps))
     .key_by(lambda v: v % 5).process(KeyedRecorder(keyed)).print())
    env.execute("lifecycle")
    for directory in (maps, keyed):
        events = _events(directory)
        _assert_closed_once(events)
        # one instance per parallel instance: a process opens a subtask's instance once
        subtasks = [(e[4], e[2]) for e in events if e[0] == "open"]
        assert len(subtasks) == len(set(subtasks))
        assert {e[2] for e in events if e[0] == "open"} <= {"0", "1"}


def test_ten_executions_do_not_accumulate_opened_functions(env, tmp_path):
    (directory,) = _dirs(tmp_path, "runs")
    env.set_parallelism(2)
    for _ in range(10):
        env.from_collection(list(range(6))).map(Recorder(directory)).print()
        env.execute("again")
    events = _events(directory)
    _assert_closed_once(events)
    # at most one job's instances (two subtasks) are ever open together in a process
    assert max(int(e[3]) for e in events if e[0] == "open") <= 2


def test_failing_job_closes_its_functions(env, tmp_path):
    (directory,) = _dirs(tmp_path, "failing")
    env.set_parallelism(1)  # Spark kills a Python worker still running a task of a failed stage, unclosed
    env.from_collection(list(range(20))).map(Recorder(directory, fail_on=7)).name("fragile").print()
    with pytest.raises(UserFunctionError, match="fragile"):
        env.execute("failing")
    _assert_closed_once(_events(directory))


def test_error_in_close_fails_the_job_naming_the_operator(env, tmp_path):
    (directory,) = _dirs(tmp_path, "close")
    env.from_collection([1, 2, 3]).map(Recorder(directory, fail_close=True)).name("flushing-writer").print()
    with pytest.raises(UserFunctionError, match="flushing-writer") as info:
        env.execute("close fails")
    assert "connection lost while flushing" in str(info.value)
    _assert_closed_once(_events(directory))


def test_cancelled_unbounded_job_closes_its_functions(env, tmp_path):
    from kindling.datastream.connectors.file_system import FileSource, StreamFormat

    directory, inputs = _dirs(tmp_path, "cancelled", "inputs")
    (tmp_path / "inputs" / "a.txt").write_text("1\n2\n3\n")
    source = (FileSource.for_record_stream_format(StreamFormat.text_line_format(), inputs)
              .monitor_continuously(Duration.of_millis(100)).build())
    env.from_source(source, WatermarkStrategy.no_watermarks(), "files").map(Recorder(directory)).print()
    client = env.execute_async("forever")
    deadline = time.time() + 600
    while not any(e[0] == "open" for e in _events(directory)) and time.time() < deadline:
        time.sleep(0.5)
    client.cancel().result(timeout=300)
    assert client.get_job_status().result() == JobStatus.CANCELED
    _assert_closed_once(_events(directory))
