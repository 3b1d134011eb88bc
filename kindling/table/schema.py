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

        def column(self, column_name: str, data_type: DataType) -> "Schema.Builder":
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
            return Schema(self._names, self._types)
