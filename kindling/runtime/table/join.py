"""The regular join of two tables on equal keys: both sides' rows in keyed state, as Flink's
streaming join keeps them.

STREAMING: a row joins the other side's rows of its key that pass the rest of the predicate; an
inner join emits the joined rows with the row's own kind (``+I``, ``-U``, ``+U``, ``-D``). An outer join also emits a
row padded with nulls while it has no partner, retracts it (``-D``) when the first partner comes and
emits it again when the last partner goes. A semi join (SQL's IN, EXISTS) emits a left row while it
has partners: with its own kind when it comes with some, ``+I`` when its first partner comes, ``-D``
when its last one goes; an anti join (NOT IN, NOT EXISTS) the other way round. BATCH: each key's final
joined rows (left rows) at the end of the input."""
from __future__ import annotations

from typing import Any, List, Optional

from kindling.common.time import MAX_WATERMARK
from kindling.common.types import RowKind, _create_row
from kindling.datastream.functions import KeyedCoProcessFunction

__all__ = ["RegularJoinFunction"]


class RegularJoinFunction(KeyedCoProcessFunction):
    """Joins the rows of two keyed inputs (the left table's and the right's) of one key; ``existence``
    ``"SEMI"`` or ``"ANTI"``: keeps the left rows with partners or without."""

    def __init__(self, left_names: List[str], right_names: List[str], predicate: Optional[Any],
                 left_outer: bool, right_outer: bool, existence: Optional[str] = None):
        self.left_names, self.right_names = left_names, right_names
        self.names = left_names + right_names
        self.out_names = left_names if existence else self.names
        self.predicate = predicate
        self.outer = (left_outer, right_outer)
        self.existence = existence

    def open(self, runtime_context):
        from kindling.common.typeinfo import Types
        from kindling.datastream.state import ValueStateDescriptor

        self.sides = [runtime_context.get_state(ValueStateDescriptor(f"_kindling_join_{side}",
                                                                     Types.PICKLED_BYTE_ARRAY()))
                      for side in ("left", "right")]
        self.in_batch = str(runtime_context.get_job_parameter("inBatchExecutionMode", "false")).lower() == "true"

    def _joined(self, side: int, mine: tuple, other: tuple) -> list:
        return list(mine + other) if side == 0 else list(other + mine)

    def _padded(self, side: int, values: tuple) -> list:
        nulls = (None,) * len(self.right_names if side == 0 else self.left_names)
        return self._joined(side, values, nulls)

    def _passes(self, joined: list) -> bool:
        return self.predicate is None or self.predicate.evaluate(dict(zip(self.names, joined))) is True

    def process_element1(self, row, ctx):
        yield from self._process(0, row, ctx)

    def process_element2(self, row, ctx):
        yield from self._process(1, row, ctx)

    def _process(self, side: int, row, ctx):
        values = tuple(row._values)
        # per side: row values -> [multiplicity, partners on the other side]
        mine, others = self.sides[side].value() or {}, self.sides[1 - side].value() or {}
        matches = [(o, entry) for o, entry in others.items() if self._passes(self._joined(side, values, o))]
        partners = sum(entry[0] for _, entry in matches)
        out = []
        if self.existence is not None:
            out = self._existence(side, row._row_kind, values, mine, matches, partners)
        elif row._row_kind in (RowKind.UPDATE_BEFORE, RowKind.DELETE):
            entry = mine.get(values)
            if entry is None:
                return  # a retraction of a row never added, ignored as Flink does
            entry[0] -= 1
            if entry[0] == 0:
                del mine[values]
            for other, other_entry in matches:  # each copy of a partner, as Flink: its pair, then its padding
                padded = self.outer[1 - side] and other_entry[1] == 1
                for _ in range(other_entry[0]):
                    out.append((RowKind.DELETE, self._joined(side, values, other)))
                    if padded:
                        out.append((RowKind.INSERT, self._padded(1 - side, other)))
                other_entry[1] -= 1
            if not matches and self.outer[side]:
                out.append((RowKind.DELETE, self._padded(side, values)))
        else:
            for other, other_entry in matches:  # each copy of a partner, as Flink: its padding, then its pair
                padded = self.outer[1 - side] and other_entry[1] == 0
                for _ in range(other_entry[0]):
                    if padded:
                        out.append((RowKind.DELETE, self._padded(1 - side, other)))
                    out.append((RowKind.INSERT, self._joined(side, values, other)))
                other_entry[1] += 1
            if not matches and self.outer[side]:
                out.append((RowKind.INSERT, self._padded(side, values)))
            mine.setdefault(values, [0, partners])[0] += 1
        self.sides[side].update(mine)
        self.sides[1 - side].update(others)
        if self.in_batch:
            ctx.timer_service().register_event_time_timer(MAX_WATERMARK)
            return
        inner = not any(self.outer) and self.existence is None
        for kind, joined in out:
            yield _create_row(self.out_names, joined, row._row_kind if inner else kind)

    def _existence(self, side: int, kind: RowKind, values: tuple, mine: dict, matches: list, partners: int) -> list:
        """A semi or anti join's changes of the left rows when ``values`` of ``side`` come or go."""
        keep_matched = self.existence == "SEMI"
        retracting = kind in (RowKind.UPDATE_BEFORE, RowKind.DELETE)
        if retracting:
            entry = mine.get(values)
            if entry is None:
                return []  # a retraction of a row never added, ignored as Flink does
            entry[0] -= 1
            if entry[0] == 0:
                del mine[values]
        else:
            mine.setdefault(values, [0, partners])[0] += 1
        if side == 0:
            return [(kind, list(values))] if (partners > 0) == keep_matched else []
        out = []
        for left, left_entry in matches:  # each left partner gains or loses one
            had = left_entry[1] > 0
            left_entry[1] += -1 if retracting else 1
            if had != (left_entry[1] > 0):
                shown = (left_entry[1] > 0) == keep_matched
                out += [(RowKind.INSERT if shown else RowKind.DELETE, list(left))] * left_entry[0]
        return out

    def on_timer(self, timestamp, ctx):
        left, right = self.sides[0].value() or {}, self.sides[1].value() or {}
        if self.existence is not None:
            for values, (count, partners) in left.items():
                if (partners > 0) == (self.existence == "SEMI"):
                    for _ in range(count):
                        yield _create_row(self.out_names, list(values), RowKind.INSERT)
            return
        for values, (count, partners) in left.items():
            for other, (other_count, _) in right.items():
                joined = list(values + other)
                if self._passes(joined):
                    for _ in range(count * other_count):
                        yield _create_row(self.names, joined, RowKind.INSERT)
            if partners == 0 and self.outer[0]:
                for _ in range(count):
                    yield _create_row(self.names, self._padded(0, values), RowKind.INSERT)
        if self.outer[1]:
            for values, (count, partners) in right.items():
                if partners == 0:
                    for _ in range(count):
                        yield _create_row(self.names, self._padded(1, values), RowKind.INSERT)
