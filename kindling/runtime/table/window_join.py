"""Window joins: two window TVFs joined on ``L.window_start = R.window_start AND L.window_end =
R.window_end`` and equal keys, as Flink's streaming window join.

Each side's rows of a key wait in keyed map state, one entry per row under its window's end, side
and arrival (adding a row touches that row only); when the watermark reaches
the window's last millisecond (end - 1) the window's rows are joined and emitted at once (``+I``
only: the result is append-only), outer sides padded with nulls, and the window's state is dropped.
A row whose window has already fired is late: dropped and counted, as Flink drops it. Semi and anti
joins emit the left rows that have (or have not) a partner in their window.
"""
from __future__ import annotations

from typing import Any, List, Optional

from kindling.common.time import epoch_millis, timestamp_of
from kindling.common.types import RowKind, _create_row
from kindling.datastream.functions import KeyedCoProcessFunction

__all__ = ["WindowJoinFunction"]


class WindowJoinFunction(KeyedCoProcessFunction):
    """The rows of both inputs of one key, joined per window when the watermark passes its end (see
    the module docstring). ``left_end``/``right_end``: the positions of each side's window_end;
    ``existence``: ``"SEMI"`` or ``"ANTI"`` (the left's columns only), else a join of both sides'."""

    def __init__(self, left_names: List[str], right_names: List[str], left_end: int, right_end: int,
                 predicate: Any, left_outer: bool, right_outer: bool, existence: Optional[str] = None):
        self.joined_names = left_names + right_names
        self.names = left_names if existence else self.joined_names
        self.widths = (len(left_names), len(right_names))
        self.ends = (left_end, right_end)
        self.predicate, self.outer, self.existence = predicate, (left_outer, right_outer), existence

    def open(self, runtime_context):
        from kindling.common.typeinfo import Types
        from kindling.datastream.state import MapStateDescriptor, ValueStateDescriptor

        # "window end:side:arrival" -> the row's values
        self.rows = runtime_context.get_map_state(MapStateDescriptor("_kindling_window_join_rows", Types.STRING(),
                                                                     Types.PICKLED_BYTE_ARRAY()))
        self.arrivals = runtime_context.get_state(ValueStateDescriptor("_kindling_window_join_arrivals", Types.LONG()))
        self.late = 0

    def take_late_records_dropped(self) -> int:
        late, self.late = self.late, 0
        return late

    def process_element1(self, row, ctx):
        return self._add(0, row, ctx)

    def process_element2(self, row, ctx):
        return self._add(1, row, ctx)

    def _add(self, side: int, row, ctx) -> list:
        values = list(row._values)
        end = epoch_millis(timestamp_of(values[self.ends[side]]))
        if end - 1 <= ctx.timer_service().current_watermark():
            self.late += 1  # its window has fired
            return []
        arrival = (self.arrivals.value() or 0) + 1
        self.arrivals.update(arrival)
        self.rows.put(f"{end}:{side}:{arrival}", values)
        ctx.timer_service().register_event_time_timer(end - 1)
        return []

    def on_timer(self, timestamp, ctx):
        due = sorted((tuple(int(part) for part in entry.split(":")), entry) for entry in list(self.rows.keys()))
        due = [(place, entry) for place, entry in due if place[0] - 1 <= timestamp]
        windows: dict = {}  # window end -> [left rows, right rows], in arrival order
        for (end, side, _), entry in due:
            windows.setdefault(end, [[], []])[side].append(self.rows.get(entry))
            self.rows.remove(entry)
        if self.rows.is_empty():
            self.arrivals.clear()
        return [row for end in sorted(windows) for row in self._joined(*windows[end])]

    def _matches(self, joined: list) -> bool:
        return self.predicate.evaluate(dict(zip(self.joined_names, joined))) is True

    def _joined(self, left: List[list], right: List[list]) -> list:
        """One window's rows of the key, joined as Flink's window join operators emit them."""
        if self.existence:
            keep = self.existence == "SEMI"
            return [self._row(values) for values in left if any(self._matches(values + r) for r in right) is keep]
        if self.outer == (False, True):  # each right row with its partners, in the right's order
            return [row for values in right for row in
                    self._with_partners(values, left, lambda mine, other: other + mine, 1)]
        out, partnered = [], set()
        for values in left:
            out += self._with_partners(values, right, lambda mine, other: mine + other, 0, partnered)
        if self.outer[1]:
            out += [self._padded(1, values) for i, values in enumerate(right) if i not in partnered]
        return out

    def _with_partners(self, values: list, others: List[list], pair, side: int, partnered: Optional[set] = None):
        """The rows of ``values`` (of ``side``) joined with each matching row of ``others`` (their
        positions added to ``partnered``), or padded with nulls when none matches and ``side`` is outer."""
        out = []
        for i, other in enumerate(others):
            joined = pair(values, other)
            if self._matches(joined):
                out.append(self._row(joined))
                if partnered is not None:
                    partnered.add(i)
        if not out and self.outer[side]:
            out.append(self._padded(side, values))
        return out

    def _padded(self, side: int, values: list):
        nulls = [None] * self.widths[1 - side]
        return self._row(values + nulls if side == 0 else nulls + values)

    def _row(self, values: list):
        return _create_row(self.names, values, RowKind.INSERT)
