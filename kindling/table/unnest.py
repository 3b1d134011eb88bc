"""UNNEST, Flink SQL's array expansion: a row per element of an ARRAY (of an ARRAY of ROWs, the
element's fields as columns) or per entry of a MAP (its key and value), beside the row's own columns
(``CROSS JOIN UNNEST(xs) AS u(x)``); a NULL or empty collection makes none. It is a table function
of the collection, joined as ``join_lateral`` joins one."""
from __future__ import annotations

from typing import Any, Iterator, List

from kindling.table.expressions import Expression
from kindling.table.types import ArrayType, DataType, MapType, RowType

__all__ = ["unnest"]


def unnest(collection: Expression, data_type: DataType) -> Any:
    """The call of UNNEST on ``collection`` (of ``data_type``), for ``join_lateral``."""
    from kindling.table.udf import UserDefinedTableFunctionWrapper

    if isinstance(data_type, MapType):
        kind, types = "entries", [data_type.key_type, data_type.value_type]
    elif isinstance(data_type, ArrayType) and isinstance(data_type.element_type, RowType):
        kind, types = "fields", data_type.element_type.field_types()
    elif isinstance(data_type, ArrayType):
        kind, types = "elements", [data_type.element_type]
    else:
        raise ValueError(f"sql_query: UNNEST({collection}) takes an ARRAY or a MAP, got {data_type!r}")
    return UserDefinedTableFunctionWrapper(Expanded(kind, len(types)), types, name="UNNEST")(collection)


class Expanded:
    """The rows of one collection: its elements (``kind`` ``"elements"``), its ROW elements' fields
    (``"fields"``, ``width`` of them) or a MAP's entries (``"entries"``)."""

    def __init__(self, kind: str, width: int):
        self.kind, self.width = kind, width

    def __call__(self, collection: Any) -> Iterator[List[Any]]:
        if collection is None:
            return
        if self.kind == "entries":
            yield from ([key, value] for key, value in collection.items())
        elif self.kind == "fields":
            yield from ([None] * self.width if element is None else list(element) for element in collection)
        else:
            yield from ([element] for element in collection)
