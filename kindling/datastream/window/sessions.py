"""Session window assigners: an element opens a window of its gap; overlapping windows merge."""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Collection, Generic, TypeVar

from kindling.datastream.window._arguments import millis
from kindling.datastream.window.assigners import MergingWindowAssigner, _TimeWindowAssigner
from kindling.datastream.window.windows import TimeWindow

__all__ = ['SessionWindowTimeGapExtractor', 'EventTimeSessionWindows',
           'ProcessingTimeSessionWindows', 'DynamicEventTimeSessionWindows',
           'DynamicProcessingTimeSessionWindows']

T = TypeVar('T')


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
    gap = millis(gap, "the dynamic session gap")
    if gap <= 0:
        raise ValueError("Dynamic session time gap must satisfy 0 < gap, got %r" % (gap,))
    return gap


class _SessionTimeWindows(MergingWindowAssigner[T, TimeWindow], _TimeWindowAssigner[T]):
    """An element opens ``[t, t + gap)`` at its time (``_time``); ``_gap`` gives the gap."""

    def merge_windows(self, windows, callback) -> None:
        TimeWindow.merge_windows(windows, callback)

    def assign_windows(self, element, timestamp, context) -> Collection[TimeWindow]:
        t = self._time(timestamp, context)
        return [TimeWindow(t, t + self._gap(element))]


class _FixedGapSessionWindows(_SessionTimeWindows[T]):
    """Sessions of a fixed gap; ``_dynamic`` is the twin whose gap comes from the element."""

    _dynamic = None

    def __init__(self, session_gap):
        session_gap = millis(session_gap, "the session gap")
        if session_gap <= 0:
            raise ValueError("%s parameters must satisfy 0 < size" % type(self).__name__)
        self._session_gap = session_gap

    @classmethod
    def with_gap(cls, size):
        return cls(size)

    @classmethod
    def with_dynamic_gap(cls, extractor):
        return cls._dynamic(extractor)

    def _gap(self, element) -> int:
        return self._session_gap

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, self._session_gap)


class _DynamicGapSessionWindows(_SessionTimeWindows[T]):

    def __init__(self, session_window_time_gap_extractor):
        self._session_gap = 0
        self._session_window_time_gap_extractor = _gap_extractor(session_window_time_gap_extractor)

    @classmethod
    def with_dynamic_gap(cls, extractor):
        return cls(extractor)

    def _gap(self, element) -> int:
        return _extract_gap(self._session_window_time_gap_extractor, element)

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self._session_window_time_gap_extractor)


class DynamicEventTimeSessionWindows(_DynamicGapSessionWindows[T]):
    """Event-time sessions whose gap is extracted from each element."""

    _event_time = True


class DynamicProcessingTimeSessionWindows(_DynamicGapSessionWindows[T]):
    """Processing-time sessions whose gap is extracted from each element."""

    _event_time = False


class EventTimeSessionWindows(_FixedGapSessionWindows[T]):
    """Sessions by event time: an element opens ``[ts, ts + gap)``; overlapping windows merge."""

    _event_time = True
    _dynamic = DynamicEventTimeSessionWindows


class ProcessingTimeSessionWindows(_FixedGapSessionWindows[T]):
    """Sessions by processing time."""

    _event_time = False
    _dynamic = DynamicProcessingTimeSessionWindows
