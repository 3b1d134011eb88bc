"""OVER aggregations as plan nodes: each row with aggregates over the rows of its partition before
it, by time.

``SUM(x) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)`` in SQL, or
``over_window(Over.partition_by(col('k')).order_by(col('ts')).preceding(row_interval(2)).alias('w'))``
with ``col('x').sum.over(col('w'))`` in the Table API. The operator and its semantics:
kindling/runtime/table/over_aggregate.py.
"""
from __future__ import annotations

from typing import List, Optional

from kindling.table.expressions import Expression

__all__ = ["OverFrame", "over_aggregate"]


class OverFrame:
    """An OVER window: partition columns, the (time) column it is ordered by, and its frame:
    ``rows`` (else RANGE) and ``preceding`` (rows, or ms of a RANGE; None: UNBOUNDED); ``descending``
    (BATCH mode) orders it from the largest value. Without an order (``order_field`` None, BATCH mode)
    the frame is the whole partition."""

    def __init__(self, partition_keys: List[str], order_field: Optional[str], rows: bool, preceding: Optional[int],
                 descending: bool = False):
        self.partition_keys, self.order_field = list(partition_keys), order_field
        self.rows, self.preceding, self.descending = rows, preceding, descending

    def __eq__(self, other) -> bool:
        return isinstance(other, OverFrame) and vars(self) == vars(other)

    def __str__(self) -> str:
        bound = "UNBOUNDED" if self.preceding is None else \
            (f"{self.preceding}" if self.rows else f"INTERVAL {self.preceding} ms")
        partition = f"PARTITION BY {', '.join(self.partition_keys)} " if self.partition_keys else ""
        if self.order_field is None:
            return f"{partition}ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"
        return (f"{partition}ORDER BY {self.order_field}{' DESC' if self.descending else ''} "
                f"{'ROWS' if self.rows else 'RANGE'} BETWEEN {bound} "
                "PRECEDING AND CURRENT ROW")


def over_aggregate(table, frame: OverFrame, aggregates: List[Expression], names: List[str]):
    """The table with one more column per aggregate (``names``), computed over ``frame``."""
    from kindling.table.planner import nodes
    from kindling.table.schema import Schema

    types = table._types()
    for key in frame.partition_keys + [frame.order_field]:
        if key is not None and key not in types:
            raise ValueError(f"OVER: no column '{key}' in the table ({list(types)})")
    if table._updating:
        raise ValueError("OVER aggregations of an updating table (an aggregation's changes) are not supported by "
                         "Kindling yet")
    kinds = {getattr(a._aggregate, "kind", None) for a in aggregates}
    if frame.order_field is None:
        if kinds & {"lag", "lead"}:
            raise ValueError("OVER: LAG and LEAD need the window's ORDER BY")
        if not table._in_batch():  # Flink's words
            raise ValueError("The window can only be ordered by a single time column.")
    elif "lead" in kinds and not table._in_batch():
        raise ValueError("LEAD Function is not supported in stream mode.")
    if frame.descending and not table._in_batch():  # Flink's words
        raise ValueError("The window can only be ordered in ASCENDING mode.")
    if frame.descending and not frame.rows and frame.preceding is not None:
        raise ValueError("OVER RANGE BETWEEN INTERVAL ... PRECEDING of a descending order is not supported by "
                         "Kindling yet; order it ascending, or use ROWS or UNBOUNDED PRECEDING")
    proctime = frame.order_field == table._proctime
    if not table._in_batch() and frame.order_field is not None and frame.order_field != table._rowtime \
            and not proctime:
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
