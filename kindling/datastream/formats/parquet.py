"""Parquet, as in ``pyflink.datastream.formats.parquet`` (through pyarrow):
``ParquetColumnarRowInputFormat`` (a FileSource bulk format giving Rows of a row type),
``AvroParquetReaders`` (Avro generic records, as dicts), ``ParquetBulkWriters`` and
``AvroParquetWriters`` (FileSink bulk writers).

Where PyFlink takes a ``DataTypes.ROW(...)`` row type (Kindling has no Table API), give the
matching ``Types.ROW_NAMED([...], [...])``.
"""
from __future__ import annotations

from typing import Any, Optional

from kindling.common.serialization import BulkWriterFactory
from kindling.common.typeinfo import RowTypeInfo
from kindling.datastream.connectors.file_system import BulkFormat, StreamFormat
from kindling.datastream.formats.avro import AvroSchema, GenericRecordAvroTypeInfo

__all__ = ['AvroParquetReaders', 'AvroParquetWriters', 'ParquetColumnarRowInputFormat', 'ParquetBulkWriters']


def named_row_type(row_type: Any, what: str) -> RowTypeInfo:
    if not isinstance(row_type, RowTypeInfo) or not row_type.is_named:
        raise TypeError(f"{what} needs a named row type such as Types.ROW_NAMED(['id', 'name'], "
                        f"[Types.INT(), Types.STRING()]) (PyFlink's DataTypes.ROW), got {row_type!r}")
    return row_type


class ParquetColumnarRowInputFormat(BulkFormat):
    """Reads the columns of ``row_type`` (by name) of Parquet files as Rows; files are read in
    splits of whole row groups.

    Example::

        row_type = Types.ROW_NAMED(['a', 'b'], [Types.INT(), Types.STRING()])
        source = FileSource.for_bulk_file_format(ParquetColumnarRowInputFormat(row_type), path).build()
    """

    kind = 'parquet'
    ignore_errors = False

    def __init__(self, row_type: RowTypeInfo, hadoop_config: Any = None, batch_size: int = 2048,
                 is_utc_timestamp: bool = False, is_case_sensitive: bool = True):
        self.row_type = named_row_type(row_type, 'ParquetColumnarRowInputFormat')
        self.batch_size = batch_size
        self.is_case_sensitive = is_case_sensitive

    def produced_type(self) -> RowTypeInfo:
        return self.row_type


class AvroParquetReaders(object):
    """Reads Parquet files as Avro generic records (dicts of the schema's fields)."""

    @staticmethod
    def for_generic_record(schema: AvroSchema) -> '_AvroParquetFormat':
        return _AvroParquetFormat(schema)


class _AvroParquetFormat(StreamFormat):
    kind = 'avro_parquet'
    ignore_errors = False
    batch_size = 2048

    def __init__(self, schema: AvroSchema):
        if not isinstance(schema, AvroSchema):
            raise TypeError(f'AvroParquetReaders needs an AvroSchema (AvroSchema.parse_string(...)), got {schema!r}')
        self.schema = schema

    def produced_type(self) -> GenericRecordAvroTypeInfo:
        return GenericRecordAvroTypeInfo(self.schema)


class ParquetBulkWriters(object):
    """FileSink bulk writers of Parquet files."""

    @staticmethod
    def for_row_type(row_type: RowTypeInfo, hadoop_config: Optional[Any] = None,
                     utc_timestamp: bool = False) -> BulkWriterFactory:
        """Writes Rows of ``row_type`` (the stream's elements) into Parquet files, a column per field."""
        return BulkWriterFactory('parquet', type_info=named_row_type(row_type, 'ParquetBulkWriters.for_row_type'))


class AvroParquetWriters(object):
    """FileSink bulk writers of Parquet files from Avro generic records."""

    @staticmethod
    def for_generic_record(schema: AvroSchema) -> BulkWriterFactory:
        """Writes dicts (or named Rows) of ``schema`` into Parquet files."""
        if not isinstance(schema, AvroSchema):
            raise TypeError(f'AvroParquetWriters needs an AvroSchema (AvroSchema.parse_string(...)), got {schema!r}')
        return BulkWriterFactory('avro_parquet', schema=schema)
