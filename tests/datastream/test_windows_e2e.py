"""End-to-end tests of windows on Spark, in STREAMING and BATCH modes."""
from __future__ import annotations

from kindling.common import Duration, Time, Types, WatermarkStrategy
from kindling.datastream import (
    AggregateFunction,
    EventTimeSessionWindows,
    GlobalWindows,
    OutputTag,
    ProcessWindowFunction,
    RuntimeExecutionMode,
    SlidingEventTimeWindows,
    TumblingEventTimeWindows,
    WindowFunction,
)
from kindling.datastream.state import ValueStateDescriptor
from kindling.datastream.window import CountTrigger, PurgingTrigger

EVENTS = [("a", 1000, 1), ("a", 1500, 2), ("b", 1200, 5), ("a", 2100, 3), ("a", 900, 7), ("b", 5000, 1)]


def events(env, data=EVENTS, out_of_orderness_ms=200, per_element=True):
    """The elements with event times. These tests are about lateness and firing mechanics, so
    by default the watermark moves after every element (Kindling's deterministic option);
    Flink would emit it every 200 ms and a collection this small would see none before its end
    (test_small_collection_sees_no_watermark_before_its_end)."""
    env.get_configuration().set_boolean("kindling.watermark.per-element", per_element)
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(out_of_orderness_ms)) \
        .with_timestamp_assigner(lambda v, _: v[1])
    return env.from_collection(data).assign_timestamps_and_watermarks(strategy)


def streaming(env) -> bool:
    return env.get_runtime_mode() == RuntimeExecutionMode.STREAMING


def test_tumbling_reduce_with_late_side_output(any_env):
    late = OutputTag("late")
    sums = (events(any_env).key_by(lambda v: v[0])
            .window(TumblingEventTimeWindows.of(Time.seconds(1)))
            .side_output_late_data(late)
            .reduce(lambda a, b: (a[0], max(a[1], b[1]), a[2] + b[2])))
    expected = [("a", 1500, 3), ("a", 2100, 3), ("b", 1200, 5), ("b", 5000, 1)]
    if streaming(any_env):
        # a@900 comes after the watermark passed 1899: its window [0, 1000) is gone
        assert sorted(sums.get_side_output(late).execute_and_collect(limit=10)) == [("a", 900, 7)]
    else:
        expected.insert(0, ("a", 900, 7))  # BATCH has no late data
    assert sorted(sums.execute_and_collect(limit=20)) == expected


def test_small_collection_sees_no_watermark_before_its_end(env):
    # As PyFlink 2.3 prints it: the watermark is emitted every 200 ms of processing time, and the
    # collection is read before the first emission, so a@900 is not late.
    sums = (events(env, per_element=False).key_by(lambda v: v[0])
            .window(TumblingEventTimeWindows.of(Time.seconds(1)))
            .reduce(lambda a, b: (a[0], max(a[1], b[1]), a[2] + b[2])))
    assert sorted(sums.execute_and_collect(limit=20)) == [
        ("a", 900, 7), ("a", 1500, 3), ("a", 2100, 3), ("b", 1200, 5), ("b", 5000, 1)]


def test_late_elements_dropped_are_counted(env):
    (events(env).key_by(lambda v: v[0]).window(TumblingEventTimeWindows.of(Time.seconds(1)))
     .reduce(lambda a, b: a).name("tumbling").print())
    result = env.execute()
    assert result.get_accumulator_result("numLateRecordsDropped:tumbling") == 1


def test_allowed_lateness_fires_again(env):
    data = [("a", 1000, 1), ("a", 2500, 1), ("a", 1100, 1)]
    sums = (events(env, data, 0).key_by(lambda v: v[0]).window(TumblingEventTimeWindows.of(Time.seconds(1)))
            .allowed_lateness(2000).reduce(lambda a, b: (a[0], a[1], a[2] + b[2])))
    # [1000, 2000) fires at watermark 2499 with one element, then again with the late one
    assert sorted(sums.execute_and_collect(limit=10)) == [("a", 1000, 1), ("a", 1000, 2), ("a", 2500, 1)]


def test_sliding_aggregate_with_process_window_function(any_env):
    class Count(AggregateFunction):
        def create_accumulator(self):
            return 0

        def add(self, value, acc):
            return acc + 1

        def get_result(self, acc):
            return acc

        def merge(self, a, b):
            return a + b

    class WithWindow(ProcessWindowFunction):
        def process(self, key, context, elements):
            (count,) = elements
            yield key, context.window().start, context.window().end, count

    counts = (events(any_env, out_of_orderness_ms=5000).key_by(lambda v: v[0])
              .window(SlidingEventTimeWindows.of(Time.seconds(2), Time.seconds(1)))
              .aggregate(Count(), WithWindow()))
    out = sorted(counts.execute_and_collect(limit=30))
    assert ("a", 0, 2000, 3) in out and ("a", 1000, 3000, 3) in out and ("a", 2000, 4000, 1) in out
    assert ("b", 4000, 6000, 1) in out and ("b", 5000, 7000, 1) in out


def test_session_windows_merge(any_env):
    data = [("k", 1000, 1), ("k", 1300, 2), ("k", 3000, 3), ("k", 1700, 4)]

    class Collect(WindowFunction):
        def apply(self, key, window, inputs):
            yield key, window.start, window.end, sorted(v[2] for v in inputs)

    sessions = (events(any_env, data, 2000).key_by(lambda v: v[0])
                .window(EventTimeSessionWindows.with_gap(Time.milliseconds(500)))
                .apply(Collect()))
    assert sorted(sessions.execute_and_collect(limit=10)) == [("k", 1000, 2200, [1, 2, 4]), ("k", 3000, 3500, [3])]


def test_process_window_function_state(env):
    class Firings(ProcessWindowFunction):
        def process(self, key, context, elements):
            total = context.global_state().get_state(ValueStateDescriptor("total", Types.INT()))
            total.update((total.value() or 0) + len(list(elements)))
            yield key, context.window().max_timestamp(), total.value(), context.current_watermark() >= 0

    out = (events(env).key_by(lambda v: v[0]).window(TumblingEventTimeWindows.of(Time.seconds(1)))
           .process(Firings()).execute_and_collect(limit=10))
    a = sorted(o for o in out if o[0] == "a")
    assert a == [("a", 1999, 2, True), ("a", 2999, 3, True)]


def test_count_windows_and_window_all(any_env):
    ds = any_env.from_collection(list(range(10)))
    tumbling = ds.key_by(lambda v: v % 2).count_window(3).reduce(lambda a, b: a + b)
    assert sorted(tumbling.execute_and_collect(limit=10)) == [6, 9]  # 0+2+4, 1+3+5; partial windows never fire
    sliding = any_env.from_collection(list(range(6))).key_by(lambda v: 0).count_window(3, 2).reduce(lambda a, b: a + b)
    assert sorted(sliding.execute_and_collect(limit=10)) == [3, 9]  # (0,1,2) after 2 elements... as PyFlink
    total = any_env.from_collection([1, 2, 3]).window_all(GlobalWindows.create()).trigger(
        PurgingTrigger.of(CountTrigger.of(3))).reduce(lambda a, b: a + b)
    assert total.execute_and_collect(limit=5) == [6]


def test_processing_time_windows_in_batch_mode(env):
    from kindling.datastream import ProcessingTimeSessionWindows, SlidingProcessingTimeWindows, TumblingProcessingTimeWindows

    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    ds = env.from_collection([("a", 1), ("a", 2), ("b", 3)])
    for assigner in (TumblingProcessingTimeWindows.of(Time.hours(1)),
                     ProcessingTimeSessionWindows.with_gap(Time.hours(1))):
        out = ds.key_by(lambda v: v[0]).window(assigner).reduce(lambda x, y: (x[0], x[1] + y[1]))
        # BATCH fires every processing-time timer at the end of each key
        assert sorted(out.execute_and_collect(limit=10)) == [("a", 3), ("b", 3)]
    sliding = ds.key_by(lambda v: v[0]).window(SlidingProcessingTimeWindows.of(Time.hours(2), Time.hours(1)))
    assert sorted(sliding.reduce(lambda x, y: (x[0], x[1] + y[1])).execute_and_collect(limit=10)) == \
        [("a", 3), ("a", 3), ("b", 3), ("b", 3)]


def test_triggers_and_all_window_functions(any_env):
    from kindling.datastream import AllWindowFunction, ProcessAllWindowFunction, Trigger, TriggerResult
    from kindling.datastream.window import ContinuousEventTimeTrigger

    data = [("a", 100, 1), ("a", 300, 2), ("a", 700, 3), ("a", 1200, 4)]

    class EveryOther(Trigger):
        """Fires on every second element of a window, counting in partitioned state."""

        def on_element(self, element, timestamp, window, ctx):
            seen = ctx.get_partitioned_state(ValueStateDescriptor("seen", Types.INT()))
            seen.update((seen.value() or 0) + 1)
            return TriggerResult.FIRE if seen.value() % 2 == 0 else TriggerResult.CONTINUE

        def on_event_time(self, time, window, ctx):
            return TriggerResult.CONTINUE

        def on_processing_time(self, time, window, ctx):
            return TriggerResult.CONTINUE

        def on_merge(self, window, ctx):
            pass

        def clear(self, window, ctx):
            ctx.get_partitioned_state(ValueStateDescriptor("seen", Types.INT())).clear()

    class Sum(AllWindowFunction):
        def apply(self, window, inputs):
            yield window.start, sum(v[2] for v in inputs)

    custom = (events(any_env, data).window_all(TumblingEventTimeWindows.of(Time.seconds(10)))
              .trigger(EveryOther()).apply(Sum()))
    assert custom.execute_and_collect(limit=10) == [(0, 3), (0, 10)]

    class Count(ProcessAllWindowFunction):
        def process(self, context, elements):
            yield context.window().end, len(list(elements))

    continuous = (events(any_env, data, 5000).window_all(TumblingEventTimeWindows.of(Time.seconds(2)))
                  .trigger(ContinuousEventTimeTrigger.of(Time.milliseconds(500))).process(Count()))
    out = continuous.execute_and_collect(limit=10)
    assert out[-1] == (2000, 4) and all(end == 2000 for end, _ in out)


def test_legacy_time_window(any_env):
    sums = events(any_env).key_by(lambda v: v[0]).time_window(Time.seconds(10)).reduce(
        lambda a, b: (a[0], 0, a[2] + b[2]))
    out = dict((k, v) for k, _, v in sums.execute_and_collect(limit=10))
    assert out == {"a": 13, "b": 6}  # a@900 is behind the watermark but its window [0, 10000) is open


def test_offsets_dynamic_gaps_and_never_trigger(any_env):
    from kindling.datastream import DynamicEventTimeSessionWindows
    from kindling.datastream.window import NeverTrigger

    data = [("k", 1000, 1), ("k", 1400, 2), ("k", 2600, 3)]
    offset = (events(any_env, data, 2000).key_by(lambda v: v[0])
              .window(TumblingEventTimeWindows.of(Time.seconds(1), Time.milliseconds(500)))
              .reduce(lambda a, b: (a[0], min(a[1], b[1]), a[2] + b[2])))
    assert sorted(offset.execute_and_collect(limit=10)) == [("k", 1000, 3), ("k", 2600, 3)]  # [500,1500), [2500,3500)
    dynamic = (events(any_env, data, 2000).key_by(lambda v: v[0])
               .window(DynamicEventTimeSessionWindows.with_dynamic_gap(lambda e: 500 if e[2] < 2 else 100))
               .reduce(lambda a, b: (a[0], a[1], a[2] + b[2])))
    assert sorted(dynamic.execute_and_collect(limit=10)) == [("k", 1000, 3), ("k", 2600, 3)]
    never = events(any_env, data).window_all(GlobalWindows.create()).trigger(NeverTrigger()).reduce(lambda a, b: a)
    assert never.execute_and_collect(limit=10) == []


def test_processing_time_sessions_and_continuous_trigger_in_batch(env):
    from kindling.datastream import DynamicProcessingTimeSessionWindows, ProcessingTimeSessionWindows
    from kindling.datastream.window import ContinuousProcessingTimeTrigger

    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    ds = env.from_collection([("a", 1), ("a", 2), ("b", 3)])
    for assigner in (DynamicProcessingTimeSessionWindows.with_dynamic_gap(lambda e: 60_000),
                     ProcessingTimeSessionWindows.with_dynamic_gap(lambda e: 60_000)):
        out = ds.key_by(lambda v: v[0]).window(assigner).reduce(lambda x, y: (x[0], x[1] + y[1]))
        assert sorted(out.execute_and_collect(limit=10)) == [("a", 3), ("b", 3)]
    continuous = (ds.key_by(lambda v: v[0]).window(GlobalWindows.create())
                  .trigger(ContinuousProcessingTimeTrigger.of(Time.hours(1))).reduce(lambda x, y: (x[0], x[1] + y[1])))
    # BATCH fires every pending processing-time timer at the end of the key, as Flink does
    assert sorted(continuous.execute_and_collect(limit=10)) == [("a", 3), ("b", 3)]


def test_keys_pyflink_takes_lists_and_dicts(any_env):
    # PyFlink keys by the pickled key, so a list or a dict is a key as good as any
    ds = any_env.from_collection(list(range(9)))
    by_list = ds.key_by(lambda x: [x % 3]).count_window(3).reduce(lambda a, b: a + b)
    assert sorted(by_list.execute_and_collect(limit=10)) == [9, 12, 15]
    by_dict = ds.key_by(lambda x: {"parity": x % 2}).count_window(4).reduce(lambda a, b: a + b)
    assert sorted(by_dict.execute_and_collect(limit=10)) == [12, 16]  # 0+2+4+6, 1+3+5+7
