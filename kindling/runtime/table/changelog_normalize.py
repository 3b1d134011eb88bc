"""Upserts and deletes (upsert-kafka records, an upsert changelog stream) as Flink's changelog of their
primary key."""
from __future__ import annotations

from typing import Any, Optional

from kindling.common.types import _create_row
from kindling.datastream.functions import KeyedProcessFunction

__all__ = ["ChangelogNormalize"]


class ChangelogNormalize(KeyedProcessFunction):
    """A KeyedProcessFunction turning a key's upserts and deletes into Flink's changelog, as Flink's
    ChangelogNormalize: ``+I`` for a new key, ``-U`` old / ``+U`` new for a changed row (nothing for
    an unchanged one), ``-D`` (the last row) for a delete of a known key (nothing for an unknown one).
    ``deleted_column``: a record's last field says whether it deletes (upsert-kafka records), else
    its RowKind does (``-D`` and ``-U`` delete, ``+I`` and ``+U`` upsert: an upsert changelog stream).
    ``condition`` (a rows.Condition, None: every row passes): a filter pushed into the normalization,
    as Flink's: a key's last row is its last one that passes, and a row that fails deletes it."""

    def __init__(self, deleted_column: bool = True, condition: Optional[Any] = None):
        self.deleted_column = deleted_column
        self.condition = condition

    def open(self, runtime_context):
        from kindling.common.typeinfo import Types
        from kindling.datastream.state import ValueStateDescriptor

        self.last = runtime_context.get_state(ValueStateDescriptor("_kindling_upsert_last", Types.PICKLED_BYTE_ARRAY()))
        if self.condition is not None:
            self.condition.open(runtime_context)

    def close(self):
        if self.condition is not None:
            self.condition.close()

    def process_element(self, record, ctx):
        from kindling.common.types import RowKind

        previous = self.last.value()
        if self.deleted_column:
            names, values, deletes = record._fields[:-1], list(record)[:-1], record[-1]
        else:
            names, values = record._fields, list(record)
            deletes = record.get_row_kind() in (RowKind.DELETE, RowKind.UPDATE_BEFORE)
        if deletes or (self.condition is not None and not self.condition(record)):
            if previous is not None:
                self.last.clear()
                yield _create_row(names, previous, RowKind.DELETE)
            return
        if previous is None:
            yield _create_row(names, values, RowKind.INSERT)
        elif previous != values:
            yield _create_row(names, previous, RowKind.UPDATE_BEFORE)
            yield _create_row(names, values, RowKind.UPDATE_AFTER)
        self.last.update(values)
