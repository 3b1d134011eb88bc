"""Avro, as in ``pyflink.datastream.formats.avro`` (through fastavro): ``AvroSchema``, records as
Python dicts (Avro's generic records, ``GenericRecordAvroTypeInfo``), ``AvroInputFormat`` (read
with ``env.create_input`` or a FileSource), ``AvroBulkWriters`` (FileSink), and the
``AvroRowSerializationSchema`` / ``AvroRowDeserializationSchema`` of single records (Avro binary
without a container header, as Flink writes them)."""
from __future__ import annotations

import datetime
import io
import json
import uuid
from typing import Any, Optional

from kindling.common.serialization import BulkWriterFactory, DeserializationSchema, SerializationSchema
from kindling.common.typeinfo import PickledBytesTypeInfo, TypeInformation, Types
from kindling.common.types import Row

__all__ = ['AvroSchema', 'GenericRecordAvroTypeInfo', 'AvroInputFormat', 'AvroBulkWriters',
           'AvroRowDeserializationSchema', 'AvroRowSerializationSchema']


def _fastavro():
    try:
        import fastavro
    except ImportError:  # pragma: no cover - a dependency of Kindling
        raise ImportError("Avro needs the fastavro package: pip install fastavro") from None
    return fastavro


class AvroSchema(object):
    """An Avro schema, parsed from its JSON text (``parse_string``) or a ``.avsc`` file (``parse_file``)."""

    def __init__(self, schema: Any):
        self.text = schema if isinstance(schema, str) else json.dumps(schema)
        try:
            self.parsed = _fastavro().parse_schema(json.loads(self.text))
        except (ValueError, _fastavro().schema.SchemaParseException) as exc:
            raise ValueError(f"not a valid Avro schema: {exc}") from None

    @staticmethod
    def parse_string(json_schema: str) -> 'AvroSchema':
        return AvroSchema(json_schema)

    @staticmethod
    def parse_file(file_path: str) -> 'AvroSchema':
        with open(file_path, encoding='utf-8') as f:
            return AvroSchema(f.read())

    def to_record(self, value: Any) -> Any:
        """A Row or dict as the dict fastavro writes for this schema."""
        return to_record(value, self.parsed)

    def field_names(self) -> list:
        return [f['name'] for f in self.parsed.get('fields', [])]

    def __getstate__(self):
        return {'text': self.text}

    def __setstate__(self, state):
        self.__init__(state['text'])

    def __str__(self) -> str:
        return self.text


class GenericRecordAvroTypeInfo(PickledBytesTypeInfo):
    """The type of Avro generic records (Python dicts) of a schema."""

    def __init__(self, schema: AvroSchema):
        self._schema = schema

    def _key(self):
        return (self._schema.text,)

    def _expr(self) -> str:
        return 'GenericRecordAvroTypeInfo(AvroSchema.parse_string(%r))' % self._schema.text

    def __repr__(self) -> str:
        return 'GenericRecordAvroTypeInfo(%s)' % self._schema.text


class AvroInputFormat(object):
    """Reads the records of Avro container files (a file or a directory) as dicts; large files in
    several splits (runs of blocks). A block that cannot be read fails the job naming the file,
    record and byte, unless ``ignore_parse_errors()``.

    Example: ``env.create_input(AvroInputFormat(path, AvroSchema.parse_string(schema)))``.
    """

    kind = 'avro'
    ignore_errors = False

    def __init__(self, path: str, schema: AvroSchema):
        if not isinstance(schema, AvroSchema):
            raise TypeError(f'AvroInputFormat needs an AvroSchema (AvroSchema.parse_string(...)), got {schema!r}')
        self.path = path
        self.schema = schema

    def ignore_parse_errors(self) -> 'AvroInputFormat':
        """Skips what cannot be read (Kindling's): a damaged block from its bad record on, reading
        on after the next sync marker; skipped records are counted in the job's metrics
        (``numRecordsInErrors`` of the source)."""
        skipping = AvroInputFormat(self.path, self.schema)
        skipping.ignore_errors = True
        return skipping

    def get_produced_type(self) -> GenericRecordAvroTypeInfo:
        return GenericRecordAvroTypeInfo(self.schema)

    def produced_type(self) -> GenericRecordAvroTypeInfo:
        return self.get_produced_type()


class AvroBulkWriters(object):
    """FileSink bulk writers of Avro container files."""

    @staticmethod
    def for_generic_record(schema: AvroSchema) -> BulkWriterFactory:
        """Writes dicts (or named Rows) of ``schema`` into Avro files."""
        return BulkWriterFactory('avro', schema=schema)


def _named_types(schema: Any, named: Optional[dict]) -> dict:
    """The named types (records, enums, fixed) of a schema fastavro parsed, by full name."""
    if named is not None:
        return named
    return schema.get('__named_schemas', {}) if isinstance(schema, dict) else {}


def _resolved(schema: Any, named: dict) -> Any:
    """``schema`` with a reference to a named type (a record, enum or fixed defined earlier in the
    schema) replaced by its definition."""
    return named.get(schema, schema) if isinstance(schema, str) else schema


def _union_branch(schema: list) -> Any:
    """The one type of a nullable (or one-branch) union, as Flink reads it; None for other unions."""
    if len(schema) == 1:
        return schema[0]
    if len(schema) == 2 and 'null' in schema:
        return schema[1] if schema[0] == 'null' else schema[0]
    return None


def to_record(value: Any, schema: Any, named: Optional[dict] = None) -> Any:
    """A Row or dict as the dict fastavro writes for an Avro ``schema``: a dict by name, a Row by
    position (as Flink's AvroRowSerializationSchema writes Rows) unless its field names are the
    record's (then by name)."""
    named = _named_types(schema, named)
    schema = _resolved(schema, named)
    if isinstance(schema, list):  # a union: the first branch the value fits
        if value is None:
            return None
        branches = [s for s in schema if s != 'null']
        return to_record(value, branches[0], named) if len(branches) == 1 else value
    if isinstance(schema, dict) and schema.get('type') == 'record':
        fields = schema['fields']
        if isinstance(value, dict):
            return {f['name']: to_record(value.get(f['name']), f['type'], named) for f in fields}
        names = getattr(value, '_fields', None) if isinstance(value, Row) else None
        if names and {f['name'] for f in fields} <= set(names):
            mapping = value.as_dict()
            return {f['name']: to_record(mapping[f['name']], f['type'], named) for f in fields}
        return {f['name']: to_record(value[i], f['type'], named) for i, f in enumerate(fields)}
    if isinstance(schema, dict) and schema.get('type') == 'array':
        return None if value is None else [to_record(v, schema['items'], named) for v in value]
    if isinstance(schema, dict) and schema.get('type') == 'map':
        return None if value is None else {k: to_record(v, schema['values'], named) for k, v in value.items()}
    return value


_EPOCH = datetime.datetime(1970, 1, 1)
_LOCAL_TIMESTAMP_UNITS = {'local-timestamp-millis': datetime.timedelta(milliseconds=1),
                          'local-timestamp-micros': datetime.timedelta(microseconds=1)}


def to_row(value: Any, schema: Any, named: Optional[dict] = None) -> Any:
    """An Avro value as fastavro read it, as Flink's AvroRowDeserializationSchema gives it (of the
    type :func:`avro_type_info` says): records as named Rows, UUIDs as strings, timestamps without
    a time zone (UTC), local timestamps as the number Avro stores (Flink's legacy mapping)."""
    named = _named_types(schema, named)
    schema = _resolved(schema, named)
    if value is None:
        return None
    if isinstance(schema, list):
        branch = _union_branch(schema)
        return value if branch is None else to_row(value, branch, named)
    if not isinstance(schema, dict):
        return value
    kind, logical = schema.get('type'), schema.get('logicalType')
    if kind == 'record' and isinstance(value, dict):
        row = Row(*[to_row(value.get(f['name']), f['type'], named) for f in schema['fields']])
        row.set_field_names([f['name'] for f in schema['fields']])
        return row
    if kind == 'array':
        return [to_row(v, schema['items'], named) for v in value]
    if kind == 'map':
        return {k: to_row(v, schema['values'], named) for k, v in value.items()}
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        return value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    if logical in _LOCAL_TIMESTAMP_UNITS and isinstance(value, datetime.datetime):
        return (value - _EPOCH) // _LOCAL_TIMESTAMP_UNITS[logical]
    if logical == 'timestamp-nanos' and isinstance(value, int):  # fastavro leaves nanoseconds as they are
        return _EPOCH + datetime.timedelta(microseconds=value // 1000)
    return value


_AVRO_PRIMITIVES = {'string': Types.STRING, 'int': Types.INT, 'long': Types.LONG, 'float': Types.FLOAT,
                    'double': Types.DOUBLE, 'boolean': Types.BOOLEAN, 'enum': Types.STRING}
_AVRO_LOGICAL = {('bytes', 'decimal'): Types.BIG_DEC, ('fixed', 'decimal'): Types.BIG_DEC,
                 ('int', 'date'): Types.SQL_DATE, ('int', 'time-millis'): Types.SQL_TIME,
                 ('long', 'time-micros'): Types.SQL_TIME, ('long', 'timestamp-millis'): Types.SQL_TIMESTAMP,
                 ('long', 'timestamp-micros'): Types.SQL_TIMESTAMP, ('long', 'timestamp-nanos'): Types.SQL_TIMESTAMP}


def avro_type_info(schema: Any, named: Optional[dict] = None, enclosing: frozenset = frozenset()) -> TypeInformation:
    """The type of the values :func:`to_row` makes of an Avro ``schema``, as Flink's
    AvroSchemaConverter maps Avro types (with its legacy timestamps): records as named rows,
    arrays as object arrays, maps with string keys, nullable unions as their type. What Flink
    serializes with Kryo (other unions, ``null``, a record inside itself) is pickled."""
    named = _named_types(schema, named)
    if isinstance(schema, str) and schema in enclosing:
        return Types.PICKLED_BYTE_ARRAY()
    schema = _resolved(schema, named)
    if isinstance(schema, list):
        branch = _union_branch(schema)
        return Types.PICKLED_BYTE_ARRAY() if branch is None else avro_type_info(branch, named, enclosing)
    kind = schema.get('type') if isinstance(schema, dict) else schema
    logical = schema.get('logicalType') if isinstance(schema, dict) else None
    if kind == 'record':
        inner = enclosing | {schema['name']}
        return Types.ROW_NAMED([f['name'] for f in schema['fields']],
                               [avro_type_info(f['type'], named, inner) for f in schema['fields']])
    if kind == 'array':
        return Types.OBJECT_ARRAY(avro_type_info(schema['items'], named, enclosing))
    if kind == 'map':
        return Types.MAP(Types.STRING(), avro_type_info(schema['values'], named, enclosing))
    if (kind, logical) in _AVRO_LOGICAL:
        return _AVRO_LOGICAL[kind, logical]()
    if kind in ('bytes', 'fixed'):
        return Types.PRIMITIVE_ARRAY(Types.BYTE())
    return _AVRO_PRIMITIVES[kind]() if kind in _AVRO_PRIMITIVES else Types.PICKLED_BYTE_ARRAY()


def _schema_of(record_class: Optional[str], avro_schema_string: Optional[str], what: str) -> AvroSchema:
    if record_class is not None:
        raise NotImplementedError(f'{what}(record_class=...) needs a Java SpecificRecord class, which Kindling '
                                  'does not have: give avro_schema_string')
    if avro_schema_string is None:
        raise ValueError(f'{what} needs avro_schema_string')
    return AvroSchema(avro_schema_string)


class AvroRowDeserializationSchema(DeserializationSchema):
    """Reads one Avro binary record (no container header) of the schema as a named Row.

    Example: ``AvroRowDeserializationSchema(avro_schema_string=schema_json)``.
    """

    def __init__(self, record_class: str = None, avro_schema_string: str = None):
        self._schema = _schema_of(record_class, avro_schema_string, 'AvroRowDeserializationSchema')

    def deserialize(self, message: bytes) -> Row:
        try:
            record = _fastavro().schemaless_reader(io.BytesIO(bytes(message)), self._schema.parsed, None)
        except (EOFError, ValueError, TypeError, IndexError, UnicodeDecodeError) as exc:
            raise ValueError(f'malformed Avro record {bytes(message)[:100]!r}: {exc!r}') from None
        return to_row(record, self._schema.parsed)

    def get_produced_type(self) -> TypeInformation:
        """The row type of the schema's records (Flink's AvroSchemaConverter)."""
        return avro_type_info(self._schema.parsed)


class AvroRowSerializationSchema(SerializationSchema):
    """Writes a Row (by position in the schema's field order, as Flink's, unless its field names
    are the schema's) or dict as one Avro binary record (no container header).

    Example: ``AvroRowSerializationSchema(avro_schema_string=schema_json)``.
    """

    def __init__(self, record_class: str = None, avro_schema_string: str = None):
        self._schema = _schema_of(record_class, avro_schema_string, 'AvroRowSerializationSchema')

    def serialize(self, value: Any) -> bytes:
        out = io.BytesIO()
        try:
            _fastavro().schemaless_writer(out, self._schema.parsed, to_record(value, self._schema.parsed))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise ValueError(f'{value!r} does not fit the Avro schema: {exc}') from None
        return out.getvalue()
