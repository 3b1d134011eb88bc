"""Where a function's outputs go (main or side output), and keyed map/flat_map/filter, in the
runtime operators without Spark."""
from __future__ import annotations

import cloudpickle
import pytest

from kindling.common.typeinfo import Types
from kindling.datastream.functions import (
    FilterFunction, FlatMapFunction, KeyedProcessFunction, MapFunction, ProcessFunction,
    ProcessWindowFunction,
)
from kindling.datastream.output_tag import OutputTag
from kindling.datastream.state import ValueStateDescriptor
from kindling.datastream.window import TumblingEventTimeWindows
from kindling.runtime.chain import ChainNode, Record, build_chain
from kindling.runtime.keyed_functions import FilterProcessFunction, FlatMapProcessFunction, MapProcessFunction
from kindling.runtime.keyed_operator import KeyedProcessOperator
from kindling.runtime.task_info import TaskInfo
from kindling.runtime.window import CONTENTS_LIST, WindowOperator
from kindling.testing import KeyedOperatorTestHarness, KeyedProcessFunctionTestHarness, ProcessFunctionTestHarness

SIDE = OutputTag("side", Types.INT())
OTHER = OutputTag("other", Types.INT())


class YieldsBoth(KeyedProcessFunction):
    def process_element(self, value, ctx):
        yield value
        yield SIDE, value * 10
        ctx.output(OTHER, -value)


def keyed_harness(has_side_output: bool) -> KeyedOperatorTestHarness:
    op = KeyedProcessOperator(YieldsBoth())
    op.has_side_output = has_side_output
    return KeyedOperatorTestHarness(op, lambda v: v % 2)


def test_keyed_yielded_pair_is_a_side_output_when_side_outputs_are_read():
    with keyed_harness(True) as h:
        h.process_elements([1, 2])
        assert h.extract_output_values() == [1, 2]
        assert h.get_side_output_values(SIDE) == [10, 20]
        assert h.get_side_output_values(OTHER) == [-1, -2]


def test_keyed_yielded_pair_is_an_element_when_no_side_output_is_read():
    # PyFlink: an operator without side outputs emits a yielded (tag, value) pair as an element
    with keyed_harness(False) as h:
        h.process_elements([1])
        assert h.extract_output_values() == [1, (SIDE, 10)]
        assert h.get_side_output_values(OTHER) == [-1]  # ctx.output always names a side output


def test_has_side_output_survives_pickling():
    op = KeyedProcessOperator(YieldsBoth())
    op.has_side_output = False
    assert cloudpickle.loads(cloudpickle.dumps(op)).has_side_output is False
    window = WindowOperator(TumblingEventTimeWindows.of(10), contents=CONTENTS_LIST, window_function=Split())
    window.has_side_output = False
    assert cloudpickle.loads(cloudpickle.dumps(window)).has_side_output is False


class Split(ProcessWindowFunction):
    def process(self, key, ctx, elements):
        for e in elements:
            yield SIDE, e
            ctx.output(OTHER, -e)
        yield key, ctx.window().start


@pytest.mark.parametrize("has_side_output", [True, False])
def test_window_function_side_outputs(has_side_output):
    op = WindowOperator(TumblingEventTimeWindows.of(10), contents=CONTENTS_LIST, window_function=Split())
    op.has_side_output = has_side_output
    with KeyedOperatorTestHarness(op, lambda v: "k") as h:
        h.process_element(3, 3)
        h.process_element(4, 4)
        h.end_input()
        assert h.get_side_output_values(OTHER) == [-3, -4]
        if has_side_output:
            assert h.extract_output_values() == [("k", 0)]
            assert h.get_side_output_values(SIDE) == [3, 4]
        else:
            assert h.extract_output_values() == [(SIDE, 3), (SIDE, 4), ("k", 0)]


class ChainSplit(ProcessFunction):
    def process_element(self, value, ctx):
        yield value
        yield SIDE, value * 10
        ctx.output(OTHER, -value)


def run_chain(side_children: dict, side_exits: dict, values: list) -> dict:
    """Pushes ``values`` through a process node; returns what each exit received."""
    got: dict = {0: [], 1: [], 2: []}
    pushers = {i: got[i].append for i in got}
    node = ChainNode(uid=f"test/{id(side_children)}", name="Process", operation="process",
                     function=ChainSplit(), exits=[0], side_children=side_children, side_exits=side_exits)
    push = build_chain(node, pushers, Record(), TaskInfo("Process"), {})
    for v in values:
        push(v)
    return got


def test_chained_process_routes_yielded_pairs_by_tag():
    double = ChainNode(uid="test/double", name="Map", operation="map", function=lambda v: v * 2, exits=[2])
    got = run_chain({"side": [double]}, {"side": [1], "other": [1]}, [1, 2])
    assert got[0] == [1, 2]
    assert sorted(got[1]) == [-2, -1, 10, 20]  # one exit for two tags: both reach it
    assert got[2] == [20, 40]  # and the chained consumer of "side" too


def test_chained_process_without_side_outputs_emits_pairs_as_elements():
    got = run_chain({}, {}, [1])
    assert got[0] == [1, (SIDE, 10)]


def test_chained_process_drops_side_outputs_no_one_reads():
    got = run_chain({}, {"other": [1]}, [1])  # as Flink: "side" has no consumer
    assert got[0] == [1]
    assert got[1] == [-1]


def test_ctx_output_needs_an_output_tag():
    class Bad(ProcessFunction):
        def process_element(self, value, ctx):
            ctx.output("side", value)

    with ProcessFunctionTestHarness(Bad()) as h:
        with pytest.raises(TypeError, match="output\\(\\) expects an OutputTag, got 'side'"):
            h.process_element(1)


# -- keyed map / flat_map / filter ----------------------------------------------------------


class CountingMap(MapFunction):
    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.INT()))
        self.task = runtime_context.get_task_name()

    def map(self, value):
        n = (self.count.value() or 0) + 1
        self.count.update(n)
        return value, n, self.task

    def close(self):
        self.closed = True


def test_keyed_map_has_state_per_key_and_the_runtime_context():
    fn = CountingMap()
    with KeyedProcessFunctionTestHarness(MapProcessFunction(fn), lambda v: v[0], name="Map") as h:
        h.process_elements([("a", 1), ("b", 2), ("a", 3)])
        assert h.extract_output_values() == [(("a", 1), 1, "Map"), (("b", 2), 1, "Map"), (("a", 3), 2, "Map")]
    assert fn.closed


def test_keyed_flat_map_and_filter_with_state_and_plain_callables():
    class Pairs(FlatMapFunction):
        def open(self, runtime_context):
            self.last = runtime_context.get_state(ValueStateDescriptor("last", Types.INT()))

        def flat_map(self, value):
            if self.last.value() is not None:
                yield self.last.value(), value
            self.last.update(value)

    class EveryOther(FilterFunction):
        def open(self, runtime_context):
            self.n = runtime_context.get_state(ValueStateDescriptor("n", Types.INT()))

        def filter(self, value):
            n = (self.n.value() or 0) + 1
            self.n.update(n)
            return n % 2 == 1

    data = [1, 2, 3, 4, 5, 6]
    parity = lambda v: v % 2  # noqa: E731
    with KeyedProcessFunctionTestHarness(FlatMapProcessFunction(Pairs()), parity) as h:
        h.process_elements(data)
        assert h.extract_output_values() == [(1, 3), (2, 4), (3, 5), (4, 6)]
    with KeyedProcessFunctionTestHarness(FilterProcessFunction(EveryOther()), parity) as h:
        h.process_elements(data)
        assert h.extract_output_values() == [1, 2, 5, 6]
    with KeyedProcessFunctionTestHarness(FlatMapProcessFunction(lambda v: [v] * v), parity) as h:
        h.process_elements([1, 2])
        assert h.extract_output_values() == [1, 2, 2]
    with KeyedProcessFunctionTestHarness(MapProcessFunction(lambda v: -v), parity) as h:
        h.process_elements([1, 2])
        assert h.extract_output_values() == [-1, -2]


def test_a_timestamp_assigner_stamps_only_its_own_branch():
    from kindling.common import WatermarkStrategy

    seen: dict = {0: [], 1: []}
    record = Record()
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(lambda v, _: v * 100)
    stamped = ChainNode(uid="test/stamp", name="Timestamps", operation="timestamps", function=strategy, exits=[1])
    root = ChainNode(uid="test/root", name="Map", operation="map", function=lambda v: v,
                     children=[stamped], exits=[0])
    push = build_chain(root, {i: (lambda v, i=i: seen[i].append((v, record.timestamp))) for i in seen},
                       record, TaskInfo("Map"), {})
    record.timestamp = 7
    push(1)
    assert seen == {0: [(1, 7)], 1: [(1, 100)]}  # the map's own exit runs after the stamped branch
