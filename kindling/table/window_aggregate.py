"""The operator of a group window aggregation (``window(Tumble ...).group_by(...).select(...)``):
Kindling's DataStream event-time windows with a ProcessWindowFunction computing the aggregates of
each fired window, one ``+I`` row per key and window, as Flink's group windows emit."""
from __future__ import annotations

import math
from typing import List, Optional

from kindling.common.types import RowKind, _create_row
from kindling.datastream.functions import AggregateFunction, ProcessWindowFunction
from kindling.table.expressions import Expression, epoch_millis, to_instant, to_timestamp
from kindling.table.group_aggregate import AggregateCalls

__all__ = ["WINDOW_BOUNDS", "WINDOW_COLUMNS", "WindowAggregateFunction"]

#: where window properties (``col('w').start``) find the fired window's bounds
WINDOW_BOUNDS = "__window"
#: the columns a window table-valued function adds, and the window bound each one is
WINDOW_COLUMNS = {"window_start": "start", "window_end": "end", "window_time": "rowtime"}


class WindowAggregateFunction(ProcessWindowFunction):
    """A fired window's aggregates per key. Sliding windows add their rows slice by slice (slices of
    the greatest common divisor of size and slide, in time order), as Flink's sliced windows do, so
    FLOAT sums round the same way."""

    def __init__(self, input_names: List[str], input_types: dict, key_names: List[str], fields: List[Expression],
                 names: List[str], time_field: str, slice_ms: Optional[int], window_columns: bool = False):
        self.window_columns = window_columns  # SQL's window_start, window_end, window_time as columns
        self.ltz = input_types[time_field].type_name == "TIMESTAMP_LTZ"
        self.calls = AggregateCalls(input_names, input_types, key_names, fields, names)
        self.names = names
        self.key_positions = [input_names.index(k) for k in key_names]
        self.time_position = input_names.index(time_field)
        self.slice_ms = slice_ms

    def process(self, key, context, elements):
        rows = list(elements)
        if not rows:
            return
        if self.slice_ms:
            rows.sort(key=lambda r: epoch_millis(to_timestamp(r._values[self.time_position])) // self.slice_ms)
        accumulators = self.calls.create()
        for row in rows:
            self.calls.accumulate(accumulators, row._values, 1)
        yield self.result([rows[0]._values[p] for p in self.key_positions], accumulators, context.window())

    def result(self, key_values: list, accumulators: list, window):
        """The result row of a fired window from its accumulators."""
        bounds = {"start": to_timestamp(window.start), "end": to_timestamp(window.end),
                  "rowtime": to_timestamp(window.end - 1)}
        extra = {WINDOW_BOUNDS: bounds}
        if self.window_columns:
            extra.update(window_values(window.start, window.end, self.ltz))
        return _create_row(self.names, self.calls.result(key_values, accumulators, extra), RowKind.INSERT)

    def aggregated(self, windowed, row_type, relational=None, merging: bool = False):
        """``windowed`` (a WindowedStream) aggregated by this function, each row added to its windows'
        accumulators as it comes where it can be (not in merging windows); ``relational``: the
        aggregation's spec for Spark's own operators (kindling/spark/table/aggregation.py), or None."""
        incremental = None if merging else self.incremental()
        if incremental is not None:
            aggregated = windowed.aggregate(*incremental, output_type=row_type)
        else:
            aggregated = windowed.process(self, output_type=row_type)
        aggregated._transformation.relational = relational
        return aggregated

    def incremental(self):
        """The same aggregation as an AggregateFunction adding each row to its windows' accumulators as
        it arrives (no rows kept) and the ProcessWindowFunction making the result row of the
        accumulators; None where the rows must be kept (sliding windows add them slice by slice in
        time order, which only matters for FLOAT sums: those keep them)."""
        if self.slice_ms and any(self.calls.float32):
            return None
        return _Accumulate(self.calls), _Result(self)


class _Accumulate(AggregateFunction):
    """A window's accumulators of the aggregate calls, one row at a time."""

    def __init__(self, calls):
        self.calls = calls

    def create_accumulator(self):
        return self.calls.create()

    def add(self, value, accumulator):
        self.calls.accumulate(accumulator, value._values, 1)
        return accumulator

    def get_result(self, accumulator):
        return accumulator


class _Result(ProcessWindowFunction):
    """The result row of a window from its accumulators and the key."""

    def __init__(self, function: WindowAggregateFunction):
        self.function = function

    def process(self, key, context, elements):
        positions = self.function.key_positions
        key_values = [] if not positions else [key] if len(positions) == 1 else list(key)
        for accumulators in elements:
            yield self.function.result(key_values, accumulators, context.window())


def window_values(start: int, end: int, ltz: bool) -> dict:
    """The window columns of the window ``[start, end)``: window_time is a TIMESTAMP_LTZ (an Instant)
    when the time column is one."""
    time = to_instant(end - 1) if ltz else to_timestamp(end - 1)
    return {"window_start": to_timestamp(start), "window_end": to_timestamp(end), "window_time": time}


def slice_of(size_ms: int, slide_ms: int) -> int:
    return math.gcd(size_ms, slide_ms)
