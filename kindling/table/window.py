"""``pyflink.table.window``: group windows of the Table API (``Tumble``, ``Slide``, ``Session``)
over a table's event-time column, run on Kindling's DataStream windows, and OVER windows (``Over``).

Example::

    table.window(Tumble.over(lit(5).seconds).on(col('ts')).alias('w')) \\
         .group_by(col('name'), col('w')) \\
         .select(col('name'), col('price').sum, col('w').start, col('w').end)
    table.over_window(Over.partition_by(col('name')).order_by(col('ts')).preceding(row_interval(2)).alias('w')) \\
         .select(col('name'), col('price').max.over(col('w')))
"""
from __future__ import annotations

from typing import Optional

from kindling.table.expressions import Expression

__all__ = ["GroupWindow", "Over", "OverWindow", "OverWindowPartitioned", "OverWindowPartitionedOrdered",
           "OverWindowPartitionedOrderedPreceding", "Session", "Slide", "Tumble"]


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


class OverWindow:
    """An OVER window: partition columns, the time attribute it is ordered by, the frame before the
    current row (``preceding``; ``following`` is the current row) and its alias."""

    def __init__(self, partition_by: list, order_by: Expression, preceding: Optional[Expression] = None,
                 following: Optional[Expression] = None, alias: Optional[str] = None):
        self.partition_by, self.order_by = partition_by, order_by
        self.preceding_bound, self.following_bound, self.alias_name = preceding, following, alias

    def frame(self):
        """The window as an OverFrame (see kindling.table.over_aggregate)."""
        from kindling.table.expressions import UNBOUNDED_RANGE
        from kindling.table.over_aggregate import OverFrame

        preceding = self.preceding_bound if self.preceding_bound is not None else UNBOUNDED_RANGE
        if getattr(preceding, "_interval_ms", None) is not None:
            rows, count = False, preceding._interval_ms
        elif getattr(preceding, "_over_bound", None) is not None:
            rows, count = preceding._over_bound
        else:
            raise ValueError(f"Over...preceding takes row_interval(n), UNBOUNDED_ROW, UNBOUNDED_RANGE, CURRENT_ROW, "
                             f"CURRENT_RANGE or a time interval (lit(10).seconds), got {preceding}")
        following = getattr(self.following_bound, "_over_bound", (rows, 0))
        if following[1] != 0:
            raise ValueError("OVER RANGE FOLLOWING windows are not supported yet.")
        if following[0] != rows:
            raise ValueError("Preceding and following must be of same interval type (rows or range).")
        keys = [getattr(k, "_name", None) for k in self.partition_by]
        if None in keys or getattr(self.order_by, "_name", None) is None:
            raise ValueError("Over.partition_by and order_by take columns (col('name'))")
        return OverFrame(keys, self.order_by._name, rows, count)


class OverWindowPartitionedOrderedPreceding:
    """An OVER window with its frame's start, for ``following`` or ``alias``."""

    def __init__(self, window: OverWindow):
        self._window = window

    def following(self, following: Expression) -> "OverWindowPartitionedOrderedPreceding":
        """The frame's end: CURRENT_ROW or CURRENT_RANGE (Flink's only ones in streaming)."""
        w = self._window
        return OverWindowPartitionedOrderedPreceding(OverWindow(w.partition_by, w.order_by, w.preceding_bound,
                                                                following))

    def alias(self, alias: str) -> OverWindow:
        w = self._window
        return OverWindow(w.partition_by, w.order_by, w.preceding_bound, w.following_bound, alias)


class OverWindowPartitionedOrdered:
    """A partitioned, ordered OVER window, for ``preceding`` or ``alias`` (all rows before)."""

    def __init__(self, partition_by: list, order_by: Expression):
        self._partition_by, self._order_by = partition_by, order_by

    def preceding(self, preceding: Expression) -> OverWindowPartitionedOrderedPreceding:
        """The frame's start: ``row_interval(n)``, a time interval (``lit(1).hours``), UNBOUNDED_ROW or
        UNBOUNDED_RANGE."""
        return OverWindowPartitionedOrderedPreceding(OverWindow(self._partition_by, self._order_by, preceding))

    def alias(self, alias: str) -> OverWindow:
        return OverWindow(self._partition_by, self._order_by, alias=alias)


class OverWindowPartitioned:
    """A partitioned OVER window, for ``order_by``."""

    def __init__(self, partition_by: list):
        self._partition_by = partition_by

    def order_by(self, order_by: Expression) -> OverWindowPartitionedOrdered:
        return OverWindowPartitionedOrdered(self._partition_by, order_by)


class Over:
    """OVER windows: ``Over.partition_by(col('k')).order_by(col('ts')).preceding(row_interval(2)).alias('w')``."""

    @staticmethod
    def partition_by(*partition_by: Expression) -> OverWindowPartitioned:
        return OverWindowPartitioned(list(partition_by))

    @staticmethod
    def order_by(order_by: Expression) -> OverWindowPartitionedOrdered:
        return OverWindowPartitionedOrdered([], order_by)
