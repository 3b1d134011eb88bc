"""WindowOperator through the KeyedOperatorTestHarness: assigners, triggers, functions,
lateness, merging, count windows, BATCH mode and bounded state.

Expected outputs follow Flink's documented window semantics; the shared example
(``DATA``) reproduces what PyFlink 2.3 printed for the same program (see the comments).
"""
from __future__ import annotations

import random

import cloudpickle
import pytest

from kindling.common.time import Duration, Time
from kindling.common.typeinfo import Types
from kindling.datastream.functions import (
    AggregateFunction, AllWindowFunction, ProcessAllWindowFunction, ProcessWindowFunction,
    ReduceFunction, WindowFunction,
)
from kindling.datastream.output_tag import OutputTag
from kindling.datastream.state import ReducingStateDescriptor, ValueStateDescriptor
from kindling.datastream.window import (
    ContinuousEventTimeTrigger, ContinuousProcessingTimeTrigger, CountSlidingWindowAssigner,
    CountTrigger, CountTumblingWindowAssigner, DynamicEventTimeSessionWindows,
    DynamicProcessingTimeSessionWindows, EventTimeSessionWindows, EventTimeTrigger, GlobalWindows,
    ProcessingTimeSessionWindows, ProcessingTimeTrigger, PurgingTrigger,
    SessionWindowTimeGapExtractor, SlidingEventTimeWindows, SlidingProcessingTimeWindows, TimeWindow,
    Trigger, TriggerResult, TumblingEventTimeWindows, TumblingProcessingTimeWindows,
)
from kindling.runtime.batch import run_batch
from kindling.runtime.key_state import KeyState
from kindling.runtime.window import (
    CONTENTS_AGGREGATE, CONTENTS_LIST, CONTENTS_REDUCE, WindowOperator,
)
from kindling.testing import KeyedOperatorTestHarness, StreamRecord

# (key, event timestamp, id)
DATA = [("a", 1, 1), ("a", 5, 2), ("b", 3, 3), ("a", 12, 4), ("a", 14, 5), ("a", 35, 6),
        ("b", 31, 7), ("a", 9, 8)]


class Describe(ProcessWindowFunction):
    """(key, window, ids of the elements)"""

    def process(self, key, ctx, elements):
        w = ctx.window()
        win = (w.start, w.end) if isinstance(w, TimeWindow) else repr(w)
        yield key, win, [e[2] for e in elements]


def _sum_ids(a, b):
    return (a[0], a[1], a[2] + b[2])


def harness(assigner, trigger=None, contents=CONTENTS_LIST, function=None, window_function=None,
            **kwargs):
    if contents == CONTENTS_LIST and window_function is None:
        window_function = Describe()
    op = WindowOperator(assigner, trigger, contents, function, window_function, **kwargs)
    return KeyedOperatorTestHarness(op, lambda v: v[0])


def run(h, data=DATA, end=True):
    for e in data:
        h.process_element(e, e[1])
    if end:
        h.end_input()
    return h.get_output()


def R(value, ts):
    return StreamRecord(value, ts)


# ------------------------------------------------------------------------ the shared example
# The expected outputs below are what PyFlink 2.3 printed for the same program (bounded
# collection source, monotonous watermarks: every window closes at the end of the input).


def test_tumbling_event_time_as_pyflink():
    out = run(harness(TumblingEventTimeWindows.of(Time.milliseconds(10))))
    assert out == [R(("a", (0, 10), [1, 2, 8]), 9), R(("b", (0, 10), [3]), 9),
                   R(("a", (10, 20), [4, 5]), 19), R(("a", (30, 40), [6]), 39),
                   R(("b", (30, 40), [7]), 39)]


def test_sliding_event_time_as_pyflink():
    out = run(harness(SlidingEventTimeWindows.of(Time.milliseconds(10), Time.milliseconds(5))))
    assert sorted(out, key=lambda r: (r.timestamp, r.value[0])) == [
        R(("a", (-5, 5), [1]), 4), R(("b", (-5, 5), [3]), 4),
        R(("a", (0, 10), [1, 2, 8]), 9), R(("b", (0, 10), [3]), 9),
        R(("a", (5, 15), [2, 4, 5, 8]), 14), R(("a", (10, 20), [4, 5]), 19),
        R(("b", (25, 35), [7]), 34), R(("a", (30, 40), [6]), 39), R(("b", (30, 40), [7]), 39),
        R(("a", (35, 45), [6]), 44)]


def test_event_time_sessions_as_pyflink():
    out = run(harness(EventTimeSessionWindows.with_gap(Time.milliseconds(5))))
    # the merged session keeps the contents of the window PyFlink's merging set chose
    assert out == [R(("b", (3, 8), [3]), 7), R(("a", (1, 19), [4, 5, 1, 2, 8]), 18),
                   R(("b", (31, 36), [7]), 35), R(("a", (35, 40), [6]), 39)]


def test_count_window_tumbling_as_pyflink():
    out = run(harness(CountTumblingWindowAssigner.of(2)))
    # fired by the element that completes the window: the element's timestamp
    assert out == [R(("a", "CountWindow(id=0)", [1, 2]), 5), R(("a", "CountWindow(id=1)", [4, 5]), 14),
                   R(("b", "CountWindow(id=0)", [3, 7]), 31), R(("a", "CountWindow(id=2)", [6, 8]), 9)]


def test_count_window_sliding_fires_only_full_windows_as_pyflink():
    out = run(harness(CountSlidingWindowAssigner.of(3, 2)))
    assert out == [R(("a", "CountWindow(id=0)", [1, 2, 4]), 12),
                   R(("a", "CountWindow(id=1)", [4, 5, 6]), 35)]


def test_global_window_count_trigger_as_pyflink():
    out = run(harness(GlobalWindows.create(), CountTrigger.of(2)))
    assert out == [R(("a", "GlobalWindow", [1, 2]), 5), R(("a", "GlobalWindow", [1, 2, 4, 5]), 14),
                   R(("b", "GlobalWindow", [3, 7]), 31),
                   R(("a", "GlobalWindow", [1, 2, 4, 5, 6, 8]), 9)]


def test_global_window_purging_count_trigger_as_pyflink():
    h = harness(GlobalWindows.create(), PurgingTrigger.of(CountTrigger.of(2)))
    out = run(h)
    assert out == [R(("a", "GlobalWindow", [1, 2]), 5), R(("a", "GlobalWindow", [4, 5]), 14),
                   R(("b", "GlobalWindow", [3, 7]), 31), R(("a", "GlobalWindow", [6, 8]), 9)]
    assert h.keys() == []      # purged contents and cleared counts leave nothing behind


def test_reduce_as_pyflink():
    out = run(harness(TumblingEventTimeWindows.of(10), None, CONTENTS_REDUCE, _sum_ids))
    assert out == [R(("a", 1, 11), 9), R(("b", 3, 3), 9), R(("a", 12, 9), 19), R(("a", 35, 6), 39),
                   R(("b", 31, 7), 39)]


def test_continuous_event_time_trigger():
    out = run(harness(TumblingEventTimeWindows.of(20), ContinuousEventTimeTrigger.of(7)))
    # fires every 7 ms of event time (aligned to 0) and at the end of the window
    assert out == [R(("a", (0, 20), [1, 2, 4, 5, 8]), 7), R(("b", (0, 20), [3]), 7),
                   R(("a", (0, 20), [1, 2, 4, 5, 8]), 14), R(("b", (0, 20), [3]), 14),
                   R(("a", (0, 20), [1, 2, 4, 5, 8]), 19), R(("b", (0, 20), [3]), 19),
                   R(("b", (20, 40), [7]), 35), R(("a", (20, 40), [6]), 39),
                   R(("b", (20, 40), [7]), 39)]


# ------------------------------------------------------------------------------- event time

def test_window_fires_when_watermark_reaches_max_timestamp():
    h = harness(TumblingEventTimeWindows.of(Duration.of_millis(100)), None, CONTENTS_REDUCE, _sum_ids)
    h.process_element(("k", 10, 1), 10)
    h.process_element(("k", 99, 2), 99)
    h.process_element(("k", 100, 4), 100)
    h.process_watermark(98)
    assert h.get_output() == []
    assert h.event_time_timers("k") == [99, 199]
    h.process_watermark(99)
    assert h.get_output() == [R(("k", 10, 3), 99)]
    h.process_watermark(500)
    assert h.get_output() == [R(("k", 10, 3), 99), R(("k", 100, 4), 199)]
    assert h.keys() == []


def test_offsets_and_negative_timestamps():
    h = harness(TumblingEventTimeWindows.of(Time.seconds(1), Time.milliseconds(250)))
    for ts in (-1, 249, 250, 1249, 1250):
        h.process_element(("k", ts, ts), ts)
    h.end_input()
    assert [r.value[1:] for r in h.get_output()] == [
        ((-750, 250), [-1, 249]), ((250, 1250), [250, 1249]), ((1250, 2250), [1250])]


def test_end_of_input_closes_all_event_time_windows():
    h = harness(SlidingEventTimeWindows.of(100, 50), None, CONTENTS_REDUCE, _sum_ids)
    h.process_element(("k", 1000, 1), 1000)
    h.process_watermark(1020)
    assert h.get_output() == []
    h.end_input()
    assert h.get_output() == [R(("k", 1000, 1), 1049), R(("k", 1000, 1), 1099)]
    assert h.keys() == []


def test_element_without_timestamp_in_event_time_window_fails():
    h = harness(TumblingEventTimeWindows.of(10))
    with pytest.raises(ValueError, match="timestamp"):
        h.process_element(("k", 0, 0), None)
    h2 = harness(TumblingEventTimeWindows.of(10), None, CONTENTS_REDUCE, _sum_ids)
    with pytest.raises(ValueError, match="timestamp"):
        h2.process_element(("k", 0, 0), None)


# -------------------------------------------------------------------------------- lateness

def test_late_element_is_dropped_and_counted():
    h = harness(TumblingEventTimeWindows.of(10), None, CONTENTS_REDUCE, _sum_ids)
    h.process_element(("k", 1, 1), 1)
    h.process_watermark(10)
    h.process_element(("k", 5, 2), 5)       # window [0, 10) is gone: late
    h.process_element(("k", 9, 4), 9)
    h.end_input()
    assert h.get_output() == [R(("k", 1, 1), 9)]
    assert h.operator.num_late_records_dropped == 2
    assert h.operator.take_late_records_dropped() == 2
    assert h.operator.take_late_records_dropped() == 0


def test_late_elements_go_to_the_side_output():
    late = OutputTag("late", Types.TUPLE([Types.STRING(), Types.INT(), Types.INT()]))
    h = harness(TumblingEventTimeWindows.of(10), None, CONTENTS_REDUCE, _sum_ids, late_data_tag=late)
    h.process_element(("k", 1, 1), 1)
    h.process_watermark(9)
    h.process_element(("k", 5, 2), 5)
    h.process_element(("k", 12, 4), 12)
    h.end_input()
    assert h.get_output() == [R(("k", 1, 1), 9), R(("k", 12, 4), 19)]
    assert h.get_side_output(late) == [R(("k", 5, 2), 5)]
    assert h.operator.num_late_records_dropped == 0


@pytest.mark.parametrize("general", [False, True])
def test_allowed_lateness_fires_late_and_cleans_up_later(general):
    trigger = _PlainEventTimeTrigger() if general else None
    late = OutputTag("late")
    h = harness(TumblingEventTimeWindows.of(10), trigger, CONTENTS_REDUCE, _sum_ids,
                allowed_lateness=5, late_data_tag=late)
    h.process_element(("k", 1, 1), 1)
    h.process_watermark(9)
    assert h.get_output() == [R(("k", 1, 1), 9)]
    h.process_element(("k", 3, 2), 3)       # within lateness: fires again, with the element's ts
    assert h.get_output()[-1] == R(("k", 1, 3), 3)
    h.process_watermark(13)
    h.process_element(("k", 4, 4), 4)       # still within: 9 + 5 > 13
    assert h.get_output()[-1] == R(("k", 1, 7), 4)
    h.process_watermark(14)                 # cleanup time 9 + 5
    assert h.keys() == []
    h.process_element(("k", 2, 8), 2)       # now late
    assert h.get_side_output(late) == [R(("k", 2, 8), 2)]
    assert len(h.get_output()) == 3


def test_late_element_bridging_two_sessions_merges_them():
    h = harness(EventTimeSessionWindows.with_gap(5), allowed_lateness=100)
    h.process_element(("k", 0, 1), 0)       # [0, 5)
    h.process_element(("k", 10, 2), 10)     # [10, 15)
    h.process_watermark(7)                  # fires [0, 5)
    assert h.get_output() == [R(("k", (0, 5), [1]), 4)]
    h.process_element(("k", 5, 3), 5)       # [5, 10) touches both: one session [0, 15)
    h.process_watermark(14)
    assert h.get_output()[1:] == [R(("k", (0, 15), [1, 2, 3]), 14)]
    h.end_input()
    assert h.keys() == []


def test_session_element_late_without_lateness_is_dropped():
    h = harness(EventTimeSessionWindows.with_gap(5))
    h.process_element(("k", 0, 1), 0)
    h.process_watermark(7)
    h.process_element(("k", 2, 2), 2)       # [2, 7): cleanup 6 <= 7
    h.end_input()
    assert h.get_output() == [R(("k", (0, 5), [1]), 4)]
    assert h.operator.num_late_records_dropped == 1


def test_per_element_watermark_stamps():
    """Elements carry the watermark that preceded them: windows close between elements."""
    op = WindowOperator(TumblingEventTimeWindows.of(10), None, CONTENTS_REDUCE, _sum_ids)
    op.open()
    ks = KeyState()
    elements = [(("k", 1, 1), 1, None), (("k", 12, 2), 12, 10), (("k", 5, 4), 5, 10),
                (("k", 15, 8), 15, 11)]
    out = list(op.process("k", ks, elements, -2 ** 63, 25, 0))
    assert out == [(None, ("k", 1, 1), 9), (None, ("k", 12, 10), 19)]
    assert op.num_late_records_dropped == 1


# --------------------------------------------------------------------------- processing time

def test_tumbling_processing_time():
    h = harness(TumblingProcessingTimeWindows.of(100), None, CONTENTS_REDUCE, _sum_ids)
    h.set_processing_time(10)
    h.process_element(("k", None, 1))
    h.set_processing_time(50)
    h.process_element(("k", None, 2))
    assert h.processing_time_timers("k") == [99]
    h.set_processing_time(99)
    assert h.get_output() == [R(("k", None, 3), 99)]
    h.process_element(("k", None, 4))       # processing time 99: still window [0, 100)
    h.set_processing_time(150)
    assert h.get_output()[1:] == [R(("k", None, 4), 99)]
    h.process_element(("k", None, 8))
    h.set_processing_time(300)
    assert h.get_output()[2:] == [R(("k", None, 8), 199)]
    assert h.keys() == []


def test_sliding_processing_time():
    h = harness(SlidingProcessingTimeWindows.of(100, 50))
    h.set_processing_time(120)
    h.process_element(("k", None, 1))
    h.set_processing_time(1000)
    assert [r.value[1] for r in h.get_output()] == [(50, 150), (100, 200)]


def test_processing_time_sessions_and_dynamic_gap():
    h = harness(ProcessingTimeSessionWindows.with_gap(10))
    h.set_processing_time(0)
    h.process_element(("k", None, 1))
    h.set_processing_time(5)
    h.process_element(("k", None, 2))
    h.set_processing_time(30)
    h.process_element(("k", None, 3))
    h.set_processing_time(100)
    assert [r.value[1:] for r in h.get_output()] == [((0, 15), [1, 2]), ((30, 40), [3])]

    h = harness(DynamicProcessingTimeSessionWindows.with_dynamic_gap(lambda e: e[2] * 10))
    h.set_processing_time(0)
    h.process_element(("k", None, 1))       # [0, 10)
    h.set_processing_time(8)
    h.process_element(("k", None, 3))       # [8, 38): merged [0, 38)
    h.set_processing_time(100)
    assert [r.value[1:] for r in h.get_output()] == [((0, 38), [1, 3])]


def test_event_time_trigger_on_processing_time_windows():
    """A processing-time assigner with an event-time trigger is allowed (as in Flink)."""
    h = harness(TumblingProcessingTimeWindows.of(100), EventTimeTrigger.create())
    h.set_processing_time(10)
    h.process_element(("k", 5, 1), 5)
    h.process_watermark(99)
    assert h.get_output() == [R(("k", (0, 100), [1]), 99)]


# ----------------------------------------------------------------------------- sessions

class GapFromElement(SessionWindowTimeGapExtractor):
    def extract(self, element):
        return element[2]


def test_dynamic_event_time_sessions():
    h = harness(DynamicEventTimeSessionWindows.with_dynamic_gap(GapFromElement()))
    for ts, gap in ((0, 5), (4, 20), (30, 1), (31, 2)):
        h.process_element(("k", ts, gap), ts)
    h.end_input()
    # [0,5) + [4,24) -> [0,24); [30,31) touches [31,33) -> [30,33)
    assert [r.value[1] for r in h.get_output()] == [(0, 24), (30, 33)]
    assert [r.timestamp for r in h.get_output()] == [23, 32]
    h2 = harness(EventTimeSessionWindows.with_dynamic_gap(lambda e: 0))
    with pytest.raises(ValueError, match="gap"):
        h2.process_element(("k", 1, 1), 1)


def test_session_aggregate_merges_accumulators():
    class Avg(AggregateFunction):
        def create_accumulator(self):
            return (0, 0)

        def add(self, value, acc):
            return acc[0] + value[2], acc[1] + 1

        def get_result(self, acc):
            return acc[0] / acc[1]

        def merge(self, a, b):
            return a[0] + b[0], a[1] + b[1]

    h = harness(EventTimeSessionWindows.with_gap(10), None, CONTENTS_AGGREGATE, Avg())
    for ts, v in ((0, 2), (30, 10), (15, 6)):     # the last one bridges [0,10) and [30,40)? no
        h.process_element(("k", ts, v), ts)
    h.end_input()
    # [0,10) + [15,25) do not touch; [15,25) and [30,40) neither
    assert h.extract_output_values() == [2.0, 6.0, 10.0]
    h = harness(EventTimeSessionWindows.with_gap(10), None, CONTENTS_AGGREGATE, Avg())
    for ts, v in ((0, 2), (20, 10), (10, 6)):     # [10,20) touches both
        h.process_element(("k", ts, v), ts)
    h.end_input()
    assert h.get_output() == [R(6.0, 29)]


def test_count_trigger_state_merges_with_sessions():
    h = harness(EventTimeSessionWindows.with_gap(10), CountTrigger.of(3))
    h.process_element(("k", 0, 1), 0)
    h.process_element(("k", 50, 2), 50)
    h.process_element(("k", 25, 3), 25)     # three separate sessions, counts 1 each
    assert h.get_output() == []
    h.process_element(("k", 12, 4), 12)     # [12,22) touches [0,10)? no; [25,35)? no
    h.process_element(("k", 20, 5), 20)     # [20,30) merges [12,22) and [25,35) -> count 3: fire
    assert h.get_output() == [R(("k", (12, 35), [4, 3, 5]), 20)]
    h.process_element(("k", 8, 6), 8)       # [8,18) merges [0,10) (count 1) and [12,35) (count 0)
    assert len(h.get_output()) == 1
    h.process_element(("k", 9, 7), 9)       # count reaches 3 in the merged window
    assert h.get_output()[1].value[1] == (0, 35)
    assert sorted(h.get_output()[1].value[2]) == [1, 3, 4, 5, 6, 7]


def test_per_window_state_is_not_allowed_with_merging_windows():
    class UsesWindowState(ProcessWindowFunction):
        def process(self, key, ctx, elements):
            ctx.window_state().get_state(ValueStateDescriptor("x", Types.INT()))
            return []

    h = harness(EventTimeSessionWindows.with_gap(10), window_function=UsesWindowState())
    h.process_element(("k", 0, 1), 0)
    with pytest.raises(TypeError, match="Per-window state"):
        h.end_input()


# ----------------------------------------------------------------------------- triggers

def test_never_trigger_is_the_default_of_global_windows():
    h = harness(GlobalWindows.create())
    run(h)
    assert h.get_output() == []


def test_continuous_processing_time_trigger():
    h = harness(GlobalWindows.create(), ContinuousProcessingTimeTrigger.of(Time.milliseconds(100)))
    h.set_processing_time(1050)
    h.process_element(("k", None, 1))
    assert h.processing_time_timers("k") == [1100]
    h.set_processing_time(1100)
    assert h.get_output() == [R(("k", "GlobalWindow", [1]), 1100)]
    h.process_element(("k", None, 2))
    h.set_processing_time(1250)
    assert h.get_output()[1:] == [R(("k", "GlobalWindow", [1, 2]), 1200)]
    assert h.processing_time_timers("k") == [1300]


def test_processing_time_trigger_on_event_time_windows():
    h = harness(TumblingEventTimeWindows.of(100), ProcessingTimeTrigger.create())
    h.process_element(("k", 5, 1), 5)
    h.set_processing_time(99)
    assert h.get_output() == [R(("k", (0, 100), [1]), 99)]
    h.process_watermark(99)                 # cleanup: the window is gone
    assert h.keys() == []


class _PlainEventTimeTrigger(EventTimeTrigger):
    """An EventTimeTrigger subclass: same behaviour, but runs on the general path."""


class SumTrigger(Trigger):
    """Fires and purges when the sum of the ids reaches 10; otherwise fires 100 ms
    (processing time) after the first element."""

    desc = ReducingStateDescriptor("sum", lambda a, b: a + b, Types.LONG())
    first = ValueStateDescriptor("first", Types.LONG())

    def on_element(self, element, timestamp, window, ctx):
        s = ctx.get_partitioned_state(self.desc)
        s.add(element[2])
        first = ctx.get_partitioned_state(self.first)
        if first.value() is None:
            first.update(ctx.get_current_processing_time())
            ctx.register_processing_time_timer(ctx.get_current_processing_time() + 100)
        if s.get() >= 10:
            self.clear(window, ctx)
            return TriggerResult.FIRE_AND_PURGE
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx):
        self.clear(window, ctx)
        return TriggerResult.FIRE_AND_PURGE

    def on_event_time(self, time, window, ctx):
        return TriggerResult.CONTINUE

    def on_merge(self, window, ctx):
        pass

    def clear(self, window, ctx):
        first = ctx.get_partitioned_state(self.first)
        if first.value() is not None:
            ctx.delete_processing_time_timer(first.value() + 100)
        first.clear()
        ctx.get_partitioned_state(self.desc).clear()


def test_user_trigger_with_partitioned_state_and_timers():
    h = harness(GlobalWindows.create(), SumTrigger())
    h.set_processing_time(1000)
    h.process_element(("k", None, 4))
    h.process_element(("k", None, 7))
    assert h.get_output() == [R(("k", "GlobalWindow", [4, 7]), None)]
    assert h.processing_time_timers("k") == []
    assert h.keys() == []                    # contents purged, trigger state cleared
    h.process_element(("k", None, 1))
    h.set_processing_time(1099)
    assert len(h.get_output()) == 1
    h.set_processing_time(1100)
    assert h.get_output()[1] == R(("k", "GlobalWindow", [1]), 1100)
    assert h.keys() == []


def test_trigger_clear_is_called_at_cleanup_time():
    cleared = []

    class Recording(EventTimeTrigger):
        def clear(self, window, ctx):
            cleared.append(window)
            super().clear(window, ctx)

    h = harness(TumblingEventTimeWindows.of(10), Recording(), allowed_lateness=3)
    h.process_element(("k", 1, 1), 1)
    h.process_watermark(9)
    assert cleared == []
    h.process_watermark(12)
    assert cleared == [TimeWindow(0, 10)]
    assert h.keys() == []


# --------------------------------------------------------------------------- functions

class Avg(AggregateFunction):
    def create_accumulator(self):
        return [0, 0]

    def add(self, value, acc):
        acc[0] += value[2]
        acc[1] += 1
        return acc

    def get_result(self, acc):
        return acc[0] / acc[1]

    def merge(self, a, b):
        return [a[0] + b[0], a[1] + b[1]]


class WithWindow(WindowFunction):
    def apply(self, key, window, inputs):
        inputs = list(inputs)
        assert len(inputs) == 1
        yield key, window.start, inputs[0]


class WithContext(ProcessWindowFunction):
    def process(self, key, ctx, elements):
        yield key, ctx.window().end, list(elements), ctx.current_watermark()


@pytest.mark.parametrize("general", [False, True])
def test_aggregate_with_and_without_window_function(general):
    trigger = _PlainEventTimeTrigger() if general else None
    out = run(harness(TumblingEventTimeWindows.of(10), trigger, CONTENTS_AGGREGATE, Avg()))
    assert [r.value for r in out] == [(1 + 2 + 8) / 3, 3.0, 4.5, 6.0, 7.0]
    out = run(harness(TumblingEventTimeWindows.of(10), trigger, CONTENTS_AGGREGATE, Avg(), WithWindow()))
    assert [r.value for r in out] == [("a", 0, 11 / 3), ("b", 0, 3.0), ("a", 10, 4.5), ("a", 30, 6.0),
                                      ("b", 30, 7.0)]


@pytest.mark.parametrize("general", [False, True])
def test_reduce_with_process_window_function(general):
    trigger = _PlainEventTimeTrigger() if general else None
    h = harness(TumblingEventTimeWindows.of(10), trigger, CONTENTS_REDUCE, _sum_ids, WithContext())
    h.process_element(("a", 1, 1), 1)
    h.process_element(("a", 2, 2), 2)
    h.process_watermark(15)
    assert h.get_output() == [R(("a", 10, [("a", 1, 3)], 15), 9)]


def test_reduce_function_class_and_apply():
    class Sum(ReduceFunction):
        def reduce(self, a, b):
            return (a[0], a[1], a[2] + b[2])

    class Count(WindowFunction):
        def apply(self, key, window, inputs):
            return [(key, window.end, len(list(inputs)))]

    assert [r.value for r in run(harness(TumblingEventTimeWindows.of(10), None, CONTENTS_REDUCE, Sum()))][0] \
        == ("a", 1, 11)
    assert [r.value for r in run(harness(TumblingEventTimeWindows.of(10), window_function=Count()))] == [
        ("a", 10, 3), ("b", 10, 1), ("a", 20, 2), ("a", 40, 1), ("b", 40, 1)]


def test_all_window_functions():
    class AllApply(AllWindowFunction):
        def apply(self, window, inputs):
            yield window.start, sorted(e[2] for e in inputs)

    class AllProcess(ProcessAllWindowFunction):
        def process(self, ctx, elements):
            yield ctx.window().start, len(list(elements))

    op = WindowOperator(TumblingEventTimeWindows.of(10), None, CONTENTS_LIST, None, AllApply(),
                        all_windows=True)
    h = KeyedOperatorTestHarness(op, lambda v: 0)
    run(h)
    assert h.extract_output_values() == [(0, [1, 2, 3, 8]), (10, [4, 5]), (30, [6, 7])]
    op = WindowOperator(TumblingEventTimeWindows.of(10), None, CONTENTS_REDUCE, _sum_ids, AllProcess(),
                        all_windows=True)
    h = KeyedOperatorTestHarness(op, lambda v: 0)
    run(h)
    assert h.extract_output_values() == [(0, 1), (10, 1), (30, 1)]


def test_window_and_global_state_of_process_window_function():
    per_window = ValueStateDescriptor("firings", Types.INT())
    total = ValueStateDescriptor("total", Types.INT())

    class Counting(ProcessWindowFunction):
        def process(self, key, ctx, elements):
            w = ctx.window_state().get_state(per_window)
            w.update((w.value() or 0) + 1)
            g = ctx.global_state().get_state(total)
            g.update((g.value() or 0) + 1)
            yield ctx.window().start, w.value(), g.value()

        def clear(self, ctx):
            ctx.window_state().get_state(per_window).clear()

    h = harness(TumblingEventTimeWindows.of(10), ContinuousEventTimeTrigger.of(5), window_function=Counting())
    h.process_element(("k", 1, 1), 1)
    h.process_element(("k", 11, 2), 11)
    h.process_watermark(30)
    assert h.extract_output_values() == [(0, 1, 1), (0, 2, 2), (10, 1, 3), (10, 2, 4)]
    assert h.state("k", "total") == 4
    # the per-window state was cleared with the windows; only the global state remains
    ks = h.backend.get("k")
    assert set(ks.states) == {"total"}


def test_side_outputs_of_window_functions():
    tag = OutputTag("small")

    class Split(ProcessWindowFunction):
        def process(self, key, ctx, elements):
            for e in elements:
                if e[2] < 3:
                    ctx.output(tag, e[2])
                else:
                    yield e[2]
            yield tag, -1

    h = harness(TumblingEventTimeWindows.of(100), window_function=Split())
    run(h)
    assert h.get_side_output_values(tag) == [1, 2, -1, -1]
    assert h.extract_output_values() == [4, 5, 6, 8, 3, 7]


def test_user_function_errors_name_the_operator():
    def bad(a, b):
        raise KeyError("boom")

    h = harness(TumblingEventTimeWindows.of(10), None, CONTENTS_REDUCE, bad)
    h.process_element(("k", 1, 1), 1)
    with pytest.raises(KeyError, match="boom") as info:
        h.process_element(("k", 2, 2), 2)
    assert any("Window" in n for n in getattr(info.value, "__notes__", []))


def test_open_and_close_are_called():
    calls = []

    class Tracking(ProcessWindowFunction):
        def open(self, ctx):
            calls.append(("open", ctx.get_task_name()))

        def close(self):
            calls.append("close")

        def process(self, key, ctx, elements):
            return []

    with harness(TumblingEventTimeWindows.of(10), window_function=Tracking()):
        pass
    assert calls == [("open", "Window"), "close"]


# ------------------------------------------------------------------------------ count windows

def test_count_windows_keep_state_bounded():
    h = harness(CountTumblingWindowAssigner.of(3), None, CONTENTS_REDUCE, _sum_ids)
    for i in range(1000):
        h.process_element(("k", i, 1), i)
    assert len(h.get_output()) == 333
    ks = h.backend.get("k")
    from kindling.runtime.window.window_operator import CONTENTS
    assert len(ks.states[CONTENTS]) == 1      # only the open (partial) window
    h = harness(CountSlidingWindowAssigner.of(4, 2), None, CONTENTS_REDUCE, _sum_ids)
    for i in range(1000):
        h.process_element(("k", i, 1), i)
    assert h.extract_output_values()[:2] == [("k", 0, 4), ("k", 2, 4)]
    assert len(h.backend.get("k").states[CONTENTS]) <= 2


def test_count_window_with_other_trigger_follows_the_trigger():
    h = harness(CountTumblingWindowAssigner.of(4), CountTrigger.of(2))
    for i in range(1, 6):
        h.process_element(("k", i, i), i)
    assert [r.value[2] for r in h.get_output()] == [[1, 2], [1, 2, 3, 4]]


# -------------------------------------------------------------------------------------- BATCH

@pytest.mark.parametrize("assigner", [TumblingEventTimeWindows.of(10), SlidingEventTimeWindows.of(10, 5),
                                      EventTimeSessionWindows.with_gap(5)])
def test_batch_gives_the_streaming_final_results(assigner):
    stream = run(harness(assigner))
    op = WindowOperator(assigner, None, CONTENTS_LIST, None, Describe())
    op.open()
    batch = run_batch(op, [(e, e[1]) for e in DATA], lambda v: v[0], processing_time=0)
    # the same windows and contents (BATCH sorts each key's elements by timestamp first)
    assert sorted((v[0], v[1], sorted(v[2]), ts) for _, v, ts in batch) == \
        sorted((r.value[0], r.value[1], sorted(r.value[2]), r.timestamp) for r in stream)
    assert all(tag is None for tag, _, _ in batch)


def test_batch_mode_has_no_late_elements():
    op = WindowOperator(TumblingEventTimeWindows.of(10), None, CONTENTS_REDUCE, _sum_ids)
    op.open()
    records = [(("k", 50, 1), 50), (("k", 1, 2), 1)]      # out of order: sorted by timestamp
    out = run_batch(op, records, lambda v: v[0], processing_time=0)
    assert out == [(None, ("k", 1, 2), 9), (None, ("k", 50, 1), 59)]
    assert op.num_late_records_dropped == 0


def test_batch_processing_time_windows_fire_at_the_end_of_the_key():
    op = WindowOperator(TumblingProcessingTimeWindows.of(1000), None, CONTENTS_REDUCE, _sum_ids)
    op.open()
    out = run_batch(op, [(("k", 0, 1), None), (("k", 0, 2), None)], lambda v: v[0],
                    processing_time=1500)
    assert out == [(None, ("k", 0, 3), 1999)]


# ------------------------------------------------------------------------ state and pickling

def test_state_stays_bounded_by_the_open_windows():
    h = harness(SlidingEventTimeWindows.of(1000, 100), None, CONTENTS_REDUCE, _sum_ids,
                serialize_state=False) if False else None
    op = WindowOperator(SlidingEventTimeWindows.of(1000, 100), None, CONTENTS_REDUCE, _sum_ids,
                        allowed_lateness=500)
    h = KeyedOperatorTestHarness(op, lambda v: v[0])
    sizes = []
    for i in range(0, 20000, 10):
        h.process_element(("k", i, 1), i)
        if i % 100 == 0:
            h.process_watermark(i - 50)
            sizes.append(len(h.backend.get("k").to_bytes()))
    assert max(sizes[20:]) <= 2 * min(sizes[20:])      # no growth with history
    from kindling.runtime.window.window_operator import CONTENTS
    assert len(h.backend.get("k").states[CONTENTS]) <= 16
    assert h.num_event_time_timers("k") <= 32
    h.end_input()
    assert h.keys() == []


def test_operator_pickles_before_and_after_open():
    op = WindowOperator(EventTimeSessionWindows.with_gap(5), CountTrigger.of(2), CONTENTS_AGGREGATE,
                        Avg(), WithContext(), allowed_lateness=7, late_data_tag=OutputTag("late"))
    copy = cloudpickle.loads(cloudpickle.dumps(op))
    assert copy.allowed_lateness == 7 and copy.late_data_tag_id == "late"
    op.open()
    run(KeyedOperatorTestHarness(op, lambda v: v[0]), end=False)
    copy = cloudpickle.loads(cloudpickle.dumps(op))
    h = KeyedOperatorTestHarness(copy, lambda v: v[0])
    run(h)
    assert h.get_output()


def test_operator_validates_its_configuration():
    with pytest.raises(TypeError, match="WindowAssigner"):
        WindowOperator("tumbling")
    with pytest.raises(TypeError, match="Trigger"):
        WindowOperator(GlobalWindows.create(), "count")
    with pytest.raises(TypeError, match="window function"):
        WindowOperator(GlobalWindows.create(), None, CONTENTS_LIST)
    with pytest.raises(TypeError, match="AggregateFunction"):
        WindowOperator(GlobalWindows.create(), None, CONTENTS_AGGREGATE, object())
    with pytest.raises(ValueError, match="lateness"):
        WindowOperator(GlobalWindows.create(), None, CONTENTS_REDUCE, _sum_ids, allowed_lateness=-1)


# --------------------------------------------------------------- aligned windows == general path

@pytest.mark.parametrize("assigner", [TumblingEventTimeWindows.of(50, 7), SlidingEventTimeWindows.of(60, 20)])
@pytest.mark.parametrize("contents", [CONTENTS_REDUCE, CONTENTS_AGGREGATE, CONTENTS_LIST])
@pytest.mark.parametrize("lateness", [0, 35])
def test_aligned_windows_equal_the_general_path(assigner, contents, lateness):
    rnd = random.Random(hash((repr(assigner), contents, lateness)) & 0xffff)
    events = []
    wm = -2 ** 63
    mx = 0
    for i in range(400):
        ts = i * 3 - rnd.randint(0, 300)
        mx = max(mx, ts)
        events.append((("k%d" % rnd.randrange(3), ts, rnd.randrange(100)), ts,
                       mx - 60 if rnd.random() < 0.5 else None))
    function = {CONTENTS_REDUCE: _sum_ids, CONTENTS_AGGREGATE: Avg(), CONTENTS_LIST: None}[contents]
    wf = WithContext() if contents == CONTENTS_LIST else None
    outs = []
    for trigger in (None, _PlainEventTimeTrigger()):
        op = WindowOperator(assigner, trigger, contents, function, wf, allowed_lateness=lateness,
                            late_data_tag="late")
        op.open()
        assert op._aligned == (trigger is None)
        states = {}
        out = []
        wm = -2 ** 63
        for start in range(0, len(events), 50):
            batch = events[start:start + 50]
            new_wm = max(e[1] for e in batch) - 60
            by_key = {}
            for e in batch:
                by_key.setdefault(e[0][0], []).append(e)
            for key in sorted(by_key):
                ks = states.setdefault(key, KeyState())
                out.extend(op.process(key, ks, by_key[key], wm, new_wm, 0))
            for key in sorted(set(states) - set(by_key)):
                out.extend(op.on_timers(key, states[key], new_wm, 0))
            wm = new_wm
        for key in sorted(states):
            out.extend(op.end_of_input(key, states[key], 0))
            assert states[key].is_empty()
        outs.append(out)
    assert outs[0] == outs[1]
    assert any(tag == "late" for tag, _, _ in outs[0])
