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

from kindling.common.types import RowKind, _create_row
from kindling.datastream.functions import ProcessWindowFunction
from kindling.table.expressions import Expression, col, epoch_millis, to_timestamp
from kindling.table.rank import failing_table
from kindling.table.schema import Schema
from kindling.table.types import DataTypes
from kindling.table.window_aggregate import WINDOW_COLUMNS, window_values

__all__ = ["WindowTVF"]

_NO_BATCH_SESSIONS = "Unaligned windows like session are not supported in batch mode yet."


class WindowTVF:
    """A window TVF over ``table``: its kind (``TUMBLE``, ``HOP``, ``CUMULATE``, ``SESSION``), the
    event-time column and the sizes in ms (``slide_ms``: HOP's slide or CUMULATE's step)."""

    def __init__(self, table, kind: str, time_field: str, size_ms: int, slide_ms: Optional[int] = None,
                 offset_ms: int = 0, partition_keys: Sequence[str] = ()):
        if time_field not in table.get_schema().get_field_names():
            raise ValueError(f"{kind}: DESCRIPTOR({time_field}) names no column of the table "
                             f"({table.get_schema().get_field_names()})")
        if time_field not in (table._rowtime, table._proctime):
            raise ValueError(f"{kind}: DESCRIPTOR({time_field}) is not a time attribute of the table (event time: "
                             f"{table._rowtime or 'none'}; declare it with a watermark, Schema.new_builder()..."
                             "watermark('ts', \"ts - INTERVAL '1' SECOND\"), or a PROCTIME() column)")
        self.proctime = time_field == table._proctime
        for key in partition_keys:
            col(key)._data_type(table._types())
        self.table, self.kind, self.time_field = table, kind, time_field
        self.size_ms, self.slide_ms, self.offset_ms = size_ms, slide_ms, offset_ms
        self.partition_keys = list(partition_keys)
        self.assigner()  # checks the sizes now

    def assigner(self, by_value: bool = False):
        """The DataStream window assigner of these windows (``by_value``: by the time column's values,
        an event-time assigner, also for a processing-time attribute)."""
        from kindling.common.time import Time
        from kindling.datastream import window as windows
        from kindling.datastream.window import assigners

        size, offset = Time.milliseconds(self.size_ms), Time.milliseconds(self.offset_ms)
        time = "Processing" if self.proctime and not by_value else "Event"
        if self.kind == "TUMBLE":
            return getattr(windows, f"Tumbling{time}TimeWindows").of(size, offset)
        if self.kind == "HOP":
            return getattr(windows, f"Sliding{time}TimeWindows").of(size, Time.milliseconds(self.slide_ms), offset)
        if self.kind == "CUMULATE":
            return getattr(assigners, f"Cumulative{time}TimeWindows").of(size, Time.milliseconds(self.slide_ms), offset)
        return getattr(windows, f"{time}TimeSessionWindows").with_gap(size)

    def slice_ms(self) -> Optional[int]:
        """The slices Flink adds a window's rows by (HOP: gcd of size and slide; CUMULATE: the step)."""
        from kindling.table.window_aggregate import slice_of

        if self.kind == "HOP":
            return slice_of(self.size_ms, self.slide_ms)
        return self.slide_ms if self.kind == "CUMULATE" else None

    def _column_types(self) -> list:
        time_type = self.table._types()[self.time_field]
        window_time = DataTypes.TIMESTAMP_LTZ(3) if time_type.type_name == "TIMESTAMP_LTZ" else DataTypes.TIMESTAMP(3)
        return [DataTypes.TIMESTAMP(3).not_null(), DataTypes.TIMESTAMP(3).not_null(), window_time.not_null()]

    def table_of_windows(self):
        """The TVF alone: the table's rows with their windows' columns."""
        from kindling.table.group_aggregate import GroupKey
        from kindling.table.table import _keeping_parallelism, _one_group

        table = self.table
        names = table.get_schema().get_field_names()
        added = [_unique(c, names) for c in WINDOW_COLUMNS]  # as Calcite renames a column named as one before
        schema = Schema(names + added, table.get_schema().get_field_data_types() + self._column_types())
        ltz = self._column_types()[2].type_name == "TIMESTAMP_LTZ"
        if self.kind == "SESSION":
            function = _SessionRows(schema.get_field_names(), ltz)
            keys = [names.index(k) for k in self.partition_keys]

            def rows(stream, row_type):
                keyed = stream.key_by(GroupKey(keys)) if keys else stream.key_by(_one_group)
                return keyed.window(self.assigner()).process(function, output_type=row_type)
        else:
            assign = _AssignWindows(schema.get_field_names(), names.index(self.time_field), self.assigner(True), ltz)

            def rows(stream, row_type):
                return _keeping_parallelism(stream, assign, row_type, flat=True)

        if self.kind == "SESSION" and table._in_batch():
            return failing_table(table, schema, _NO_BATCH_SESSIONS)
        result = table._python(schema, rows, updating=False, rowtime=table._rowtime)
        result._time_attributes = (table._rowtime,) if self.proctime else (table._rowtime, added[2])
        result._proctime = table._proctime
        result._proctime_windows = self.proctime
        result._window_tvf = self
        result._plan = (f"WindowTableFunction({self.describe()})", [table])
        return result

    def filtered(self, predicate: Expression) -> "WindowTVF":
        """The same windows over the rows passing ``predicate`` (of the table's own columns)."""
        return WindowTVF(self.table.where(predicate), self.kind, self.time_field, self.size_ms, self.slide_ms,
                         self.offset_ms, self.partition_keys)

    def aggregate(self, keys: List[str], fields: List[Expression]):
        """``GROUP BY window_start, window_end, keys``: one row of ``fields`` per key and window, when
        the watermark passes the window's end."""
        from kindling.table.group_aggregate import GroupKey
        from kindling.table.table import GroupedTable, _one_group, spark_window_aggregate
        from kindling.table.window_aggregate import WindowAggregateFunction

        table = self.table
        if self.kind == "SESSION" and self.partition_keys and sorted(self.partition_keys) != sorted(keys):
            raise ValueError(f"SESSION: a window aggregation groups by the PARTITION BY columns "
                             f"{self.partition_keys}, got {keys}")
        grouped = GroupedTable(table, [col(k) for k in keys])
        types = dict(table._types(), **dict(zip(WINDOW_COLUMNS, self._column_types())))
        names, schema = grouped._result_schema(fields, types, allowed=list(WINDOW_COLUMNS))
        input_names = table.get_schema().get_field_names()
        function = WindowAggregateFunction(input_names, table._types(), keys, fields, names, self.time_field,
                                           self.slice_ms(), window_columns=True)
        key = GroupKey([input_names.index(k) for k in keys])

        session = self.kind == "SESSION"
        relational = None if session or self.proctime else spark_window_aggregate(
            table, keys, fields, types, (self.kind.lower(), self.size_ms, self.slide_ms or self.size_ms, self.offset_ms),
            window_columns=WINDOW_COLUMNS)

        def aggregate(rows, row_type):
            keyed = rows.key_by(key) if keys else rows.key_by(_one_group)
            return function.aggregated(keyed.window(self.assigner()), row_type, relational, session)

        if self.kind == "SESSION" and table._in_batch():
            return failing_table(table, schema, _NO_BATCH_SESSIONS)
        rowtime = next((n for f, n in zip(fields, names) if getattr(f, "_is_column", False)
                        and f._name == "window_time"), None)
        result = table._python(schema, aggregate, updating=False, rowtime=None if self.proctime else rowtime)
        result._proctime = rowtime if self.proctime else None
        result._proctime_windows = self.proctime
        result._plan = (f"WindowAggregate(groupBy=[{', '.join(keys)}], window=[{self.describe()}], "
                        f"select=[{', '.join(map(str, fields))}])", [table])
        return result

    def describe(self) -> str:
        sizes = {"TUMBLE": f"size={self.size_ms} ms", "HOP": f"size={self.size_ms} ms, slide={self.slide_ms} ms",
                 "CUMULATE": f"max_size={self.size_ms} ms, step={self.slide_ms} ms",
                 "SESSION": f"gap={self.size_ms} ms"}[self.kind]
        partition = f", partition=[{', '.join(self.partition_keys)}]" if self.partition_keys else ""
        return f"{self.kind}(time_col=[{self.time_field}], {sizes}{partition})"


def _unique(name: str, taken: List[str]) -> str:
    unique, n = name, 0
    while unique in taken:
        unique, n = f"{name}{n}", n + 1
    return unique


class _AssignWindows:
    """A row once per window it falls in, with the window's columns (the windows in the assigner's order)."""

    def __init__(self, names: List[str], time_position: int, assigner, ltz: bool):
        self.names, self.time_position, self.assigner, self.ltz = names, time_position, assigner, ltz

    def __call__(self, row):
        value = row._values[self.time_position]
        if value is None:
            return  # as Flink: a row without a time is in no window
        for window in self.assigner.assign_windows(row, epoch_millis(to_timestamp(value)), None):
            columns = window_values(window.start, window.end, self.ltz)
            yield _create_row(self.names, list(row._values) + list(columns.values()), RowKind.INSERT)


class _SessionRows(ProcessWindowFunction):
    """A closed session's rows with its bounds."""

    def __init__(self, names: List[str], ltz: bool):
        self.names, self.ltz = names, ltz

    def process(self, key, context, elements):
        window = context.window()
        columns = list(window_values(window.start, window.end, self.ltz).values())
        for row in elements:
            yield _create_row(self.names, list(row._values) + columns, RowKind.INSERT)
