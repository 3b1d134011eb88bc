"""A failed job restarts from its last checkpoint as its restart strategy says, end to end on
Spark (parallelism 2): no record lost or written twice to a FileSink across the restarts, each
restart reported with its cause, and the last error once the strategy is exhausted."""
from __future__ import annotations

import os
import time

import pytest

from kindling.common import RestartStrategies, Types, WatermarkStrategy
from kindling.common.serialization import Encoder
from kindling.datastream import ExternalizedCheckpointRetention, MapFunction
from kindling.datastream.connectors import DiscardingSink
from kindling.datastream.connectors.datagen import DataGeneratorSource, RateLimiterStrategy
from kindling.datastream.connectors.file_system import FileSink
from kindling.runtime.errors import UserFunctionError


class _FailTimes(MapFunction):
    """Raises on ``poison`` the first ``times`` times it sees it, counting in a file: Spark's
    Python workers are separate processes, and a restarted query may run in new ones."""

    def __init__(self, counter: str, times: int, poison: int):
        self.counter, self.times, self.poison = counter, times, poison

    def map(self, value):
        if value == self.poison:
            with open(self.counter, "a+") as f:
                f.seek(0)
                seen = len(f.read())
                if seen < self.times:
                    f.write("x")
                    raise ValueError(f"injected failure {seen + 1} on {value}")
        return str(value)


def _lines(base) -> list[str]:
    out = []
    for root, dirs, files in os.walk(base):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]
        for name in files:
            if not name.startswith((".", "_")):
                with open(os.path.join(root, name)) as f:
                    out += f.read().splitlines()
    return out


def _job(env, tmp_path, times: int, count: int = 400):
    env.set_parallelism(2)
    counter = str(tmp_path / "failures")
    env.generate_sequence(1, count).map(_FailTimes(counter, times, poison=count // 2), Types.STRING()) \
        .name("poisoned map").sink_to(FileSink.for_row_format(str(tmp_path / "out"), Encoder.simple_string_encoder())
                                      .build())
    return counter


def _failures(counter: str) -> int:
    with open(counter) as f:
        return len(f.read())


@pytest.mark.slow
def test_fixed_delay_restarts_until_the_job_succeeds_without_loss_or_duplicates(env, tmp_path, capsys):
    counter = _job(env, tmp_path, times=2)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(3, 100))
    client = env.execute_async("restarting")
    result = client.get_job_execution_result().result(300)
    assert result.get_accumulator_result("numRestarts") == 2 == _failures(counter)
    assert sorted(_lines(tmp_path / "out"), key=int) == [str(i) for i in range(1, 401)]  # each record once
    assert len(client.restarts) == 2 and "injected failure 1 on 200" in client.restarts[0]
    assert "operator 'poisoned map'" in client.restarts[0]
    err = capsys.readouterr().err
    assert "restarting: restart 1 from the last checkpoint in 100 ms; cause: operator 'poisoned map'" in err
    assert "restart 2 from the last checkpoint" in err


@pytest.mark.parametrize("strategy, restarts", [
    (None, 0), (RestartStrategies.no_restart(), 0),
    pytest.param(RestartStrategies.fixed_delay_restart(1, 0), 1, marks=pytest.mark.slow)])
def test_a_poisoned_record_fails_the_job_once_the_strategy_is_exhausted(env, tmp_path, strategy, restarts):
    counter = _job(env, tmp_path, times=10)
    if strategy is not None:
        env.set_restart_strategy(strategy)
    client = env.execute_async("poisoned")
    with pytest.raises(UserFunctionError, match=f"injected failure {restarts + 1} on 200") as failure:
        client.get_job_execution_result().result(300)
    assert failure.value.operator_name == "poisoned map" and failure.value.element == "200"
    if restarts:  # on the micro-batch path (restartable) the error also says where the record is
        assert failure.value.position == "index 199 of the sequence"
        assert "failed on the element 200 read at index 199 of the sequence:" in str(failure.value)
    else:  # one step: the source's rows carry no position
        assert "operator 'poisoned map' failed on the element 200:" in str(failure.value)
    assert _failures(counter) == restarts + 1 and len(client.restarts) == restarts


def test_a_poisoned_line_is_named_by_its_file_and_line(env, tmp_path):
    from kindling.datastream.connectors.file_system import FileSource, StreamFormat

    env.set_parallelism(2)
    env.enable_checkpointing(1000)  # the micro-batch path
    env.set_restart_strategy(RestartStrategies.no_restart())
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("1\n2\n\nthree\n5\n")
    source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(tmp_path / "in")).build()
    env.from_source(source, WatermarkStrategy.no_watermarks(), "lines").map(int, Types.INT()).name("parse") \
        .sink_to(FileSink.for_row_format(str(tmp_path / "out"), Encoder.simple_string_encoder()).build())
    with pytest.raises(UserFunctionError, match="invalid literal") as failure:
        env.execute("poisoned file")
    assert failure.value.operator_name == "parse" and failure.value.element == "''"
    assert failure.value.position == f"file {tmp_path / 'in' / 'a.txt'}, line 3"


@pytest.mark.parametrize("retention, kept", [(ExternalizedCheckpointRetention.DELETE_ON_CANCELLATION, False),
                                             (ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION, True)])
def test_a_cancelled_jobs_checkpoint_directory_is_deleted_only_when_so_configured(env, tmp_path, retention, kept):
    env.get_checkpoint_config().set_checkpoint_storage_dir(str(tmp_path / "checkpoints"))
    env.get_checkpoint_config().set_externalized_checkpoint_retention(retention)
    source = DataGeneratorSource(lambda i: i, None, RateLimiterStrategy.per_second(100), Types.LONG())
    env.from_source(source, WatermarkStrategy.no_watermarks(), "endless") \
        .map(str, Types.STRING()).sink_to(DiscardingSink())
    client = env.execute_async("cancelled")
    directory = tmp_path / "checkpoints" / "cancelled"
    deadline = time.monotonic() + 120
    while not (directory / "commits").exists() or not os.listdir(directory / "commits"):
        assert time.monotonic() < deadline, "no micro-batch committed within 120 s"
        time.sleep(0.2)
    client.cancel().result(60)
    assert directory.exists() == kept


@pytest.mark.slow
def test_collect_delivers_each_record_once_across_restarts(env, tmp_path):
    env.set_parallelism(2)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(2, 0))
    counter = str(tmp_path / "failures")
    stream = env.generate_sequence(1, 400).map(_FailTimes(counter, 1, poison=300), Types.STRING())
    with stream.execute_and_collect("collected") as results:
        values = list(results)
    assert _failures(counter) == 1
    assert sorted(values, key=int) == [str(i) for i in range(1, 401)]  # the replayed batch's delivered part skipped
