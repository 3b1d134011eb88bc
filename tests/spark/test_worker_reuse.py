"""Fast tests (no Spark) of what a reused Python worker keeps between micro-batches and jobs:
metrics of ended jobs, and the rows a keyed stage hands to transformWithState."""
from __future__ import annotations

import pytest

from kindling.common import Types
from kindling.datastream import MapFunction
from kindling.metrics.metricbase import take_updates
from kindling.runtime import lifecycle
from kindling.runtime.chain import opened_function
from kindling.runtime.errors import user_error_of
from kindling.runtime.task_info import TaskInfo
from kindling.spark.rows import EXIT
from kindling.spark.stage import StageRun
from kindling.spark.stage_plan import CountedExit, ExitPlan, PrintExit, StagePlan, StreamExit


class Gauged(MapFunction):
    def open(self, runtime_context):
        runtime_context.get_metrics_group().gauge("level", lambda: 42)

    def map(self, value):
        return value


def test_gauges_of_an_ended_job_stop_reporting_in_the_worker():
    info = TaskInfo("gauged map", 0, 1)
    opened_function("job-gauge-a/1", Gauged(), info)
    assert take_updates()["gauged map.level"] == ("gauge", {0: 42})
    lifecycle.close_job("job-gauge-a")
    assert "gauged map.level" not in take_updates()


def _keyed_stage(*exits: ExitPlan, partition: int = 0) -> StageRun:
    plan = StagePlan(name="keyed", uid="job-rows/2", root_exits=[e.index for e in exits], exits=list(exits),
                     timed_exits={e.index for e in exits}, parallelism=2)
    return StageRun(plan, partition)


def _push(stage: StageRun, values: list) -> None:
    for i, value in enumerate(values):
        stage.push_output(None, value, 1000 + i, None, b"op")


def test_flush_rows_hold_what_flush_encodes_but_its_null_columns():
    values = [(1, "a"), (2, None), (3, "c")]
    stage = _keyed_stage(StreamExit(0, "next", type_info=Types.TUPLE([Types.LONG(), Types.STRING()])),
                         CountedExit(1, "sink", type_info=Types.TUPLE([Types.LONG(), Types.STRING()])))
    _push(stage, values)
    encoded = [row for batch in stage.flush() for row in batch.to_pylist()]
    _push(stage, values)
    rows = list(stage.flush_rows())
    assert [{**dict.fromkeys(encoded[0]), **row} for row in rows] == encoded
    assert rows[3] == {EXIT: 1, "__ts": 1000, "__wm": None, "__ch": b"op"}  # no value columns: nulls left out
    assert list(stage.flush_rows()) == []  # taken


def test_values_not_fitting_the_declared_type_fail_in_flush_rows():
    stage = _keyed_stage(CountedExit(0, "sink", type_info=Types.LONG(), declared_by="parse"))
    _push(stage, ["x"])
    with pytest.raises(RuntimeError) as info:  # in a Spark task: the error encoded for the driver
        list(stage.flush_rows())
    error = user_error_of(info.value)
    assert error.operator_name == "parse" and "'x' (str) does not fit" in str(error)


def test_a_print_line_is_numbered_by_its_instance_without_computing_a_key_subtask(monkeypatch):
    import kindling.spark.exit_buffers as exit_buffers

    calls = []
    monkeypatch.setattr(exit_buffers, "key_subtask", lambda key, *args: calls.append(key) or 0)
    printing = _keyed_stage(PrintExit(0, "Print", print_parallelism=2), partition=1)
    _push(printing, ["v"])
    assert calls == [] and list(printing.flush_rows()) == [
        {EXIT: 0, "x0__f0": "2> v", "__ts": 1000, "__wm": None, "__ch": b"op"}]
