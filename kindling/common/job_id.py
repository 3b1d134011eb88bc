"""``JobID``: the identifier of a job."""
import os
from typing import Optional

__all__ = ['JobID']


class JobID(object):
    """A job's identifier: 16 random bytes, printed as 32 hex digits like Flink's.

    Example: ``JobID().to_hex_string()`` gives e.g. ``'3f2a...'``; ``JobID.from_hex_string(s)``.
    """

    __slots__ = ('_bytes',)

    def __init__(self, id_bytes: Optional[bytes] = None) -> None:
        if id_bytes is None:
            id_bytes = os.urandom(16)
        if len(id_bytes) != 16:
            raise ValueError("a JobID has 16 bytes")
        self._bytes = bytes(id_bytes)

    @staticmethod
    def from_hex_string(hex_string: str) -> 'JobID':
        return JobID(bytes.fromhex(hex_string))

    def to_hex_string(self) -> str:
        return self._bytes.hex()

    def get_bytes(self) -> bytes:
        return self._bytes

    def __eq__(self, other) -> bool:
        return isinstance(other, JobID) and self._bytes == other._bytes

    def __hash__(self) -> int:
        return hash(self._bytes)

    def __reduce__(self):
        return JobID, (self._bytes,)

    def __str__(self) -> str:
        return self.to_hex_string()

    def __repr__(self) -> str:
        return self.to_hex_string()
