"""``pyflink.table.TableResult``: the result of ``execute_sql`` or ``execute_insert``.

Example::

    t_env.from_data_stream(ds).execute_insert('my_sink').wait()
"""
from __future__ import annotations

import datetime
import unicodedata
from typing import Any, List, Optional

from kindling.common.types import Row, _create_row
from kindling.datastream.data_stream import CloseableIterator  # a query's rows (Table.execute().collect())
from kindling.table.resolved_schema import ResolvedSchema
from kindling.table.result_kind import ResultKind
from kindling.table.table_schema import TableSchema
from kindling.table.types import DataType, DataTypes

__all__ = ["CloseableIterator", "TableResult"]


class TableResult:
    """A DDL statement's ``OK``, an insert job (:meth:`wait` for it, :meth:`get_job_client` to watch
    it), or a query's rows (:meth:`collect`)."""

    def __init__(self, job_client=None, rows=None, schema=None, with_kind: bool = False,
                 widths_of_data: bool = False):
        self._job_client = job_client
        self._rows = rows  # a query's rows (Table.execute): a CloseableIterator of the running job
        self._schema = schema
        self._with_kind = with_kind  # streaming: the rows are changes, printed with their op
        self._widths_of_data = widths_of_data  # SHOW, DESCRIBE: columns as wide as their values

    def collect(self) -> "PositionalRows":
        """The rows of ``Table.execute()``: a CloseableIterator (``with result.collect() as rows: ...``).

        As PyFlink's, the rows (and rows nested in them) carry no field names: they print as
        ``<Row('a', 5)>`` and are read by position; the names are in :meth:`get_table_schema`.
        """
        if self._rows is None:
            raise ValueError("collect() reads the rows of Table.execute(); this result has none")
        scales = [_scale(t) if t.type_name == "DECIMAL" else None for t in self._schema.get_field_data_types()] \
            if self._schema is not None else []
        return PositionalRows(self._rows, scales)

    def get_resolved_schema(self) -> ResolvedSchema:
        """The columns of the result, as :meth:`get_table_schema` (a statement's: ``result``)."""
        schema = self.get_table_schema()
        return ResolvedSchema.physical(schema.get_field_names(), schema.get_field_data_types())

    def get_table_schema(self) -> TableSchema:
        """The columns of the result: a query's, or a statement's (``OK`` as ``result``)."""
        if self._schema is None:
            return TableSchema(["result"], [DataTypes.STRING()])
        return TableSchema(self._schema.get_field_names(), self._schema.get_field_data_types())

    def get_job_client(self):
        """The JobClient of the job this statement started (None for DDL)."""
        return self._job_client

    def get_result_kind(self) -> int:
        return ResultKind.SUCCESS if self._job_client is None else ResultKind.SUCCESS_WITH_CONTENT

    def wait(self, timeout_ms: Optional[int] = None) -> None:
        """Waits until the job this statement started finishes (at most ``timeout_ms``)."""
        if self._job_client is not None:
            future = self._job_client.get_job_execution_result()
            future.result() if timeout_ms is None else future.result(timeout_ms / 1000)

    def print(self) -> None:
        """Prints ``OK`` for a DDL statement; a query's rows as Flink's boxed table (with each change's
        ``op`` in streaming mode), row by row as they come; waits for an insert job."""
        if self._rows is not None:
            names = self._schema.get_field_names()
            if self._widths_of_data:
                widths = [max([_display_width(n)] + [_display_width(str(r[i])) for r in self._rows])
                          for i, n in enumerate(names)]
            else:
                widths = [max(_display_width(n), _type_width(t))
                          for n, t in zip(names, self._schema.get_field_data_types())]
            if self._with_kind:
                names, widths = ["op"] + names, [2] + widths
            line = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
            count = 0
            with self._rows as rows:
                for row in rows:
                    if count == 0:
                        print(line + "\n" + _cells(names, widths) + "\n" + line, flush=True)
                    cells = [value_text(v, t, tableau=True) for v, t in zip(row, self._schema.get_field_data_types())]
                    if self._with_kind:
                        cells = [row.get_row_kind().short_string()] + cells
                    print(_cells(cells, widths), flush=True)
                    count += 1
            print(line + f"\n{count} {'row' if count == 1 else 'rows'} in set" if count else "Empty set")
        elif self._job_client is None:
            print("OK")
        else:
            self.wait()
            print(-1)  # as PyFlink prints an insert's result: the rows written are not counted


#: the width of a column of each type in Flink's boxed table (at most 30, as Flink's tableau)
_TYPE_WIDTHS = {"BOOLEAN": 5, "TINYINT": 4, "SMALLINT": 6, "INT": 11, "BIGINT": 20, "DATE": 10}
MAX_WIDTH = 30
NULL = "<NULL>"


def _type_width(data_type: DataType) -> int:
    name = data_type.type_name
    if name == "DECIMAL":
        width = data_type.precision + 2
    elif name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        precision = data_type.precision
        width = 19 + (0 if not precision else 4 if precision <= 3 else 7 if precision <= 6 else 10)
    elif name == "TIME":
        precision = int(data_type._name[5:-1])
        width = 8 if not precision else precision + 9
    else:
        width = _TYPE_WIDTHS.get(name, MAX_WIDTH)
    return max(width, len(NULL))  # as Flink: room for <NULL> whatever the nullability


def _display_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def value_text(value: Any, data_type: DataType, tableau: bool = False) -> str:
    """A value as Flink's SQL side writes it: in the print connector's rows, or in the boxed table
    (``tableau``: ``<NULL>``, ``TRUE``, timestamps with a space)."""
    from kindling.common.formatting import flink_string

    if value is None:
        return NULL if tableau else "null"
    if isinstance(value, bool):
        return ("TRUE" if value else "FALSE") if tableau else ("true" if value else "false")
    name = data_type.type_name
    if tableau and name in ("ROW", "ARRAY", "MAP"):  # (a, NULL), [a, NULL], {k=v}
        def inner(v: Any, of: DataType) -> str:
            return "NULL" if v is None else value_text(v, of, tableau)
        if name == "ROW":
            return "(" + ", ".join(inner(v, f.data_type) for v, f in zip(value, data_type.fields)) + ")"
        if name == "ARRAY":
            return "[" + ", ".join(inner(v, data_type.element_type) for v in value) + "]"
        return "{" + ", ".join(f"{inner(k, data_type.key_type)}={inner(v, data_type.value_type)}"
                               for k, v in value.items()) + "}"
    if name in ("ROW", "ARRAY", "MAP") and not tableau:  # Java's Row.toString: +I[1, a], [1, null], {k=1}
        if name == "ROW":
            kind = value.get_row_kind().short_string() if isinstance(value, Row) else "+I"
            return kind + "[" + ", ".join(value_text(v, f.data_type) for v, f in zip(value, data_type.fields)) + "]"
        if name == "ARRAY":
            return "[" + ", ".join(value_text(v, data_type.element_type) for v in value) + "]"
        return "{" + ", ".join(f"{value_text(k, data_type.key_type)}={value_text(v, data_type.value_type)}"
                               for k, v in value.items()) + "}"
    if name in ("BINARY", "VARBINARY", "BYTES"):  # Java's byte[]: signed numbers
        return f"x'{bytes(value).hex()}'" if tableau else "[" + ", ".join(str(b - 256 if b > 127 else b)
                                                                          for b in bytes(value)) + "]"
    if name == "TIME" and not tableau:
        return _java_time(value)
    if name in ("FLOAT", "DOUBLE"):
        from kindling.table.formats import java_number

        return java_number(value, name == "FLOAT")  # Java's toString: 1.5, 1.0E20
    if name == "DECIMAL":  # with the type's scale: 1.50 for DECIMAL(10, 2)
        return format(_with_scale(value, _scale(data_type)), "f")
    if name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        from kindling.table.expressions import to_timestamp

        moment = to_timestamp(value)
        if tableau:
            text = moment.strftime("%Y-%m-%d %H:%M:%S")
            return text + ("." + f"{moment.microsecond:06d}"[:data_type.precision] if data_type.precision else "")
        return _java_date_time(moment, name == "TIMESTAMP_LTZ")
    return flink_string(value, data_type.type_info())


def _java_date_time(moment: datetime.datetime, instant: bool) -> str:
    """Java's LocalDateTime.toString (seconds only when not zero) or Instant.toString (``...Z``)."""
    return moment.strftime("%Y-%m-%dT") + _java_time(moment.time(), instant) + ("Z" if instant else "")


def _java_time(moment: datetime.time, with_seconds: bool = False) -> str:
    """Java's LocalTime.toString: ``12:00``, ``12:00:01``, ``12:00:00.123`` (seconds only when not zero)."""
    text = moment.strftime("%H:%M")
    if moment.second or moment.microsecond or with_seconds:
        text += moment.strftime(":%S")
    if moment.microsecond:
        fraction = f"{moment.microsecond:06d}"
        text += "." + (fraction[:3] if fraction.endswith("000") else fraction)
    return text


def _cells(values: List[str], widths: List[int]) -> str:
    cells = []
    for value, width in zip(values, widths):
        if _display_width(value) > width:
            while _display_width(value) > width - 3:
                value = value[:-1]
            value += "..."
        cells.append(" " * (width - _display_width(value)) + value)
    return "| " + " | ".join(cells) + " |"


class PositionalRows:
    """A query's rows without their field names, as PyFlink's ``TableResult.collect()`` gives them;
    closing it closes the job's iterator."""

    def __init__(self, rows: Any, scales: Optional[List[Optional[int]]] = None):
        self._rows = rows
        self._iterator = iter(rows)
        self._scales = scales if scales and any(s is not None for s in scales) else None  # DECIMAL columns'

    def __iter__(self) -> "PositionalRows":
        return self

    def __next__(self) -> Any:
        row = next(self._iterator)
        if self._scales is None or not isinstance(row, Row):
            return _positional(row)
        return Row.of_kind(row.get_row_kind(), *[_positional(v) if s is None or v is None else _with_scale(v, s)
                                                for v, s in zip(row, self._scales)])

    def next(self) -> Any:
        return self.__next__()

    def close(self) -> None:
        close = getattr(self._rows, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> "PositionalRows":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _scale(data_type: DataType) -> int:
    """A DECIMAL type's scale."""
    return int(data_type._name.split(",")[1].strip(" )").split()[0])


def _with_scale(value: Any, scale: int) -> Any:
    """A DECIMAL value with its type's scale (``Decimal('1.50')`` of DECIMAL(10, 2)), as Flink gives it."""
    import decimal

    exact = decimal.Context(prec=80)  # DECIMAL(38, s) values need more than Python's default 28 digits
    return decimal.Decimal(value).quantize(decimal.Decimal(1).scaleb(-scale), decimal.ROUND_HALF_UP, exact)


def _positional(value: Any) -> Any:
    """``value`` with every Row in it (nested, in arrays and maps) positional, of the same kind."""
    if isinstance(value, Row):
        return Row.of_kind(value.get_row_kind(), *[_positional(v) for v in value])
    if isinstance(value, list):
        return [_positional(v) for v in value]
    if isinstance(value, dict):
        return {k: _positional(v) for k, v in value.items()}
    return value


class _Listing(list):
    """The rows of a statement's result (SHOW, DESCRIBE), read like a job's CloseableIterator."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False


def listing(names: List[str], rows: List[List[str]]) -> TableResult:
    """The result of a SHOW or DESCRIBE statement: string columns ``names``."""
    from kindling.table.schema import Schema
    from kindling.table.types import DataTypes

    schema = Schema(names, [DataTypes.STRING().not_null()] * len(names))
    return TableResult(rows=_Listing(_create_row(names, r) for r in rows), schema=schema, widths_of_data=True)
