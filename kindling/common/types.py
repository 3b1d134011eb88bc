"""Row and RowKind, the record types of PyFlink's Python API."""
from enum import Enum
from typing import Any, Dict, List, Optional

from kindling.common.unsupported import JVM_ONLY, unsupported

__all__ = ['Row', 'RowKind']


class RowKind(Enum):
    """The change a row stands for in a changelog: insert, update before/after, or delete."""

    INSERT = 0
    UPDATE_BEFORE = 1
    UPDATE_AFTER = 2
    DELETE = 3

    def short_string(self) -> str:
        return _SHORT_STRINGS[self]

    def __str__(self) -> str:
        return _SHORT_STRINGS[self]

    @unsupported(f"{JVM_ONLY}; use the Python enum")
    def to_j_row_kind(self): ...


_SHORT_STRINGS = {
    RowKind.INSERT: '+I',
    RowKind.UPDATE_BEFORE: '-U',
    RowKind.UPDATE_AFTER: '+U',
    RowKind.DELETE: '-D',
}


def _create_row(fields: Optional[List[str]], values, row_kind: Optional[RowKind] = None) -> 'Row':
    row = _new_row(Row)
    row._values = list(values)
    row._fields = fields
    row._row_kind = RowKind.INSERT if row_kind is None else row_kind
    return row


_new_row = object.__new__


def _rows_from_lists(fields: Optional[List[str]], value_lists) -> List['Row']:
    """INSERT rows sharing one field-name list, each taking ownership of one list of values."""
    new, cls, kind = _new_row, Row, RowKind.INSERT
    rows = []
    append = rows.append
    for values in value_lists:
        row = new(cls)
        row._values = values
        row._fields = fields
        row._row_kind = kind
        append(row)
    return rows


class Row(object):
    """A record whose fields are reached by position, by name (``row['name']``) or as
    attributes (``row.name``), with a :class:`RowKind`.

    Keyword arguments are sorted by name, as in PyFlink; ``Row('name', 'age')`` makes a
    row class that builds rows when called::

        >>> Row(name='Alice', age=11)
        Row(age=11, name='Alice')
        >>> Person = Row('name', 'age')
        >>> Person('Alice', 11)
        Row(name='Alice', age=11)
        >>> Row(1, 'a')
        <Row(1, 'a')>
    """

    __slots__ = ('_values', '_fields', '_row_kind')

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError("Can not use both args and kwargs to create Row")
        if kwargs:
            names = sorted(kwargs)
            self._fields = names
            self._values = [kwargs[n] for n in names]
        else:
            self._fields = None
            self._values = list(args)
        self._row_kind = RowKind.INSERT

    @staticmethod
    def of_kind(row_kind: RowKind, *args: Any, **kwargs: Any) -> 'Row':
        row = Row(*args, **kwargs)
        row.set_row_kind(row_kind)
        return row

    def as_dict(self, recursive: bool = False) -> Dict[str, Any]:
        """Returns the row as a dict of field name to value; with ``recursive`` nested rows
        (also inside lists and dicts) become dicts too."""
        fields = self._fields
        if fields is None:
            raise TypeError("Cannot convert a Row class into dict")
        if not recursive:
            return dict(zip(fields, self._values))

        def conv(obj):
            if isinstance(obj, Row):
                return obj.as_dict(True)
            if isinstance(obj, list):
                return [conv(o) for o in obj]
            if isinstance(obj, dict):
                return {k: conv(v) for k, v in obj.items()}
            return obj

        return {k: conv(v) for k, v in zip(fields, self._values)}

    def get_fields_by_names(self, names: List[str]) -> List[Any]:
        fields = self._fields
        if fields is None:
            raise TypeError("Row has no field names")
        index = {n: i for i, n in enumerate(fields)}
        try:
            return [self._values[index[n]] for n in names]
        except KeyError as e:
            raise KeyError(f"Row has no field {e.args[0]!r}") from None

    def get_row_kind(self) -> RowKind:
        return self._row_kind

    def set_row_kind(self, row_kind: RowKind) -> None:
        self._row_kind = row_kind

    def set_field_names(self, field_names: List) -> None:
        self._fields = field_names

    def _is_retract_msg(self) -> bool:
        return self._row_kind in (RowKind.UPDATE_BEFORE, RowKind.DELETE)

    def _is_accumulate_msg(self) -> bool:
        return self._row_kind in (RowKind.UPDATE_AFTER, RowKind.INSERT)

    def __contains__(self, item: Any) -> bool:
        return item in self._values

    def __call__(self, *args: Any) -> 'Row':
        if len(args) > len(self):
            raise ValueError("Can not create Row with fields %s, expected %d values "
                             "but got %s" % (self, len(self), args))
        return _create_row(self._values, args, self._row_kind)

    def _index_of(self, name, error):
        fields = self._fields
        if fields is None:
            raise error(name)
        try:
            return fields.index(name)
        except ValueError:
            raise error(name) from None

    def __getitem__(self, item):
        if isinstance(item, (int, slice)):
            return self._values[item]
        return self._values[self._index_of(item, ValueError)]

    def __setitem__(self, key, value) -> None:
        if isinstance(key, (int, slice)):
            self._values[key] = value
        else:
            self._values[self._index_of(key, ValueError)] = value

    def __getattr__(self, item: str) -> Any:
        if item.startswith('_'):
            raise AttributeError(item)
        return self._values[self._index_of(item, AttributeError)]

    def __reduce__(self):
        return _create_row, (self._fields, tuple(self._values), self._row_kind)

    def __repr__(self) -> str:
        fields = self._fields
        if fields is not None:
            return "Row(%s)" % ", ".join("%s=%r" % (k, v) for k, v in zip(fields, self._values))
        return "<Row(%s)>" % ", ".join("%r" % v for v in self._values)

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, Row):
            return False
        return (self._fields == other._fields
                and self._row_kind == other._row_kind
                and self._values == other._values)

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(tuple(self._values))

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)
