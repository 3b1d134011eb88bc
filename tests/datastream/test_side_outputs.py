"""Side outputs end to end on Spark, the PyFlink way: a function yields ``(OutputTag, value)``
(or calls ``ctx.output``) and the job reads the tag with ``get_side_output``."""
from __future__ import annotations

import re

from kindling.common import Types, WatermarkStrategy
from kindling.common.watermark_strategy import TimestampAssigner
from kindling.datastream import OutputTag
from kindling.datastream.functions import (
    KeyedProcessFunction, ProcessAllWindowFunction, ProcessFunction, ProcessWindowFunction,
)
from kindling.datastream.state import ReducingStateDescriptor
from kindling.datastream.window import TumblingEventTimeWindows

SIDE = OutputTag("side", Types.INT())


class YieldToSide(ProcessFunction):
    """Yields the element's first field to the main output and its second to SIDE."""

    def process_element(self, value, ctx):
        yield value[0]
        yield SIDE, value[1]


class DoubleToSide(ProcessFunction):
    def process_element(self, value, ctx):
        yield value
        yield SIDE, value * 2


ROWS = [("a", 0), ("b", 1), ("c", 2)]
ROW_TYPE = Types.ROW([Types.STRING(), Types.INT()])


def collect_two(env, main, side):
    """Runs one job writing ``main`` and ``side`` to two collecting sinks."""
    tagged = main.map(lambda v: ("main", v)).union(side.map(lambda v: ("side", v)))
    out = tagged.execute_and_collect(limit=1000)
    return sorted(v for t, v in out if t == "main"), sorted(v for t, v in out if t == "side")


def test_process_function_yields_to_a_side_output(any_env):
    any_env.set_parallelism(2)
    main = any_env.from_collection(ROWS, type_info=ROW_TYPE).process(YieldToSide(), output_type=Types.STRING())
    assert collect_two(any_env, main, main.get_side_output(SIDE)) == (["a", "b", "c"], [0, 1, 2])


def test_side_output_of_a_process_chained_after_a_map(any_env):
    main = (any_env.from_collection(ROWS, type_info=ROW_TYPE).map(lambda e: (e[0], e[1] + 1))
            .process(YieldToSide(), output_type=Types.STRING()))
    assert collect_two(any_env, main, main.get_side_output(SIDE)) == (["a", "b", "c"], [1, 2, 3])


def test_several_side_outputs_and_ctx_output(any_env):
    words = OutputTag("words", Types.STRING())

    class Three(ProcessFunction):
        def process_element(self, value, ctx):
            yield value[0]
            yield SIDE, value[1]
            ctx.output(words, value[0] + str(value[1]))

    main = any_env.from_collection(ROWS, type_info=ROW_TYPE).process(Three(), output_type=Types.STRING())
    tagged = (main.map(lambda v: (0, v)).union(main.get_side_output(SIDE).map(lambda v: (1, v)))
              .union(main.get_side_output(words).map(lambda v: (2, v))))
    out = tagged.execute_and_collect(limit=100)
    assert [sorted(v for t, v in out if t == i) for i in range(3)] == [["a", "b", "c"], [0, 1, 2], ["a0", "b1", "c2"]]


def test_side_output_read_with_execute_and_collect(any_env):
    ds = any_env.from_collection([1, 2, 3], Types.INT()).process(DoubleToSide())
    with ds.get_side_output(SIDE).execute_and_collect() as it:
        assert sorted(it) == [2, 4, 6]


def test_keyed_side_output_is_not_in_the_main_output(any_env):
    any_env.set_parallelism(2)

    class RunningSum(KeyedProcessFunction):
        def open(self, runtime_context):
            self.sum = runtime_context.get_reducing_state(ReducingStateDescriptor("sum", lambda a, b: a + b, Types.INT()))

        def process_element(self, value, ctx):
            yield value[1]
            self.sum.add(value[1])
            yield SIDE, self.sum.get()

    data = [("a", 1), ("b", 2), ("a", 3), ("b", 4)]
    main = any_env.from_collection(data, type_info=ROW_TYPE).key_by(lambda e: e[0]).process(
        RunningSum(), output_type=Types.INT())
    assert collect_two(any_env, main, main.get_side_output(SIDE)) == ([1, 2, 3, 4], [1, 2, 4, 6])
    # read alone, with execute_and_collect
    main = any_env.from_collection(data, type_info=ROW_TYPE).key_by(lambda e: e[0]).process(
        RunningSum(), output_type=Types.INT())
    assert sorted(main.get_side_output(SIDE).execute_and_collect(limit=10)) == [1, 2, 4, 6]


def test_a_tag_read_twice(any_env):
    ds = any_env.from_collection([1, 2, 3], Types.INT()).process(DoubleToSide(), output_type=Types.INT())
    # equal tags from two OutputTag objects, read twice from one operator
    first = ds.get_side_output(OutputTag("side", Types.INT())).map(lambda v: ("first", v))
    second = ds.get_side_output(OutputTag("side", Types.INT())).map(lambda v: ("second", v))
    # the same tag from a second operator
    third = ds.map(lambda v: v * 2).process(DoubleToSide()).get_side_output(SIDE).map(lambda v: ("third", v))
    out = first.union(second, third).execute_and_collect(limit=100)
    assert sorted(out) == [("first", 2), ("first", 4), ("first", 6), ("second", 2), ("second", 4), ("second", 6),
                           ("third", 4), ("third", 8), ("third", 12)]


def test_a_tag_read_twice_by_separate_sinks(any_env, capsys):
    ds = any_env.from_collection([1, 2], Types.INT()).key_by(lambda v: v).process(_KeyedDouble())
    ds.get_side_output(SIDE).print("one")
    ds.get_side_output(SIDE).print("two")
    ds.map(lambda v: -v).print("main")
    any_env.execute("tag twice")
    lines = [re.sub(r"^(\w+)(:\d+)?> ", r"\1> ", line) for line in capsys.readouterr().out.splitlines()]
    assert sorted(lines) == ["main> -1", "main> -2", "one> 2", "one> 4",
                                                           "two> 2", "two> 4"]


class _KeyedDouble(KeyedProcessFunction):
    def process_element(self, value, ctx):
        yield value
        yield SIDE, value * 2


def test_without_side_outputs_a_yielded_pair_is_an_element(any_env):
    # PyFlink 2.3 prints (OutputTag, value) pairs in the main output of an operator whose side
    # outputs the job does not read; a side output that is not read is dropped (Flink).
    out = any_env.from_collection([1], Types.INT()).process(DoubleToSide()).execute_and_collect(limit=10)
    assert sorted(out, key=str) == [(SIDE, 2), 1]
    out = any_env.from_collection([1], Types.INT()).key_by(lambda v: v).process(_KeyedDouble()).execute_and_collect(
        limit=10)
    assert sorted(out, key=str) == [(SIDE, 2), 1]
    other = OutputTag("other", Types.INT())
    ds = any_env.from_collection([1], Types.INT()).process(DoubleToSide())
    ds.get_side_output(other).print()
    assert ds.execute_and_collect(limit=10) == [1]


def test_process_window_functions_yield_to_side_outputs(any_env):
    any_env.set_parallelism(2)
    small = OutputTag("small", Types.INT())

    class Split(ProcessWindowFunction):
        def process(self, key, context, elements):
            values = [e[1] for e in elements]
            for v in values:
                if v < 3:
                    yield small, v
                else:
                    context.output(SIDE, v)
            yield key, context.window().start, len(values)

    class SplitAll(ProcessAllWindowFunction):
        def process(self, context, elements):
            yield small, -len(list(elements))
            yield "all", context.window().start

    data = [("a", 1), ("b", 2), ("a", 3), ("b", 14), ("a", 15)]
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        _MillisAssigner())
    ds = any_env.from_collection(data).assign_timestamps_and_watermarks(strategy)
    keyed = ds.key_by(lambda e: e[0]).window(TumblingEventTimeWindows.of(_ms(10))).process(Split())
    all_windows = ds.window_all(TumblingEventTimeWindows.of(_ms(10))).process(SplitAll())
    tagged = (keyed.map(lambda v: ("main", v)).union(keyed.get_side_output(small).map(lambda v: ("small", v)))
              .union(keyed.get_side_output(SIDE).map(lambda v: ("side", v)))
              .union(all_windows.map(lambda v: ("all", v)))
              .union(all_windows.get_side_output(small).map(lambda v: ("all-small", v))))
    out = tagged.execute_and_collect(limit=100)

    def of(t):
        return sorted((v for k, v in out if k == t), key=str)

    assert of("main") == [("a", 0, 2), ("a", 10, 1), ("b", 0, 1), ("b", 10, 1)]
    assert of("small") == [1, 2]
    assert of("side") == [14, 15, 3]
    assert of("all") == [("all", 0), ("all", 10)]
    assert sorted(of("all-small")) == [-3, -2]


def _ms(n):
    from kindling.common import Time

    return Time.milliseconds(n)


class _MillisAssigner(TimestampAssigner):
    """Timestamps are the second field, in ms."""

    def extract_timestamp(self, value, record_timestamp):
        return value[1]
