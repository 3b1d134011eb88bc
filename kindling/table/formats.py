"""The formats of Flink SQL's connectors: ``csv``, ``json`` and ``raw`` rows to and from bytes
(Kafka record values and keys, lines of files), and how the ``filesystem`` connector reads and
writes them (``parquet`` too), values typed by the table's DataTypes as Flink's formats type them.

Text follows Flink's: JSON objects by column name, TIMESTAMP as ``2024-01-01 00:00:01.5`` (SQL
standard), TIMESTAMP_LTZ with a ``Z``, doubles as Java writes them (``1.0E20``), BYTES in base64; CSV
quoted as Flink's (Jackson's) writer quotes. A record a format cannot read fails the job naming it,
unless ``<format>.ignore-parse-errors`` is ``true`` (then it is skipped and counted).
"""
from __future__ import annotations

import base64
import csv
import datetime
import decimal
import io
import json
import re
from typing import Any, Callable, Dict, List, Optional

from kindling.common.formatting import java_number
from kindling.common.serialization import DeserializationSchema, Encoder, SerializationSchema
from kindling.common.types import Row, RowKind, _create_row
from kindling.datastream.formats.csv import CsvReaderFormat, CsvSchema
from kindling.datastream.formats.csv import _Column as _CsvColumn
from kindling.datastream.formats.json import JsonLinesFormat, JsonRowDeserializationSchema
from kindling.table.schema import Schema
from kindling.table.types import DataType

__all__ = ["FORMAT_OPTIONS", "RowFormat", "file_sink", "file_source", "row_format", "spark_reader_differs"]

#: the options of each format Kindling supports (``<format>.<option>`` in a table's WITH clause)
FORMAT_OPTIONS = {
    "csv": {"field-delimiter", "quote-character", "disable-quote-character", "allow-comments", "ignore-parse-errors",
            "escape-character", "null-literal"},
    "json": {"fail-on-missing-field", "ignore-parse-errors", "timestamp-format.standard",
             "encode.decimal-as-plain-number", "encode.ignore-null-fields"},
    "raw": {"charset"},
    "parquet": set(),
    "canal-json": {"encode.ignore-null-fields"},  # written only: a changelog, each change a record
}
NESTED_TYPES = ("ROW", "ARRAY", "MAP")
#: formats whose records are changes, so a sink using them takes an updating table
CHANGELOG_FORMATS = ("canal-json",)
_SQL_TIMESTAMP = re.compile(r"^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z?)$")


def _timestamp_text(moment: datetime.datetime) -> str:
    text = moment.strftime("%Y-%m-%d %H:%M:%S")
    return text + ("." + f"{moment.microsecond:06d}".rstrip("0") if moment.microsecond else "")


def _parse_timestamp(text: str, ltz: bool) -> datetime.datetime:
    match = _SQL_TIMESTAMP.match(text.strip())
    if match is None or bool(match.group(4)) != ltz:
        form = "yyyy-MM-dd HH:mm:ss[.fraction]" + ("Z" if ltz else "")
        raise ValueError(f"{text!r} is not a {'TIMESTAMP_LTZ' if ltz else 'TIMESTAMP'} in SQL form ({form})")
    fraction = (match.group(3) or "").ljust(6, "0")[:6]
    return datetime.datetime.fromisoformat(f"{match.group(1)} {match.group(2)}.{fraction}")


class _Column:
    """How one column's values read from and write to text (and JSON), by its DataType."""

    def __init__(self, name: str, data_type: DataType):
        self.name, self.type_name = name, data_type.type_name
        self.data_type = data_type
        if self.type_name == "ROW":
            self.fields = [_Column(f.name, f.data_type) for f in data_type.fields]
        elif self.type_name == "ARRAY":
            self.element = _Column("element", data_type.element_type)
        elif self.type_name == "MAP":
            self.key, self.value = _Column("key", data_type.key_type), _Column("value", data_type.value_type)
        if self.type_name == "DECIMAL":  # values read take the column's scale, rounded half up as in Flink
            scale = int(data_type._name.split(",")[1].strip(" )"))
            self.quantum = decimal.Decimal(1).scaleb(-scale)

    def from_text(self, text: str) -> Any:
        """A value of the column's type from text (CSV fields, JSON strings); ValueError otherwise."""
        kind = self.type_name
        if kind in ("STRING", "VARCHAR", "CHAR"):
            return text
        if kind in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
            return int(text.strip())
        if kind in ("FLOAT", "DOUBLE"):
            return float(text.strip())
        if kind == "DECIMAL":
            try:
                return decimal.Decimal(text.strip()).quantize(self.quantum, decimal.ROUND_HALF_UP)
            except decimal.InvalidOperation:
                raise ValueError(f"{text!r} is not a decimal number") from None
        if kind == "BOOLEAN":
            return text.strip().lower() == "true"
        if kind == "DATE":
            return datetime.date.fromisoformat(text.strip())
        if kind == "TIMESTAMP":
            return _parse_timestamp(text, False)
        if kind == "TIMESTAMP_LTZ":
            from kindling.table.expressions import to_instant

            return to_instant(_parse_timestamp(text, True))
        if kind == "BYTES":
            return base64.b64decode(text)
        raise ValueError(f"columns of type {self.data_type!r} are not supported by Kindling's formats yet")

    def to_text(self, value: Any) -> str:
        """The column's value as Flink's formats write it (not quoted)."""
        kind = self.type_name
        if isinstance(value, bool):
            return "true" if value else "false"
        if kind in ("FLOAT", "DOUBLE"):
            return java_number(value, kind == "FLOAT")
        if kind == "TIMESTAMP":
            return _timestamp_text(value)
        if kind == "TIMESTAMP_LTZ":
            from kindling.table.expressions import to_timestamp

            return _timestamp_text(to_timestamp(value)) + "Z"
        if kind == "BYTES":
            return base64.b64encode(bytes(value)).decode("ascii")
        if isinstance(value, decimal.Decimal):
            return format(value.normalize(), "f")  # Flink writes a DECIMAL without trailing zeros
        return str(value)

    def from_json(self, value: Any) -> Any:
        if value is None:
            return None
        kind = self.type_name
        if kind in NESTED_TYPES:
            return self._nested_from_json(value)
        if kind in ("STRING", "VARCHAR", "CHAR"):
            return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
        if isinstance(value, bool) and kind != "BOOLEAN" or isinstance(value, (dict, list)):
            raise ValueError(f"{json.dumps(value)} is not a {self.data_type!r}")
        if kind == "BOOLEAN" and isinstance(value, bool):
            return value
        if kind in ("TINYINT", "SMALLINT", "INT", "BIGINT") and isinstance(value, (int, float)):
            if value != int(value):
                raise ValueError(f"{value} is not an integer")
            return int(value)
        if kind in ("FLOAT", "DOUBLE") and isinstance(value, (int, float)):
            return float(value)
        if kind == "DECIMAL" and isinstance(value, (int, float)):
            return self.from_text(str(value))
        return self.from_text(str(value))

    def _nested_from_json(self, value: Any) -> Any:
        kind, expected = self.type_name, {"ROW": dict, "ARRAY": list, "MAP": dict}[self.type_name]
        if not isinstance(value, expected):
            raise ValueError(f"{json.dumps(value)} is not a {self.data_type!r}")
        if kind == "ARRAY":
            return [self.element.from_json(v) for v in value]
        if kind == "MAP":
            return {self.key.from_json(k): self.value.from_json(v) for k, v in value.items()}
        return _create_row([f.name for f in self.fields], [f.from_json(value.get(f.name)) for f in self.fields])

    def to_json(self, value: Any) -> str:
        """The JSON text of a value (numbers and booleans bare, objects and arrays for ROW, MAP and
        ARRAY, the rest as strings)."""
        if value is None:
            return "null"
        if self.type_name == "ARRAY":
            return "[" + ",".join(self.element.to_json(v) for v in value) + "]"
        if self.type_name == "MAP":
            return "{" + ",".join(f"{json.dumps(self.key.to_text(k), ensure_ascii=False)}:{self.value.to_json(v)}"
                                  for k, v in value.items()) + "}"
        if self.type_name == "ROW":
            return "{" + ",".join(f"{json.dumps(f.name, ensure_ascii=False)}:{f.to_json(v)}"
                                  for f, v in zip(self.fields, value)) + "}"
        if isinstance(value, bool) or self.type_name in ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
                                                         "DECIMAL"):
            return self.to_text(value)
        return json.dumps(self.to_text(value), ensure_ascii=False)


def _flag(options: Dict[str, str], key: str) -> bool:
    value = options.get(key, "false").lower()
    if value not in ("true", "false"):
        raise ValueError(f"The option '{key}' is 'true' or 'false', got {options[key]!r}")
    return value == "true"


def _char(options: Dict[str, str], key: str, default: Optional[str]) -> Optional[str]:
    value = options.get(key, default)
    if value is not None and len(value) != 1:
        raise ValueError(f"The option '{key}' must be a single character, got {value!r}")
    return value


class RowFormat:
    """A format of rows of ``schema`` (its columns in order): ``decode(bytes) -> Row`` and
    ``encode(row) -> bytes`` (one record, without a line end)."""

    def __init__(self, name: str, schema: Schema, options: Dict[str, str]):
        self.name = name
        self.names = schema.get_field_names()
        self.columns = [_Column(n, t) for n, t in zip(self.names, schema.get_field_data_types())]
        self.options = options
        self.ignore_errors = _flag(options, "ignore-parse-errors")
        if name == "csv":
            self.delimiter = _char(options, "field-delimiter", ",")
            self.quote = None if _flag(options, "disable-quote-character") else _char(options, "quote-character", '"')
            self.escape = _char(options, "escape-character", None)
            self.null_literal = options.get("null-literal")
            self.allow_comments = _flag(options, "allow-comments")
            # Jackson (Flink's CSV writer) quotes a string that is long or has a character below this one
            self.safe_from = max(ord(c) for c in (self.delimiter, self.quote or '"', "\n", self.escape or "\0")) + 1
        elif name in ("json", "canal-json"):
            self.fail_on_missing = _flag(options, "fail-on-missing-field")
            self.ignore_nulls = _flag(options, "encode.ignore-null-fields")
            standard = options.get("timestamp-format.standard", "SQL")
            if standard != "SQL":
                raise ValueError(f"json.timestamp-format.standard = {standard!r} is not supported by Kindling yet "
                                 "(SQL only)")
        elif name == "raw":
            if len(self.columns) != 1:
                raise ValueError(f"The 'raw' format reads and writes one column, the table has {self.names}")
            self.charset = options.get("charset", "UTF-8")

    def _row(self, values: List[Any], kind: Optional[RowKind] = None) -> Row:
        return _create_row(self.names, values, kind)

    def decode(self, message: bytes) -> Row:
        """The row of one record; ValueError when it does not fit the format or the columns."""
        if self.name == "raw":
            binary = self.columns[0].type_name == "BYTES"
            return self._row([None if message is None else bytes(message) if binary else
                              bytes(message).decode(self.charset)])
        text = bytes(message).decode("utf-8")
        if self.name == "json":
            return self.decode_json(text)
        records = list(csv.reader(io.StringIO(text), delimiter=self.delimiter, quotechar=self.quote or '"',
                                  quoting=csv.QUOTE_MINIMAL if self.quote else csv.QUOTE_NONE, escapechar=self.escape,
                                  doublequote=self.escape is None, strict=True))
        if len(records) != 1:
            raise ValueError(f"expected one CSV record, got {len(records)}")
        return self.decode_fields(records[0])

    def decode_json(self, text: str) -> Row:
        parsed = json.loads(text)
        if not isinstance(parsed, dict):
            raise ValueError(f"expected a JSON object, got {type(parsed).__name__}")
        values = []
        for column in self.columns:
            if column.name not in parsed and self.fail_on_missing:
                raise ValueError(f"the field '{column.name}' is missing")
            try:
                values.append(column.from_json(parsed.get(column.name)))
            except ValueError as error:
                raise ValueError(f"field '{column.name}': {error}") from None
        return self._row(values)

    def decode_fields(self, fields: List[str]) -> Row:
        """The row of one CSV record's fields."""
        if len(fields) != len(self.columns):
            raise ValueError(f"expected {len(self.columns)} fields {self.names}, got {len(fields)}")
        values = []
        for text, column in zip(fields, self.columns):
            if self.null_literal is not None and text == self.null_literal:
                values.append(None)
                continue
            try:
                values.append(column.from_text(text))
            except ValueError as error:
                raise ValueError(f"field '{column.name}': cannot read {text!r} as {column.data_type!r}: "
                                 f"{error}") from None
        return self._row(values)

    def encode(self, row: Any) -> bytes:
        """One record of the row's values."""
        if self.name == "raw":
            value = row[0]
            return b"" if value is None else bytes(value) if isinstance(value, (bytes, bytearray)) else \
                str(value).encode(self.charset)
        if self.name in ("json", "canal-json"):
            fields = [f"{json.dumps(c.name, ensure_ascii=False)}:{c.to_json(v)}" for c, v in zip(self.columns, row)
                      if v is not None or not self.ignore_nulls]
            data = "{" + ",".join(fields) + "}"
            if self.name == "json":
                return data.encode("utf-8")
            kind = getattr(row, "_row_kind", None)  # Canal's: an insert or update-after inserts, the rest deletes
            change = "DELETE" if kind in (RowKind.UPDATE_BEFORE, RowKind.DELETE) else "INSERT"
            return f'{{"data":[{data}],"type":"{change}"}}'.encode("utf-8")
        return self.delimiter.join(self._csv_field(c, v) for c, v in zip(self.columns, row)).encode("utf-8")

    def _csv_field(self, column: _Column, value: Any) -> str:
        if value is None:
            return self.null_literal or ""
        text = column.to_text(value)
        if isinstance(value, (bool, int, float, decimal.Decimal)) or not self.quote:
            return text
        if len(text) > 24 or any(ord(c) < self.safe_from for c in text):  # Jackson's (loose) rule
            doubled = text.replace(self.quote, (self.escape or self.quote) + self.quote)
            return f"{self.quote}{doubled}{self.quote}"
        return text


def row_format(name: str, schema: Schema, options: Dict[str, str], prefix: str = "") -> RowFormat:
    """The format ``name`` of rows of ``schema``, configured by the ``<prefix><name>.<option>``
    entries of ``options``; an unknown format or option fails naming the supported ones."""
    if name not in FORMAT_OPTIONS or name == "parquet":
        raise ValueError(f"The format '{name}' is not supported by Kindling yet; formats: csv, json, raw, "
                         "canal-json (written only) and parquet (files)")
    if name not in ("json", "canal-json"):
        flat_columns(name, schema)
    return RowFormat(name, schema, own_options(name, options, prefix))


def flat_columns(what: str, schema: Schema) -> None:
    """Refuses ROW, ARRAY and MAP columns: Kindling's csv, raw and parquet formats and the JDBC
    connector read and write flat columns only (json reads and writes them as objects and arrays;
    the print, blackhole and test-sink connectors take any)."""
    nested = [n for n, t in zip(schema.get_field_names(), schema.get_field_data_types())
              if t.type_name in NESTED_TYPES]
    if nested:
        raise ValueError(f"The '{what}' format or connector of Kindling reads and writes flat columns; the columns "
                         f"{nested} are ROW, ARRAY or MAP: not supported by Kindling yet")


def own_options(name: str, options: Dict[str, str], prefix: str = "") -> Dict[str, str]:
    """The ``<prefix><name>.<option>`` entries of ``options``, keyed by ``<option>``."""
    start = f"{prefix}{name}."
    mine = {k[len(start):]: v for k, v in options.items() if k.startswith(start)}
    unknown = sorted(start + k for k in mine if k not in FORMAT_OPTIONS[name])
    if unknown:
        raise ValueError(f"Unsupported options for the '{name}' format: {', '.join(unknown)}. Kindling supports: "
                         f"{', '.join(sorted(start + k for k in FORMAT_OPTIONS[name])) or 'none'}")
    return mine


class RowDeserializer(DeserializationSchema):
    """A format's rows from Kafka record values (None, a record to skip, when the format ignores
    parse errors)."""

    def __init__(self, row_format: RowFormat):
        super().__init__()
        self.format = row_format

    def deserialize(self, message: bytes) -> Optional[Row]:
        try:
            return self.format.decode(message)
        except (ValueError, UnicodeDecodeError, csv.Error) as error:
            if self.format.ignore_errors:
                return None
            raise ValueError(f"malformed {self.format.name.upper()} record {bytes(message)[:200]!r}: {error} "
                             f"('{self.format.name}.ignore-parse-errors' = 'true' skips such records)") from None

    def get_produced_type(self):
        return Schema(self.format.names, [c.data_type for c in self.format.columns]).row_type_info()


class RowSerializer(SerializationSchema):
    """A format's records of rows, as Kafka record values (or keys: the row's ``fields``); with
    ``deletes_as_none`` a deleted row's value is None (upsert-kafka's tombstone)."""

    def __init__(self, row_format: RowFormat, fields: Optional[List[int]] = None, deletes_as_none: bool = False):
        super().__init__()
        self.format, self.fields, self.deletes_as_none = row_format, fields, deletes_as_none

    def serialize(self, value: Any) -> Optional[bytes]:
        if self.deletes_as_none and getattr(value, "_row_kind", None) == RowKind.DELETE:
            return None
        return self.format.encode(value if self.fields is None else [value[i] for i in self.fields])


class RowEncoder(Encoder):
    """A format's records of rows, one a line of a file sink's part files."""

    def __init__(self, row_format: RowFormat):
        super().__init__()
        self.format = row_format

    def encode(self, value: Any, type_info: Any = None) -> bytes:
        return self.format.encode(value)

    def __eq__(self, other: Any) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)


def file_source(name: str, schema: Schema, options: Dict[str, str], paths: List[str],
                monitor_interval_ms: Optional[int]):
    """A DataStream FileSource of the table's rows in format ``name``, and a Spark step that makes
    its elements the table's Rows (None: they are)."""
    from kindling.datastream.connectors.file_system import FileSource, StreamFormat

    row_type = schema.row_type_info()
    if name in CHANGELOG_FORMATS:
        raise ValueError(f"Reading the '{name}' format (a changelog) is not supported by Kindling yet; it writes it")
    if name == "parquet":
        flat_columns(name, schema)
        own_options(name, options)
        from kindling.datastream.formats.parquet import ParquetColumnarRowInputFormat

        builder = FileSource.for_bulk_file_format(ParquetColumnarRowInputFormat(row_type), *paths)
    elif name == "raw":
        rows = row_format(name, schema, options)
        if rows.columns[0].type_name not in ("STRING", "VARCHAR", "CHAR"):
            raise ValueError("The 'filesystem' connector reads 'raw' files as lines into one STRING column")
        builder = FileSource.for_record_stream_format(StreamFormat.text_line_format(rows.charset), *paths)
    elif name == "csv":
        builder = FileSource.for_record_stream_format(_csv_reader(row_format(name, schema, options)), *paths)
    else:
        builder = FileSource.for_record_stream_format(_JsonLines(row_format(name, schema, options)), *paths)
    if monitor_interval_ms is not None:
        from kindling.common.time import Duration

        builder = builder.monitor_continuously(Duration.of_millis(monitor_interval_ms))
    return builder.build()


def _csv_reader(rows: RowFormat) -> CsvReaderFormat:
    """The DataStream CSV reader (quoted fields may span lines) with the format's layout, reading
    each record's fields as the table's columns."""
    schema = _TableCsvSchema(columns=[_CsvColumn(c.name, c.data_type.type_info()) for c in rows.columns],
                             column_separator=rows.delimiter, quote_char=rows.quote, escape_char=rows.escape,
                             null_value=rows.null_literal, allow_comments=rows.allow_comments)
    schema.table_columns = rows.columns
    return CsvReaderFormat(schema, rows.ignore_errors)


class _TableCsvSchema(CsvSchema):
    """A CsvSchema whose fields are read as Flink SQL's csv format reads them."""

    table_columns: Optional[List[_Column]] = None

    def _parser(self, column) -> Callable[[str], Any]:
        own = next(c for c in self.table_columns if c.name == column.name)
        null = self.null_value
        return lambda text: None if null is not None and text == null else own.from_text(text)

    def arrow_column(self, index: int, fields: Any, arrow_type: Any) -> Any:
        """Also a TIMESTAMP column, parsed by Arrow where every field is in the SQL form that
        ``_parse_timestamp`` reads to the same microsecond (years 1000-9999, at most 6 fraction
        digits, no spaces around it); None (each field read by ``from_text``) otherwise."""
        import pyarrow as pa
        import pyarrow.compute as pc

        own = next(c for c in self.table_columns if c.name == self.columns[index].name)
        if own.type_name != "TIMESTAMP" or self.null_value is not None:
            return super().arrow_column(index, fields, arrow_type)
        if not pa.types.is_timestamp(arrow_type) or arrow_type.unit != "us" \
                or not pc.all(pc.match_substring_regex(fields, _ARROW_TIMESTAMP)).as_py():
            return None
        try:  # Arrow checks the date and time as Python's fromisoformat does
            return fields.cast(pa.timestamp("us")).cast(arrow_type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None


_ARROW_TIMESTAMP = r"^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?$"


class _JsonLines(JsonLinesFormat):
    """JSON-lines files read as Flink SQL's json format reads a record."""

    def __init__(self, rows: RowFormat):
        row_type = Schema(rows.names, [c.data_type for c in rows.columns]).row_type_info()
        super().__init__(JsonRowDeserializationSchema(row_type, rows.fail_on_missing, rows.ignore_errors))
        self.rows = rows

    def parse(self, line: bytes) -> Row:
        return self.rows.decode_json(bytes(line).decode("utf-8"))


def file_sink(name: str, schema: Schema, options: Dict[str, str], path: str, part_size: Optional[int]):
    """A DataStream FileSink writing the table's rows in format ``name`` into ``path`` (no buckets),
    exactly once: part files become visible when their micro-batch commits."""
    from kindling.datastream.connectors.file_system import BucketAssigner, FileSink, RollingPolicy

    if name == "parquet":
        flat_columns(name, schema)
        own_options(name, options)
        from kindling.datastream.formats.parquet import ParquetBulkWriters

        builder = FileSink.for_bulk_format(path, ParquetBulkWriters.for_row_type(schema.row_type_info()))
    else:
        builder = FileSink.for_row_format(path, RowEncoder(row_format(name, schema, options)))
        if part_size:
            builder = builder.with_rolling_policy(RollingPolicy.default_rolling_policy(part_size=part_size))
    return builder.with_bucket_assigner(BucketAssigner.base_path_bucket_assigner()).build()


#: the column types whose CSV text Spark's reader and functions read as Flink's csv format does
#: (kindling/spark/table/scans.py)
SPARK_CSV_TYPES = ("STRING", "VARCHAR", "CHAR", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL",
                   "BOOLEAN", "DATE", "TIMESTAMP")


def spark_reader_differs(options: Dict[str, str], schema: Schema, source: Any = None,
                         stream: bool = False) -> Optional[str]:
    """Why Spark's own reader cannot read the files of a ``filesystem`` table with ``options`` as
    Flink's format does (and as Kindling's Python reader, kindling/spark/files.py, does), or None when
    it can: today CSV files on the local filesystem, without an escape character (Python's csv
    escaping, which Spark's reader does not share), a disabled quote character or ignored parse
    errors (the Python reader counts the records it skips), of the types in :data:`SPARK_CSV_TYPES`,
    not partitioned (``source``, the table's FileSource); a table watching its path for new files
    (``source.monitor-interval``) only in a ``stream`` (Spark's file stream source)."""
    if options.get("connector") != "filesystem" or (options.get("source.monitor-interval") and not stream):
        return "not a bounded 'filesystem' table"
    if getattr(getattr(getattr(source, "_spec", None), "format", None), "partition_columns", None) is not None:
        return "a partitioned table's partition columns are read from its directory names by Kindling's reader"
    if options.get("format") != "csv":
        return f"the '{options.get('format')}' format is read by Kindling's reader"
    path = options.get("path", "")
    if "://" in path and not path.startswith("file://"):
        return "files outside the local filesystem are read by Kindling's reader"
    mine = own_options("csv", options)
    for key in ("escape-character", "disable-quote-character", "ignore-parse-errors"):
        if key in mine and (key == "escape-character" or _flag(mine, key)):
            return f"'csv.{key}' is read by Kindling's reader"
    other = [f"{n} {t}" for n, t in zip(schema.get_field_names(), schema.get_field_data_types())
             if t.type_name not in SPARK_CSV_TYPES]
    return f"columns of other types ({', '.join(other)}) are read by Kindling's reader" if other else None
