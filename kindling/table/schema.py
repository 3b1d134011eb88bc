"""``pyflink.table.Schema``: the columns of a table, declared with a builder.

Example::

    Schema.new_builder().column('user_id', DataTypes.INT()).column('comments', DataTypes.STRING()).build()
"""
from __future__ import annotations

from typing import List

from kindling.common.typeinfo import RowTypeInfo, Types
from kindling.table.types import DataType

__all__ = ["Schema"]


class Schema:
    """Physical columns by name and :class:`DataType`, in order."""

    def __init__(self, names: List[str], types: List[DataType]):
        if len(set(names)) != len(names):
            raise ValueError(f"A table schema has duplicate column names: {names}")
        self._names = list(names)
        self._types = list(types)

    @staticmethod
    def new_builder() -> "Schema.Builder":
        return Schema.Builder()

    def get_field_names(self) -> List[str]:
        return list(self._names)

    def get_field_data_types(self) -> List[DataType]:
        return list(self._types)

    def row_type_info(self) -> RowTypeInfo:
        """The named Row type of the table's rows in a DataStream."""
        return Types.ROW_NAMED(self._names, [t.type_info() for t in self._types])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Schema) and (self._names, self._types) == (other._names, other._types)

    def __repr__(self) -> str:
        return "(\n" + ",\n".join(f"  `{n}` {t!r}" for n, t in zip(self._names, self._types)) + "\n)"

    class Builder:
        """Collects columns; :meth:`build` makes the Schema."""

        def __init__(self) -> None:
            self._names: List[str] = []
            self._types: List[DataType] = []
            self._computed: dict = {}  # column -> SQL expression (column_by_expression)
            self._metadata: dict = {}  # column -> metadata key (column_by_metadata)
            self._watermark = None  # (column, SQL expression)

        def column_by_expression(self, column_name: str, sql_expression: str) -> "Schema.Builder":
            """A column computed from the others by a SQL expression (``CAST(f0 AS TIMESTAMP(3))``)."""
            self._names.append(column_name)
            self._types.append(None)  # typed when the table is made
            self._computed[column_name] = sql_expression
            return self

        def column_by_metadata(self, column_name: str, data_type: DataType, metadata_key: str = None,
                               is_virtual: bool = False) -> "Schema.Builder":
            """A column of the source's metadata: ``rowtime``, a DataStream element's timestamp."""
            key = metadata_key or column_name
            if key != "rowtime":
                raise ValueError(f"column_by_metadata: the metadata '{key}' is not supported by Kindling yet; "
                                 "a DataStream has 'rowtime' (its elements' timestamps)")
            self._metadata[column_name] = key
            return self.column(column_name, data_type)

        def watermark(self, column_name: str, watermark_expression: str) -> "Schema.Builder":
            """The table's event time: ``column_name`` with watermarks ``column - INTERVAL ...`` (or
            ``SOURCE_WATERMARK()``, the DataStream's own)."""
            self._watermark = (column_name, watermark_expression)
            return self

        def column(self, column_name: str, data_type: DataType) -> "Schema.Builder":
            """A physical column."""
            if not isinstance(data_type, DataType):
                raise TypeError(f"Schema column {column_name!r} needs a DataType such as DataTypes.INT(), "
                                f"got {data_type!r}")
            self._names.append(column_name)
            self._types.append(data_type)
            return self

        def from_schema(self, schema: "Schema") -> "Schema.Builder":
            for name, data_type in zip(schema._names, schema._types):
                self.column(name, data_type)
            return self

        def build(self) -> "Schema":
            if self._computed or self._metadata or self._watermark:
                return _DeclaredSchema(self._names, self._types, dict(self._computed), dict(self._metadata),
                                       self._watermark)
            return Schema(self._names, self._types)


class _DeclaredSchema(Schema):
    """A schema for ``from_data_stream`` with computed and metadata columns and a watermark; the
    computed columns are typed when the table is made."""

    def __init__(self, names, types, computed, metadata, watermark):
        self._names, self._types = list(names), list(types)
        self.computed, self.metadata, self.watermark_spec = computed, metadata, watermark
