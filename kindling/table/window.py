"""``pyflink.table.window``: group windows of the Table API (``Tumble``, ``Slide``, ``Session``)
over a table's event-time column, run on Kindling's DataStream windows.

Example::

    table.window(Tumble.over(lit(5).seconds).on(col('ts')).alias('w')) \\
         .group_by(col('name'), col('w')) \\
         .select(col('name'), col('price').sum, col('w').start, col('w').end)
"""
from __future__ import annotations

from typing import Optional

from kindling.table.expressions import Expression

__all__ = ["GroupWindow", "Session", "Slide", "Tumble"]


def _milliseconds(interval: Expression, what: str) -> int:
    millis = getattr(interval, "_interval_ms", None)
    if millis is None:
        raise ValueError(f"{what} takes a time interval such as lit(5).seconds, got {interval}")
    return millis


class GroupWindow:
    """A window over the event-time column ``on(...)``, named by ``alias(...)`` for ``group_by``."""

    def __init__(self, kind: str, size_ms: int, slide_ms: Optional[int] = None, time_field: Optional[str] = None,
                 alias: Optional[str] = None):
        self.kind, self.size_ms, self.slide_ms = kind, size_ms, slide_ms
        self.time_field, self.alias_name = time_field, alias

    def on(self, time_field: Expression) -> "GroupWindow":
        return GroupWindow(self.kind, self.size_ms, self.slide_ms, getattr(time_field, "_name", time_field),
                           self.alias_name)

    def alias(self, alias: str) -> "GroupWindow":
        return GroupWindow(self.kind, self.size_ms, self.slide_ms, self.time_field, alias)

    def assigner(self):
        """The DataStream window assigner of this window."""
        from kindling.common.time import Time
        from kindling.datastream.window import (EventTimeSessionWindows, SlidingEventTimeWindows,
                                                TumblingEventTimeWindows)

        if self.kind == "tumble":
            return TumblingEventTimeWindows.of(Time.milliseconds(self.size_ms))
        if self.kind == "slide":
            return SlidingEventTimeWindows.of(Time.milliseconds(self.size_ms), Time.milliseconds(self.slide_ms))
        return EventTimeSessionWindows.with_gap(Time.milliseconds(self.size_ms))


class Tumble:
    """Tumbling windows: ``Tumble.over(lit(10).minutes).on(col('ts')).alias('w')``."""

    @staticmethod
    def over(size: Expression) -> GroupWindow:
        return GroupWindow("tumble", _milliseconds(size, "Tumble.over"))


class _SlideWithSize:
    def __init__(self, size_ms: int):
        self.size_ms = size_ms

    def every(self, slide: Expression) -> GroupWindow:
        return GroupWindow("slide", self.size_ms, _milliseconds(slide, "Slide.every"))


class Slide:
    """Sliding windows: ``Slide.over(lit(10).minutes).every(lit(5).minutes).on(col('ts')).alias('w')``."""

    @staticmethod
    def over(size: Expression) -> _SlideWithSize:
        return _SlideWithSize(_milliseconds(size, "Slide.over"))


class Session:
    """Session windows closed by a gap of inactivity: ``Session.with_gap(lit(10).minutes).on(...)``."""

    @staticmethod
    def with_gap(gap: Expression) -> GroupWindow:
        return GroupWindow("session", _milliseconds(gap, "Session.with_gap"))


from kindling.common.unsupported import TABLE_API, missing_names  # noqa: E402

#: PyFlink's window names Kindling does not have yet (docs/table.md)
__getattr__ = missing_names(__name__, {name: TABLE_API for name in ("Over", "OverWindow", "OverWindowPartitioned",
                                                                      "OverWindowPartitionedOrdered")})
