"""Windows, window assigners and triggers, as in ``pyflink.datastream.window``.

A :class:`WindowAssigner` puts every element into zero or more windows; a :class:`Trigger`
decides when a window is evaluated (fired) and when its contents are purged::

    from kindling.common.time import Time
    from kindling.datastream.window import TumblingEventTimeWindows, CountTrigger

    (stream.key_by(lambda e: e[0])
           .window(TumblingEventTimeWindows.of(Time.seconds(10)))
           .reduce(lambda a, b: (a[0], a[1] + b[1])))

Sizes, slides, offsets and gaps may be given as :class:`~kindling.common.time.Time`,
:class:`~kindling.common.time.Duration` or int milliseconds.

Triggers must not keep per-window data in their own fields (a trigger instance serves every
key and window): they keep it in ``ctx.get_partitioned_state(descriptor)``, scoped to the key
and the window, and set timers through the context.
"""
from __future__ import annotations

import math
import sys
from abc import ABC, abstractmethod
from enum import Enum
from typing import Any, Collection, Generic, Iterable, TypeVar

from kindling.common.time import to_millis
from kindling.common.typeinfo import Types
from kindling.datastream.state import ReducingStateDescriptor, StateDescriptor, ValueStateDescriptor

__all__ = ['Window',
           'TimeWindow',
           'CountWindow',
           'GlobalWindow',
           'WindowAssigner',
           'TumblingProcessingTimeWindows',
           'TumblingEventTimeWindows',
           'SlidingProcessingTimeWindows',
           'SlidingEventTimeWindows',
           'ProcessingTimeSessionWindows',
           'EventTimeSessionWindows',
           'DynamicProcessingTimeSessionWindows',
           'DynamicEventTimeSessionWindows',
           'GlobalWindows',
           'MergingWindowAssigner',
           'CountTumblingWindowAssigner',
           'CountSlidingWindowAssigner',
           'TriggerResult',
           'Trigger',
           'EventTimeTrigger',
           'ProcessingTimeTrigger',
           'ContinuousEventTimeTrigger',
           'ContinuousProcessingTimeTrigger',
           'NeverTrigger',
           'PurgingTrigger',
           'CountTrigger',
           'SessionWindowTimeGapExtractor']

MAX_LONG_VALUE = 2 ** 63 - 1
MIN_LONG_VALUE = -(2 ** 63)

T = TypeVar('T')
W = TypeVar('W')
W2 = TypeVar('W2')


_P = sys.hash_info.modulus


def _mod_inverse(x: int) -> int:
    inverse = x * x * x
    inverse *= 2 - x * inverse
    inverse *= 2 - x * inverse
    inverse *= 2 - x * inverse
    return inverse


def _bit_mix(x: int) -> int:
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
    x = (x ^ (x >> 27)) * 0x94d049bb133111eb
    return x ^ (x >> 31)


def _millis(value, what: str) -> int:
    try:
        return to_millis(value)
    except TypeError:
        raise TypeError("%s must be a Time, a Duration or int milliseconds, got %r"
                        % (what, value)) from None


def _count(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int number of elements, got %r" % (what, value))
    if value <= 0:
        raise ValueError("%s must be positive, got %d" % (what, value))
    return value


# ---------------------------------------------------------------------------------- windows

class Window(ABC):
    """A finite bucket of elements; ``max_timestamp()`` is the largest timestamp it holds."""

    __slots__ = ()

    @abstractmethod
    def max_timestamp(self) -> int:
        pass


class TimeWindow(Window):
    """The time interval ``[start, end)`` in epoch milliseconds."""

    __slots__ = ('start', 'end', '_hash')

    def __init__(self, start: int, end: int):
        self.start = start
        self.end = end

    def max_timestamp(self) -> int:
        return self.end - 1

    def intersects(self, other: 'TimeWindow') -> bool:
        """True when this window and ``other`` overlap or touch."""
        return self.start <= other.end and self.end >= other.start

    def cover(self, other: 'TimeWindow') -> 'TimeWindow':
        """The smallest window that covers this window and ``other``."""
        return TimeWindow(min(self.start, other.start), max(self.end, other.end))

    @staticmethod
    def get_window_start_with_offset(timestamp: int, offset: int, window_size: int) -> int:
        """The start of the window of size ``window_size`` shifted by ``offset`` that holds
        ``timestamp``."""
        return timestamp - (timestamp - offset + window_size) % window_size

    @staticmethod
    def merge_windows(windows: Iterable['TimeWindow'],
                      callback: 'MergingWindowAssigner.MergeCallback') -> None:
        """Merges overlapping windows: calls ``callback.merge(windows, result)`` for each group
        of two or more windows that overlap (transitively)."""
        groups = []
        cur = None
        cur_set = None
        for w in sorted(windows):
            if cur is None:
                cur, cur_set = w, {w}
            elif cur.intersects(w):
                cur = cur.cover(w)
                cur_set.add(w)
            else:
                groups.append((cur, cur_set))
                cur, cur_set = w, {w}
        if cur is not None:
            groups.append((cur, cur_set))
        for result, members in groups:
            if len(members) > 1:
                callback.merge(members, result)

    def __hash__(self):
        try:
            return self._hash
        except AttributeError:
            pass
        h = self._hash = self._compute_hash()
        return h

    def _compute_hash(self):
        # PyFlink's hash, ``hash(start + _mod_inverse(2 * end + 1))``, computed modulo
        # Python's hash modulus instead of on numbers of thousands of bits
        x = (self.end << 1) + 1
        if -1024 < x < 1024:
            return hash(self.start + _mod_inverse(x))
        m = x % _P
        inv = m * m % _P * m % _P
        inv = inv * ((2 - m * inv) % _P) % _P
        inv = inv * ((2 - m * inv) % _P) % _P
        inv = inv * ((2 - m * inv) % _P) % _P
        if x > 0:
            # the exact value is hugely negative
            h = -((-self.start - inv) % _P)
            return -2 if h == -1 else h
        return (self.start + inv) % _P

    def __eq__(self, other):
        return (self.__class__ is other.__class__ and self.end == other.end
                and self.start == other.start)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __lt__(self, other: 'TimeWindow'):
        if not isinstance(other, TimeWindow):
            raise TypeError("cannot compare a TimeWindow with %r" % (other,))
        return self.start < other.start or (self.start == other.start and self.end < other.end)

    def __le__(self, other: 'TimeWindow'):
        return self.__eq__(other) or self.__lt__(other)

    def __reduce__(self):
        return TimeWindow, (self.start, self.end)

    def __repr__(self):
        return "TimeWindow(start={}, end={})".format(self.start, self.end)


class CountWindow(Window):
    """A count window, identified by its number ``id`` (0, 1, 2, ... per key)."""

    __slots__ = ('id',)

    def __init__(self, id: int):
        self.id = id

    def max_timestamp(self) -> int:
        return MAX_LONG_VALUE

    def __hash__(self):
        return _bit_mix(self.id)

    def __eq__(self, other):
        return self.__class__ is other.__class__ and self.id == other.id

    def __ne__(self, other):
        return not self.__eq__(other)

    def __lt__(self, other):
        if not isinstance(other, CountWindow):
            raise TypeError("cannot compare a CountWindow with %r" % (other,))
        return self.id < other.id

    def __reduce__(self):
        return CountWindow, (self.id,)

    def __repr__(self):
        return "CountWindow(id={})".format(self.id)


class GlobalWindow(Window):
    """The single window of :class:`GlobalWindows`, holding every element of a key."""

    __slots__ = ()

    @staticmethod
    def get() -> 'GlobalWindow':
        return _GLOBAL_WINDOW

    def max_timestamp(self) -> int:
        return MAX_LONG_VALUE

    def __eq__(self, other):
        return self.__class__ is other.__class__

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return 0

    def __reduce__(self):
        return GlobalWindow, ()

    def __repr__(self):
        return "GlobalWindow"


_GLOBAL_WINDOW = GlobalWindow()


# --------------------------------------------------------------------------------- triggers

class TriggerResult(Enum):
    """What a trigger decides for a window.

    - CONTINUE: nothing happens.
    - FIRE: the window function is evaluated; the contents are kept.
    - PURGE: the contents are discarded without evaluation.
    - FIRE_AND_PURGE: evaluate, then discard the contents.

    A window without contents is never evaluated.
    """
    CONTINUE = (False, False)
    FIRE_AND_PURGE = (True, True)
    FIRE = (True, False)
    PURGE = (False, True)

    def is_fire(self) -> bool:
        return self.value[0]

    def is_purge(self) -> bool:
        return self.value[1]


class Trigger(ABC, Generic[T, W]):
    """Decides when a window (a pane: one key, one window) is evaluated and purged.

    Triggers keep their data in ``ctx.get_partitioned_state(...)`` (scoped to key and window),
    never in their own fields. With a :class:`MergingWindowAssigner` the trigger must return
    True from :meth:`can_merge` and implement :meth:`on_merge`.
    """

    class TriggerContext(ABC):
        """Given to trigger methods: time, timers and window-scoped state."""

        @abstractmethod
        def get_current_processing_time(self) -> int:
            pass

        def get_metric_group(self):
            raise NotImplementedError("metric groups are not supported by Kindling")

        @abstractmethod
        def get_current_watermark(self) -> int:
            pass

        @abstractmethod
        def register_processing_time_timer(self, time: int) -> None:
            """:meth:`Trigger.on_processing_time` is called when processing time reaches ``time``."""

        @abstractmethod
        def register_event_time_timer(self, time: int) -> None:
            """:meth:`Trigger.on_event_time` is called when the watermark reaches ``time``."""

        @abstractmethod
        def delete_processing_time_timer(self, time: int) -> None:
            pass

        @abstractmethod
        def delete_event_time_timer(self, time: int) -> None:
            pass

        @abstractmethod
        def get_partitioned_state(self, state_descriptor: StateDescriptor):
            """The state of ``state_descriptor`` scoped to the current key and window."""

    class OnMergeContext(TriggerContext):
        """The context of :meth:`Trigger.on_merge`."""

        @abstractmethod
        def merge_partitioned_state(self, state_descriptor: StateDescriptor) -> None:
            """Merges the state of the merged windows into the new window (reducing,
            aggregating and list state only)."""

    @abstractmethod
    def on_element(self, element: T, timestamp: int, window: W,
                   ctx: 'Trigger.TriggerContext') -> TriggerResult:
        """Called for every element added to a window."""

    @abstractmethod
    def on_processing_time(self, time: int, window: W,
                           ctx: 'Trigger.TriggerContext') -> TriggerResult:
        """Called when a processing-time timer set through the context fires."""

    @abstractmethod
    def on_event_time(self, time: int, window: W, ctx: 'Trigger.TriggerContext') -> TriggerResult:
        """Called when an event-time timer set through the context fires."""

    def can_merge(self) -> bool:
        """True when this trigger supports merging windows (then implement :meth:`on_merge`)."""
        return False

    def on_merge(self, window: W, ctx: 'Trigger.OnMergeContext') -> None:
        """Called when windows were merged into ``window``."""
        raise NotImplementedError("%s does not support merging windows" % type(self).__name__)

    @abstractmethod
    def clear(self, window: W, ctx: 'Trigger.TriggerContext') -> None:
        """Deletes the timers and the state the trigger holds for ``window``; called when the
        window is removed."""


class EventTimeTrigger(Trigger[T, TimeWindow]):
    """Fires once the watermark passes the end of the window (the default of event-time
    assigners); fires again for every late element within the allowed lateness."""

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        if window.max_timestamp() <= ctx.get_current_watermark():
            return TriggerResult.FIRE
        ctx.register_event_time_timer(window.max_timestamp())
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.FIRE if time == window.max_timestamp() else TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        return True

    def on_merge(self, window, ctx) -> None:
        if window.max_timestamp() > ctx.get_current_watermark():
            ctx.register_event_time_timer(window.max_timestamp())

    def clear(self, window, ctx) -> None:
        ctx.delete_event_time_timer(window.max_timestamp())

    @staticmethod
    def create() -> 'EventTimeTrigger':
        return EventTimeTrigger()

    def __repr__(self):
        return "EventTimeTrigger()"


class ProcessingTimeTrigger(Trigger[T, TimeWindow]):
    """Fires once processing time passes the end of the window (the default of
    processing-time assigners)."""

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        ctx.register_processing_time_timer(window.max_timestamp())
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.FIRE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        return True

    def on_merge(self, window, ctx) -> None:
        if window.max_timestamp() > ctx.get_current_processing_time():
            ctx.register_processing_time_timer(window.max_timestamp())

    def clear(self, window, ctx) -> None:
        ctx.delete_processing_time_timer(window.max_timestamp())

    @staticmethod
    def create() -> 'ProcessingTimeTrigger':
        return ProcessingTimeTrigger()

    def __repr__(self):
        return "ProcessingTimeTrigger()"


def _min(a, b):
    return a if a <= b else b


class _ContinuousTrigger(Trigger[T, TimeWindow]):
    """What the two continuous triggers share; a subclass names itself (``_name``) and the
    context methods of its time domain (``_register_timer``, ``_delete_timer``)."""

    _name = None
    _register_timer = None
    _delete_timer = None

    def __init__(self, interval):
        self.interval = _millis(interval, "the interval of %s" % self._name)
        if self.interval <= 0:
            raise ValueError("the interval of %s must be positive" % self._name)
        self.state_desc = ReducingStateDescriptor("fire-time", _min, Types.LONG())

    def _on_timer(self, time, window, ctx) -> TriggerResult:
        fire_time = ctx.get_partitioned_state(self.state_desc)
        t = fire_time.get()
        if t is not None and t == time:
            fire_time.clear()
            self.register_next_fire_timestamp(time, window, ctx, fire_time)
            return TriggerResult.FIRE
        return TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        return True

    def on_merge(self, window, ctx) -> None:
        ctx.merge_partitioned_state(self.state_desc)
        t = ctx.get_partitioned_state(self.state_desc).get()
        if t is not None:
            getattr(ctx, self._register_timer)(t)

    def clear(self, window, ctx) -> None:
        fire_time = ctx.get_partitioned_state(self.state_desc)
        t = fire_time.get()
        if t is not None:
            getattr(ctx, self._delete_timer)(t)
            fire_time.clear()

    def register_next_fire_timestamp(self, time, window, ctx, fire_timestamp_state) -> None:
        nxt = min(time + self.interval, window.max_timestamp())
        fire_timestamp_state.add(nxt)
        getattr(ctx, self._register_timer)(nxt)

    def __repr__(self):
        return "%s(%d)" % (self._name, self.interval)


class ContinuousEventTimeTrigger(_ContinuousTrigger[T]):
    """Fires every ``interval`` ms of event time (aligned to multiples of the interval) and at
    the end of the window."""

    _name = "ContinuousEventTimeTrigger"
    _register_timer = "register_event_time_timer"
    _delete_timer = "delete_event_time_timer"

    @staticmethod
    def of(interval) -> 'ContinuousEventTimeTrigger':
        return ContinuousEventTimeTrigger(interval)

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        if window.max_timestamp() <= ctx.get_current_watermark():
            return TriggerResult.FIRE
        ctx.register_event_time_timer(window.max_timestamp())
        fire_time = ctx.get_partitioned_state(self.state_desc)
        if fire_time.get() is None:
            self.register_next_fire_timestamp(timestamp - (timestamp % self.interval), window, ctx,
                                              fire_time)
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        if time == window.max_timestamp():
            return TriggerResult.FIRE
        return self._on_timer(time, window, ctx)


class ContinuousProcessingTimeTrigger(_ContinuousTrigger[T]):
    """Fires every ``interval`` ms of processing time (aligned to multiples of the interval)."""

    _name = "ContinuousProcessingTimeTrigger"
    _register_timer = "register_processing_time_timer"
    _delete_timer = "delete_processing_time_timer"

    @staticmethod
    def of(interval) -> 'ContinuousProcessingTimeTrigger':
        return ContinuousProcessingTimeTrigger(interval)

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        fire_time = ctx.get_partitioned_state(self.state_desc)
        now = ctx.get_current_processing_time()
        if fire_time.get() is None:
            self.register_next_fire_timestamp(now - (now % self.interval), window, ctx, fire_time)
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return self._on_timer(time, window, ctx)

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE


class PurgingTrigger(Trigger[T, Window]):
    """Wraps a trigger: whenever it fires, the window is also purged (FIRE_AND_PURGE)."""

    def __init__(self, nested_trigger: Trigger):
        if not isinstance(nested_trigger, Trigger):
            raise TypeError("PurgingTrigger.of expects a Trigger, got %r" % (nested_trigger,))
        self.nested_trigger = nested_trigger

    @staticmethod
    def of(nested_trigger: Trigger) -> 'PurgingTrigger':
        return PurgingTrigger(nested_trigger)

    @staticmethod
    def _purging(result: TriggerResult) -> TriggerResult:
        return TriggerResult.FIRE_AND_PURGE if result.is_fire() else result

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        return self._purging(self.nested_trigger.on_element(element, timestamp, window, ctx))

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return self._purging(self.nested_trigger.on_event_time(time, window, ctx))

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return self._purging(self.nested_trigger.on_processing_time(time, window, ctx))

    def clear(self, window, ctx) -> None:
        self.nested_trigger.clear(window, ctx)

    def can_merge(self) -> bool:
        return self.nested_trigger.can_merge()

    def on_merge(self, window, ctx) -> None:
        self.nested_trigger.on_merge(window, ctx)

    def __repr__(self):
        return "PurgingTrigger(%r)" % (self.nested_trigger,)


def _add(a, b):
    return a + b


class CountTrigger(Trigger[T, Window]):
    """Fires (without purging) each time the window received ``window_size`` more elements."""

    def __init__(self, window_size: int):
        self._window_size = _count(window_size, "the count of CountTrigger")
        self._count_state_descriptor = ReducingStateDescriptor("count", _add, Types.LONG())

    @staticmethod
    def of(window_size: int) -> 'CountTrigger':
        return CountTrigger(window_size)

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        count = ctx.get_partitioned_state(self._count_state_descriptor)
        count.add(1)
        if count.get() >= self._window_size:
            count.clear()
            return TriggerResult.FIRE
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        return True

    def on_merge(self, window, ctx) -> None:
        ctx.merge_partitioned_state(self._count_state_descriptor)

    def clear(self, window, ctx) -> None:
        ctx.get_partitioned_state(self._count_state_descriptor).clear()

    def __repr__(self):
        return "CountTrigger(%d)" % self._window_size


class NeverTrigger(Trigger[T, GlobalWindow]):
    """Never fires: the default trigger of :class:`GlobalWindows`."""

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_merge(self, window, ctx) -> None:
        pass

    def clear(self, window, ctx) -> None:
        pass

    def __repr__(self):
        return "NeverTrigger()"


# ------------------------------------------------------------------------------- assigners

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

    def get_window_serializer(self):
        """Kindling pickles windows; kept for API compatibility (returns None)."""
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
    names itself (``_name``, for messages) and sets ``_event_time``."""

    _name = None
    _event_time = True

    def get_default_trigger(self, env) -> Trigger:
        return EventTimeTrigger() if self._event_time else ProcessingTimeTrigger()

    def is_event_time(self) -> bool:
        return self._event_time


class _TumblingTimeWindows(_TimeWindowAssigner[T]):

    def __init__(self, size, offset=0):
        size = _millis(size, "the window size")
        offset = _millis(offset, "the window offset")
        if size <= 0 or abs(offset) >= size:
            raise ValueError("%s parameters must satisfy abs(offset) < size and size > 0 "
                             "(size=%d, offset=%d)" % (self._name, size, offset))
        self._size = size
        self._offset = offset

    def __repr__(self):
        return "%s(%s, %s)" % (self._name, self._size, self._offset)


class TumblingEventTimeWindows(_TumblingTimeWindows[T]):
    """Fixed-size, non-overlapping windows by event time: ``[k*size + offset, (k+1)*size + offset)``.

    Example: ``TumblingEventTimeWindows.of(Time.days(1), Time.hours(-8))`` gives days that
    start at midnight UTC+8.
    """

    _name = "TumblingEventTimeWindows"
    _event_time = True

    @staticmethod
    def of(size, offset=None) -> 'TumblingEventTimeWindows':
        return TumblingEventTimeWindows(size, 0 if offset is None else offset)

    def assign_windows(self, element, timestamp, context) -> Collection[TimeWindow]:
        if timestamp is None or timestamp <= MIN_LONG_VALUE:
            raise ValueError(_NO_TIMESTAMP)
        start = timestamp - (timestamp - self._offset + self._size) % self._size
        return [TimeWindow(start, start + self._size)]


class TumblingProcessingTimeWindows(_TumblingTimeWindows[T]):
    """Fixed-size, non-overlapping windows by the processing time at which elements arrive."""

    _name = "TumblingProcessingTimeWindows"
    _event_time = False

    @staticmethod
    def of(size, offset=None) -> 'TumblingProcessingTimeWindows':
        return TumblingProcessingTimeWindows(size, 0 if offset is None else offset)

    def assign_windows(self, element, timestamp, context) -> Collection[TimeWindow]:
        now = context.get_current_processing_time()
        start = now - (now - self._offset + self._size) % self._size
        return [TimeWindow(start, start + self._size)]


def _sliding_windows(timestamp, size, slide, offset):
    last_start = timestamp - (timestamp - offset + slide) % slide
    return [TimeWindow(start, start + size)
            for start in range(last_start, timestamp - size, -slide)]


class _SlidingTimeWindows(_TimeWindowAssigner[T]):

    def __init__(self, size, slide, offset=0):
        size = _millis(size, "the window size")
        slide = _millis(slide, "the window slide")
        offset = _millis(offset, "the window offset")
        if size <= 0 or slide <= 0 or abs(offset) >= slide:
            raise ValueError("%s parameters must satisfy abs(offset) < slide, slide > 0 and "
                             "size > 0 (size=%d, slide=%d, offset=%d)"
                             % (self._name, size, slide, offset))
        self._size = size
        self._slide = slide
        self._offset = offset
        self._pane_size = math.gcd(size, slide)

    def __repr__(self):
        return "%s(%s, %s, %s)" % (self._name, self._size, self._slide, self._offset)


class SlidingEventTimeWindows(_SlidingTimeWindows[T]):
    """Windows of ``size`` starting every ``slide`` by event time; an element belongs to
    ``size / slide`` windows."""

    _name = "SlidingEventTimeWindows"
    _event_time = True

    @staticmethod
    def of(size, slide, offset=None) -> 'SlidingEventTimeWindows':
        return SlidingEventTimeWindows(size, slide, 0 if offset is None else offset)

    def assign_windows(self, element, timestamp, context) -> Collection[TimeWindow]:
        if timestamp is None or timestamp <= MIN_LONG_VALUE:
            raise ValueError(_NO_TIMESTAMP)
        return _sliding_windows(timestamp, self._size, self._slide, self._offset)


class SlidingProcessingTimeWindows(_SlidingTimeWindows[T]):
    """Windows of ``size`` starting every ``slide`` by processing time."""

    _name = "SlidingProcessingTimeWindows"
    _event_time = False

    @staticmethod
    def of(size, slide, offset=None) -> 'SlidingProcessingTimeWindows':
        return SlidingProcessingTimeWindows(size, slide, 0 if offset is None else offset)

    def assign_windows(self, element, timestamp, context) -> Collection[TimeWindow]:
        return _sliding_windows(context.get_current_processing_time(), self._size, self._slide,
                                self._offset)


class SessionWindowTimeGapExtractor(ABC, Generic[T]):
    """Extracts the session gap (ms) from an element, for dynamic session windows."""

    @abstractmethod
    def extract(self, element: Any) -> int:
        pass


def _gap_extractor(extractor):
    if isinstance(extractor, SessionWindowTimeGapExtractor):
        return extractor
    if callable(getattr(extractor, 'extract', None)) or callable(extractor):
        return extractor
    raise TypeError("with_dynamic_gap expects a SessionWindowTimeGapExtractor (or a function of "
                    "the element returning the gap in ms), got %r" % (extractor,))


def _extract_gap(extractor, element) -> int:
    ext = getattr(extractor, 'extract', None)
    gap = ext(element) if ext is not None else extractor(element)
    gap = _millis(gap, "the dynamic session gap")
    if gap <= 0:
        raise ValueError("Dynamic session time gap must satisfy 0 < gap, got %r" % (gap,))
    return gap


class _SessionTimeWindows(MergingWindowAssigner[T, TimeWindow], _TimeWindowAssigner[T]):

    def merge_windows(self, windows, callback) -> None:
        TimeWindow.merge_windows(windows, callback)


class _FixedGapSessionWindows(_SessionTimeWindows[T]):

    def __init__(self, session_gap):
        session_gap = _millis(session_gap, "the session gap")
        if session_gap <= 0:
            raise ValueError("%s parameters must satisfy 0 < size" % self._name)
        self._session_gap = session_gap

    def __repr__(self):
        return "%s(%s)" % (self._name, self._session_gap)


class _DynamicGapSessionWindows(_SessionTimeWindows[T]):

    def __init__(self, session_window_time_gap_extractor):
        self._session_gap = 0
        self._session_window_time_gap_extractor = _gap_extractor(session_window_time_gap_extractor)

    def __repr__(self):
        return "%s(%r)" % (self._name, self._session_window_time_gap_extractor)


class EventTimeSessionWindows(_FixedGapSessionWindows[T]):
    """Sessions by event time: an element opens ``[ts, ts + gap)``; overlapping windows merge."""

    _name = "EventTimeSessionWindows"
    _event_time = True

    @staticmethod
    def with_gap(size) -> 'EventTimeSessionWindows':
        return EventTimeSessionWindows(size)

    @staticmethod
    def with_dynamic_gap(extractor) -> 'DynamicEventTimeSessionWindows':
        return DynamicEventTimeSessionWindows(extractor)

    def assign_windows(self, element, timestamp, context) -> Collection[TimeWindow]:
        if timestamp is None:
            raise ValueError(_NO_TIMESTAMP)
        return [TimeWindow(timestamp, timestamp + self._session_gap)]


class ProcessingTimeSessionWindows(_FixedGapSessionWindows[T]):
    """Sessions by processing time."""

    _name = "ProcessingTimeSessionWindows"
    _event_time = False

    @staticmethod
    def with_gap(size) -> 'ProcessingTimeSessionWindows':
        return ProcessingTimeSessionWindows(size)

    @staticmethod
    def with_dynamic_gap(extractor) -> 'DynamicProcessingTimeSessionWindows':
        return DynamicProcessingTimeSessionWindows(extractor)

    def assign_windows(self, element, timestamp, context) -> Collection[TimeWindow]:
        now = context.get_current_processing_time()
        return [TimeWindow(now, now + self._session_gap)]


class DynamicEventTimeSessionWindows(_DynamicGapSessionWindows[T]):
    """Event-time sessions whose gap is extracted from each element."""

    _name = "DynamicEventTimeSessionWindows"
    _event_time = True

    @staticmethod
    def with_dynamic_gap(extractor) -> 'DynamicEventTimeSessionWindows':
        return DynamicEventTimeSessionWindows(extractor)

    def assign_windows(self, element, timestamp, context) -> Collection[TimeWindow]:
        if timestamp is None:
            raise ValueError(_NO_TIMESTAMP)
        gap = _extract_gap(self._session_window_time_gap_extractor, element)
        return [TimeWindow(timestamp, timestamp + gap)]


class DynamicProcessingTimeSessionWindows(_DynamicGapSessionWindows[T]):
    """Processing-time sessions whose gap is extracted from each element."""

    _name = "DynamicProcessingTimeSessionWindows"
    _event_time = False

    @staticmethod
    def with_dynamic_gap(extractor) -> 'DynamicProcessingTimeSessionWindows':
        return DynamicProcessingTimeSessionWindows(extractor)

    def assign_windows(self, element, timestamp, context) -> Collection[TimeWindow]:
        now = context.get_current_processing_time()
        gap = _extract_gap(self._session_window_time_gap_extractor, element)
        return [TimeWindow(now, now + gap)]


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

    def is_event_time(self) -> bool:
        return False

    def __repr__(self):
        return "GlobalWindows()"


class CountTumblingWindowAssigner(WindowAssigner[T, CountWindow]):
    """Windows of ``window_size`` consecutive elements of a key (``count_window(size)``)."""

    def __init__(self, window_size: int):
        self._window_size = _count(window_size, "the count window size")
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

    def is_event_time(self) -> bool:
        return False

    def __repr__(self):
        return "CountTumblingWindowAssigner(%s)" % self._window_size


class CountSlidingWindowAssigner(WindowAssigner[T, CountWindow]):
    """Windows of ``window_size`` elements starting every ``window_slide`` elements
    (``count_window(size, slide)``). As in PyFlink, only full windows ever fire."""

    def __init__(self, window_size: int, window_slide: int):
        self._window_size = _count(window_size, "the count window size")
        self._window_slide = _count(window_slide, "the count window slide")
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

    def is_event_time(self) -> bool:
        return False

    def __repr__(self):
        return "CountSlidingWindowAssigner(%s, %s)" % (self._window_size, self._window_slide)
