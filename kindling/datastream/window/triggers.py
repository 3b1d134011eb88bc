"""Triggers: when a window (one key, one window) is evaluated and when its contents are purged.

Triggers must not keep per-window data in their own fields (a trigger instance serves every
key and window): they keep it in ``ctx.get_partitioned_state(descriptor)``, scoped to the key
and the window, and set timers through the context.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from enum import Enum
from typing import Generic, TypeVar

from kindling.common.typeinfo import Types
from kindling.datastream.state import ReducingStateDescriptor, StateDescriptor
from kindling.datastream.window._arguments import millis, positive_count
from kindling.datastream.window.windows import GlobalWindow, TimeWindow, Window

__all__ = ['TriggerResult', 'Trigger', 'EventTimeTrigger', 'ProcessingTimeTrigger',
           'ContinuousEventTimeTrigger', 'ContinuousProcessingTimeTrigger', 'NeverTrigger',
           'PurgingTrigger', 'CountTrigger']

T = TypeVar('T')
W = TypeVar('W')


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


class _TimeDomain:
    """The trigger-context methods of one time domain (names of ``Trigger.TriggerContext``
    methods), so that event-time and processing-time triggers share one implementation."""

    __slots__ = ('now', 'register_timer', 'delete_timer')

    def __init__(self, now: str, register_timer: str, delete_timer: str):
        self.now = now
        self.register_timer = register_timer
        self.delete_timer = delete_timer


_EVENT_TIME = _TimeDomain('get_current_watermark', 'register_event_time_timer',
                          'delete_event_time_timer')
_PROCESSING_TIME = _TimeDomain('get_current_processing_time', 'register_processing_time_timer',
                               'delete_processing_time_timer')


class _TimeTrigger(Trigger[T, TimeWindow]):
    """What the triggers of one time domain (``_domain``) share: they merge, and their timers
    live in that domain."""

    _domain = _EVENT_TIME

    def can_merge(self) -> bool:
        return True

    def __repr__(self):
        return "%s()" % type(self).__name__


class _EndOfWindowTrigger(_TimeTrigger[T]):
    """Fires once the time of its domain passes the end of the window."""

    def on_merge(self, window, ctx) -> None:
        domain = self._domain
        if window.max_timestamp() > getattr(ctx, domain.now)():
            getattr(ctx, domain.register_timer)(window.max_timestamp())

    def clear(self, window, ctx) -> None:
        getattr(ctx, self._domain.delete_timer)(window.max_timestamp())

    @classmethod
    def create(cls):
        return cls()


class EventTimeTrigger(_EndOfWindowTrigger[T]):
    """Fires once the watermark passes the end of the window (the default of event-time
    assigners); fires again for every late element within the allowed lateness."""

    _domain = _EVENT_TIME

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        if window.max_timestamp() <= ctx.get_current_watermark():
            return TriggerResult.FIRE
        ctx.register_event_time_timer(window.max_timestamp())
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.FIRE if time == window.max_timestamp() else TriggerResult.CONTINUE


class ProcessingTimeTrigger(_EndOfWindowTrigger[T]):
    """Fires once processing time passes the end of the window (the default of
    processing-time assigners)."""

    _domain = _PROCESSING_TIME

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        ctx.register_processing_time_timer(window.max_timestamp())
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.FIRE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE


def _min(a, b):
    return a if a <= b else b


class _ContinuousTrigger(_TimeTrigger[T]):
    """Fires every ``interval`` ms of the time of its domain, aligned to multiples of the
    interval; the next fire time is window-scoped state."""

    def __init__(self, interval):
        name = type(self).__name__
        self.interval = millis(interval, "the interval of %s" % name)
        if self.interval <= 0:
            raise ValueError("the interval of %s must be positive" % name)
        self.state_desc = ReducingStateDescriptor("fire-time", _min, Types.LONG())

    @classmethod
    def of(cls, interval):
        return cls(interval)

    def _on_timer(self, time, window, ctx) -> TriggerResult:
        fire_time = ctx.get_partitioned_state(self.state_desc)
        t = fire_time.get()
        if t is not None and t == time:
            fire_time.clear()
            self.register_next_fire_timestamp(time, window, ctx, fire_time)
            return TriggerResult.FIRE
        return TriggerResult.CONTINUE

    def on_merge(self, window, ctx) -> None:
        ctx.merge_partitioned_state(self.state_desc)
        t = ctx.get_partitioned_state(self.state_desc).get()
        if t is not None:
            getattr(ctx, self._domain.register_timer)(t)

    def clear(self, window, ctx) -> None:
        fire_time = ctx.get_partitioned_state(self.state_desc)
        t = fire_time.get()
        if t is not None:
            getattr(ctx, self._domain.delete_timer)(t)
            fire_time.clear()

    def register_next_fire_timestamp(self, time, window, ctx, fire_timestamp_state) -> None:
        nxt = min(time + self.interval, window.max_timestamp())
        fire_timestamp_state.add(nxt)
        getattr(ctx, self._domain.register_timer)(nxt)

    def __repr__(self):
        return "%s(%d)" % (type(self).__name__, self.interval)


class ContinuousEventTimeTrigger(_ContinuousTrigger[T]):
    """Fires every ``interval`` ms of event time (aligned to multiples of the interval) and at
    the end of the window."""

    _domain = _EVENT_TIME

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

    _domain = _PROCESSING_TIME

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
        self._window_size = positive_count(window_size, "the count of CountTrigger")
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
