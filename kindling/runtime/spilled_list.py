"""A list whose older elements live elsewhere and are read only when the list is read.

Window contents and ListStates mostly grow by appends and are read rarely (a process window
reads its elements once, when it fires). Keeping them whole in a key's state record would
make every micro-batch read and rewrite everything the key holds; a :class:`SpilledList`
keeps only the elements appended since it was last spilled in the record and names the
*segments* that hold the rest. Appending touches nothing stored; any other use loads the
segments first (through the loader the state store installs), after which it is an ordinary
list. ``kindling.spark.state_store`` decides when to spill and where segments live.
"""
from __future__ import annotations

from typing import Callable, Iterable, Optional

Loader = Callable[[tuple], list]

# Set by the state store while it pickles a key's record: SpilledLists then pickle as their
# segment names and unspilled tail; everywhere else they pickle as plain lists.
_pickling_record = False


class SpilledList(list):
    """A list of ``count`` spilled elements (in ``segments``, loaded by ``loader``) followed by
    the elements this object holds itself."""

    __slots__ = ("segments", "spilled", "loader", "loaded_segments")

    def __init__(self, segments: tuple = (), spilled: int = 0, tail: Iterable = (), loader: Optional[Loader] = None):
        list.__init__(self, tail)
        self.segments = tuple(segments)
        self.spilled = spilled
        self.loader = loader
        self.loaded_segments: tuple = ()  # segments read into this list: stale in the store now

    def materialize(self) -> None:
        """Reads the spilled elements in front of the held ones; afterwards this is a plain list."""
        if not self.segments:
            return
        if self.loader is None:
            raise RuntimeError("a spilled list was read outside the task that loaded its key's state")
        older = self.loader(self.segments)
        list.__setitem__(self, slice(0, 0), older)
        self.loaded_segments += self.segments
        self.segments = ()
        self.spilled = 0

    def tail_length(self) -> int:
        """How many elements this object holds itself (appended since the last spill)."""
        return list.__len__(self)

    def spill(self, segment) -> list:
        """Moves the held elements into ``segment`` (returns them, for the store to write)."""
        held = list(list.__iter__(self))
        list.clear(self)
        self.segments += (segment,)
        self.spilled += len(held)
        return held

    # appends need nothing stored
    def append(self, value) -> None:
        list.append(self, value)

    def extend(self, values) -> None:
        list.extend(self, values)

    def __iadd__(self, values):
        list.extend(self, values)
        return self

    def __len__(self) -> int:
        return self.spilled + list.__len__(self)

    def __bool__(self) -> bool:
        return self.spilled > 0 or list.__len__(self) > 0

    def __radd__(self, other):
        self.materialize()
        return list(other) + list(list.__iter__(self))

    def __reduce_ex__(self, protocol):
        if _pickling_record and self.segments:
            return _restore, (self.segments, self.spilled, list(list.__iter__(self)))
        self.materialize()
        return list, (list(list.__iter__(self)),)

    def __reduce__(self):
        return self.__reduce_ex__(2)


def _reading(name: str):
    base = getattr(list, name)

    def method(self, *args, **kwargs):
        if self.segments:
            self.materialize()
        return base(self, *args, **kwargs)

    method.__name__ = name
    return method


for _name in ("__iter__", "__getitem__", "__setitem__", "__delitem__", "__contains__", "__reversed__",
              "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__add__", "__mul__", "__rmul__",
              "__imul__", "__repr__", "index", "count", "copy", "insert", "pop", "remove", "reverse",
              "sort", "clear"):
    setattr(SpilledList, _name, _reading(_name))
SpilledList.__hash__ = None  # type: ignore[assignment]

#: the loader and the segments seen while the store unpickles a key's record
_restoring: dict = {"loader": None, "seen": None}


def _restore(segments: tuple, spilled: int, tail: list) -> SpilledList:
    seen = _restoring["seen"]
    if seen is not None:
        seen.update(segments)
    return SpilledList(segments, spilled, tail, _restoring["loader"])


class RecordPickling:
    """While active, SpilledLists pickle as segment names (see ``_pickling_record``)."""

    def __enter__(self):
        global _pickling_record
        _pickling_record = True
        return self

    def __exit__(self, *exc):
        global _pickling_record
        _pickling_record = False


class RecordRestoring:
    """While active, restored SpilledLists load through ``loader`` and report their segments
    into ``seen``."""

    def __init__(self, loader: Loader, seen: set):
        self.loader = loader
        self.seen = seen

    def __enter__(self):
        _restoring["loader"], _restoring["seen"] = self.loader, self.seen
        return self

    def __exit__(self, *exc):
        _restoring["loader"], _restoring["seen"] = None, None
