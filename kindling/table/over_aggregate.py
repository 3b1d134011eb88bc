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
partition's rows sorted by the order column at the end of the input, then the same frames.
"""
from __future__ import annotations

from typing import List, Optional

from kindling.common.time import MAX_WATERMARK
from kindling.common.types import RowKind, _create_row
from kindling.table.expressions import Expression, epoch_millis, to_timestamp
from kindling.table.group_aggregate import AggregateCalls
from kindling.table.keyed_function import TableKeyedFunction

__all__ = ["OverFrame", "OverAggregateFunction", "over_aggregate"]


class OverFrame:
    """An OVER window: partition columns, the (time) column it is ordered by, and its frame:
    ``rows`` (else RANGE) and ``preceding`` (rows, or ms of a RANGE; None: UNBOUNDED)."""

    def __init__(self, partition_keys: List[str], order_field: str, rows: bool, preceding: Optional[int]):
        self.partition_keys, self.order_field = list(partition_keys), order_field
        self.rows, self.preceding = rows, preceding

    def __eq__(self, other) -> bool:
        return isinstance(other, OverFrame) and vars(self) == vars(other)

    def __str__(self) -> str:
        bound = "UNBOUNDED" if self.preceding is None else \
            (f"{self.preceding}" if self.rows else f"INTERVAL {self.preceding} ms")
        partition = f"PARTITION BY {', '.join(self.partition_keys)} " if self.partition_keys else ""
        return (f"{partition}ORDER BY {self.order_field} {'ROWS' if self.rows else 'RANGE'} BETWEEN {bound} "
                "PRECEDING AND CURRENT ROW")


def over_aggregate(table, frame: OverFrame, aggregates: List[Expression], names: List[str]):
    """The table with one more column per aggregate (``names``), computed over ``frame``."""
    from kindling.table.planner import nodes
    from kindling.table.schema import Schema

    types = table._types()
    for key in frame.partition_keys + [frame.order_field]:
        if key not in types:
            raise ValueError(f"OVER: no column '{key}' in the table ({list(types)})")
    if table._updating:
        raise ValueError("OVER aggregations of an updating table (an aggregation's changes) are not supported by "
                         "Kindling yet")
    proctime = frame.order_field == table._proctime
    if not table._in_batch() and frame.order_field != table._rowtime and not proctime:
        raise ValueError(f"OVER windows are ordered by a time attribute: '{frame.order_field}' is not one "
                         f"(event time: {table._rowtime or 'none'}; declare it with a watermark in the Schema); "
                         "ordering by other columns is not supported by Kindling yet")
    if not frame.rows and frame.preceding is not None and types[frame.order_field].type_name not in (
            "TIMESTAMP", "TIMESTAMP_LTZ"):
        raise ValueError(f"OVER RANGE with an interval needs a time column to order by, got {frame.order_field}")
    input_names = table.get_schema().get_field_names()
    schema = Schema(input_names + names, table.get_schema().get_field_data_types() +
                    [a._data_type(types) for a in aggregates])
    return table._with(nodes.Over(input=table._node, frame=frame, aggregates=tuple(aggregates), names=tuple(names),
                                  out=nodes.Output(schema, rowtime=table._rowtime, proctime=table._proctime)))


class OverAggregateFunction(TableKeyedFunction):
    """The rows of one partition with their frame's aggregates (see the module docstring)."""

    state_name = "_kindling_over"

    def __init__(self, input_names: List[str], input_types: dict, aggregates: List[Expression], frame: OverFrame,
                 names: List[str], proctime: bool):
        self.calls = AggregateCalls(input_names, input_types, [], aggregates, [str(a) for a in aggregates])
        self.frame, self.names, self.proctime = frame, names, proctime
        self.order_position = input_names.index(frame.order_field)
        self.time_ordered = input_types[frame.order_field].type_name in ("TIMESTAMP", "TIMESTAMP_LTZ")

    def _order_value(self, values: list):
        value = values[self.order_position]
        return epoch_millis(to_timestamp(value)) if self.time_ordered and value is not None else value

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
        due = sorted(pending, key=_nulls_first) if self.in_batch else [timestamp] if timestamp in pending else []
        for order in due:
            yield from self._fire(partition, order, pending.pop(order))
        self.state.update(partition)

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
