"""OVER aggregations: each row with aggregates over the rows of its partition before it, by time.

``SUM(x) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)`` in SQL, or
``over_window(Over.partition_by(col('k')).order_by(col('ts')).preceding(row_interval(2)).alias('w'))``
with ``col('x').sum.over(col('w'))`` in the Table API.

Event time, as Flink's row-time over functions: a row waits in keyed state until the watermark
passes its timestamp; rows are then taken in timestamp order (rows of one timestamp in arrival
order), and each is emitted once (``+I``) with the aggregates of its frame: ``ROWS n PRECEDING``
the row and the ``n`` rows before it, ``RANGE INTERVAL d PRECEDING`` the rows at most ``d`` earlier
(rows of the same timestamp are peers and get the same values), ``UNBOUNDED PRECEDING`` all rows
before. Accumulators are incremental, retracting the rows that leave a bounded frame, so sums
round as Flink's. A late row (a bounded frame: at or before the last timestamp processed, which
starts at 0; an unbounded one: at or before the watermark) is dropped and counted, as Flink does.
Processing time (a ``proctime`` attribute): each row is emitted when it arrives. BATCH mode: a
partition's rows sorted by the order column at the end of the input, then the same frames; an OVER
without ORDER BY gives every row the aggregates of its whole partition; LAG and LEAD take the value
``offset`` rows before or after in that order (ties in arrival order), as Flink's batch offset
frames. In a stream LAG is an aggregate of the frame (kindling/runtime/table/aggregates.py).
"""
from __future__ import annotations

from typing import Any, Dict, List

from kindling.common.time import MAX_WATERMARK, epoch_millis, timestamp_of
from kindling.common.types import RowKind, _create_row
from kindling.runtime.table.group_aggregate import AggregateCalls
from kindling.runtime.table.keyed_function import TableKeyedFunction

__all__ = ["OverAggregateFunction"]


class OverAggregateFunction(TableKeyedFunction):
    """The rows of one partition with their frame's aggregates (see the module docstring): ``frame``
    (kindling/table/over_aggregate.py ``OverFrame``), ``names`` the input's columns and one per
    aggregate of ``calls``; ``time_ordered``: the frame is ordered by a TIMESTAMP column;
    ``offsets``: the LAG and LEAD calls of BATCH mode by position among the aggregates (``calls``
    has the others)."""

    state_name = "_kindling_over"

    def __init__(self, calls: AggregateCalls, frame: Any, names: List[str], proctime: bool, time_ordered: bool,
                 offsets: Dict[int, Any]):
        self.calls, self.frame, self.names, self.proctime = calls, frame, names, proctime
        self.order_position = None if frame.order_field is None else calls.input_names.index(frame.order_field)
        self.time_ordered, self.offsets = time_ordered, offsets

    def _order_value(self, values: list):
        if self.order_position is None:
            return 0
        value = values[self.order_position]
        return epoch_millis(timestamp_of(value)) if self.time_ordered and value is not None else value

    def process_element(self, row, ctx):
        # per partition: last order value processed, rows in a ROWS frame, accumulators,
        # retained rows [(order value, [values])] of a bounded frame, pending {order value: [values]}
        partition = self.state.value() or [0, 0, self.calls.create(), [], {}]
        values = list(row._values)
        timers = ctx.timer_service()
        if self.proctime:
            now = timers.current_processing_time()
            yield from self._fire(partition, now, [values])
            self.state.update(partition)
            return
        order = self._order_value(values)
        if self.in_batch:
            partition[4].setdefault(order, []).append(values)
            timers.register_event_time_timer(MAX_WATERMARK)
        else:
            unbounded = self.frame.preceding is None
            if order is None or (order <= timers.current_watermark() if unbounded else order <= partition[0]):
                self.late += 1  # Flink drops late rows of an OVER aggregation (numLateRecordsDropped)
                return
            if order not in partition[4]:
                timers.register_event_time_timer(order)
            partition[4].setdefault(order, []).append(values)
        self.state.update(partition)

    def on_timer(self, timestamp, ctx):
        partition = self.state.value()
        if partition is None:
            return
        pending = partition[4]
        due = sorted(pending, key=_nulls_first, reverse=self.frame.descending) if self.in_batch else \
            [timestamp] if timestamp in pending else []
        if self.in_batch and (self.offsets or self.frame.order_field is None):
            yield from self._partition(partition, [(order, pending.pop(order)) for order in due])
        else:
            for order in due:
                yield from self._fire(partition, order, pending.pop(order))
        self.state.update(partition)

    def _partition(self, partition: list, peers: list):
        """BATCH mode: the partition's rows (``peers``: [(order value, rows)] in order), each with its
        aggregates (over the whole partition without an order) and its LAG and LEAD values."""
        rows = [values for _, group in peers for values in group]
        if self.frame.order_field is None:
            for values in rows:
                self.calls.accumulate(partition[2], values, 1)
            results = [self.calls.result([], partition[2])] * len(rows)
        else:
            results = [row._values[len(row._values) - len(self.calls.aggregates):]
                       for order, group in peers for row in self._fire(partition, order, group)]
        input_names = self.calls.input_names
        for i, (values, computed) in enumerate(zip(rows, results)):
            computed = list(computed)
            for j, call in sorted(self.offsets.items()):
                offset, default = call._payload[2]
                k = i - offset if call._aggregate.kind == "lag" else i + offset
                computed.insert(j, call._children[0].evaluate(dict(zip(input_names, rows[k])))
                                if 0 <= k < len(rows) else default)
            yield _create_row(self.names, values + computed, RowKind.INSERT)

    def _fire(self, partition: list, order, rows: List[list]):
        """The rows of one order value (peers), each with its frame's aggregates."""
        calls, frame, accumulators = self.calls, self.frame, partition[2]
        retained = partition[3]
        if frame.rows:
            for values in rows:
                if frame.preceding is not None:
                    if partition[1] > frame.preceding:
                        calls.accumulate(accumulators, retained.pop(0), -1)
                    else:
                        partition[1] += 1
                    retained.append(values)
                calls.accumulate(accumulators, values, 1)
                yield self._row(values, accumulators)
        else:
            if frame.preceding is not None:
                while retained and order - retained[0][0] > frame.preceding:
                    for old in retained.pop(0)[1]:
                        calls.accumulate(accumulators, old, -1)
                retained.append((order, rows))
            for values in rows:
                calls.accumulate(accumulators, values, 1)
            results = calls.result([], accumulators)
            for values in rows:
                yield _create_row(self.names, values + results, RowKind.INSERT)
        partition[0] = order

    def _row(self, values: list, accumulators: list):
        return _create_row(self.names, values + self.calls.result([], accumulators), RowKind.INSERT)


def _nulls_first(value):
    return (value is not None, value if value is not None else 0)
