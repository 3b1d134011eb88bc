"""Flink SQL's ``GROUP BY GROUPING SETS (...)``, ``ROLLUP (...)`` and ``CUBE (...)`` with ``GROUPING``,
``GROUPING_ID`` and ``GROUP_ID``, as Flink plans them: an Expand makes each row once per grouping set
(the keys the set leaves out null, the set's grouping id in one more column), then the ordinary
aggregation groups by the keys and the grouping id (a window aggregation: the Expand under the window
TVF). ``GROUPING(a, b)`` and ``GROUPING_ID(a, b)`` read the grouping id.

Example::

    SELECT item, color, SUM(qty), GROUPING_ID(item, color) FROM orders GROUP BY ROLLUP (item, color)
"""
from __future__ import annotations

import functools
import itertools
from typing import Callable, List, Optional, Tuple

from kindling.table.planner import nodes
from kindling.table.schema import Schema
from kindling.table.types import DataTypes

__all__ = ["GROUPING_ID", "expanded", "grouping_sets", "grouping_values", "is_grouping_call", "original",
           "refuse_aggregated_keys"]

#: the column holding a row's grouping id, between the Expand and the aggregation (Flink's name)
GROUPING_ID = "$e"


def grouping_sets(group, key_name: Callable, grouping_calls: bool = False) -> Optional[Tuple[List[str], List[tuple]]]:
    """The grouping keys (in order of first appearance) and the grouping sets (in Flink's order) of a
    sqlglot GROUP BY clause; None when it has no GROUPING SETS, ROLLUP or CUBE (and the query no
    ``grouping_calls``: then its keys are the one set) nor ``()``. ``key_name``: the column a key
    expression names. The plain keys, ``(keys)``, GROUPING SETS, ROLLUP and CUBE of one clause combine
    as their cross product."""
    import sqlglot.expressions as exp

    expressions = group.expressions if group is not None else []
    if not grouping_calls and not any(isinstance(e, (exp.GroupingSets, exp.Rollup, exp.Cube, exp.Tuple))
                                      for e in expressions):
        return None
    keys: List[str] = []

    def names(node) -> tuple:  # a key or a parenthesized list of keys
        items = node.expressions if isinstance(node, exp.Tuple) else [node.this if isinstance(node, exp.Paren)
                                                                         else node]
        for item in items:
            if isinstance(item, (exp.GroupingSets, exp.Rollup, exp.Cube, exp.Tuple)):
                raise ValueError(f"sql_query: {item.sql()} nested in a grouping set is not supported by Kindling yet")
            name = key_name(item)
            if name not in keys:
                keys.append(name)
        return tuple(key_name(item) for item in items)

    def sets_of(node) -> List[tuple]:
        if isinstance(node, exp.GroupingSets):
            return [s for e in node.expressions for s in (sets_of(e) if isinstance(e, (exp.Rollup, exp.Cube))
                                                          else [names(e)])]
        if isinstance(node, exp.Rollup):
            parts = [names(e) for e in node.expressions]
            return [sum(parts[:n], ()) for n in range(len(parts), -1, -1)]
        if isinstance(node, exp.Cube):
            parts = [names(e) for e in node.expressions]
            return [sum((p for p, kept in zip(parts, mask) if kept), ())
                    for mask in itertools.product((True, False), repeat=len(parts))]
        return [names(node)]

    combined = [frozenset()]
    for element in expressions:
        combined = [s | frozenset(more) for s in combined for more in sets_of(element)]
    if len(set(combined)) < len(combined):
        raise ValueError("sql_query: a GROUP BY with a grouping set twice is not supported by Kindling yet "
                         f"(Flink gives each duplicate its own GROUP_ID()): {group}")
    positions = {k: i for i, k in enumerate(keys)}
    ordered = sorted((tuple(sorted(positions[k] for k in s)) for s in combined), key=functools.cmp_to_key(_topological))
    return keys, [tuple(keys[i] for i in s) for s in ordered]


def _topological(a: tuple, b: tuple) -> int:
    """Calcite's order of grouping sets (of key positions): a set before the sets it holds, else
    lexicographic."""
    if set(a) >= set(b):
        return -1
    if set(b) >= set(a):
        return 1
    return -1 if list(a) < list(b) else 1


def is_grouping_call(node) -> bool:
    """Whether a sqlglot node is ``GROUPING(...)``, ``GROUPING_ID(...)`` or ``GROUP_ID()``."""
    import sqlglot.expressions as exp

    return isinstance(node, (exp.Grouping, exp.GroupingId)) or (
        isinstance(node, exp.Anonymous) and node.name.upper() == "GROUP_ID" and not node.expressions)


def grouping_values(call, key_name: Callable, keys: List[str], sets: List[tuple]) -> List[int]:
    """Per grouping set, the value of ``GROUPING(args)`` / ``GROUPING_ID(args)`` (a bit per argument,
    the first the highest, set when the set leaves it out) or ``GROUP_ID()`` (0: no set is repeated)."""
    import sqlglot.expressions as exp

    if not isinstance(call, (exp.Grouping, exp.GroupingId)):
        return [0] * len(sets)
    arguments = [key_name(a) for a in call.expressions]
    if not arguments:
        raise ValueError(f"sql_query: {call.sql()} takes the grouping keys it tells about")
    for argument in arguments:
        if argument not in keys:
            raise ValueError(f"sql_query: {call.sql()}: {argument} is not a grouping key ({keys})")
    width = len(arguments)
    return [sum(1 << (width - 1 - i) for i, a in enumerate(arguments) if a not in s) for s in sets]


def original(key: str) -> str:
    """The column holding a grouping key's own value, for the aggregates reading it."""
    return f"$original_{key}"


def expanded(table, keys: List[str], sets: List[tuple], originals: List[str] = ()):
    """The table's rows once per grouping set (an Expand node), the keys nullable, then the keys
    ``originals`` as they are (columns named :func:`original`), then the grouping id :data:`GROUPING_ID`."""
    names, types = table.get_schema().get_field_names(), table._types()
    for key in keys:
        if key not in names:
            raise ValueError(f"sql_query: the grouping key {key} names no column of the table ({names})")
    added = [original(k) for k in originals] + [GROUPING_ID]
    if set(added) & set(names):
        raise ValueError(f"sql_query: GROUPING SETS need the column names {added}, which the table has")
    out = table._node.out
    schema = Schema(names + added, [types[n].nullable() if n in keys else types[n] for n in names]
                    + [types[k] for k in originals] + [DataTypes.BIGINT().not_null()])

    def kept(column: Optional[str]) -> Optional[str]:  # a time attribute stays one unless nulled
        return column if column not in keys else None

    return table._with(nodes.Expand(
        input=table._node, keys=tuple(keys), sets=tuple(sets), originals=tuple(originals),
        out=table._output(schema, rowtime=kept(out.rowtime), proctime=kept(out.proctime),
                          time_attributes=tuple(c for c in out.time_attributes if kept(c)))))


def refuse_aggregated_keys(fields: list, keys: List[str]) -> None:
    """Fails on an aggregate left reading a grouping key (a user-defined one: SQL's built-in aggregates
    read the key's own value, :func:`original`), which would see the grouping set's null."""
    for field in fields:
        for aggregate in field.aggregates():
            read = [c for c in aggregate.columns() if c in keys]
            if read:
                raise ValueError(f"sql_query: {aggregate} aggregates the grouping keys {read}; Kindling gives the "
                                 "built-in aggregates a grouping key's values, not yet a user-defined function")
