"""Event-time temporal joins (``FROM o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k``) as
plan nodes, checked as Flink checks them; the operator and its semantics, as Flink's row-time temporal
join: kindling/runtime/table/temporal_join.py."""
from __future__ import annotations

from typing import List

from kindling.table.expressions import Expression

__all__ = ["temporal_join"]


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
