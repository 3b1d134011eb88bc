"""Window assigners: which windows an element belongs to (time, global and count windows).

The session assigners, whose windows merge, are in :mod:`kindling.datastream.window.sessions`.
"""
from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Collection, Generic, Iterable, TypeVar

from kindling.common.serializer import TypeSerializer
from kindling.common.typeinfo import Types
from kindling.datastream.state import ValueStateDescriptor
from kindling.datastream.window._arguments import millis, positive_count
from kindling.datastream.window.triggers import (
    CountTrigger, EventTimeTrigger, NeverTrigger, ProcessingTimeTrigger, Trigger,
)
from kindling.datastream.window.windows import (
    MIN_LONG_VALUE, CountWindow, CountWindowSerializer, GlobalWindow, GlobalWindowSerializer, TimeWindow,
    TimeWindowSerializer, _GLOBAL_WINDOW,
)

__all__ = ['WindowAssigner', 'MergingWindowAssigner', 'TumblingEventTimeWindows',
           'TumblingProcessingTimeWindows', 'SlidingEventTimeWindows',
           'SlidingProcessingTimeWindows', 'GlobalWindows', 'CountTumblingWindowAssigner',
           'CountSlidingWindowAssigner']

T = TypeVar('T')
W = TypeVar('W')
W2 = TypeVar('W2')


class WindowAssigner(ABC, Generic[T, W]):
    """Assigns zero or more windows to each element."""

    class WindowAssignerContext(ABC):
        """Lets an assigner read the processing time and reach keyed state."""

        @abstractmethod
        def get_current_processing_time(self) -> int:
            pass

        @abstractmethod
        def get_runtime_context(self):
            pass

    @abstractmethod
    def assign_windows(self, element: T, timestamp: int,
                       context: 'WindowAssigner.WindowAssignerContext') -> Collection[W]:
        """The windows ``element`` (with event timestamp ``timestamp``) belongs to."""

    @abstractmethod
    def get_default_trigger(self, env) -> Trigger[T, W]:
        """The trigger used when none is set with ``WindowedStream.trigger``."""

    def get_window_serializer(self) -> TypeSerializer[W] | None:
        """The serializer of this assigner's windows (Kindling's runtime pickles windows: a custom
        assigner may return None)."""
        return None

    @abstractmethod
    def is_event_time(self) -> bool:
        """True when windows are based on event time (allowed lateness and late data apply)."""


class MergingWindowAssigner(WindowAssigner[T, W]):
    """A WindowAssigner whose windows can merge (sessions)."""

    class MergeCallback(ABC, Generic[W2]):

        @abstractmethod
        def merge(self, to_be_merged: Iterable[W2], merge_result: W2) -> None:
            """The windows ``to_be_merged`` become ``merge_result``."""

    @abstractmethod
    def merge_windows(self, windows: Iterable[W], callback: 'MergingWindowAssigner.MergeCallback') -> None:
        """Calls ``callback.merge`` for each group of ``windows`` to merge."""


_NO_TIMESTAMP = ("Record has no timestamp (Java's Long.MIN_VALUE timestamp marker). Is the time "
                 "characteristic set to 'ProcessingTime', or did you forget to call "
                 "'data_stream.assign_timestamps_and_watermarks(...)'?")


class _TimeWindowAssigner(WindowAssigner[T, TimeWindow]):
    """What the event-time and processing-time twins of the time assigners share: a subclass
    sets ``_event_time``; elements are assigned by :meth:`_time`."""

    _event_time = True

    def _time(self, timestamp, context) -> int:
        """The time an element is assigned by: its timestamp (event time) or the current
        processing time."""
        if not self._event_time:
            return context.get_current_processing_time()
        if timestamp is None or timestamp <= MIN_LONG_VALUE:
            raise ValueError(_NO_TIMESTAMP)
        return timestamp

    def get_default_trigger(self, env) -> Trigger:
        return EventTimeTrigger() if self._event_time else ProcessingTimeTrigger()

    def get_window_serializer(self) -> TypeSerializer[TimeWindow]:
        return TimeWindowSerializer()

    def is_event_time(self) -> bool:
        return self._event_time


class _TumblingTimeWindows(_TimeWindowAssigner[T]):

    def __init__(self, size, offset=0):
        size = millis(size, "the window size")
        offset = millis(offset, "the window offset")
        if size <= 0 or abs(offset) >= size:
            raise ValueError("%s parameters must satisfy abs(offset) < size and size > 0 "
                             "(size=%d, offset=%d)" % (type(self).__name__, size, offset))
        self._size = size
        self._offset = offset

    @classmethod
    def of(cls, size, offset=None):
        return cls(size, 0 if offset is None else offset)

    def assign_windows(self, element, timestamp, context) -> Collection[TimeWindow]:
        t = self._time(timestamp, context)
        start = t - (t - self._offset + self._size) % self._size
        return [TimeWindow(start, start + self._size)]

    def __repr__(self):
        return "%s(%s, %s)" % (type(self).__name__, self._size, self._offset)


class TumblingEventTimeWindows(_TumblingTimeWindows[T]):
    """Fixed-size, non-overlapping windows by event time: ``[k*size + offset, (k+1)*size + offset)``.

    Example: ``TumblingEventTimeWindows.of(Time.days(1), Time.hours(-8))`` gives days that
    start at midnight UTC+8.
    """

    _event_time = True


class TumblingProcessingTimeWindows(_TumblingTimeWindows[T]):
    """Fixed-size, non-overlapping windows by the processing time at which elements arrive."""

    _event_time = False


class _SlidingTimeWindows(_TimeWindowAssigner[T]):

    def __init__(self, size, slide, offset=0):
        size = millis(size, "the window size")
        slide = millis(slide, "the window slide")
        offset = millis(offset, "the window offset")
        if size <= 0 or slide <= 0 or abs(offset) >= slide:
            raise ValueError("%s parameters must satisfy abs(offset) < slide, slide > 0 and "
                             "size > 0 (size=%d, slide=%d, offset=%d)"
                             % (type(self).__name__, size, slide, offset))
        self._size = size
        self._slide = slide
        self._offset = offset
        self._pane_size = math.gcd(size, slide)

    @classmethod
    def of(cls, size, slide, offset=None):
        return cls(size, slide, 0 if offset is None else offset)

    def assign_windows(self, element, timestamp, context) -> Collection[TimeWindow]:
        t = self._time(timestamp, context)
        size, slide = self._size, self._slide
        last_start = t - (t - self._offset + slide) % slide
        return [TimeWindow(start, start + size) for start in range(last_start, t - size, -slide)]

    def __repr__(self):
        return "%s(%s, %s, %s)" % (type(self).__name__, self._size, self._slide, self._offset)


class SlidingEventTimeWindows(_SlidingTimeWindows[T]):
    """Windows of ``size`` starting every ``slide`` by event time; an element belongs to
    ``size / slide`` windows."""

    _event_time = True


class SlidingProcessingTimeWindows(_SlidingTimeWindows[T]):
    """Windows of ``size`` starting every ``slide`` by processing time."""

    _event_time = False


class CumulativeEventTimeWindows(_TimeWindowAssigner[T]):
    """Windows sharing a start that grow by ``step`` until ``max_size`` (``[s, s+step)``,
    ``[s, s+2*step)``, ... ``[s, s+max_size)``), by event time: Flink SQL's CUMULATE windows, for
    which Flink's DataStream API has no assigner (Kindling's own name)."""

    def __init__(self, max_size, step, offset=0):
        max_size = millis(max_size, "the window size")
        step = millis(step, "the window step")
        offset = millis(offset, "the window offset")
        if step <= 0 or max_size <= 0 or max_size % step or abs(offset) >= max_size:
            raise ValueError("CUMULATE windows need a step > 0 and a size that is an integral multiple of it "
                             "(size=%d, step=%d, offset=%d)" % (max_size, step, offset))
        self._size, self._step, self._offset = max_size, step, offset

    @classmethod
    def of(cls, max_size, step, offset=None):
        return cls(max_size, step, 0 if offset is None else offset)

    def assign_windows(self, element, timestamp, context) -> Collection[TimeWindow]:
        t = self._time(timestamp, context)
        start = t - (t - self._offset + self._size) % self._size
        first_end = start + (t - start) // self._step * self._step + self._step
        return [TimeWindow(start, end) for end in range(first_end, start + self._size + 1, self._step)]

    def __repr__(self):
        return "%s(%s, %s, %s)" % (type(self).__name__, self._size, self._step, self._offset)


class CumulativeProcessingTimeWindows(CumulativeEventTimeWindows[T]):
    """CUMULATE windows by the processing time at which elements arrive (Kindling's own name)."""

    _event_time = False


class GlobalWindows(WindowAssigner[T, GlobalWindow]):
    """Puts every element of a key into the one :class:`GlobalWindow`; the default trigger
    never fires, so set one (e.g. ``CountTrigger``)."""

    def assign_windows(self, element, timestamp, context) -> Collection[GlobalWindow]:
        return [_GLOBAL_WINDOW]

    @staticmethod
    def create() -> 'GlobalWindows':
        return GlobalWindows()

    def get_default_trigger(self, env) -> Trigger:
        return NeverTrigger()

    def get_window_serializer(self) -> TypeSerializer[GlobalWindow]:
        return GlobalWindowSerializer()

    def is_event_time(self) -> bool:
        return False

    def __repr__(self):
        return "GlobalWindows()"


class CountTumblingWindowAssigner(WindowAssigner[T, CountWindow]):
    """Windows of ``window_size`` consecutive elements of a key (``count_window(size)``)."""

    def __init__(self, window_size: int):
        self._window_size = positive_count(window_size, "the count window size")
        self._count_descriptor = ValueStateDescriptor('tumble-count-assigner', Types.LONG())

    @staticmethod
    def of(window_size: int) -> 'CountTumblingWindowAssigner':
        return CountTumblingWindowAssigner(window_size)

    def assign_windows(self, element, timestamp, context) -> Collection[CountWindow]:
        count = context.get_runtime_context().get_state(self._count_descriptor)
        n = count.value() or 0
        count.update(n + 1)
        return [CountWindow(n // self._window_size)]

    def get_default_trigger(self, env) -> Trigger:
        return CountTrigger(self._window_size)

    def get_window_serializer(self) -> TypeSerializer[CountWindow]:
        return CountWindowSerializer()

    def is_event_time(self) -> bool:
        return False

    def __repr__(self):
        return "CountTumblingWindowAssigner(%s)" % self._window_size


class CountSlidingWindowAssigner(WindowAssigner[T, CountWindow]):
    """Windows of ``window_size`` elements starting every ``window_slide`` elements
    (``count_window(size, slide)``). As in PyFlink, only full windows ever fire."""

    def __init__(self, window_size: int, window_slide: int):
        self._window_size = positive_count(window_size, "the count window size")
        self._window_slide = positive_count(window_slide, "the count window slide")
        self._count_descriptor = ValueStateDescriptor('slide-count-assigner', Types.LONG())

    @staticmethod
    def of(window_size: int, window_slide: int) -> 'CountSlidingWindowAssigner':
        return CountSlidingWindowAssigner(window_size, window_slide)

    def assign_windows(self, element, timestamp, context) -> Collection[CountWindow]:
        count = context.get_runtime_context().get_state(self._count_descriptor)
        n = count.value() or 0
        count.update(n + 1)
        size, slide = self._window_size, self._window_slide
        wid = n // slide
        windows = []
        while wid >= 0 and wid * slide <= n <= wid * slide + size - 1:
            windows.append(CountWindow(wid))
            wid -= 1
        return windows

    def get_default_trigger(self, env) -> Trigger:
        return CountTrigger(self._window_size)

    def get_window_serializer(self) -> TypeSerializer[CountWindow]:
        return CountWindowSerializer()

    def is_event_time(self) -> bool:
        return False

    def __repr__(self):
        return "CountSlidingWindowAssigner(%s, %s)" % (self._window_size, self._window_slide)
