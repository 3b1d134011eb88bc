"""Serialization schemas and encoders used by sources and sinks."""
from typing import Any

from kindling.common.formatting import flink_string, flink_strings

__all__ = ['SerializationSchema', 'DeserializationSchema', 'SimpleStringSchema', 'ByteArraySchema',
           'Encoder', 'BulkWriterFactory', 'RowFieldExtractorSchema']


class SerializationSchema(object):
    """Turns a value into bytes for a sink; subclasses implement :meth:`serialize`."""

    def __init__(self, j_serialization_schema: Any = None) -> None:
        pass

    def open(self) -> None:
        pass

    def serialize(self, value: Any) -> bytes:
        raise NotImplementedError(f"{type(self).__name__} must override serialize(value)")


class DeserializationSchema(object):
    """Turns bytes read by a source into a value; subclasses implement :meth:`deserialize`."""

    def __init__(self, j_deserialization_schema: Any = None) -> None:
        pass

    def open(self) -> None:
        pass

    def deserialize(self, message: bytes) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must override deserialize(message)")

    def is_end_of_stream(self, next_element: Any) -> bool:
        return False

    def get_produced_type(self):
        from kindling.common.typeinfo import Types
        return Types.PICKLED_BYTE_ARRAY()


class SimpleStringSchema(SerializationSchema, DeserializationSchema):
    """Strings as bytes in a charset (UTF-8 by default).

    Example: ``SimpleStringSchema().serialize('a') == b'a'``.
    """

    def __init__(self, charset: str = 'UTF-8') -> None:
        self._charset = charset

    def get_charset(self) -> str:
        return self._charset

    def serialize(self, value: Any) -> bytes:
        return str(value).encode(self._charset)

    def deserialize(self, message: bytes) -> str:
        return bytes(message).decode(self._charset)

    def get_produced_type(self):
        from kindling.common.typeinfo import Types
        return Types.STRING()

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, SimpleStringSchema) and other._charset == self._charset

    def __hash__(self) -> int:
        return hash(('SimpleStringSchema', self._charset))


class ByteArraySchema(SerializationSchema, DeserializationSchema):
    """Bytes passed through unchanged."""

    def __init__(self) -> None:
        pass

    def serialize(self, value: Any) -> bytes:
        return bytes(value)

    def deserialize(self, message: bytes) -> bytes:
        return bytes(message)

    def get_produced_type(self):
        from kindling.common.typeinfo import Types
        return Types.PRIMITIVE_ARRAY(Types.BYTE())

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ByteArraySchema)

    def __hash__(self) -> int:
        return hash('ByteArraySchema')


class RowFieldExtractorSchema(SerializationSchema):
    """Serializes one field of a row, which must already be bytes (a null field is empty bytes),
    as Flink's: e.g. a Kafka record's key and value from two fields of the same row.

    Example: ``RowFieldExtractorSchema(0).serialize(Row(b'key', b'value')) == b'key'``.
    """

    def __init__(self, field_index: int) -> None:
        if field_index < 0:
            raise ValueError(f"Field index must be non-negative, got: {field_index}")
        self._field_index = field_index

    def serialize(self, value: Any) -> bytes:
        index = self._field_index
        if index >= len(value):
            raise ValueError(f"RowFieldExtractorSchema cannot read field {index} of a row of {len(value)} fields")
        field = value[index]
        if field is None:
            return b''
        if not isinstance(field, (bytes, bytearray)):
            raise TypeError(f"RowFieldExtractorSchema: field {index} must be bytes, but was {type(field).__name__} "
                            "(convert it first, e.g. with str.encode(), and declare it "
                            "Types.PRIMITIVE_ARRAY(Types.BYTE()))")
        return bytes(field)


class Encoder(object):
    """Writes one record as bytes into a file sink's part file; the sink adds the newline.

    Example: ``Encoder.simple_string_encoder().encode(42) == b'42'``.
    """

    def __init__(self, charset_name: str = 'UTF-8') -> None:
        self._charset_name = charset_name

    @staticmethod
    def simple_string_encoder(charset_name: str = 'UTF-8') -> 'Encoder':
        return Encoder(charset_name)

    @property
    def charset_name(self) -> str:
        return self._charset_name

    def encode(self, value: Any, type_info: Any = None) -> bytes:
        """The value as Flink's ``toString`` writes it for the stream's type (untyped: ``str``)."""
        return flink_string(value, type_info).encode(self._charset_name)

    def encode_all(self, values: list, type_info: Any = None) -> list[bytes]:
        """:meth:`encode` of each of ``values`` (a file sink encodes a batch at a time)."""
        if type(self).encode is not Encoder.encode:  # a subclass's own encoding (a table format's rows)
            return [self.encode(value, type_info) for value in values]
        charset = self._charset_name
        return [text.encode(charset) for text in flink_strings(values, type_info)]

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and other._charset_name == self._charset_name

    def __hash__(self) -> int:
        return hash(('Encoder', self._charset_name))

    def __repr__(self) -> str:
        return 'Encoder.simple_string_encoder(%r)' % self._charset_name


class BulkWriterFactory(object):
    """How a ``FileSink.for_bulk_format`` writes a part file as a whole: a ``kind`` (``parquet``,
    ``orc``, ``csv``, ``avro``, ``avro_parquet``) with its options (the row type or schema).
    Made by ``ParquetBulkWriters``, ``OrcBulkWriters``, ``CsvBulkWriters``, ``AvroBulkWriters``
    and ``AvroParquetWriters`` of ``kindling.datastream.formats``."""

    def __init__(self, kind: str, **options: Any) -> None:
        self.kind = kind
        self.options = options

    def __repr__(self) -> str:
        return 'BulkWriterFactory(%r)' % self.kind
