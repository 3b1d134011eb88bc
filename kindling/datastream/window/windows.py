"""Windows: the finite buckets elements are grouped into (time, count and the global window)."""
from __future__ import annotations

import struct
import sys
from abc import ABC, abstractmethod
from io import BytesIO
from typing import TYPE_CHECKING, Iterable

from kindling.common.serializer import TypeSerializer

if TYPE_CHECKING:
    from kindling.datastream.window.assigners import MergingWindowAssigner

__all__ = ['Window', 'TimeWindow', 'CountWindow', 'GlobalWindow', 'MAX_LONG_VALUE', 'MIN_LONG_VALUE']

MAX_LONG_VALUE = 2 ** 63 - 1
MIN_LONG_VALUE = -(2 ** 63)

_P = sys.hash_info.modulus


def _mod_inverse(x: int) -> int:
    inverse = x * x * x
    inverse *= 2 - x * inverse
    inverse *= 2 - x * inverse
    inverse *= 2 - x * inverse
    return inverse


def _bit_mix(x: int) -> int:
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
    x = (x ^ (x >> 27)) * 0x94d049bb133111eb
    return x ^ (x >> 31)


class Window(ABC):
    """A finite bucket of elements; ``max_timestamp()`` is the largest timestamp it holds."""

    __slots__ = ()

    @abstractmethod
    def max_timestamp(self) -> int:
        pass


class TimeWindow(Window):
    """The time interval ``[start, end)`` in epoch milliseconds."""

    __slots__ = ('start', 'end', '_hash')

    def __init__(self, start: int, end: int):
        self.start = start
        self.end = end

    def max_timestamp(self) -> int:
        return self.end - 1

    def intersects(self, other: 'TimeWindow') -> bool:
        """True when this window and ``other`` overlap or touch."""
        return self.start <= other.end and self.end >= other.start

    def cover(self, other: 'TimeWindow') -> 'TimeWindow':
        """The smallest window that covers this window and ``other``."""
        return TimeWindow(min(self.start, other.start), max(self.end, other.end))

    @staticmethod
    def get_window_start_with_offset(timestamp: int, offset: int, window_size: int) -> int:
        """The start of the window of size ``window_size`` shifted by ``offset`` that holds
        ``timestamp``."""
        return timestamp - (timestamp - offset + window_size) % window_size

    @staticmethod
    def merge_windows(windows: Iterable['TimeWindow'],
                      callback: 'MergingWindowAssigner.MergeCallback') -> None:
        """Merges overlapping windows: calls ``callback.merge(windows, result)`` for each group
        of two or more windows that overlap (transitively)."""
        groups = []
        cur = None
        cur_set = None
        for w in sorted(windows):
            if cur is None:
                cur, cur_set = w, {w}
            elif cur.intersects(w):
                cur = cur.cover(w)
                cur_set.add(w)
            else:
                groups.append((cur, cur_set))
                cur, cur_set = w, {w}
        if cur is not None:
            groups.append((cur, cur_set))
        for result, members in groups:
            if len(members) > 1:
                callback.merge(members, result)

    def __hash__(self):
        try:
            return self._hash
        except AttributeError:
            pass
        h = self._hash = self._compute_hash()
        return h

    def _compute_hash(self):
        # PyFlink's hash, ``hash(start + _mod_inverse(2 * end + 1))``, computed modulo
        # Python's hash modulus instead of on numbers of thousands of bits
        x = (self.end << 1) + 1
        if -1024 < x < 1024:
            return hash(self.start + _mod_inverse(x))
        m = x % _P
        inv = m * m % _P * m % _P
        inv = inv * ((2 - m * inv) % _P) % _P
        inv = inv * ((2 - m * inv) % _P) % _P
        inv = inv * ((2 - m * inv) % _P) % _P
        if x > 0:
            # the exact value is hugely negative
            h = -((-self.start - inv) % _P)
            return -2 if h == -1 else h
        return (self.start + inv) % _P

    def __eq__(self, other):
        return (self.__class__ is other.__class__ and self.end == other.end
                and self.start == other.start)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __lt__(self, other: 'TimeWindow'):
        if not isinstance(other, TimeWindow):
            raise TypeError("cannot compare a TimeWindow with %r" % (other,))
        return self.start < other.start or (self.start == other.start and self.end < other.end)

    def __le__(self, other: 'TimeWindow'):
        return self.__eq__(other) or self.__lt__(other)

    def __reduce__(self):
        return TimeWindow, (self.start, self.end)

    def __repr__(self):
        return "TimeWindow(start={}, end={})".format(self.start, self.end)


class CountWindow(Window):
    """A count window, identified by its number ``id`` (0, 1, 2, ... per key)."""

    __slots__ = ('id',)

    def __init__(self, id: int):
        self.id = id

    def max_timestamp(self) -> int:
        return MAX_LONG_VALUE

    def __hash__(self):
        return _bit_mix(self.id)

    def __eq__(self, other):
        return self.__class__ is other.__class__ and self.id == other.id

    def __ne__(self, other):
        return not self.__eq__(other)

    def __lt__(self, other):
        if not isinstance(other, CountWindow):
            raise TypeError("cannot compare a CountWindow with %r" % (other,))
        return self.id < other.id

    def __reduce__(self):
        return CountWindow, (self.id,)

    def __repr__(self):
        return "CountWindow(id={})".format(self.id)


class GlobalWindow(Window):
    """The single window of :class:`GlobalWindows`, holding every element of a key."""

    __slots__ = ()

    @staticmethod
    def get() -> 'GlobalWindow':
        return _GLOBAL_WINDOW

    def max_timestamp(self) -> int:
        return MAX_LONG_VALUE

    def __eq__(self, other):
        return self.__class__ is other.__class__

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return 0

    def __reduce__(self):
        return GlobalWindow, ()

    def __repr__(self):
        return "GlobalWindow"


_GLOBAL_WINDOW = GlobalWindow()


class TimeWindowSerializer(TypeSerializer[TimeWindow]):
    """Writes a :class:`TimeWindow` as its start and end, two big-endian 64-bit integers (as PyFlink)."""

    def serialize(self, element: TimeWindow, stream: BytesIO) -> None:
        stream.write(struct.pack(">qq", element.start, element.end))

    def deserialize(self, stream: BytesIO) -> TimeWindow:
        return TimeWindow(*struct.unpack(">qq", stream.read(16)))


class CountWindowSerializer(TypeSerializer[CountWindow]):
    """Writes a :class:`CountWindow` as its id, a big-endian 64-bit integer (as PyFlink)."""

    def serialize(self, element: CountWindow, stream: BytesIO) -> None:
        stream.write(struct.pack(">q", element.id))

    def deserialize(self, stream: BytesIO) -> CountWindow:
        return CountWindow(struct.unpack(">q", stream.read(8))[0])


class GlobalWindowSerializer(TypeSerializer[GlobalWindow]):
    """Writes the :class:`GlobalWindow` as one zero byte (as PyFlink)."""

    def serialize(self, element: GlobalWindow, stream: BytesIO) -> None:
        stream.write(b"\x00")

    def deserialize(self, stream: BytesIO) -> GlobalWindow:
        stream.read(1)
        return GlobalWindow.get()
