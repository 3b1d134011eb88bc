"""``TypeSerializer``: how values of a type are written to and read from a byte stream, as in
``pyflink.common.serializer``. Kindling's runtime pickles state and windows; serializers are
for code that implements or calls them, such as a custom ``WindowAssigner``'s
``get_window_serializer``.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from io import BytesIO
from typing import Generic, TypeVar

__all__ = ["TypeSerializer"]

T = TypeVar("T")


class TypeSerializer(ABC, Generic[T]):
    """Serializes and deserializes values of one type::

        class PointSerializer(TypeSerializer):
            def serialize(self, element, stream):
                stream.write(struct.pack(">ii", element.x, element.y))

            def deserialize(self, stream):
                return Point(*struct.unpack(">ii", stream.read(8)))
    """

    def __eq__(self, other):
        return isinstance(other, self.__class__) and self.__dict__ == other.__dict__

    def __ne__(self, other):
        return not self.__eq__(other)

    def __repr__(self):
        return "%s()" % self.__class__.__name__

    def __hash__(self):
        return hash(str(self))

    @abstractmethod
    def serialize(self, element: T, stream: BytesIO) -> None:
        """Writes ``element`` to ``stream``."""

    @abstractmethod
    def deserialize(self, stream: BytesIO) -> T:
        """Reads one element from ``stream``."""
