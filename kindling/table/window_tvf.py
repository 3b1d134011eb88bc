"""Flink SQL's window table-valued functions: ``TUMBLE``, ``HOP``, ``CUMULATE`` and ``SESSION`` over
a table's event-time column, which add ``window_start``, ``window_end`` and ``window_time``.

Alone, TUMBLE, HOP and CUMULATE are a stateless pass emitting each row once per window it falls in,
at once (as Flink's aligned window table function); SESSION keeps a partition's rows until the
watermark closes their session, then emits them with its bounds. A window aggregation (``GROUP BY
window_start, window_end, ...``) runs on Kindling's DataStream event-time windows, one ``+I`` per key
and window when the watermark passes the window's end, as Flink's window aggregation.

Example::

    SELECT window_start, window_end, SUM(price)
    FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' MINUTES))
    GROUP BY window_start, window_end
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from kindling.table.expressions import Expression, col
from kindling.table.planner import nodes
from kindling.table.rank import failing_table
from kindling.table.schema import Schema
from kindling.table.types import DataTypes
from kindling.table.window_aggregate import WINDOW_COLUMNS

__all__ = ["WindowTVF", "assigner", "describe", "slice_ms", "window_column_types", "window_tvf_of"]

_NO_BATCH_SESSIONS = "Unaligned windows like session are not supported in batch mode yet."


class WindowTVF:
    """A window TVF over ``table`` being built by SQL: its kind (``TUMBLE``, ``HOP``, ``CUMULATE``,
    ``SESSION``), the event-time column and the sizes in ms (``slide_ms``: HOP's slide or CUMULATE's
    step); :meth:`table_of_windows` is the TVF alone, :meth:`aggregate` a window aggregation."""

    def __init__(self, table, kind: str, time_field: str, size_ms: int, slide_ms: Optional[int] = None,
                 offset_ms: int = 0, partition_keys: Sequence[str] = ()):
        if time_field not in table.get_schema().get_field_names():
            raise ValueError(f"{kind}: DESCRIPTOR({time_field}) names no column of the table "
                             f"({table.get_schema().get_field_names()})")
        if time_field not in (table._rowtime, table._proctime):
            raise ValueError(f"{kind}: DESCRIPTOR({time_field}) is not a time attribute of the table (event time: "
                             f"{table._rowtime or 'none'}; declare it with a watermark, Schema.new_builder()..."
                             "watermark('ts', \"ts - INTERVAL '1' SECOND\"), or a PROCTIME() column)")
        for key in partition_keys:
            col(key)._data_type(table._types())
        self.table = table
        names = table.get_schema().get_field_names()
        added = [_unique(c, names) for c in WINDOW_COLUMNS]  # as Calcite renames a column named as one before
        column_types = window_column_types(table._types()[time_field])
        schema = Schema(names + added, table.get_schema().get_field_data_types() + column_types)
        proctime = time_field == table._proctime
        self.node = nodes.WindowTVF(
            input=table._node, window=kind, time_field=time_field, size_ms=size_ms, slide_ms=slide_ms,
            offset_ms=offset_ms, partition_keys=tuple(partition_keys), proctime=proctime,
            out=nodes.Output(schema, rowtime=table._rowtime, proctime=table._proctime, proctime_windows=proctime,
                             time_attributes=(table._rowtime,) if proctime else (table._rowtime, added[2])))
        assigner(self.node)  # checks the sizes now

    def table_of_windows(self):
        """The TVF alone: the table's rows with their windows' columns."""
        if self.node.window == "SESSION" and self.table._in_batch():
            return failing_table(self.table, self.node.out.schema, _NO_BATCH_SESSIONS)
        return self.table._with(self.node)

    def filtered(self, predicate: Expression) -> "WindowTVF":
        """The same windows over the rows passing ``predicate`` (of the table's own columns)."""
        node = self.node
        return WindowTVF(self.table.where(predicate), node.window, node.time_field, node.size_ms, node.slide_ms,
                         node.offset_ms, node.partition_keys)

    def aggregate(self, keys: List[str], fields: List[Expression]):
        """``GROUP BY window_start, window_end, keys``: one row of ``fields`` per key and window, when
        the watermark passes the window's end."""
        from kindling.table.table import GroupedTable

        table, node = self.table, self.node
        if node.window == "SESSION" and node.partition_keys and sorted(node.partition_keys) != sorted(keys):
            raise ValueError(f"SESSION: a window aggregation groups by the PARTITION BY columns "
                             f"{list(node.partition_keys)}, got {keys}")
        grouped = GroupedTable(table, [col(k) for k in keys])
        types = dict(table._types(), **dict(zip(WINDOW_COLUMNS, window_column_types(table._types()[node.time_field]))))
        names, schema = grouped._result_schema(fields, types, allowed=list(WINDOW_COLUMNS))
        if node.window == "SESSION" and table._in_batch():
            return failing_table(table, schema, _NO_BATCH_SESSIONS)
        rowtime = next((n for f, n in zip(fields, names) if getattr(f, "_is_column", False)
                        and f._name == "window_time"), None)
        return table._with(nodes.WindowAggregate(
            input=table._node, windows=node, keys=tuple(keys), fields=tuple(fields), names=tuple(names),
            out=nodes.Output(schema, rowtime=None if node.proctime else rowtime,
                             proctime=rowtime if node.proctime else None, proctime_windows=node.proctime)))


def window_tvf_of(table) -> Optional[WindowTVF]:
    """The window TVF ``table`` is, for SQL's window aggregations and filters (None: it is none)."""
    node = table._node
    if not isinstance(node, nodes.WindowTVF):
        return None
    return WindowTVF(table._with(node.input), node.window, node.time_field, node.size_ms, node.slide_ms,
                     node.offset_ms, node.partition_keys)


def assigner(windows: nodes.WindowTVF, by_value: bool = False):
    """The DataStream window assigner of a window TVF's windows (``by_value``: by the time column's
    values, an event-time assigner, also for a processing-time attribute)."""
    from kindling.common.time import Time
    from kindling.datastream import window as datastream_windows
    from kindling.datastream.window import assigners

    size, offset = Time.milliseconds(windows.size_ms), Time.milliseconds(windows.offset_ms)
    time = "Processing" if windows.proctime and not by_value else "Event"
    if windows.window == "TUMBLE":
        return getattr(datastream_windows, f"Tumbling{time}TimeWindows").of(size, offset)
    if windows.window == "HOP":
        return getattr(datastream_windows, f"Sliding{time}TimeWindows").of(
            size, Time.milliseconds(windows.slide_ms), offset)
    if windows.window == "CUMULATE":
        return getattr(assigners, f"Cumulative{time}TimeWindows").of(size, Time.milliseconds(windows.slide_ms), offset)
    return getattr(datastream_windows, f"{time}TimeSessionWindows").with_gap(size)


def slice_ms(windows: nodes.WindowTVF) -> Optional[int]:
    """The slices Flink adds a window's rows by (HOP: gcd of size and slide; CUMULATE: the step)."""
    from kindling.table.window_aggregate import slice_of

    if windows.window == "HOP":
        return slice_of(windows.size_ms, windows.slide_ms)
    return windows.slide_ms if windows.window == "CUMULATE" else None


def window_column_types(time_type) -> list:
    """The types of ``window_start``, ``window_end`` and ``window_time`` over a time column of ``time_type``."""
    window_time = DataTypes.TIMESTAMP_LTZ(3) if time_type.type_name == "TIMESTAMP_LTZ" else DataTypes.TIMESTAMP(3)
    return [DataTypes.TIMESTAMP(3).not_null(), DataTypes.TIMESTAMP(3).not_null(), window_time.not_null()]


def describe(windows: nodes.WindowTVF) -> str:
    """The windows as EXPLAIN prints them."""
    sizes = {"TUMBLE": f"size={windows.size_ms} ms", "HOP": f"size={windows.size_ms} ms, slide={windows.slide_ms} ms",
             "CUMULATE": f"max_size={windows.size_ms} ms, step={windows.slide_ms} ms",
             "SESSION": f"gap={windows.size_ms} ms"}[windows.window]
    partition = f", partition=[{', '.join(windows.partition_keys)}]" if windows.partition_keys else ""
    return f"{windows.window}(time_col=[{windows.time_field}], {sizes}{partition})"


def _unique(name: str, taken: List[str]) -> str:
    unique, n = name, 0
    while unique in taken:
        unique, n = f"{name}{n}", n + 1
    return unique
