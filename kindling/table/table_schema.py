"""``pyflink.table.TableSchema``: a table's column names and types, as ``Table.get_schema()`` and
``TableResult.get_table_schema()`` give them (Flink has deprecated it for ``Schema``, but PyFlink
programs read it).

Example::

    schema = t_env.from_elements([(1, 'a')], ['id', 'name']).get_schema()
    schema.get_field_names()          # ['id', 'name']
    print(schema)                     # root |-- id: BIGINT |-- name: STRING (one column a line)
"""
from __future__ import annotations

from typing import List, Optional, Tuple, Union

from kindling.table.schema import Schema
from kindling.table.types import DataType, DataTypes, RowType

__all__ = ["TableSchema"]


class TableSchema(Schema):
    """Column names and :class:`DataType` s, in order, and the primary key (its constraint's name and
    columns) if any; prints as Flink's tree (``root |-- a: INT``)."""

    def __init__(self, field_names: Optional[List[str]] = None, data_types: Optional[List[DataType]] = None,
                 primary_key: Optional[Tuple[str, List[str]]] = None):
        super().__init__(list(field_names or []), list(data_types or []))
        self._primary_key = primary_key

    def copy(self) -> "TableSchema":
        return TableSchema(self._names, self._types, self._primary_key)

    def get_field_data_type(self, field: Union[int, str]) -> Optional[DataType]:
        """The type of a column by index or name (None when there is none)."""
        if not isinstance(field, (int, str)):
            raise TypeError(f"Expected field index or field name, got {type(field)}")
        index = field if isinstance(field, int) else self._names.index(field) if field in self._names else -1
        return self._types[index] if 0 <= index < len(self._types) else None

    def get_field_count(self) -> int:
        return len(self._names)

    def get_field_name(self, field_index: int) -> Optional[str]:
        return self._names[field_index] if 0 <= field_index < len(self._names) else None

    def to_row_data_type(self) -> RowType:
        return DataTypes.ROW([DataTypes.FIELD(n, t) for n, t in zip(self._names, self._types)])

    def __repr__(self) -> str:
        key = "" if self._primary_key is None else \
            f" |-- CONSTRAINT {self._primary_key[0]} PRIMARY KEY ({', '.join(self._primary_key[1])})\n"
        return "root\n" + "".join(f" |-- {n}: {t!r}\n" for n, t in zip(self._names, self._types)) + key

    def __hash__(self) -> int:
        return hash((tuple(self._names), tuple(repr(t) for t in self._types)))

    @classmethod
    def builder(cls) -> "TableSchema.Builder":
        return TableSchema.Builder()

    class Builder:
        """Collects columns in order; :meth:`build` makes the TableSchema."""

        def __init__(self) -> None:
            self._names: List[str] = []
            self._types: List[DataType] = []

        def field(self, name: str, data_type: DataType) -> "TableSchema.Builder":
            self._names.append(name)
            self._types.append(data_type)
            return self

        def build(self) -> "TableSchema":
            return TableSchema(self._names, self._types)
