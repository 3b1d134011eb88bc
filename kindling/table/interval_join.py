"""Interval joins (``a JOIN b ON a.id = b.id AND a.ts BETWEEN b.ts - INTERVAL '5' SECOND AND b.ts``, or
``a.join(b, (a.id == b.id) & a.ts.between(b.ts - lit(5).seconds, b.ts))``) as plan nodes; the operator and
its semantics, as Flink's row-time interval join: kindling/runtime/table/interval_join.py."""
from __future__ import annotations

from typing import List, Optional, Tuple

from kindling.table.expressions import Expression

__all__ = ["interval_join", "interval_join_of"]

#: a comparison's call and whether it bounds its first operand from below, and strictly
_COMPARISONS = {"greaterThan": (True, True), "greaterThanOrEqual": (True, False),
                "lessThan": (False, True), "lessThanOrEqual": (False, False)}


def interval_join_of(left, right, predicate: Expression, left_outer: bool, right_outer: bool):
    """The interval join of the Tables ``left`` and ``right`` when ``predicate`` bounds the left's
    event-time column against the right's from both sides (``l.ts >= r.ts - INTERVAL ...`` and
    ``l.ts <= r.ts``, or BETWEEN), as Flink's planner finds one in a join; None for another predicate."""
    from kindling.table.join import conjunction, conjuncts, equi_keys

    times = (left._rowtime, right._rowtime)
    if None in times:
        return None
    lower, upper, rest = None, None, []
    for conjunct in conjuncts(predicate):
        bound = _time_bound(conjunct, times)
        if bound is None:
            rest.append(conjunct)
        elif bound[0]:
            lower = bound[1] if lower is None else max(lower, bound[1])
        else:
            upper = bound[1] if upper is None else min(upper, bound[1])
    if lower is None or upper is None:
        return None
    others = conjunction(rest) if rest else None
    left_names, right_names = left.get_schema().get_field_names(), right.get_schema().get_field_names()
    left_keys, right_keys = equi_keys(others, left_names, right_names) if others is not None else ([], [])
    if not left_keys:
        raise ValueError("interval join: the condition needs an equality of a column of each table as well "
                         "(a.id = b.id); Kindling joins on equal keys")
    return interval_join(left, right, left_keys, right_keys, times[0], times[1], lower, upper, others,
                         left_outer, right_outer)


def _time_bound(condition: Expression, times: Tuple[str, str]) -> Optional[Tuple[bool, int]]:
    """``(is_lower, ms)`` for a comparison of the two event-time columns (each maybe plus or minus an
    interval) as a bound on ``left_time - right_time``; None for another condition."""
    if condition._kind != "call" or condition._payload[0] not in _COMPARISONS or len(condition._operands) != 2:
        return None
    terms = [_time_term(o) for o in condition._operands]
    if None in terms:
        return None
    lower, strict = _COMPARISONS[condition._payload[0]]
    (first, first_offset), (second, second_offset) = terms
    if (first, second) == times:
        difference = second_offset - first_offset  # l + f OP r + s: l - r OP s - f
    elif (first, second) == times[::-1]:
        difference, lower = first_offset - second_offset, not lower  # r + f OP l + s: l - r (reversed OP) f - s
    else:
        return None
    return (True, difference + strict) if lower else (False, difference - strict)


def _time_term(term: Expression) -> Optional[Tuple[str, int]]:
    """``(column, offset ms)`` of ``column``, ``column + interval`` or ``column - interval``."""
    if term._kind == "column":
        return term._name, 0
    if term._kind == "call" and term._payload[0] in ("plus", "minus") and len(term._operands) == 2 \
            and term._operands[1]._kind == "interval":
        inner = _time_term(term._operands[0])
        millis = term._operands[1]._payload[0]
        return None if inner is None else (inner[0], inner[1] + (millis if term._payload[0] == "plus" else -millis))
    return None


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

