"""``intersect``, ``intersect_all``, ``minus`` and ``minus_all`` of two tables: both tables' rows keyed by
all their columns, each distinct row's count on either side in keyed state, and as many copies of it in
the result as the operation gives (1 or none for the distinct operations; ``min(left, right)`` for
``intersect_all``; ``left - right`` for ``minus_all``).

In batch mode each row's copies are emitted at the end of the input. In streaming SQL (Flink's Table
API refuses them on unbounded tables) each change of a row's counts emits the change of its copies at
once: ``+I`` per copy added, ``-D`` per copy removed (an input's ``-U``/``-D`` rows count down). Flink's
changelog of the same query depends on its rewrite (a semi or anti join, or counts and a table function
for ``ALL``) and on the order the rows arrive in; the rows it leaves are the same.
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
        self.in_batch = str(runtime_context.get_job_parameter("inBatchExecutionMode", "false")).lower() == "true"

    def process_element1(self, row, ctx):
        return self._count(0, row, ctx)

    def process_element2(self, row, ctx):
        return self._count(1, row, ctx)

    def _count(self, side: int, row, ctx) -> list:
        counts = self.counts.value() or [0, 0, list(row._values)]  # left, right, the row
        before = self.copies(counts[0], counts[1])
        counts[side] += -1 if row._row_kind in (RowKind.DELETE, RowKind.UPDATE_BEFORE) else 1
        if self.in_batch:
            self.counts.update(counts)
            ctx.timer_service().register_event_time_timer(MAX_WATERMARK)
            return []
        if counts[0] == counts[1] == 0:
            self.counts.clear()
        else:
            self.counts.update(counts)
        change = self.copies(counts[0], counts[1]) - before
        kind = RowKind.INSERT if change > 0 else RowKind.DELETE
        return [_create_row(self.names, list(counts[2]), kind) for _ in range(abs(change))]

    def on_timer(self, timestamp, ctx):
        counts = self.counts.value()
        for _ in range(self.copies(counts[0], counts[1]) if counts else 0):
            yield _create_row(self.names, list(counts[2]), RowKind.INSERT)
