"""Interval joins (``a JOIN b ON a.id = b.id AND a.ts BETWEEN b.ts - INTERVAL '5' SECOND AND b.ts``) as
plan nodes; the operator and its semantics, as Flink's row-time interval join:
kindling/runtime/table/interval_join.py."""
from __future__ import annotations

from typing import List, Optional

from kindling.table.expressions import Expression

__all__ = ["interval_join"]


def interval_join(left, right, left_keys: List[str], right_keys: List[str], left_time: str, right_time: str,
                  lower: int, upper: int, predicate: Optional[Expression], left_outer: bool, right_outer: bool):
    """The join of rows with ``right_time + lower <= left_time <= right_time + upper`` (ms)."""
    from kindling.table.planner import nodes
    from kindling.table.schema import Schema

    if left._updating or right._updating:
        raise ValueError("an interval join needs append-only inputs (Flink's rule); an input is updating")
    if lower > upper:
        raise ValueError(f"interval join: the lower bound {lower} ms is above the upper bound {upper} ms")
    left_names, right_names = left.get_schema().get_field_names(), right.get_schema().get_field_names()
    schema = Schema(left_names + right_names, left.get_schema().get_field_data_types() +
                    right.get_schema().get_field_data_types())
    return left._with(nodes.IntervalJoin(
        left=left._node, right=right._node, left_keys=tuple(left_keys), right_keys=tuple(right_keys),
        left_time=left_time, right_time=right_time, lower=lower, upper=upper, predicate=predicate,
        left_outer=left_outer, right_outer=right_outer,
        out=nodes.Output(schema, time_attributes=(left_time, right_time))))


def _join_type(left_outer: bool, right_outer: bool) -> str:
    return {(False, False): "InnerJoin", (True, False): "LeftOuterJoin", (False, True): "RightOuterJoin",
            (True, True): "FullOuterJoin"}[(left_outer, right_outer)]
