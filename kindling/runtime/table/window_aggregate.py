"""Window aggregations and window table-valued functions: the group window aggregation
(``window(Tumble ...).group_by(...).select(...)``) and the window TVF's (``GROUP BY window_start,
window_end, ...``) on Kindling's DataStream event-time windows, a function computing the aggregates of
each fired window, one ``+I`` row per key and window, as Flink's window aggregations emit; and the
window TVF alone: TUMBLE, HOP and CUMULATE a stateless pass emitting each row once per window it falls
in, SESSION a partition's rows when the watermark closes their session."""
from __future__ import annotations

from typing import List, Optional

from kindling.common.time import Instant, epoch_millis, timestamp_of
from kindling.common.types import RowKind, _create_row
from kindling.datastream.functions import AggregateFunction, ProcessWindowFunction
from kindling.runtime.table.group_aggregate import AggregateCalls

__all__ = ["AssignWindows", "SessionRows", "WindowAggregateFunction", "window_values"]


class WindowAggregateFunction(ProcessWindowFunction):
    """A fired window's aggregates per key (``calls``; window properties read the window's bounds from
    the ``bounds`` entry of the result's environment; ``ltz``: the time column is a TIMESTAMP_LTZ).
    Sliding windows add their rows slice by slice (slices of the greatest common divisor of size and
    slide, in time order), as Flink's sliced windows do, so FLOAT sums round the same way."""

    def __init__(self, calls: AggregateCalls, time_field: str, slice_ms: Optional[int], ltz: bool, bounds: str,
                 window_columns: bool = False):
        self.window_columns = window_columns  # SQL's window_start, window_end, window_time as columns
        self.ltz, self.bounds = ltz, bounds
        self.calls, self.names = calls, calls.names
        self.key_positions = [calls.input_names.index(k) for k in calls.key_names]
        self.time_position = calls.input_names.index(time_field)
        self.slice_ms = slice_ms

    def process(self, key, context, elements):
        rows = list(elements)
        if not rows:
            return
        if self.slice_ms:
            rows.sort(key=lambda r: epoch_millis(timestamp_of(r._values[self.time_position])) // self.slice_ms)
        accumulators = self.calls.create()
        for row in rows:
            self.calls.accumulate(accumulators, row._values, 1)
        yield self.result([rows[0]._values[p] for p in self.key_positions], accumulators, context.window())

    def result(self, key_values: list, accumulators: list, window):
        """The result row of a fired window from its accumulators."""
        bounds = {"start": timestamp_of(window.start), "end": timestamp_of(window.end),
                  "rowtime": timestamp_of(window.end - 1)}
        extra = {self.bounds: bounds}
        if self.window_columns:
            extra.update(window_values(window.start, window.end, self.ltz))
        return _create_row(self.names, self.calls.result(key_values, accumulators, extra), RowKind.INSERT)

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
    time = Instant.of_epoch_milli(end - 1) if ltz else timestamp_of(end - 1)
    return {"window_start": timestamp_of(start), "window_end": timestamp_of(end), "window_time": time}


class AssignWindows:
    """A row once per window it falls in, with the window's columns (the windows in the assigner's order)."""

    def __init__(self, names: List[str], time_position: int, assigner, ltz: bool):
        self.names, self.time_position, self.assigner, self.ltz = names, time_position, assigner, ltz

    def __call__(self, row):
        value = row._values[self.time_position]
        if value is None:
            return  # as Flink: a row without a time is in no window
        for window in self.assigner.assign_windows(row, epoch_millis(timestamp_of(value)), None):
            columns = window_values(window.start, window.end, self.ltz)
            yield _create_row(self.names, list(row._values) + list(columns.values()), RowKind.INSERT)


class SessionRows(ProcessWindowFunction):
    """A closed session's rows with its bounds."""

    def __init__(self, names: List[str], ltz: bool):
        self.names, self.ltz = names, ltz

    def process(self, key, context, elements):
        window = context.window()
        columns = list(window_values(window.start, window.end, self.ltz).values())
        for row in elements:
            yield _create_row(self.names, list(row._values) + columns, RowKind.INSERT)
