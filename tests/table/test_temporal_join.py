"""Event-time temporal joins (FOR SYSTEM_TIME AS OF the probe's rowtime) on the operator with the
harness: versions by event time, deletions, rows waiting for the watermark, versions dropped once no
probe row can read them. tests/conformance/programs/table_temporal_join.py compares whole queries with
PyFlink line for line."""
from __future__ import annotations

import datetime

from kindling.common.types import Row, RowKind
from kindling.table.expressions import lit
from kindling.runtime.table.temporal_join import TemporalJoinFunction
from kindling.runtime.co_functions import KeyedCoProcessAdapter, SideKeySelector, Tagged
from kindling.testing import KeyedProcessFunctionTestHarness


def at(ms: int) -> datetime.datetime:
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)


def _version(kind, *values) -> Row:
    row = Row(*values)
    row.set_row_kind(kind)
    return row


def test_each_probe_row_joins_the_version_valid_at_its_time_when_the_watermark_passes_it():
    names = ["order_time", "currency", "amount", "rate_time", "currency0", "rate"]
    function = TemporalJoinFunction(names, 0, 3, 3, lit(True), outer=True)
    currency = SideKeySelector(lambda r: r[1], lambda r: r[1])
    with KeyedProcessFunctionTestHarness(KeyedCoProcessAdapter(function), currency) as harness:
        harness.process_element(Tagged(1)(_version(RowKind.INSERT, at(1000), "EUR", 1.1)))
        harness.process_element(Tagged(0)(Row(at(500), "EUR", 10.0)))
        harness.process_element(Tagged(0)(Row(at(2000), "EUR", 20.0)))
        harness.process_element(Tagged(1)(_version(RowKind.UPDATE_BEFORE, at(1000), "EUR", 1.1)))
        harness.process_element(Tagged(1)(_version(RowKind.UPDATE_AFTER, at(5000), "EUR", 1.2)))
        harness.process_element(Tagged(0)(Row(at(6000), "EUR", 5.0)))
        harness.process_watermark(2000)
        assert [tuple(r) for r in harness.extract_output_values()] == [
            (at(500), "EUR", 10.0, None, None, None), (at(2000), "EUR", 20.0, at(1000), "EUR", 1.1)]
        harness.process_element(Tagged(1)(_version(RowKind.DELETE, at(5500), "EUR", 1.2)))
        harness.process_element(Tagged(0)(Row(at(5200), "EUR", 1.0)))
        harness.process_watermark(7000)
        assert [tuple(r) for r in harness.extract_output_values()][2:] == [
            (at(5200), "EUR", 1.0, at(5000), "EUR", 1.2), (at(6000), "EUR", 5.0, None, None, None)]
        assert all(r.get_row_kind() is RowKind.INSERT for r in harness.extract_output_values())
