"""``pyflink.table.changelog_mode``: the kinds of changes a changelog holds (``from_changelog_stream``,
``to_changelog_stream``)."""
from __future__ import annotations

from typing import FrozenSet

from kindling.common.types import RowKind

__all__ = ["ChangelogMode"]


class ChangelogMode:
    """The set of changes contained in a changelog: inserts only, upserts (no ``-U``: an update is
    the key's new row) or all kinds."""

    def __init__(self, kinds: FrozenSet[RowKind]):
        self.kinds = frozenset(kinds)

    @staticmethod
    def insert_only() -> "ChangelogMode":
        """A changelog of :attr:`~RowKind.INSERT` rows only."""
        return ChangelogMode(frozenset({RowKind.INSERT}))

    @staticmethod
    def upsert() -> "ChangelogMode":
        """A changelog of idempotent updates on a key, without :attr:`~RowKind.UPDATE_BEFORE` rows."""
        return ChangelogMode(frozenset({RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE}))

    @staticmethod
    def all() -> "ChangelogMode":
        """A changelog that can contain every :class:`~RowKind`."""
        return ChangelogMode(frozenset(RowKind))

    @property
    def is_insert_only(self) -> bool:
        return self.kinds == {RowKind.INSERT}

    @property
    def is_upsert(self) -> bool:
        """Whether an update is the key's new row alone (``+U`` without ``-U``)."""
        return RowKind.UPDATE_AFTER in self.kinds and RowKind.UPDATE_BEFORE not in self.kinds

    def __eq__(self, other) -> bool:
        return isinstance(other, ChangelogMode) and other.kinds == self.kinds

    def __hash__(self) -> int:
        return hash(self.kinds)

    def __repr__(self) -> str:
        return "[" + ",".join(_SHORT[k] for k in RowKind if k in self.kinds) + "]"


_SHORT = {RowKind.INSERT: "INSERT", RowKind.UPDATE_BEFORE: "UPDATE_BEFORE", RowKind.UPDATE_AFTER: "UPDATE_AFTER",
          RowKind.DELETE: "DELETE"}
