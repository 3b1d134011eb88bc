"""Event-time temporal joins: ``FROM o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k``, each row
of the probe table joined with the version of the versioned table (an updating table with an event
time, such as a deduplication keeping each key's last row) valid at the probe row's time, as Flink's
row-time temporal join.

Both inputs' rows of a key wait in keyed state: the versioned table's as versions by their event time
(``+I``/``+U`` a new version, ``-D`` the key's deletion, ``-U`` nothing), the probe's until the
watermark of both inputs passes their time. Then each probe row joins the latest version at or before
its time (``+I``, append-only; LEFT pads a row with no version with nulls), and versions no probe row
that is not late can read any more are dropped.
"""
from __future__ import annotations

import bisect
from typing import Any, List

from kindling.common.time import epoch_millis, timestamp_of
from kindling.common.types import RowKind, _create_row
from kindling.datastream.functions import KeyedCoProcessFunction

__all__ = ["TemporalJoinFunction"]


class TemporalJoinFunction(KeyedCoProcessFunction):
    """A key's probe rows and versions, joined as the watermark passes the probe rows (see the module
    docstring). Joined rows are the probe's values then the version's; ``width`` is the probe's."""

    def __init__(self, names: List[str], probe_time: int, width: int, version_time: int, condition: Any,
                 outer: bool):
        self.names, self.probe_time, self.width, self.version_time = names, probe_time, width, version_time
        self.condition, self.outer = condition, outer

    def open(self, runtime_context):
        from kindling.common.typeinfo import Types
        from kindling.datastream.state import ValueStateDescriptor

        self.versions = runtime_context.get_state(ValueStateDescriptor("versions", Types.PICKLED_BYTE_ARRAY()))
        self.waiting = runtime_context.get_state(ValueStateDescriptor("waiting", Types.PICKLED_BYTE_ARRAY()))

    def process_element1(self, row, ctx):
        values = list(row._values)
        time = epoch_millis(timestamp_of(values[self.probe_time]))
        waiting = self.waiting.value() or []
        bisect.insort_right(waiting, (time, values), key=_time)  # in time order, ties in arrival order
        self.waiting.update(waiting)
        ctx.timer_service().register_event_time_timer(time)

    def process_element2(self, row, ctx):
        kind = row._row_kind
        if kind is RowKind.UPDATE_BEFORE:
            return
        values = list(row._values)
        time = epoch_millis(timestamp_of(values[self.version_time - self.width]))
        versions = self.versions.value() or []
        bisect.insort_right(versions, (time, None if kind is RowKind.DELETE else values), key=_time)
        self.versions.update(versions)

    def on_timer(self, timestamp, ctx):
        watermark = max(timestamp, ctx.timer_service().current_watermark())
        waiting = self.waiting.value() or []
        ready = waiting[:bisect.bisect_right(waiting, watermark, key=_time)]
        versions = self.versions.value() or []
        times = [t for t, _ in versions]
        out = []
        for time, values in ready:
            at = bisect.bisect_right(times, time) - 1
            version = versions[at][1] if at >= 0 else None
            joined = values + version if version is not None else None
            if joined is not None and self.condition.evaluate(dict(zip(self.names, joined))) is True:
                out.append(_create_row(self.names, joined, RowKind.INSERT))
            elif self.outer:
                out.append(_create_row(self.names, values + [None] * (len(self.names) - self.width), RowKind.INSERT))
        rest = waiting[len(ready):]
        self.waiting.update(rest) if rest else self.waiting.clear()
        keep = max(bisect.bisect_right(times, watermark) - 1, 0)  # the version valid at the watermark, and later
        if keep:
            self.versions.update(versions[keep:])
        return out


def _time(entry: tuple) -> int:
    """The time of a waiting probe row's or a version's ``(time, values)`` entry."""
    return entry[0]
