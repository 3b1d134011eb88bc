"""ORC, as in ``pyflink.datastream.formats.orc`` (through pyarrow): ``OrcBulkWriters`` (FileSink
bulk writers). PyFlink reads ORC only through the Table API, and so does Kindling not.

Where PyFlink takes a ``DataTypes.ROW(...)`` row type, give ``Types.ROW_NAMED([...], [...])``.
"""
from __future__ import annotations

from typing import Any, Optional

from kindling.common.serialization import BulkWriterFactory
from kindling.common.typeinfo import RowTypeInfo
from kindling.datastream.formats.parquet import named_row_type

__all__ = ['OrcBulkWriters']


class OrcBulkWriters(object):
    """FileSink bulk writers of ORC files."""

    @staticmethod
    def for_row_type(row_type: RowTypeInfo, writer_properties: Optional[Any] = None,
                     hadoop_config: Optional[Any] = None) -> BulkWriterFactory:
        """Writes Rows of ``row_type`` into ORC files, a column per field."""
        return BulkWriterFactory('orc', type_info=named_row_type(row_type, 'OrcBulkWriters.for_row_type'))
