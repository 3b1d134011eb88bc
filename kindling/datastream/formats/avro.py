"""Avro, as in ``pyflink.datastream.formats.avro`` (through fastavro): ``AvroSchema``, records as
Python dicts (Avro's generic records, ``GenericRecordAvroTypeInfo``), ``AvroInputFormat`` (read
with ``env.create_input`` or a FileSource), ``AvroBulkWriters`` (FileSink), and the
``AvroRowSerializationSchema`` / ``AvroRowDeserializationSchema`` of single records (Avro binary
without a container header, as Flink writes them)."""
from __future__ import annotations

import io
import json
from typing import Any, Optional

from kindling.common.serialization import BulkWriterFactory, DeserializationSchema, SerializationSchema
from kindling.common.typeinfo import PickledBytesTypeInfo
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


def to_record(value: Any, schema: Any) -> Any:
    """A Row (named or by position) or dict as the dict fastavro writes for an Avro ``schema``."""
    if isinstance(schema, list):  # a union: the first branch the value fits
        if value is None:
            return None
        branches = [s for s in schema if s != 'null']
        return to_record(value, branches[0]) if len(branches) == 1 else value
    if isinstance(schema, dict) and schema.get('type') == 'record':
        if isinstance(value, dict):
            return {f['name']: to_record(value.get(f['name']), f['type']) for f in schema['fields']}
        if isinstance(value, Row):
            names = value._fields if getattr(value, '_fields', None) else None
            if names:
                mapping = value.as_dict()
                return {f['name']: to_record(mapping.get(f['name']), f['type']) for f in schema['fields']}
        return {f['name']: to_record(value[i], f['type']) for i, f in enumerate(schema['fields'])}
    if isinstance(schema, dict) and schema.get('type') == 'array':
        return None if value is None else [to_record(v, schema['items']) for v in value]
    return value


def to_row(value: Any, schema: Any) -> Any:
    """An Avro record (a dict) as a named Row, nested records too."""
    if isinstance(schema, list):
        if value is None:
            return None
        branches = [s for s in schema if s != 'null']
        return to_row(value, branches[0]) if len(branches) == 1 else value
    if isinstance(schema, dict) and schema.get('type') == 'record' and isinstance(value, dict):
        row = Row(*[to_row(value.get(f['name']), f['type']) for f in schema['fields']])
        row.set_field_names([f['name'] for f in schema['fields']])
        return row
    if isinstance(schema, dict) and schema.get('type') == 'array' and value is not None:
        return [to_row(v, schema['items']) for v in value]
    return value


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


class AvroRowSerializationSchema(SerializationSchema):
    """Writes a Row (named, or by position in the schema's field order) or dict as one Avro
    binary record (no container header).

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
