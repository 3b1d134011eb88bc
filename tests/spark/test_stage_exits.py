"""Fast tests (no Spark) of how a stage hands elements to sinks on the driver and to file sinks:
``execute_and_collect``'s elements in pickled lists, and text as Flink writes it, a batch at a time."""
from __future__ import annotations

import pickle

import pytest

from kindling.common import Row, Types
from kindling.common.formatting import flink_string, flink_strings
from kindling.runtime.errors import user_error_of
from kindling.spark.exit_buffers import COLLECTED_PER_ROW
from kindling.spark.rows import EXIT
from kindling.spark.stage import StageRun
from kindling.spark.stage_plan import CollectedExit, StagePlan, sink_exit
from kindling.graph.specs import CollectSinkSpec


def _collecting_stage(type_info) -> StageRun:
    exit_plan = sink_exit(CollectSinkSpec(), 0, "Collect", type_info, 2)
    assert isinstance(exit_plan, CollectedExit)
    return StageRun(StagePlan(name="collect", uid="job-exits/1", root_exits=[0], exits=[exit_plan], parallelism=2), 0)


def test_collected_elements_leave_in_pickled_lists_a_row_per_list():
    stage = _collecting_stage(Types.LONG())
    values = list(range(2 * COLLECTED_PER_ROW + 5))
    stage.push_list(values)
    rows = [row for batch in stage.flush() for row in batch.to_pylist()]
    assert len(rows) == 3 and {row[EXIT] for row in rows} == {0}
    assert [v for row in rows for v in pickle.loads(row["x0__f0"])] == values


def test_collected_values_not_fitting_the_declared_type_fail_as_the_declaring_operator():
    stage = _collecting_stage(Types.LONG())
    stage.plan.exits[0].declared_by = "parse"
    stage.push_list([1, "x"])
    with pytest.raises(RuntimeError) as info:  # in a Spark task: the error encoded for the driver
        list(stage.flush())
    error = user_error_of(info.value)
    assert error.operator_name == "parse" and "'x' (str) does not fit" in str(error)


@pytest.mark.parametrize("type_info, values, texts", [
    (None, [1, "a", None, True, [1, 2]], ["1", "a", "None", "True", "[1, 2]"]),
    (Types.STRING(), ["a", "", None], ["a", "", "null"]),
    (Types.LONG(), [1, -2, None], ["1", "-2", "null"]),
    (Types.BOOLEAN(), [True, False, None], ["true", "false", "null"]),
    (Types.DOUBLE(), [1.5, None], ["1.5", "null"]),
    (Types.PICKLED_BYTE_ARRAY(), [{"a": 1}, None], ["{'a': 1}", "None"]),
    (Types.ROW([Types.INT(), Types.STRING()]), [Row(1, "a"), Row(None, "b")], ["+I[1,a]", "+I[None,b]"]),
    (Types.TUPLE([Types.INT(), Types.BOOLEAN()]), [(1, True)], ["(1,true)"]),
    (Types.LIST(Types.INT()), [[1, 2], []], ["[1, 2]", "[]"]),
    (Types.MAP(Types.STRING(), Types.INT()), [{"k": 1}], ["{k=1}"]),
])
def test_a_batch_of_elements_is_written_as_flink_writes_each(type_info, values, texts):
    assert flink_strings(values, type_info) == texts
    assert [flink_string(v, type_info) for v in values] == texts
