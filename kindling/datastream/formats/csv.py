"""CSV, as in ``pyflink.datastream.formats.csv``: a ``CsvSchema`` (built with
``CsvSchema.builder()``) for ``CsvReaderFormat`` (a FileSource format) and ``CsvBulkWriters``
(a FileSink bulk writer), and the ``CsvRowSerializationSchema`` / ``CsvRowDeserializationSchema``
of single records (Kafka values, for example).

Where PyFlink takes a ``DataTypes`` type (Kindling has no Table API), give the matching
``Types`` one: ``add_number_column('id', Types.INT())``.
"""
from __future__ import annotations

import csv
import datetime
import decimal
import io
from dataclasses import dataclass, field, replace
from itertools import islice
from typing import Any, Callable, Iterable, Iterator, Optional

from kindling.common.serialization import BulkWriterFactory, DeserializationSchema, SerializationSchema
from kindling.common.typeinfo import (BasicArrayTypeInfo, BasicType, BasicTypeInfo, DateTypeInfo, ListTypeInfo,
                                      LocalTimeTypeInfo, ObjectArrayTypeInfo, RowTypeInfo, TimestampTypeInfo,
                                      TimeTypeInfo, TypeInformation, Types)
from kindling.common.types import Row
from kindling.datastream.connectors.file_system import StreamFormat

__all__ = ['CsvSchema', 'CsvSchemaBuilder', 'CsvReaderFormat', 'CsvBulkWriters', 'CsvRowDeserializationSchema',
           'CsvRowSerializationSchema']


@dataclass
class _Column:
    name: str
    type_info: TypeInformation
    array_separator: Optional[str] = None  # array columns: between elements


@dataclass
class CsvSchema:
    """The columns of a CSV file and how its text is laid out (Jackson's ``CsvSchema``)."""

    columns: list = field(default_factory=list)
    column_separator: str = ','
    quote_char: Optional[str] = '"'
    escape_char: Optional[str] = None
    null_value: Optional[str] = None
    allow_comments: bool = False
    use_header: bool = False
    skip_first_data_row: bool = False
    strict_headers: bool = False
    line_separator: str = '\n'
    array_element_separator: str = ';'

    @staticmethod
    def builder() -> 'CsvSchemaBuilder':
        return CsvSchemaBuilder()

    def size(self) -> int:
        return len(self.columns)

    def __len__(self) -> int:
        return self.size()

    def get_type_info(self) -> RowTypeInfo:
        """The type of the rows: ``Types.ROW_NAMED`` of the columns (PyFlink's row type)."""
        return Types.ROW_NAMED([c.name for c in self.columns], [c.type_info for c in self.columns])

    def field_names(self) -> list:
        return [c.name for c in self.columns]

    # -- text <-> values ---------------------------------------------------------------------
    def dialect(self) -> dict:
        """Keyword arguments of Python's ``csv`` reader and writer for this layout."""
        quoting = csv.QUOTE_MINIMAL if self.quote_char else csv.QUOTE_NONE
        return dict(delimiter=self.column_separator, quotechar=self.quote_char, escapechar=self.escape_char,
                    doublequote=self.escape_char is None, quoting=quoting, strict=True,
                    lineterminator=self.line_separator)

    def parse(self, fields: list) -> Row:
        """The Row of one record's fields; a field that does not parse raises ValueError."""
        row = Row(*self.parse_values(fields))
        row.set_field_names(self.field_names())
        return row

    def parse_values(self, fields: list) -> list:
        """The values of one record's fields; a field that does not parse raises ValueError
        naming its column."""
        if len(fields) != len(self.columns):
            raise ValueError(f"expected {len(self.columns)} columns, got {len(fields)}")
        values = []
        for text, column, parser in zip(fields, self.columns, self.parsers()):
            try:
                values.append(text if parser is None else parser(text))
            except (ValueError, ArithmeticError) as exc:
                raise ValueError(f"column {column.name!r}: cannot read {text!r} as {column.type_info}: "
                                 f"{exc}") from None
        return values

    def parse_columns(self, records: list) -> list:
        """The columns of many records' fields at once (fast); raises ValueError for any bad
        record, which :meth:`parse_values` then finds."""
        width = len(self.columns)
        if any(len(fields) != width for fields in records):
            raise ValueError("a record has another number of columns")
        try:
            return [[fields[i] for fields in records] if parser is None else [parser(fields[i]) for fields in records]
                    for i, parser in enumerate(self.parsers())]
        except (ValueError, ArithmeticError) as exc:
            raise ValueError(str(exc)) from None

    def parse_field_column(self, index: int, fields: list) -> list:
        """The values of column ``index`` of many records; a field that does not parse raises
        ValueError (:meth:`parse_values` then finds its record)."""
        parser = self.parsers()[index]
        try:
            return fields if parser is None else list(map(parser, fields))
        except (ValueError, ArithmeticError) as exc:
            raise ValueError(str(exc)) from None

    def arrow_column(self, index: int, fields: Any, arrow_type: Any) -> Any:
        """The values of column ``index`` as an Arrow array of ``arrow_type``, parsed by Arrow from
        ``fields`` (an Arrow array of strings), where Arrow reads them exactly as
        :meth:`parse_field_column` would (strings, plain integers and decimal numbers); None otherwise."""
        import pyarrow as pa
        import pyarrow.compute as pc

        column = self.columns[index]
        if self.null_value is not None or column.array_separator is not None:
            return None
        type_info = column.type_info
        kind = type_info.basic_type if isinstance(type_info, BasicTypeInfo) else None
        if kind in (BasicType.STRING, BasicType.CHAR):
            return fields.cast(arrow_type) if fields.type != arrow_type else fields
        pattern = _ARROW_NUMBERS.get(kind)
        if pattern is None or not pc.all(pc.match_substring_regex(fields, pattern)).as_py():
            return None
        try:
            return fields.cast(pa.float64()).cast(arrow_type) if kind is BasicType.FLOAT else fields.cast(arrow_type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):  # out of range: the Python parser says so
            return None

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop('_parsers', None)  # functions made again where the schema is used
        return state

    def parsers(self) -> list:
        """Per column, the function reading its text (None: the text itself)."""
        parsers = self.__dict__.get('_parsers')
        if parsers is None:
            parsers = self.__dict__['_parsers'] = [self._parser(c) for c in self.columns]
        return parsers

    def _parser(self, column: _Column):
        null = self.null_value
        if column.array_separator is not None:
            element = _value_parser(column.type_info.get_element_type())
            separator = column.array_separator

            def parse(text: str) -> Any:
                if null is not None and text == null:
                    return None
                if text == '':
                    return []
                parts = text.split(separator) if separator else [text]
                return parts if element is None else [element(p) for p in parts]
            return parse
        value = _value_parser(column.type_info)
        if null is None:
            return value
        return lambda text: None if text == null else (text if value is None else value(text))

    def format_fields(self, row: Any) -> list:
        """One record's fields as text (the inverse of :meth:`parse`)."""
        fields = []
        for i, column in enumerate(self.columns):
            value = row[i]
            if value is None:
                fields.append(self.null_value or '')
            elif column.array_separator is not None:
                fields.append(column.array_separator.join(_format_value(v) for v in value))
            else:
                fields.append(_format_value(value))
        return fields

    def header_ok(self, header: list) -> bool:
        return not self.strict_headers or list(header) == self.field_names()


_INTEGER = r'^-?[0-9]+$'
_DECIMAL = r'^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$'
#: number fields Arrow parses exactly as int() and float() do (others go to them)
_ARROW_NUMBERS = {BasicType.BYTE: _INTEGER, BasicType.SHORT: _INTEGER, BasicType.INT: _INTEGER,
                  BasicType.LONG: _INTEGER, BasicType.FLOAT: _DECIMAL, BasicType.DOUBLE: _DECIMAL}


def _decimal(text: str) -> decimal.Decimal:
    try:
        return decimal.Decimal(text.strip())
    except decimal.InvalidOperation:
        raise ValueError('not a decimal number') from None


def _blank_is_null(parse):
    return lambda text: None if text.strip() == '' else parse(text.strip())


def _value_parser(type_info: TypeInformation):
    """The function reading a field of ``type_info`` from its text (None: the text itself);
    numbers as Flink's reader (Java's parse of the trimmed text: an empty number fails),
    booleans as Java's ``Boolean.parseBoolean``, dates and times in ISO format (blank: null)."""
    if isinstance(type_info, BasicTypeInfo):
        kind = type_info.basic_type
        if kind in (BasicType.STRING, BasicType.CHAR):
            return None
        if kind in (BasicType.BYTE, BasicType.SHORT, BasicType.INT, BasicType.LONG, BasicType.BIG_INT):
            return int  # int() and float() ignore surrounding whitespace, as Flink trims
        if kind in (BasicType.FLOAT, BasicType.DOUBLE):
            return float
        if kind is BasicType.BIG_DEC:
            return _decimal
        if kind is BasicType.BOOLEAN:
            return lambda text: text.strip().lower() == 'true'
    if isinstance(type_info, DateTypeInfo):
        return _blank_is_null(datetime.date.fromisoformat)
    if isinstance(type_info, TimeTypeInfo):
        return _blank_is_null(datetime.time.fromisoformat)
    if isinstance(type_info, (TimestampTypeInfo, LocalTimeTypeInfo)):
        return _blank_is_null(datetime.datetime.fromisoformat)
    raise ValueError(f'CSV columns of type {type_info} are not supported')


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=' ')
    return str(value)


class CsvSchemaBuilder(object):
    """Builds a :class:`CsvSchema`, column by column, as Jackson's ``CsvSchema.Builder``."""

    def __init__(self):
        self._schema = CsvSchema()

    def build(self) -> CsvSchema:
        return replace(self._schema, columns=list(self._schema.columns))

    def add_array_column(self, name: str, separator: str = ';',
                         element_type: Optional[TypeInformation] = None) -> 'CsvSchemaBuilder':
        """An array column, elements (``Types.STRING()`` by default) separated by ``separator``."""
        element_type = element_type if element_type is not None else Types.STRING()
        self._schema.columns.append(_Column(name, Types.BASIC_ARRAY(element_type)
                                            if isinstance(element_type, BasicTypeInfo)
                                            else Types.OBJECT_ARRAY(element_type), separator))
        return self

    def add_boolean_column(self, name: str) -> 'CsvSchemaBuilder':
        self._schema.columns.append(_Column(name, Types.BOOLEAN()))
        return self

    def add_number_column(self, name: str, number_type: Optional[TypeInformation] = None) -> 'CsvSchemaBuilder':
        """A number column, ``Types.LONG()`` (PyFlink's BIGINT) unless ``number_type`` says otherwise."""
        number_type = number_type if number_type is not None else Types.LONG()
        if not isinstance(number_type, BasicTypeInfo) or number_type.basic_type not in (
                BasicType.BYTE, BasicType.SHORT, BasicType.INT, BasicType.LONG, BasicType.FLOAT, BasicType.DOUBLE,
                BasicType.BIG_INT, BasicType.BIG_DEC):
            raise TypeError(f"add_number_column needs a number type such as Types.INT() or Types.DOUBLE(), "
                            f"got {number_type!r}")
        self._schema.columns.append(_Column(name, number_type))
        return self

    def add_string_column(self, name: str) -> 'CsvSchemaBuilder':
        self._schema.columns.append(_Column(name, Types.STRING()))
        return self

    def add_column(self, name: str, type_info: TypeInformation) -> 'CsvSchemaBuilder':
        """A column of any supported type (dates and times in ISO format); Kindling's own."""
        self._schema.columns.append(_Column(name, type_info))
        return self

    def add_columns_from(self, schema: CsvSchema) -> 'CsvSchemaBuilder':
        self._schema.columns.extend(schema.columns)
        return self

    def clear_columns(self) -> 'CsvSchemaBuilder':
        self._schema.columns.clear()
        return self

    def set_allow_comments(self, allow: bool = True) -> 'CsvSchemaBuilder':
        """Skips lines starting with ``#``."""
        self._schema.allow_comments = allow
        return self

    def set_any_property_name(self, name: str) -> 'CsvSchemaBuilder':
        return self

    def disable_array_element_separator(self) -> 'CsvSchemaBuilder':
        return self.set_array_element_separator('')

    def remove_array_element_separator(self, index: int) -> 'CsvSchemaBuilder':
        column = self._schema.columns[index]
        if column.array_separator is not None:
            column.array_separator = ''
        return self

    def set_array_element_separator(self, separator: str) -> 'CsvSchemaBuilder':
        self._schema.array_element_separator = separator
        for column in self._schema.columns:
            if column.array_separator is not None:
                column.array_separator = separator
        return self

    def set_column_separator(self, char: str) -> 'CsvSchemaBuilder':
        self._schema.column_separator = _single(char, 'Column separator')
        return self

    def disable_escape_char(self) -> 'CsvSchemaBuilder':
        self._schema.escape_char = None
        return self

    def set_escape_char(self, char: str) -> 'CsvSchemaBuilder':
        self._schema.escape_char = _single(char, 'Escape char')
        return self

    def set_line_separator(self, separator: str) -> 'CsvSchemaBuilder':
        """The line separator written; reading recognizes ``\\n``, ``\\r`` and ``\\r\\n``."""
        self._schema.line_separator = separator
        return self

    def set_null_value(self, null_value: str) -> 'CsvSchemaBuilder':
        self._schema.null_value = null_value
        return self

    def disable_quote_char(self) -> 'CsvSchemaBuilder':
        self._schema.quote_char = None
        return self

    def set_quote_char(self, char: str) -> 'CsvSchemaBuilder':
        self._schema.quote_char = _single(char, 'Quote char')
        return self

    def set_skip_first_data_row(self, skip: bool = True) -> 'CsvSchemaBuilder':
        self._schema.skip_first_data_row = skip
        return self

    def set_strict_headers(self, strict: bool = True) -> 'CsvSchemaBuilder':
        """With a header: fails a file whose header names other columns than the schema."""
        self._schema.strict_headers = strict
        return self

    def set_use_header(self, use: bool = True) -> 'CsvSchemaBuilder':
        """The first line of each file is a header, not data."""
        self._schema.use_header = use
        return self

    def size(self) -> int:
        return len(self._schema.columns)

    def __len__(self) -> int:
        return self.size()


def _single(char: str, what: str) -> str:
    if not isinstance(char, str) or len(char) != 1:
        raise ValueError(f'{what} must be a single char, got {char!r}')
    return char


def read_csv_fields(schema: CsvSchema, lines: Iterable[str], at_file_start: bool = True) -> Iterator[tuple[int, Any]]:
    """The ``(line number, fields or ValueError)`` of each record of CSV text lines: the header
    (with ``use_header``), a skipped first data row (both only ``at_file_start``) and comment
    lines are left out. Line numbers count from the first line given."""
    reader = csv.reader(_without_comments(lines) if schema.allow_comments else lines, **schema.dialect())
    header = schema.use_header and at_file_start
    skip = schema.skip_first_data_row and at_file_start
    line = 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except (csv.Error, UnicodeDecodeError) as exc:
            yield line, ValueError(str(exc))
            return
        number, line = line, reader.line_num + 1
        if not fields:
            continue
        if header:
            header = False
            if not schema.header_ok(fields):
                yield number, ValueError(f"header {fields} does not name the schema's columns "
                                         f"{schema.field_names()} (strict headers)")
                return
            continue
        if skip:
            skip = False
            continue
        yield number, fields


def read_csv_columns(schema: CsvSchema, open_lines: Callable[[], Iterable[str]], batch: int,
                     at_file_start: bool = True) -> Iterator[Any]:
    """Runs of at most ``batch`` records of CSV text as columns of values, and for each record
    that does not fit the schema a ``(line number, ValueError)`` (the run goes on without it).

    ``open_lines()`` gives the text's lines from the start. Records are read in runs, without
    following line numbers; at the first record that does not fit, the text is read again
    from the start, line by line, to name the lines of bad records."""
    done = 0
    lines = open_lines()
    try:
        reader = csv.reader(_without_comments(lines) if schema.allow_comments else lines, **schema.dialect())
        heading = (schema.use_header + schema.skip_first_data_row) if at_file_start else 0
        while heading:
            fields = next(reader, None)
            if fields is None:
                return
            if fields:
                if heading > schema.skip_first_data_row and not schema.header_ok(fields):
                    raise ValueError('strict headers')
                heading -= 1
        while True:
            run = list(islice(reader, batch))
            if not run:
                return
            records = [fields for fields in run if fields]
            if records:
                columns = schema.parse_columns(records)
                yield columns
                done += len(records)
    except (csv.Error, ValueError, UnicodeDecodeError):
        pass
    finally:
        _close(lines)
    lines = open_lines()
    try:
        pending: list = []
        numbers: list = []
        for line, fields in read_csv_fields(schema, lines, at_file_start):
            if isinstance(fields, ValueError):
                yield from _columns_of(schema, pending, numbers)
                yield line, fields
                return
            if done:
                done -= 1  # read before, in runs
                continue
            pending.append(fields)
            numbers.append(line)
            if len(pending) >= batch:
                yield from _columns_of(schema, pending, numbers)
                pending, numbers = [], []
        yield from _columns_of(schema, pending, numbers)
    finally:
        _close(lines)


def _close(lines: Iterable[str]) -> None:
    close = getattr(lines, 'close', None)
    if close is not None:
        close()


def _columns_of(schema: CsvSchema, records: list, lines: list) -> Iterator[Any]:
    if not records:
        return
    try:
        yield schema.parse_columns(records)
        return
    except ValueError:
        pass
    good = []
    for line, fields in zip(lines, records):  # find the bad records
        try:
            good.append(schema.parse_values(fields))
        except ValueError as exc:
            yield line, exc
    if good:
        yield [list(column) for column in zip(*good)]


def _without_comments(lines: Iterable[str]) -> Iterator[str]:
    for line in lines:
        yield '\n' if line.startswith('#') else line


class CsvReaderFormat(StreamFormat):
    """The FileSource format of CSV files: one Row of ``schema.get_type_info()`` per record.

    Example::

        schema = (CsvSchema.builder().add_number_column('id', Types.INT()).add_string_column('name')
                  .set_use_header().build())
        source = FileSource.for_record_stream_format(CsvReaderFormat.for_schema(schema), path).build()

    A record that does not fit the schema fails the job naming its file and line, unless
    ``ignore_parse_errors()`` (then it is skipped and counted).
    """

    kind = 'csv'

    def __init__(self, schema: CsvSchema, ignore_parse_errors: bool = False, charset: str = 'UTF-8'):
        self.schema = schema
        self.ignore_errors = ignore_parse_errors
        self.charset = charset

    @staticmethod
    def for_schema(schema: CsvSchema) -> 'CsvReaderFormat':
        if not isinstance(schema, CsvSchema):
            raise TypeError(f'for_schema needs a CsvSchema from CsvSchema.builder(), got {schema!r}')
        if not schema.columns:
            raise ValueError('the CsvSchema has no columns: add them with add_string_column(...) etc.')
        return CsvReaderFormat(schema)

    def ignore_parse_errors(self) -> 'CsvReaderFormat':
        """Skips records that do not fit the schema (Kindling's; counted in the job's metrics)."""
        return CsvReaderFormat(self.schema, True, self.charset)

    def produced_type(self) -> RowTypeInfo:
        return self.schema.get_type_info()

    def column_runs(self, open_lines: Callable[[], Iterable[str]], batch: int,
                    at_file_start: bool = True) -> Iterator[Any]:
        """Runs of a file's records as columns, and ``(line number, ValueError)`` for each bad one
        (see :func:`read_csv_columns`)."""
        return read_csv_columns(self.schema, open_lines, batch, at_file_start)

    def line_splittable(self) -> bool:
        """Whether every line break ends a record (no quote or escape character: no field holds
        one), so that a file can be read in byte ranges of whole lines."""
        return self.schema.quote_char is None and self.schema.escape_char is None


class CsvBulkWriters(object):
    """FileSink bulk writers of CSV files.

    Example: ``FileSink.for_bulk_format(path, CsvBulkWriters.for_schema(schema)).build()``.
    """

    @staticmethod
    def for_schema(schema: CsvSchema) -> BulkWriterFactory:
        if not isinstance(schema, CsvSchema):
            raise TypeError(f'for_schema needs a CsvSchema from CsvSchema.builder(), got {schema!r}')
        return BulkWriterFactory('csv', schema=schema, type_info=schema.get_type_info())


def _schema_for_type(type_info: TypeInformation) -> CsvSchema:
    if not isinstance(type_info, RowTypeInfo):
        raise TypeError(f'CSV rows need a row type such as Types.ROW_NAMED([...], [...]), got {type_info!r}')
    names = type_info.get_field_names()
    columns = []
    for name, t in zip(names, type_info.get_field_types()):
        array = isinstance(t, (BasicArrayTypeInfo, ObjectArrayTypeInfo, ListTypeInfo))
        columns.append(_Column(name, t, ';' if array else None))
    return CsvSchema(columns=columns)


class _RowSchemaBuilder(object):
    """What the builders of CSV row schemas share: a row type and its text layout."""

    def __init__(self, type_info: TypeInformation):
        if type_info is None:
            raise TypeError('Type information must not be None')
        self._type_info = type_info
        self._schema = _schema_for_type(type_info)

    def set_field_delimiter(self, delimiter: str):
        self._schema.column_separator = _single(delimiter, 'Field delimiter')
        return self

    def set_array_element_delimiter(self, delimiter: str):
        for column in self._schema.columns:
            if column.array_separator is not None:
                column.array_separator = delimiter
        return self

    def set_quote_character(self, c: str):
        self._schema.quote_char = _single(c, 'Quote character')
        return self

    def set_escape_character(self, c: str):
        self._schema.escape_char = _single(c, 'Escape character')
        return self

    def set_null_literal(self, null_literal: str):
        self._schema.null_value = null_literal
        return self


class CsvRowDeserializationSchema(DeserializationSchema):
    """Reads one CSV record (bytes, UTF-8) as a Row of the builder's row type.

    Example: ``CsvRowDeserializationSchema.Builder(Types.ROW([Types.INT(), Types.STRING()])).build()``.
    """

    def __init__(self, schema: CsvSchema, type_info: RowTypeInfo, ignore_parse_errors: bool = False):
        self._schema = schema
        self._type_info = type_info
        self._ignore_parse_errors = ignore_parse_errors

    def deserialize(self, message: bytes) -> Optional[Row]:
        text = bytes(message).decode('utf-8')
        try:
            records = list(csv.reader(io.StringIO(text), **self._schema.dialect()))
            if len(records) != 1:
                raise ValueError(f'expected one CSV record, got {len(records)}')
            row = self._schema.parse(records[0])
        except (ValueError, csv.Error) as exc:
            if self._ignore_parse_errors:
                return None
            raise ValueError(f'malformed CSV record {text[:200]!r}: {exc} (set_ignore_parse_errors(True) '
                             'skips such records)') from None
        if not self._type_info.is_named:
            row = Row(*row)
        return row

    def get_produced_type(self) -> RowTypeInfo:
        return self._type_info

    class Builder(_RowSchemaBuilder):
        """Builds a CsvRowDeserializationSchema for a row type."""

        def __init__(self, type_info: TypeInformation):
            super().__init__(type_info)
            self._ignore = False

        def set_allow_comments(self, allow_comments: bool):
            self._schema.allow_comments = allow_comments
            return self

        def set_ignore_parse_errors(self, ignore_parse_errors: bool):
            self._ignore = ignore_parse_errors
            return self

        def build(self) -> 'CsvRowDeserializationSchema':
            return CsvRowDeserializationSchema(self._schema, self._type_info, self._ignore)


class CsvRowSerializationSchema(SerializationSchema):
    """Writes a Row of the builder's row type as one CSV record (UTF-8, ending with the line
    delimiter, ``\\n`` by default).

    Example: ``CsvRowSerializationSchema.Builder(Types.ROW([Types.INT(), Types.STRING()])).build()``.
    """

    def __init__(self, schema: CsvSchema):
        self._schema = schema

    def serialize(self, value: Any) -> bytes:
        out = io.StringIO()
        csv.writer(out, **self._schema.dialect()).writerow(self._schema.format_fields(value))
        return out.getvalue().encode('utf-8')

    class Builder(_RowSchemaBuilder):
        """Builds a CsvRowSerializationSchema for a row type."""

        def set_line_delimiter(self, delimiter: str):
            self._schema.line_separator = delimiter
            return self

        def disable_quote_character(self):
            self._schema.quote_char = None
            return self

        def build(self) -> 'CsvRowSerializationSchema':
            return CsvRowSerializationSchema(self._schema)
