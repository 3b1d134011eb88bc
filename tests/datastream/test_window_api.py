"""The window API without Spark: windows, assigners, triggers, WindowedStream building."""
from __future__ import annotations

import cloudpickle
import pytest

from kindling.common.time import Duration, Time
from kindling.common.typeinfo import Types
from kindling.datastream import StreamExecutionEnvironment
from kindling.datastream.functions import (
    AggregateFunction, AllWindowFunction, ProcessAllWindowFunction, ProcessWindowFunction,
    WindowFunction,
)
from kindling.datastream.output_tag import OutputTag
from kindling.datastream.window import (
    ContinuousEventTimeTrigger, ContinuousProcessingTimeTrigger, CountSlidingWindowAssigner,
    CountTrigger, CountTumblingWindowAssigner, CountWindow, DynamicEventTimeSessionWindows,
    DynamicProcessingTimeSessionWindows, EventTimeSessionWindows, EventTimeTrigger, GlobalWindow,
    GlobalWindows, MergingWindowAssigner, NeverTrigger, ProcessingTimeSessionWindows,
    ProcessingTimeTrigger, PurgingTrigger, SessionWindowTimeGapExtractor, SlidingEventTimeWindows,
    SlidingProcessingTimeWindows, TimeWindow, Trigger, TriggerResult, TumblingEventTimeWindows,
    TumblingProcessingTimeWindows, WindowAssigner,
)
from kindling.datastream.window.windows import _mod_inverse
from kindling.datastream.windowed_stream import (
    AllWindowedStream, WindowedStream, count_window_assigner, time_window_assigner,
)
from kindling.runtime.window import WindowOperator
from kindling.spark.operators import keyed_operator


class _Ctx(WindowAssigner.WindowAssignerContext):
    def __init__(self, now=0):
        self.now = now
        self.state = {}

    def get_current_processing_time(self):
        return self.now

    def get_runtime_context(self):
        ctx = self

        class _State:
            def __init__(self, name):
                self.name = name

            def value(self):
                return ctx.state.get(self.name)

            def update(self, v):
                ctx.state[self.name] = v

        class _RC:
            def get_state(self, desc):
                return _State(desc.name)

        return _RC()


# ---------------------------------------------------------------------------------- windows

def test_time_window():
    w = TimeWindow(0, 10)
    assert w.max_timestamp() == 9
    assert w.intersects(TimeWindow(10, 20)) and w.intersects(TimeWindow(5, 6))
    assert not w.intersects(TimeWindow(11, 20))
    assert w.cover(TimeWindow(15, 20)) == TimeWindow(0, 20)
    assert TimeWindow(0, 10) == TimeWindow(0, 10) and TimeWindow(0, 10) != TimeWindow(0, 11)
    assert TimeWindow(0, 10) < TimeWindow(0, 11) < TimeWindow(1, 2)
    assert repr(w) == "TimeWindow(start=0, end=10)"
    assert {TimeWindow(0, 10): 1}[TimeWindow(0, 10)] == 1
    for s, e in ((0, 10), (-5, 3), (1700000000000, 1700000001000), (-2 ** 62, 2 ** 62)):
        assert hash(TimeWindow(s, e)) == hash(s + _mod_inverse((e << 1) + 1))   # as PyFlink
    assert cloudpickle.loads(cloudpickle.dumps(w)) == w


@pytest.mark.parametrize("ts,offset,size,start", [(0, 0, 10, 0), (9, 0, 10, 0), (10, 0, 10, 10),
                                                   (-1, 0, 10, -10), (3, 5, 10, -5), (7, 5, 10, 5)])
def test_window_start_with_offset(ts, offset, size, start):
    assert TimeWindow.get_window_start_with_offset(ts, offset, size) == start


def test_merge_windows_callback():
    merged = []

    class CB(MergingWindowAssigner.MergeCallback):
        def merge(self, to_be_merged, merge_result):
            merged.append((sorted(to_be_merged), merge_result))

    TimeWindow.merge_windows([TimeWindow(10, 15), TimeWindow(0, 5), TimeWindow(4, 8),
                              TimeWindow(20, 25)], CB())
    assert merged == [([TimeWindow(0, 5), TimeWindow(4, 8)], TimeWindow(0, 8))]


def test_count_and_global_windows():
    assert CountWindow(3) == CountWindow(3) != CountWindow(4)
    assert CountWindow(3).max_timestamp() == 2 ** 63 - 1
    assert repr(CountWindow(3)) == "CountWindow(id=3)"
    assert GlobalWindow.get() == GlobalWindow() and hash(GlobalWindow()) == 0
    assert repr(GlobalWindow.get()) == "GlobalWindow"
    assert GlobalWindow.get().max_timestamp() == 2 ** 63 - 1


# -------------------------------------------------------------------------------- assigners

def test_tumbling_assigners_accept_time_duration_and_ms():
    for size in (Time.seconds(1), Duration.of_seconds(1), 1000):
        a = TumblingEventTimeWindows.of(size)
        assert a.assign_windows("x", 1500, _Ctx()) == [TimeWindow(1000, 2000)]
        assert a.is_event_time()
        assert isinstance(a.get_default_trigger(None), EventTimeTrigger)
    a = TumblingEventTimeWindows.of(Time.hours(1), Time.minutes(15))
    assert a.assign_windows("x", 0, _Ctx()) == [TimeWindow(-45 * 60000, 15 * 60000)]
    p = TumblingProcessingTimeWindows.of(Time.seconds(1))
    assert p.assign_windows("x", None, _Ctx(2500)) == [TimeWindow(2000, 3000)]
    assert not p.is_event_time()
    assert isinstance(p.get_default_trigger(None), ProcessingTimeTrigger)


def test_assigner_parameter_validation():
    with pytest.raises(ValueError):
        TumblingEventTimeWindows.of(Time.seconds(1), Time.seconds(1))
    with pytest.raises(ValueError):
        TumblingProcessingTimeWindows.of(0)
    with pytest.raises(ValueError):
        SlidingEventTimeWindows.of(10, 5, 5)
    with pytest.raises(ValueError):
        SlidingProcessingTimeWindows.of(0, 5)
    with pytest.raises(ValueError):
        EventTimeSessionWindows.with_gap(0)
    with pytest.raises(ValueError):
        ProcessingTimeSessionWindows.with_gap(-1)
    with pytest.raises(TypeError, match="Time"):
        TumblingEventTimeWindows.of("1s")
    with pytest.raises(ValueError):
        CountTumblingWindowAssigner.of(0)
    with pytest.raises(TypeError):
        CountSlidingWindowAssigner.of(3, 1.5)
    with pytest.raises(TypeError, match="SessionWindowTimeGapExtractor"):
        DynamicEventTimeSessionWindows.with_dynamic_gap(5)


def test_sliding_assigners():
    a = SlidingEventTimeWindows.of(Time.milliseconds(10), Time.milliseconds(5))
    assert a.assign_windows("x", 7, _Ctx()) == [TimeWindow(5, 15), TimeWindow(0, 10)]
    a = SlidingEventTimeWindows.of(30, 10, 3)
    assert a.assign_windows("x", 3, _Ctx()) == [TimeWindow(3, 33), TimeWindow(-7, 23),
                                                 TimeWindow(-17, 13)]
    p = SlidingProcessingTimeWindows.of(10, 5)
    assert p.assign_windows("x", None, _Ctx(12)) == [TimeWindow(10, 20), TimeWindow(5, 15)]


def test_session_assigners():
    a = EventTimeSessionWindows.with_gap(Time.milliseconds(5))
    assert isinstance(a, MergingWindowAssigner) and a.is_event_time()
    assert a.assign_windows("x", 7, _Ctx()) == [TimeWindow(7, 12)]
    p = ProcessingTimeSessionWindows.with_gap(5)
    assert p.assign_windows("x", 7, _Ctx(100)) == [TimeWindow(100, 105)]

    class Gap(SessionWindowTimeGapExtractor):
        def extract(self, element):
            return element * 10

    d = EventTimeSessionWindows.with_dynamic_gap(Gap())
    assert isinstance(d, DynamicEventTimeSessionWindows)
    assert d.assign_windows(2, 7, _Ctx()) == [TimeWindow(7, 27)]
    dp = ProcessingTimeSessionWindows.with_dynamic_gap(lambda e: Duration.of_millis(e))
    assert isinstance(dp, DynamicProcessingTimeSessionWindows)
    assert dp.assign_windows(3, None, _Ctx(50)) == [TimeWindow(50, 53)]
    assert isinstance(dp.get_default_trigger(None), ProcessingTimeTrigger)


def test_global_and_count_assigners():
    g = GlobalWindows.create()
    assert g.assign_windows("x", 1, _Ctx()) == [GlobalWindow()]
    assert isinstance(g.get_default_trigger(None), NeverTrigger)
    ctx = _Ctx()
    t = CountTumblingWindowAssigner.of(2)
    assert [t.assign_windows("x", None, ctx) for _ in range(5)] == [
        [CountWindow(0)], [CountWindow(0)], [CountWindow(1)], [CountWindow(1)], [CountWindow(2)]]
    ctx = _Ctx()
    s = CountSlidingWindowAssigner.of(3, 2)
    assert [s.assign_windows("x", None, ctx) for _ in range(5)] == [
        [CountWindow(0)], [CountWindow(0)], [CountWindow(1), CountWindow(0)], [CountWindow(1)],
        [CountWindow(2), CountWindow(1)]]
    assert isinstance(s.get_default_trigger(None), CountTrigger)
    assert count_window_assigner(3).__class__ is CountTumblingWindowAssigner
    assert count_window_assigner(3, 2).__class__ is CountSlidingWindowAssigner


def test_time_window_assigner_follows_event_time_by_default():
    assert isinstance(time_window_assigner(None, Time.seconds(1)), TumblingEventTimeWindows)
    assert isinstance(time_window_assigner(None, 1000, 500), SlidingEventTimeWindows)

    class ProcessingEnv:
        def get_stream_time_characteristic(self):
            return "TimeCharacteristic.ProcessingTime"

    assert isinstance(time_window_assigner(ProcessingEnv(), 1000), TumblingProcessingTimeWindows)
    assert isinstance(time_window_assigner(ProcessingEnv(), 1000, 10), SlidingProcessingTimeWindows)


# --------------------------------------------------------------------------------- triggers

def test_trigger_result():
    assert TriggerResult.FIRE.is_fire() and not TriggerResult.FIRE.is_purge()
    assert TriggerResult.FIRE_AND_PURGE.is_fire() and TriggerResult.FIRE_AND_PURGE.is_purge()
    assert TriggerResult.PURGE.is_purge() and not TriggerResult.PURGE.is_fire()
    assert not TriggerResult.CONTINUE.is_fire() and not TriggerResult.CONTINUE.is_purge()


def test_built_in_triggers_construct_and_merge():
    assert EventTimeTrigger.create().can_merge()
    assert ProcessingTimeTrigger.create().can_merge()
    assert CountTrigger.of(3).can_merge()
    assert ContinuousEventTimeTrigger.of(Time.seconds(1)).interval == 1000
    assert ContinuousProcessingTimeTrigger.of(Duration.of_millis(5)).interval == 5
    assert ContinuousEventTimeTrigger.of(200).can_merge()
    assert PurgingTrigger.of(CountTrigger.of(2)).can_merge()
    assert not NeverTrigger().can_merge()
    with pytest.raises(TypeError):
        PurgingTrigger.of("count")
    with pytest.raises(ValueError):
        CountTrigger.of(0)
    with pytest.raises(TypeError):
        Trigger()   # abstract


# ----------------------------------------------------------------------- windowed streams

@pytest.fixture
def stream():
    env = StreamExecutionEnvironment.get_execution_environment()
    return env.from_collection([("a", 1), ("b", 2)])


class Avg(AggregateFunction):
    def create_accumulator(self):
        return (0, 0)

    def add(self, value, acc):
        return acc[0] + value[1], acc[1] + 1

    def get_result(self, acc):
        return acc[0] / acc[1]


class PWF(ProcessWindowFunction):
    def process(self, key, context, elements):
        yield key


def _operator(ds) -> WindowOperator:
    """The runtime operator the Spark compiler chooses for ``ds``'s node, as a worker gets it."""
    return cloudpickle.loads(cloudpickle.dumps(keyed_operator(ds._transformation)))


def test_windowed_stream_builds_a_keyed_window_node(stream):
    ks = stream.key_by(lambda e: e[0])
    late = OutputTag("late")
    ws = WindowedStream(ks, TumblingEventTimeWindows.of(Time.seconds(5)))
    assert ws.get_execution_environment() is stream.get_execution_environment()
    out = (ws.trigger(CountTrigger.of(3)).allowed_lateness(Time.seconds(1)).side_output_late_data(late)
             .reduce(lambda a, b: (a[0], a[1] + b[1])))
    assert out._transformation.name == "TumblingEventTimeWindows"
    op = _operator(out)
    assert isinstance(op, WindowOperator)
    assert isinstance(op.trigger, CountTrigger)
    assert op.allowed_lateness == 1000 and op.late_data_tag_id == "late"
    assert op.contents_kind == "reduce" and op.window_function is None
    assert not op.all_windows


def test_windowed_stream_functions(stream):
    ks = stream.key_by(lambda e: e[0])
    op = _operator(WindowedStream(ks, TumblingEventTimeWindows.of(10)).aggregate(
        Avg(), PWF(), accumulator_type=Types.TUPLE([Types.INT(), Types.INT()]),
        output_type=Types.STRING()))
    assert op.contents_kind == "aggregate" and isinstance(op.window_function, PWF)
    assert isinstance(op.trigger, EventTimeTrigger)
    op = _operator(WindowedStream(ks, GlobalWindows.create()).process(PWF(), Types.STRING()))
    assert op.contents_kind == "list" and isinstance(op.trigger, NeverTrigger)

    class WF(WindowFunction):
        def apply(self, key, window, inputs):
            return [key]

    op = _operator(WindowedStream(ks, count_window_assigner(5)).apply(WF()))
    assert op.contents_kind == "list" and isinstance(op.assigner, CountTumblingWindowAssigner)


def test_windowed_stream_rejects_wrong_arguments(stream):
    ks = stream.key_by(lambda e: e[0])
    with pytest.raises(TypeError, match="WindowAssigner"):
        WindowedStream(ks, "tumbling")
    with pytest.raises(TypeError, match="instance"):
        WindowedStream(ks, TumblingEventTimeWindows)
    ws = WindowedStream(ks, TumblingEventTimeWindows.of(10))
    with pytest.raises(TypeError, match="Trigger"):
        ws.trigger(CountTrigger)
    with pytest.raises(TypeError, match="OutputTag"):
        ws.side_output_late_data("late")
    with pytest.raises(ValueError, match="negative"):
        ws.allowed_lateness(-1)
    with pytest.raises(TypeError, match="WindowFunction or a ProcessWindowFunction"):
        ws.reduce(lambda a, b: a, window_function=lambda k, w, i: i)
    with pytest.raises(TypeError, match="AggregateFunction"):
        ws.aggregate(lambda a, b: a)
    with pytest.raises(TypeError, match="ProcessWindowFunction"):
        ws.process(lambda k, c, e: e)
    with pytest.raises(TypeError, match="TypeInformation"):
        ws.reduce(lambda a, b: a, output_type=int)
    with pytest.raises(TypeError, match="ReduceFunction"):
        ws.reduce(42)


def test_all_windowed_stream(stream):
    class AllCount(AllWindowFunction):
        def apply(self, window, inputs):
            yield len(list(inputs))

    class AllProc(ProcessAllWindowFunction):
        def process(self, context, elements):
            yield context.window()

    aws = AllWindowedStream(stream, SlidingEventTimeWindows.of(10, 5))
    op = _operator(aws.apply(AllCount(), Types.INT()))
    assert op.all_windows and op.contents_kind == "list"
    op = _operator(AllWindowedStream(stream, TumblingEventTimeWindows.of(10)).reduce(
        lambda a, b: a, window_function=AllProc()))
    assert op.all_windows and isinstance(op.window_function, AllProc)
    with pytest.raises(TypeError, match="AllWindowFunction"):
        AllWindowedStream(stream, TumblingEventTimeWindows.of(10)).reduce(lambda a, b: a, PWF())
    with pytest.raises(TypeError, match="merging"):
        AllWindowedStream(stream, EventTimeSessionWindows.with_gap(10)).trigger(NeverTrigger())
    # every element gets the same key
    ks = aws._keyed_stream
    selector = ks._transformation.key_selector
    assert selector.get_key(("x", 1)) == selector.get_key(("y", 2)) == 0


def test_unpicklable_function_fails_at_build_time(stream):
    import threading
    lock = threading.Lock()
    ks = stream.key_by(lambda e: e[0])
    with pytest.raises(TypeError, match="pickled"):
        WindowedStream(ks, TumblingEventTimeWindows.of(10)).reduce(lambda a, b: (lock, a)[1])
