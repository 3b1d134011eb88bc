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
from typing import List

from kindling.common.types import RowKind, _create_row
from kindling.datastream.functions import KeyedCoProcessFunction
from kindling.table.expressions import Expression, epoch_millis, to_timestamp

__all__ = ["TemporalJoinFunction", "temporal_join"]


def temporal_join(probe, versioned, left_keys: List[str], right_keys: List[str], condition: Expression,
                  outer: bool, primary_key: bool):
    """The probe table joined with the versions of ``versioned`` (declared with a ``primary_key`` or
    an updating table) valid at the probe's event time."""
    from kindling.table.planner import nodes
    from kindling.table.schema import Schema

    if probe._in_batch():
        raise ValueError("an event-time temporal join runs in streaming mode (Flink's rule)")
    if probe._updating:
        raise ValueError("an event-time temporal join needs an append-only probe table; it is updating")
    if not versioned._updating and not primary_key:
        raise ValueError("Temporal Table Join requires primary key in versioned table, but no primary key can be "
                         "found (as Flink says): join a view keeping each key's last row by event time (ROW_NUMBER() "
                         "OVER (PARTITION BY k ORDER BY ts DESC) = 1) or a table with a PRIMARY KEY")
    if versioned._rowtime is None:
        raise ValueError("an event-time temporal join needs a versioned table with an event-time attribute "
                         "(declare its watermark), e.g. a view keeping each key's last row by event time")
    left_names, right_names = probe.get_schema().get_field_names(), versioned.get_schema().get_field_names()
    schema = Schema(left_names + right_names,
                    probe.get_schema().get_field_data_types() + versioned.get_schema().get_field_data_types())
    return probe._with(nodes.TemporalJoin(left=probe._node, right=versioned._node, left_keys=tuple(left_keys),
                                          right_keys=tuple(right_keys), condition=condition, outer=outer,
                                          out=nodes.Output(schema, rowtime=probe._rowtime)))


class TemporalJoinFunction(KeyedCoProcessFunction):
    """A key's probe rows and versions, joined as the watermark passes the probe rows (see the module
    docstring). Joined rows are the probe's values then the version's; ``width`` is the probe's."""

    def __init__(self, names: List[str], probe_time: int, width: int, version_time: int, condition: Expression,
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
        time = epoch_millis(to_timestamp(values[self.probe_time]))
        waiting = self.waiting.value() or []
        bisect.insort_right(waiting, (time, values), key=_time)  # in time order, ties in arrival order
        self.waiting.update(waiting)
        ctx.timer_service().register_event_time_timer(time)

    def process_element2(self, row, ctx):
        kind = row._row_kind
        if kind is RowKind.UPDATE_BEFORE:
            return
        values = list(row._values)
        time = epoch_millis(to_timestamp(values[self.version_time - self.width]))
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
