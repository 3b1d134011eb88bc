"""``intersect``, ``intersect_all``, ``minus`` and ``minus_all`` of two tables: both tables' rows keyed by
all their columns, each distinct row's count on either side in keyed state, and as many copies of it in
the result as the operation gives (1 or none for the distinct operations; ``min(left, right)`` for
``intersect_all``; ``left - right`` for ``minus_all``).

Flink runs them in batch mode only ("The INTERSECT operation on two unbounded tables is currently not
supported."), and so does Kindling: each row's copies are emitted at the end of the input.
"""
from __future__ import annotations

from kindling.common.time import MAX_WATERMARK
from kindling.common.types import RowKind, _create_row
from kindling.datastream.functions import KeyedCoProcessFunction

__all__ = ["SetOperationFunction"]

_COPIES = {
    "intersect": lambda left, right: 1 if left > 0 and right > 0 else 0,
    "intersect_all": min,
    "minus": lambda left, right: 1 if left > 0 and right <= 0 else 0,
    "minus_all": lambda left, right: max(left - right, 0),
}


class SetOperationFunction(KeyedCoProcessFunction):
    """The copies of one distinct row (the key) in the result of a set operation, at the end of the input."""

    def __init__(self, kind: str, names: list):
        self.copies, self.names = _COPIES[kind], names

    def open(self, runtime_context):
        from kindling.common.typeinfo import Types
        from kindling.datastream.state import ValueStateDescriptor

        self.counts = runtime_context.get_state(ValueStateDescriptor("_kindling_set", Types.PICKLED_BYTE_ARRAY()))

    def process_element1(self, row, ctx):
        self._count(0, row, ctx)

    def process_element2(self, row, ctx):
        self._count(1, row, ctx)

    def _count(self, side: int, row, ctx) -> None:
        counts = self.counts.value() or [0, 0, list(row._values)]  # left, right, the row
        counts[side] += 1
        self.counts.update(counts)
        ctx.timer_service().register_event_time_timer(MAX_WATERMARK)

    def on_timer(self, timestamp, ctx):
        counts = self.counts.value()
        for _ in range(self.copies(counts[0], counts[1]) if counts else 0):
            yield _create_row(self.names, list(counts[2]), RowKind.INSERT)
