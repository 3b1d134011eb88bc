import pytest

from kindling.common.time import Time
from kindling.common.typeinfo import Types
from kindling.datastream.functions import AggregateFunction, KeyedProcessFunction, KeySelector
from kindling.datastream.output_tag import OutputTag
from kindling.datastream.state import (
    AggregatingStateDescriptor, ListStateDescriptor, MapStateDescriptor, StateTtlConfig,
    ValueStateDescriptor,
)
from kindling.datastream.time_domain import TimeDomain
from kindling.runtime.keyed_functions import aggregation_function
from kindling.runtime.keyed_operator import KeyedProcessOperator
from kindling.runtime.task_info import MAX_WATERMARK, MIN_WATERMARK
from kindling.testing import (
    KeyedOneInputStreamOperatorTestHarness, KeyedOperatorTestHarness,
    KeyedProcessFunctionTestHarness, StreamRecord,
)

LATE = OutputTag("late", Types.TUPLE([Types.STRING(), Types.LONG()]))


class CountWithTimeout(KeyedProcessFunction):
    """Flink's documented example: emit (key, count) after 60 ms without updates."""

    def open(self, ctx):
        self.state = ctx.get_state(ValueStateDescriptor(
            "state", Types.TUPLE([Types.STRING(), Types.LONG(), Types.LONG()])))

    def process_element(self, value, ctx):
        current = self.state.value()
        if current is None:
            current = (value[0], 0, 0)
        current = (current[0], current[1] + 1, ctx.timestamp())
        self.state.update(current)
        ctx.timer_service().register_event_time_timer(current[2] + 60)

    def on_timer(self, timestamp, ctx):
        key, count, last = self.state.value()
        if timestamp == last + 60:
            yield key, count


def test_docstring_example_count_with_timeout():
    with KeyedProcessFunctionTestHarness(CountWithTimeout(), lambda v: v[0]) as h:
        h.process_element(("a", 1), timestamp=100)
        h.process_element(("b", 1), timestamp=110)
        h.process_element(("a", 1), timestamp=130)
        assert h.num_event_time_timers() == 3
        assert h.event_time_timers("a") == [160, 190]
        h.process_watermark(175)
        assert h.get_output() == [StreamRecord(("b", 1), 170)]
        h.process_watermark(200)
        assert h.extract_output_values() == [("b", 1), ("a", 2)]
        assert h.extract_output_timestamps() == [170, 190]
        assert h.state("a", "state") == ("a", 2, 130)
        assert h.num_keys_with_state() == 2
        assert h.num_event_time_timers() == 0
        assert h.get_emitted_watermarks() == [175, 200]


def test_current_watermark_before_any_watermark_is_long_min():
    class F(KeyedProcessFunction):
        def process_element(self, value, ctx):
            yield ctx.timer_service().current_watermark()
    h = KeyedProcessFunctionTestHarness(F(), lambda v: v)
    h.process_element(1)
    h.process_watermark(5)
    h.process_element(2)
    assert h.extract_output_values() == [-9223372036854775808, 5]
    assert h.current_watermark == 5


def test_timers_of_all_keys_fire_in_timestamp_order():
    class F(KeyedProcessFunction):
        def process_element(self, value, ctx):
            ctx.timer_service().register_event_time_timer(value[1])

        def on_timer(self, timestamp, ctx):
            yield ctx.get_current_key(), timestamp
            if timestamp == 12:
                ctx.timer_service().register_event_time_timer(14)  # due in the same advance
    h = KeyedProcessFunctionTestHarness(F(), lambda v: v[0])
    for v in [("a", 15), ("b", 12), ("a", 11), ("c", 13), ("b", 30), ("a", 11)]:
        h.process_element(v)
    h.process_watermark(20)
    assert h.extract_output_values() == [("a", 11), ("b", 12), ("c", 13), ("b", 14), ("a", 15)]
    assert h.num_event_time_timers() == 1


def test_late_timer_waits_for_the_next_watermark():
    class F(KeyedProcessFunction):
        def process_element(self, value, ctx):
            ctx.timer_service().register_event_time_timer(value)

        def on_timer(self, timestamp, ctx):
            yield timestamp
    h = KeyedProcessFunctionTestHarness(F(), lambda v: 0)
    h.process_watermark(10)
    h.process_element(5)
    h.process_element(6)
    assert h.extract_output_values() == []
    h.process_watermark(10)
    assert h.extract_output_values() == [5, 6]


def test_processing_time_timers():
    class F(KeyedProcessFunction):
        def process_element(self, value, ctx):
            ts = ctx.timer_service()
            ts.register_processing_time_timer(ts.current_processing_time() + value[1])

        def on_timer(self, timestamp, ctx):
            yield ctx.get_current_key(), timestamp, ctx.time_domain()
    h = KeyedProcessFunctionTestHarness(F(), lambda v: v[0], processing_time=100)
    h.process_element(("a", 50))
    h.process_element(("b", 10))
    h.process_element(("b", 10))   # the same timer: collapses
    assert h.num_processing_time_timers() == 2
    assert h.processing_time_timers("b") == [110]
    h.set_processing_time(120)
    assert h.get_output() == [StreamRecord(("b", 110, TimeDomain.PROCESSING_TIME), 110)]
    h.set_processing_time(200)
    assert h.extract_output_values()[-1] == ("a", 150, TimeDomain.PROCESSING_TIME)
    assert h.current_processing_time == 200


def test_side_outputs():
    class Late(KeyedProcessFunction):
        def process_element(self, value, ctx):
            if ctx.timestamp() <= ctx.timer_service().current_watermark():
                yield LATE, value
            else:
                yield value
    h = KeyedProcessFunctionTestHarness(Late(), lambda v: v[0])
    h.process_watermark(100)
    h.process_element(("a", 1), 50)
    h.process_element(("a", 2), 150)
    assert h.get_output() == [StreamRecord(("a", 2), 150)]
    assert h.get_side_output(LATE) == [StreamRecord(("a", 1), 50)]
    assert h.get_side_output_values("late") == [("a", 1)]
    assert h.get_raw_output() == [("late", ("a", 1), 50), (None, ("a", 2), 150)]
    h.clear_output()
    assert h.get_output() == [] and h.get_side_output(LATE) == []


def test_state_inspection_of_every_kind():
    class Avg(AggregateFunction):
        def create_accumulator(self):
            return (0, 0)

        def add(self, value, acc):
            return acc[0] + value, acc[1] + 1

        def get_result(self, acc):
            return acc[0] / acc[1]

    class F(KeyedProcessFunction):
        def open(self, ctx):
            self.values = ctx.get_list_state(ListStateDescriptor("values", Types.LONG()))
            self.by_parity = ctx.get_map_state(MapStateDescriptor("parity", Types.BOOLEAN(), Types.LONG()))
            self.avg = ctx.get_aggregating_state(AggregatingStateDescriptor("avg", Avg(), None))

        def process_element(self, value, ctx):
            self.values.add(value[1])
            self.by_parity.put(value[1] % 2 == 0, value[1])
            self.avg.add(value[1])
    h = KeyedProcessFunctionTestHarness(F(), lambda v: v[0])
    for v in [("a", 1), ("a", 2), ("a", 4), ("b", 3)]:
        h.process_element(v)
    assert h.state("a", "values") == [1, 2, 4]
    assert h.state("a", ListStateDescriptor("values", Types.LONG())) == [1, 2, 4]
    assert h.state("a", "parity") == {False: 1, True: 4}
    assert h.state("a", "avg") == 7 / 3
    assert h.state("zzz", "values") == []
    assert h.state("zzz", "avg") is None
    assert sorted(h.keys()) == ["a", "b"]
    with pytest.raises(KeyError):
        h.state("a", "nope")


def test_ttl_with_harness_processing_time():
    class F(KeyedProcessFunction):
        def open(self, ctx):
            d = ValueStateDescriptor("last", Types.LONG())
            d.enable_time_to_live(StateTtlConfig.new_builder(Time.seconds(1)).build())
            self.last = ctx.get_state(d)

        def process_element(self, value, ctx):
            yield self.last.value()
            self.last.update(value[1])
    h = KeyedProcessFunctionTestHarness(F(), lambda v: v[0])
    h.process_element(("a", 1))
    h.set_processing_time(999)
    h.process_element(("a", 2))
    assert h.state("a", "last") == 2
    h.set_processing_time(2000)
    assert h.state("a", "last") is None
    h.process_element(("a", 3))
    assert h.extract_output_values() == [None, 1, None]
    assert h.num_keys_with_state() == 1


def test_end_input_fires_every_event_timer():
    h = KeyedProcessFunctionTestHarness(CountWithTimeout(), lambda v: v[0])
    h.process_element(("a", 1), 10)
    h.process_element(("b", 1), 5)
    h.end_input()
    assert h.get_output() == [StreamRecord(("b", 1), 65), StreamRecord(("a", 1), 70)]
    assert h.current_watermark == MAX_WATERMARK


def test_user_errors_come_out_unwrapped_with_operator_note():
    class Boom(KeyedProcessFunction):
        def process_element(self, value, ctx):
            raise ValueError("bad %s" % value)
    h = KeyedProcessFunctionTestHarness(Boom(), lambda v: v, name="Exploder")
    with pytest.raises(ValueError, match="bad 1") as info:
        h.process_element(1)
    assert "(in Kindling operator 'Exploder')" in info.value.__notes__
    h2 = KeyedProcessFunctionTestHarness(Boom(), lambda v: v, unwrap_errors=False)
    with pytest.raises(RuntimeError, match="operator 'KeyedProcess' failed on the element 1"):
        h2.process_element(1)


def test_state_of_wrong_type_raises_type_error():
    class F(KeyedProcessFunction):
        def open(self, ctx):
            self.count = ctx.get_state(ValueStateDescriptor("count", Types.LONG()))

        def process_element(self, value, ctx):
            self.count.update(value)
    h = KeyedProcessFunctionTestHarness(F(), lambda v: 0)
    h.process_element(1)
    with pytest.raises(TypeError, match=r"state 'count': value 'x' of Python type str does not fit"):
        h.process_element("x")


def test_unpicklable_state_is_caught_by_default():
    import threading

    class F(KeyedProcessFunction):
        def open(self, ctx):
            self.v = ctx.get_state(ValueStateDescriptor("lock", Types.PICKLED_BYTE_ARRAY()))

        def process_element(self, value, ctx):
            self.v.update(threading.Lock())
    with pytest.raises(TypeError, match="cannot be pickled"):
        KeyedProcessFunctionTestHarness(F(), lambda v: 0).process_element(1)
    h = KeyedProcessFunctionTestHarness(F(), lambda v: 0, serialize_state=False)
    h.process_element(1)
    assert h.num_keys_with_state() == 1


def test_in_place_mutation_of_a_state_value_is_kept():
    # Kindling keeps the object itself and pickles the key's state after each call, so an
    # in-place change persists (PyFlink would need update()); do not rely on either.
    class F(KeyedProcessFunction):
        def open(self, ctx):
            self.items = ctx.get_state(ValueStateDescriptor("items", Types.LIST(Types.LONG())))

        def process_element(self, value, ctx):
            items = self.items.value()
            if items is None:
                self.items.update([value])
            else:
                items.append(value)   # no update()
            yield list(self.items.value())
    h = KeyedProcessFunctionTestHarness(F(), lambda v: 0)
    h.process_elements([1, 2, 3])
    assert h.extract_output_values() == [[1], [1, 2], [1, 2, 3]]


def test_open_close_and_runtime_context():
    events = []

    class F(KeyedProcessFunction):
        def open(self, ctx):
            events.append(("open", ctx.get_task_name(), ctx.get_index_of_this_subtask(),
                           ctx.get_number_of_parallel_subtasks(), ctx.get_job_parameter("x", "-")))

        def process_element(self, value, ctx):
            pass

        def close(self):
            events.append("close")
    with KeyedProcessFunctionTestHarness(F(), lambda v: v, name="Op", parallelism=4, subtask_index=2,
                                         job_parameters={"x": "y"}) as h:
        h.process_element(1)
    assert events == [("open", "Op", 2, 4, "y"), "close"]


def test_key_selector_object_stream_records_and_operator_alias():
    class ByFirst(KeySelector):
        def get_key(self, value):
            return value[0]
    op = KeyedProcessOperator(aggregation_function('sum', 1), "Sum")
    h = KeyedOneInputStreamOperatorTestHarness(op, ByFirst())
    h.process_element(StreamRecord(("a", 1), 5))
    h.process_elements([("a", 2), ("b", 3)], timestamp=7)
    assert h.get_output() == [StreamRecord(("a", 1), 5), StreamRecord(("a", 3), 7), StreamRecord(("b", 3), 7)]
    assert KeyedProcessFunctionTestHarness is KeyedOperatorTestHarness
    with pytest.raises(TypeError):
        KeyedOperatorTestHarness(CountWithTimeout(), 5)


def test_timers_registered_in_on_timer_for_later_fire_on_later_watermark():
    class Periodic(KeyedProcessFunction):
        def process_element(self, value, ctx):
            ctx.timer_service().register_event_time_timer(10)

        def on_timer(self, timestamp, ctx):
            yield timestamp
            if timestamp < 40:
                ctx.timer_service().register_event_time_timer(timestamp + 10)
    h = KeyedProcessFunctionTestHarness(Periodic(), lambda v: 0)
    h.process_element(1)
    h.process_watermark(25)
    assert h.extract_output_values() == [10, 20]
    h.process_watermark(MIN_WATERMARK)  # watermarks never go back
    assert h.current_watermark == 25
    h.end_input()
    assert h.extract_output_values() == [10, 20, 30, 40]


def test_module_docstring_example():
    import kindling.testing.harness as mod
    src = mod.__doc__.split("::", 1)[1].split("By default", 1)[0]
    lines = [ln[4:] for ln in src.splitlines()]
    code = "\n".join(lines)
    ns = {"KeyedProcessFunction": KeyedProcessFunction, "ValueStateDescriptor": ValueStateDescriptor,
          "Types": Types}
    exec(compile(code, "<harness docstring>", "exec"), ns)


def test_processing_timer_in_the_past_fires_right_after_the_element():
    class F(KeyedProcessFunction):
        def process_element(self, value, ctx):
            ctx.timer_service().register_processing_time_timer(ctx.timer_service().current_processing_time())
            yield "element"

        def on_timer(self, timestamp, ctx):
            yield "timer"
    h = KeyedProcessFunctionTestHarness(F(), lambda v: v, processing_time=50)
    h.process_element(1)
    assert h.extract_output_values() == ["element", "timer"]
