"""``pyflink.table.data_view``: ListView and MapView, the list and map fields of an aggregate function's
accumulator. Kindling keeps a group's accumulator whole in the grouping operator's keyed state, so a
view is a plain list or dict in it (Flink spills large views to state one entry at a time).

Example::

    class Distinct(AggregateFunction):
        def create_accumulator(self):
            return Row(MapView())

        def accumulate(self, accumulator, value):
            accumulator[0].put(value, True)
"""
from __future__ import annotations

import abc
from typing import Any, Dict, Iterable, List, Tuple

__all__ = ["DataView", "ListView", "MapView"]


class DataView(abc.ABC):
    """A collection field of an accumulator."""

    @abc.abstractmethod
    def clear(self) -> None:
        pass


class ListView(DataView):
    """A list of values: ``add``, ``add_all``, ``get`` (iterate), ``clear``."""

    def __init__(self):
        self._list: List[Any] = []

    def get(self) -> Iterable[Any]:
        return self._list

    def add(self, value: Any) -> None:
        self._list.append(value)

    def add_all(self, values: List[Any]) -> None:
        self._list.extend(values)

    def clear(self) -> None:
        self._list = []

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ListView) and other._list == self._list

    def __iter__(self):
        return iter(self._list)


class MapView(DataView):
    """A map of keys to values: ``get``, ``put``, ``put_all``, ``remove``, ``contains``, ``items``,
    ``keys``, ``values``, ``is_empty``, ``clear``."""

    def __init__(self):
        self._dict: Dict[Any, Any] = {}

    def get(self, key: Any) -> Any:
        return self._dict.get(key)

    def put(self, key: Any, value: Any) -> None:
        self._dict[key] = value

    def put_all(self, dict_value: Dict[Any, Any]) -> None:
        self._dict.update(dict_value)

    def remove(self, key: Any) -> None:
        self._dict.pop(key, None)

    def contains(self, key: Any) -> bool:
        return key in self._dict

    def items(self) -> Iterable[Tuple[Any, Any]]:
        return self._dict.items()

    def keys(self) -> Iterable[Any]:
        return self._dict.keys()

    def values(self) -> Iterable[Any]:
        return self._dict.values()

    def is_empty(self) -> bool:
        return not self._dict

    def clear(self) -> None:
        self._dict = {}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MapView) and other._dict == self._dict

    def __iter__(self):
        return iter(self._dict.items())
