"""Interval joins: ``a JOIN b ON a.id = b.id AND a.ts BETWEEN b.ts - INTERVAL '5' SECOND AND b.ts``, two
tables joined on equal keys and event times within bounds, as Flink's row-time interval join.

Each side's rows of a key wait in keyed state while a row of the other side may still join them:
a row arriving joins the other side's cached rows within its bounds and emits the pairs at once
(``+I``: the result is append-only, its time columns stay event-time columns). The watermark expires
a row once no row of the other side that is not late can reach it any more; an outer join then
emits the row padded with nulls if it never joined (at the latest when the input ends). A row that
arrives when its whole interval is already expired is padded at once (outer) or joins nothing.
"""
from __future__ import annotations

from typing import Any, List, Optional

from kindling.common.time import epoch_millis, timestamp_of
from kindling.common.types import RowKind, _create_row
from kindling.datastream.functions import KeyedCoProcessFunction

__all__ = ["IntervalJoinFunction"]


class IntervalJoinFunction(KeyedCoProcessFunction):
    """The rows of both inputs of one key, joined within the time bounds (see the module docstring)."""

    def __init__(self, left_names: List[str], right_names: List[str], left_time: int, right_time: int,
                 lower: int, upper: int, predicate: Optional[Any], left_outer: bool, right_outer: bool):
        self.names = left_names + right_names
        self.widths = (len(left_names), len(right_names))
        self.times = (left_time, right_time)
        # how far before (index 0) and after (1) a row's time the other side's rows may be
        self.reach = ((upper, -lower), (-lower, upper))
        self.predicate, self.outer = predicate, (left_outer, right_outer)

    def open(self, runtime_context):
        from kindling.common.typeinfo import Types
        from kindling.datastream.state import ValueStateDescriptor

        self.state = runtime_context.get_state(ValueStateDescriptor("_kindling_interval_join",
                                                                    Types.PICKLED_BYTE_ARRAY()))

    def process_element1(self, row, ctx):
        return self._process(0, list(row._values), ctx)

    def process_element2(self, row, ctx):
        return self._process(1, list(row._values), ctx)

    def _pair(self, side: int, mine: list, other: list) -> list:
        return mine + other if side == 0 else other + mine

    def _joins(self, joined: list) -> bool:
        return self.predicate is None or self.predicate.evaluate(dict(zip(self.names, joined))) is True

    def _process(self, side: int, values: list, ctx):
        caches = self.state.value() or [[], []]  # per side: [time, values, joined] in arrival order
        watermark = max(ctx.timer_service().current_watermark(), 0)
        time = epoch_millis(timestamp_of(values[self.times[side]]))
        before, after = self.reach[side]
        out, joined = [], False
        for entry in caches[1 - side]:
            if time - before <= entry[0] <= time + after:
                pair = self._pair(side, values, entry[1])
                if self._joins(pair):
                    out.append(_create_row(self.names, pair, RowKind.INSERT))
                    joined, entry[2] = True, True
        out += self._expire(caches, watermark)
        if watermark < time + after:  # a row of the other side may still come
            caches[side].append([time, values, joined])
            ctx.timer_service().register_event_time_timer(time + after + 1)
        elif not joined and self.outer[side]:
            out.append(self._padded(side, values))
        self.state.update(caches)
        return out

    def _expire(self, caches: list, watermark: int) -> list:
        """Drops the rows no later row can join, emitting the unjoined ones of an outer side padded."""
        out = []
        for side in (0, 1):
            after = self.reach[side][1]
            kept = []
            for entry in caches[side]:
                if watermark >= entry[0] + after + 1:
                    if not entry[2] and self.outer[side]:
                        out.append(self._padded(side, entry[1]))
                else:
                    kept.append(entry)
            caches[side] = kept
        return out

    def _padded(self, side: int, values: list):
        nulls = [None] * self.widths[1 - side]
        return _create_row(self.names, self._pair(side, values, nulls), RowKind.INSERT)

    def on_timer(self, timestamp, ctx):
        caches = self.state.value()
        if caches is None:
            return []
        out = self._expire(caches, ctx.timer_service().current_watermark())
        self.state.update(caches)
        return out
