"""Window joins (``FROM L [LEFT|RIGHT|FULL] JOIN R ON L.window_start = R.window_start AND L.window_end =
R.window_end AND ...``, and IN / EXISTS subqueries correlated the same way) as Flink plans them: a join
of two tables of the same window TVF's windows (TUMBLE, HOP, CUMULATE; kept through projections and
filters) whose condition holds both window bounds' equalities becomes a streaming window join, emitting
a window's rows once when the watermark passes its end (kindling/runtime/table/window_join.py). Tables
of different windows, or a condition without both equalities, are a regular join, as in Flink; in BATCH
mode, where a window join's rows are a regular join's, so is every one."""
from __future__ import annotations

from typing import Optional, Tuple

from kindling.table.expressions import Expression, unaliased
from kindling.table.planner import nodes

__all__ = ["window_join", "windows_of"]


def windows_of(node: nodes.Node) -> Optional[Tuple[nodes.Node, str, str]]:
    """The node whose windows the rows of ``node`` are of (a window TVF, a window aggregation), with the
    columns holding their window_start and window_end (None: the rows are of no windows, or lost a
    bound's column)."""
    from kindling.table.planner.expressions import InputRef

    if isinstance(node, nodes.WindowTVF):
        start, end = node.out.names[-3:-1]
        return node, start, end
    if isinstance(node, nodes.Filter):
        return windows_of(node.input)
    if isinstance(node, nodes.Rank):  # a window Top-N: its input's columns, its rows when windows fire
        below = windows_of(node.input)
        return None if below is None else (node, *below[1:])
    if isinstance(node, nodes.WindowAggregate):
        bounds = {getattr(unaliased(f), "_name", None): name for f, name in zip(node.fields, node.names)
                  if getattr(unaliased(f), "_is_column", False)}
        return (node, bounds["window_start"], bounds["window_end"]) \
            if {"window_start", "window_end"} <= set(bounds) else None
    if isinstance(node, nodes.Project):
        below = windows_of(node.input)
        if below is None:
            return None
        renamed = {}
        for name, resolved in zip(node.names, node.resolved):
            if isinstance(resolved, InputRef):
                renamed.setdefault(resolved.name, name)
        windowed, start, end = below
        return (windowed, renamed[start], renamed[end]) if start in renamed and end in renamed else None
    return None


def window_join(left, right, predicate: Expression, left_outer: bool, right_outer: bool,
                existence: Optional[str] = None):
    """The window join of the Tables ``left`` and ``right`` on ``predicate`` (outer on the sides
    ``left_outer``/``right_outer``, or the ``existence`` join ``"SEMI"``/``"ANTI"``), or None when it
    is none (module docstring)."""
    from kindling.table.join import equi_keys, joined_schema

    if left._in_batch():
        return None
    found = windows_of(left._node), windows_of(right._node)
    if None in found:
        return None
    (windows, left_start, left_end), (right_windows, right_start, right_end) = found
    left_names, right_names = left.get_schema().get_field_names(), right.get_schema().get_field_names()
    pairs = list(zip(*equi_keys(predicate, left_names, right_names)))
    if (left_start, right_start) not in pairs or (left_end, right_end) not in pairs:
        return None
    if not isinstance(windows, nodes.WindowTVF) or not isinstance(right_windows, nodes.WindowTVF):
        raise ValueError("sql_query: a window join after a window aggregation or a window Top-N is not supported "
                         "by Kindling yet (a join of two window TVFs' rows is)")
    if _spec(windows) != _spec(right_windows):
        return None
    if windows.proctime:
        raise ValueError("Processing time Window Join is not supported yet.")
    if windows.window == "SESSION":
        raise ValueError("sql_query: a window join of SESSION windows is not supported by Kindling yet (TUMBLE, "
                         "HOP and CUMULATE windows are)")
    keys = [p for p in pairs if p not in ((left_start, right_start), (left_end, right_end))]
    if existence:
        schema, time_attributes = left._schema, left._node.out.rowtime_columns
    else:
        schema = joined_schema(left, right, left_outer, right_outer)
        time_attributes = left._node.out.rowtime_columns + right._node.out.rowtime_columns
    return left._with(nodes.WindowJoin(
        left=left._node, right=right._node, windows=windows, left_keys=tuple(k for k, _ in keys),
        right_keys=tuple(k for _, k in keys), left_end=left_end, right_end=right_end, predicate=predicate,
        left_outer=left_outer, right_outer=right_outer, existence=existence,
        out=nodes.Output(schema, time_attributes=time_attributes)))


def _spec(windows: nodes.WindowTVF) -> tuple:
    return windows.window, windows.size_ms, windows.slide_ms, windows.offset_ms, windows.proctime
