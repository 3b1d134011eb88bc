"""End-to-end tests of keyed state, timers, watermarks and side outputs on Spark."""
from __future__ import annotations

import pytest

from kindling.common import Duration, Row, Time, Types, WatermarkStrategy
from kindling.common.watermark_strategy import TimestampAssigner
from kindling.datastream import KeyedProcessFunction, OutputTag, TimeDomain
from kindling.datastream.state import (
    AggregatingStateDescriptor,
    ListStateDescriptor,
    MapStateDescriptor,
    ReducingStateDescriptor,
    StateTtlConfig,
    ValueStateDescriptor,
)
from kindling.datastream.functions import AggregateFunction, KeySelector

MIN_WM = -(2**63)
MAX_WM = 2**63 - 1


def timestamped(env, elements, strategy=None):
    env.get_configuration().set_boolean("kindling.watermark.per-element", True)  # stamps as the tests spell them
    strategy = strategy or WatermarkStrategy.for_monotonous_timestamps()
    return env.from_collection(elements).assign_timestamps_and_watermarks(
        strategy.with_timestamp_assigner(lambda v, _: v[1]))


def test_reduce_and_aggregations(any_env):
    t = Types.TUPLE([Types.STRING(), Types.INT(), Types.INT()])
    data = [("a", 3, 1), ("b", 1, 2), ("a", 1, 3), ("a", 2, 4)]
    ks = lambda: any_env.from_collection(data, type_info=t).key_by(lambda v: v[0])
    streaming = any_env.get_runtime_mode().name == "STREAMING"

    def per_key(result):
        out = {}
        for v in result:
            out.setdefault(v[0], []).append(v)
        return out if streaming else {k: vs[-1:] for k, vs in out.items()}

    def expect(a, b):
        return {"a": a if streaming else a[-1:], "b": b if streaming else b[-1:]}

    assert per_key(ks().reduce(lambda x, y: (x[0], x[1] + y[1], y[2])).execute_and_collect(limit=20)) == expect(
        [("a", 3, 1), ("a", 4, 3), ("a", 6, 4)], [("b", 1, 2)])
    assert per_key(ks().sum(1).execute_and_collect(limit=20)) == expect(
        [("a", 3, 1), ("a", 4, 1), ("a", 6, 1)], [("b", 1, 2)])
    assert per_key(ks().min(1).execute_and_collect(limit=20)) == expect(
        [("a", 3, 1), ("a", 1, 1), ("a", 1, 1)], [("b", 1, 2)])
    assert per_key(ks().max_by(1).execute_and_collect(limit=20)) == expect(
        [("a", 3, 1), ("a", 3, 1), ("a", 3, 1)], [("b", 1, 2)])
    assert per_key(ks().min_by(1).execute_and_collect(limit=20)) == expect(
        [("a", 3, 1), ("a", 1, 3), ("a", 1, 3)], [("b", 1, 2)])


def test_aggregation_by_field_name(any_env):
    rows = [Row(k="x", n=1), Row(k="x", n=5), Row(k="y", n=2)]
    t = Types.ROW_NAMED(["k", "n"], [Types.STRING(), Types.INT()])
    out = any_env.from_collection(rows, type_info=t).key_by(lambda r: r.k).max("n").execute_and_collect(limit=10)
    assert Row(k="x", n=5) in out and Row(k="y", n=2) in out


def test_all_state_kinds(any_env):
    class Sum(AggregateFunction):
        def create_accumulator(self):
            return 0

        def add(self, value, acc):
            return acc + value

        def get_result(self, acc):
            return acc

    class AllStates(KeyedProcessFunction):
        def open(self, ctx):
            self.value = ctx.get_state(ValueStateDescriptor("v", Types.INT()))
            self.list = ctx.get_list_state(ListStateDescriptor("l", Types.INT()))
            self.map = ctx.get_map_state(MapStateDescriptor("m", Types.INT(), Types.STRING()))
            self.reducing = ctx.get_reducing_state(ReducingStateDescriptor("r", lambda a, b: a * b, Types.INT()))
            self.agg = ctx.get_aggregating_state(AggregatingStateDescriptor("g", Sum(), Types.INT()))

        def process_element(self, value, ctx):
            n = value[1]
            self.value.update((self.value.value() or 0) + 1)
            self.list.add(n)
            self.map.put(n, str(n))
            self.reducing.add(n)
            self.agg.add(n)
            yield (ctx.get_current_key(), self.value.value(), list(self.list.get()),
                   sorted(self.map.keys()), self.reducing.get(), self.agg.get())

    out = any_env.from_collection([("a", 2), ("a", 3), ("b", 4)]).key_by(lambda v: v[0]).process(
        AllStates()).execute_and_collect(limit=10)
    assert sorted(out) == [("a", 1, [2], [2], 2, 2), ("a", 2, [2, 3], [2, 3], 6, 5), ("b", 1, [4], [4], 4, 4)]


class TimerProbe(KeyedProcessFunction):
    """Registers an event-time timer 100 ms after each element and reports what it sees."""

    def process_element(self, value, ctx):
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 100)
        yield ("element", ctx.get_current_key(), value[1], ctx.timestamp(), ctx.timer_service().current_watermark())

    def on_timer(self, timestamp, ctx):
        assert ctx.time_domain() == TimeDomain.EVENT_TIME
        yield ("timer", ctx.get_current_key(), timestamp, ctx.timestamp(), ctx.timer_service().current_watermark())


def test_event_time_timers_follow_the_watermark(env):
    ds = timestamped(env, [("a", 1000), ("b", 1050), ("a", 1200), ("b", 1500)])
    out = ds.key_by(lambda v: v[0]).process(TimerProbe()).execute_and_collect(limit=20)
    by_key = {k: [o for o in out if o[1] == k] for k in "ab"}
    # Each element sees the watermark its source emitted before it (max timestamp so far - 1).
    assert by_key["a"] == [
        ("element", "a", 1000, 1000, MIN_WM),
        ("element", "a", 1200, 1200, 1049),
        ("timer", "a", 1100, 1100, MAX_WM),  # every pending timer fires at the end of the input
        ("timer", "a", 1300, 1300, MAX_WM),
    ]
    assert by_key["b"] == [
        ("element", "b", 1050, 1050, 999),
        ("timer", "b", 1150, 1150, 1199),  # the watermark passed it before b@1500
        ("element", "b", 1500, 1500, 1199),
        ("timer", "b", 1600, 1600, MAX_WM),
    ]


def test_batch_mode_fires_timers_at_end_of_key(env):
    from kindling.datastream import RuntimeExecutionMode

    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    ds = timestamped(env, [("a", 1200), ("a", 1000), ("b", 1050)])
    out = ds.key_by(lambda v: v[0]).process(TimerProbe()).execute_and_collect(limit=20)
    assert [o for o in out if o[1] == "a"] == [
        ("element", "a", 1000, 1000, MIN_WM),  # sorted by timestamp, no watermark while processing
        ("element", "a", 1200, 1200, MIN_WM),
        ("timer", "a", 1100, 1100, MAX_WM),
        ("timer", "a", 1300, 1300, MAX_WM),
    ]


def test_bounded_out_of_orderness_late_elements_reach_the_function(env):
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(100))
    ds = timestamped(env, [("a", 1000), ("a", 2000), ("a", 1500)], strategy)
    out = ds.key_by(lambda v: v[0]).process(TimerProbe()).execute_and_collect(limit=20)
    elements = [o for o in out if o[0] == "element"]
    # 1500 is behind the watermark (1899) and is still processed, as in Flink
    assert elements == [("element", "a", 1000, 1000, MIN_WM), ("element", "a", 2000, 2000, 899),
                        ("element", "a", 1500, 1500, 1899)]
    timers = [o[2] for o in out if o[0] == "timer"]
    assert timers == [1100, 1600, 2100]


def test_timestamp_assigner_class_and_from_source_strategy(any_env):
    from kindling.datastream.connectors import NumberSequenceSource

    class Assigner(TimestampAssigner):
        def extract_timestamp(self, value, record_timestamp):
            return value * 10

    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(Assigner()) \
        .with_idleness(Duration.of_seconds(1))
    ds = any_env.from_source(NumberSequenceSource(1, 3), strategy, "numbers")

    class Ts(KeyedProcessFunction):
        def process_element(self, value, ctx):
            yield value, ctx.timestamp()

    assert sorted(ds.key_by(lambda v: v % 2).process(Ts()).execute_and_collect(limit=10)) == [(1, 10), (2, 20), (3, 30)]


def test_no_watermarks_timers_fire_at_end(any_env):
    class OnEnd(KeyedProcessFunction):
        def process_element(self, value, ctx):
            ctx.timer_service().register_event_time_timer(5)

        def on_timer(self, timestamp, ctx):
            yield ctx.get_current_key(), timestamp

    ds = any_env.from_collection(["x", "y", "x"])
    assert sorted(ds.key_by(lambda v: v).process(OnEnd()).execute_and_collect(limit=10)) == [("x", 5), ("y", 5)]


def test_processing_time_timers_and_delete(any_env):
    class Proc(KeyedProcessFunction):
        def process_element(self, value, ctx):
            now = ctx.timer_service().current_processing_time()
            assert now > 1_600_000_000_000
            ctx.timer_service().register_processing_time_timer(now - 1)
            ctx.timer_service().register_event_time_timer(7)
            ctx.timer_service().delete_event_time_timer(7)

        def on_timer(self, timestamp, ctx):
            yield ctx.get_current_key(), ctx.time_domain()

    out = any_env.from_collection([1, 2]).key_by(lambda v: v).process(Proc()).execute_and_collect(limit=10)
    assert sorted(out, key=str) == [(1, TimeDomain.PROCESSING_TIME), (2, TimeDomain.PROCESSING_TIME)]


def test_keyed_side_outputs_and_chained_maps(any_env):
    odd = OutputTag("odd", Types.INT())

    class Split(KeyedProcessFunction):
        def process_element(self, value, ctx):
            if value % 2:
                ctx.output(odd, value)
            else:
                yield value

    main = any_env.from_collection([1, 2, 3, 4], type_info=Types.INT()).key_by(lambda v: v % 2).process(
        Split(), output_type=Types.INT())
    side = main.get_side_output(odd).map(lambda v: v * 100)
    assert sorted(side.execute_and_collect(limit=10)) == [100, 300]
    assert sorted(main.map(lambda v: -v).execute_and_collect(limit=10)) == [-4, -2]


def test_state_ttl(any_env):
    class Ttl(KeyedProcessFunction):
        def open(self, ctx):
            desc = ValueStateDescriptor("seen", Types.BOOLEAN())
            desc.enable_time_to_live(StateTtlConfig.new_builder(Time.milliseconds(1)).build())
            self.seen = ctx.get_state(desc)
            self.forever = ctx.get_state(ValueStateDescriptor("forever", Types.BOOLEAN()))

        def process_element(self, value, ctx):
            import time

            before = (self.seen.value(), self.forever.value())
            self.seen.update(True)
            self.forever.update(True)
            time.sleep(0.01)
            yield before

    out = any_env.from_collection(["k", "k"]).key_by(lambda v: v).process(Ttl()).execute_and_collect(limit=10)
    # processing time is read once per batch on Spark: the TTL'd value may or may not have expired yet
    assert out[0] == (None, None) and out[1][1] is True


def test_runtime_context_in_keyed_function(any_env):
    any_env.get_config().set_global_job_parameters({"greeting": "hi"})

    class Ctx(KeyedProcessFunction):
        def open(self, ctx):
            self.facts = (ctx.get_task_name(), ctx.get_job_parameter("greeting", None),
                          ctx.get_number_of_parallel_subtasks())
            self.index = ctx.get_index_of_this_subtask()

        def process_element(self, value, ctx):
            yield self.facts + (0 <= self.index < 2,)

    out = any_env.from_collection([1]).key_by(lambda v: v).process(Ctx()).name("ctx probe").execute_and_collect(limit=5)
    assert out == [("ctx probe", "hi", any_env.get_parallelism(), True)]


def test_key_selector_class_and_keyed_stateless_ops(any_env):
    class First(KeySelector):
        def get_key(self, value):
            return value[0]

    ks = any_env.from_collection([("a", 1), ("b", 2)]).key_by(First())
    assert sorted(ks.map(lambda v: v[1]).execute_and_collect(limit=5)) == [1, 2]
    assert ks.filter(lambda v: v[1] > 1).execute_and_collect(limit=5) == [("b", 2)]


def test_errors_name_the_operator(any_env):
    from kindling.runtime.errors import UserFunctionError

    class Boom(KeyedProcessFunction):
        def process_element(self, value, ctx):
            raise ValueError(f"bad value {value}")

    any_env.from_collection([1]).key_by(lambda v: v).process(Boom()).name("exploding").print()
    with pytest.raises(UserFunctionError) as info:
        any_env.execute()
    assert info.value.operator_name == "exploding"
    assert "ValueError: bad value 1" in str(info.value)
    assert "process_element" in info.value.user_traceback


def test_unhashable_key_and_wrong_state_type(any_env):
    from kindling.runtime.errors import UserFunctionError

    any_env.from_collection([[1]]).key_by(lambda v: v).reduce(lambda a, b: a).print()
    any_env.execute()  # a list is a key, as in PyFlink

    class WrongType(KeyedProcessFunction):
        def open(self, ctx):
            self.count = ctx.get_state(ValueStateDescriptor("count", Types.INT()))

        def process_element(self, value, ctx):
            self.count.update("not a number")

    any_env.from_collection([1]).key_by(lambda v: v).process(WrongType()).name("typed").print()
    with pytest.raises(UserFunctionError, match="count") as info:
        any_env.execute()
    assert info.value.operator_name == "typed"


def test_non_picklable_or_mistyped_key(env):
    import threading

    from kindling.runtime.errors import UserFunctionError

    env.from_collection([1]).key_by(lambda v: threading.Lock()).process(TimerProbe()).print()
    with pytest.raises(UserFunctionError, match="returned a key that cannot be pickled") as info:
        env.execute()
    assert info.value.operator_name == "KeyBy"
    env.from_collection([1]).key_by(lambda v: str(v), key_type=Types.INT()).process(TimerProbe()).print()
    with pytest.raises(UserFunctionError, match=r"key value '1' \(str\) does not fit Types.INT\(\)"):
        env.execute()


def test_non_picklable_function_fails_at_build_time(env):
    import threading

    class Holder(KeyedProcessFunction):
        def __init__(self):
            self.lock = threading.Lock()

        def process_element(self, value, ctx):
            yield value

    with pytest.raises(TypeError, match="Holder.*cannot be pickled"):
        env.from_collection([1]).key_by(lambda v: v).process(Holder())
    lock = threading.Lock()
    with pytest.raises(TypeError, match="KeyBy.*cannot be pickled"):
        env.from_collection([1]).key_by(lambda v: (lock, v))
