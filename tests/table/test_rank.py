"""Deduplication and Top-N (ROW_NUMBER patterns): Flink's exact changelogs, recorded from PyFlink 2.3,
checked on the operators with the harness (the same code that runs in Spark) where Flink's order of
input rows cannot be reproduced through Spark's shuffle; and end to end on Spark: Top-N of an
aggregation's changes (its final rows), deduplication over splits at different speeds, batch mode.
tests/conformance/programs/table_rank*.py compare more queries with PyFlink line for line."""
from __future__ import annotations

from event_views import event_view

from kindling.common.types import Row, RowKind
from kindling.table import EnvironmentSettings, StreamTableEnvironment
from kindling.runtime.table.rank import RetractTopNFunction, SortKey, TopNFunction
from kindling.table.table import _final_rows
from kindling.testing import KeyedProcessFunctionTestHarness

NAMES = ["u", "n", "s", "rn"]


def _change(kind: str, *values) -> Row:
    row = Row(*values)
    row.set_row_kind({"+I": RowKind.INSERT, "-U": RowKind.UPDATE_BEFORE, "+U": RowKind.UPDATE_AFTER,
                      "-D": RowKind.DELETE}[kind])
    return row


def _changes(harness) -> list:
    return [(r.get_row_kind().short_string(), *r) for r in harness.extract_output_values()]


# an aggregation's changes (SELECT u, COUNT(*) n, SUM(amount) s ... GROUP BY u) as Flink emits them for
# the amounts ann 1.5, bob 2.0, ann 3.25, ann 1.0, bob 0.5, cat 4.0, bob 8.0, ann 9.0, ann 2.0
AGGREGATED = [("+I", "ann", 1, 1.5), ("+I", "bob", 1, 2.0), ("-U", "ann", 1, 1.5), ("+U", "ann", 2, 4.75),
              ("-U", "ann", 2, 4.75), ("+U", "ann", 3, 5.75), ("-U", "bob", 1, 2.0), ("+U", "bob", 2, 2.5),
              ("+I", "cat", 1, 4.0), ("-U", "bob", 2, 2.5), ("+U", "bob", 3, 10.5), ("-U", "ann", 3, 5.75),
              ("+U", "ann", 4, 14.75), ("-U", "ann", 4, 14.75), ("+U", "ann", 5, 16.75)]


def test_top_n_of_an_updating_input_changes_as_flinks_retracting_top_n():
    # ... ROW_NUMBER() OVER (ORDER BY s ASC) AS rn FROM totals) WHERE rn <= 2: PyFlink 2.3's output
    function = RetractTopNFunction(NAMES, SortKey([(2, False)]), 1, 2, True)
    with KeyedProcessFunctionTestHarness(function, lambda row: 0) as harness:
        for kind, *values in AGGREGATED:
            harness.process_element(_change(kind, *values))
        assert _changes(harness) == [
            ("+I", "ann", 1, 1.5, 1), ("+I", "bob", 1, 2.0, 2), ("-U", "ann", 1, 1.5, 1), ("+U", "bob", 1, 2.0, 1),
            ("-D", "bob", 1, 2.0, 2), ("+I", "ann", 2, 4.75, 2), ("-D", "ann", 2, 4.75, 2), ("+I", "ann", 3, 5.75, 2),
            ("-U", "bob", 1, 2.0, 1), ("+U", "ann", 3, 5.75, 1), ("-D", "ann", 3, 5.75, 2),
            ("-U", "ann", 3, 5.75, 1), ("+U", "bob", 2, 2.5, 1), ("+I", "ann", 3, 5.75, 2),
            ("-U", "ann", 3, 5.75, 2), ("+U", "cat", 1, 4.0, 2), ("-U", "bob", 2, 2.5, 1), ("+U", "cat", 1, 4.0, 1),
            ("-U", "cat", 1, 4.0, 2), ("+U", "ann", 3, 5.75, 2), ("-U", "ann", 3, 5.75, 2), ("+U", "bob", 3, 10.5, 2)]
    without_number = RetractTopNFunction(NAMES[:3], SortKey([(2, False)]), 1, 2, False)
    with KeyedProcessFunctionTestHarness(without_number, lambda row: 0) as harness:
        for kind, *values in AGGREGATED:
            harness.process_element(_change(kind, *values))
        assert [(kind, u, s) for kind, u, _, s in _changes(harness)] == [
            ("+I", "ann", 1.5), ("+I", "bob", 2.0), ("-D", "ann", 1.5), ("+I", "ann", 4.75), ("-D", "ann", 4.75),
            ("+I", "ann", 5.75), ("-D", "bob", 2.0), ("+I", "bob", 2.5), ("-D", "ann", 5.75), ("+I", "cat", 4.0),
            ("-D", "bob", 2.5), ("+I", "ann", 5.75), ("-D", "ann", 5.75), ("+I", "bob", 10.5)]


def test_top_n_of_an_append_only_input_moves_ranks_as_flink():
    rows = [("ann", 1.5), ("bob", 2.0), ("ann", 3.25), ("bob", 0.5), ("cat", 4.0), ("bob", 8.0), ("ann", 9.0)]
    function = TopNFunction(["u", "amount", "rn"], SortKey([(1, True)]), 1, 2, True)
    with KeyedProcessFunctionTestHarness(function, lambda row: row[0]) as harness:
        for values in rows:
            harness.process_element(Row(*values))
        # Flink's AppendOnlyTopNFunction, per key (PyFlink 2.3's output of the same rows)
        assert [c for c in _changes(harness) if c[1] == "ann"] == [
            ("+I", "ann", 1.5, 1), ("-U", "ann", 1.5, 1), ("+U", "ann", 3.25, 1), ("+I", "ann", 1.5, 2),
            ("-U", "ann", 3.25, 1), ("+U", "ann", 9.0, 1), ("-U", "ann", 1.5, 2), ("+U", "ann", 3.25, 2)]
        assert [c for c in _changes(harness) if c[1] == "bob"] == [
            ("+I", "bob", 2.0, 1), ("+I", "bob", 0.5, 2), ("-U", "bob", 2.0, 1), ("+U", "bob", 8.0, 1),
            ("-U", "bob", 0.5, 2), ("+U", "bob", 2.0, 2)]
    function = TopNFunction(["u", "amount"], SortKey([(1, True)]), 1, 2, False)
    with KeyedProcessFunctionTestHarness(function, lambda row: row[0]) as harness:
        for values in rows:
            harness.process_element(Row(*values))
        assert [c for c in _changes(harness) if c[1] == "bob"] == [
            ("+I", "bob", 2.0), ("+I", "bob", 0.5), ("-D", "bob", 0.5), ("+I", "bob", 8.0)]


def test_top_n_of_an_aggregation_on_spark_ends_with_the_top_rows(env):
    t_env = StreamTableEnvironment.create(env)
    t_env.create_temporary_view("sales", t_env.from_elements(
        [(i % 7, i % 5 + (i % 7) * 0.5) for i in range(200)], ["shop", "amount"]))
    top = t_env.sql_query(
        "SELECT shop, total FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY total DESC) AS rn FROM "
        "(SELECT shop, SUM(amount) AS total FROM sales GROUP BY shop)) WHERE rn <= 3")
    totals = {}
    for i in range(200):
        totals[i % 7] = totals.get(i % 7, 0) + i % 5 + (i % 7) * 0.5
    with top.execute().collect() as changes:
        final = _final_rows(changes)
    assert sorted(map(tuple, final)) == sorted(sorted(totals.items(), key=lambda kv: -kv[1])[:3])


def test_deduplication_keeping_the_first_row_over_splits_at_different_speeds(env):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    # split 0 holds n < 500 (event time 2.5 s .. 5 ms, backwards), split 1 the rest (2.5 s on, ahead):
    # every key's first row by time is in split 0, the last one it reads, though split 1 is ahead
    event_view(env, t_env, "events", 1000, lambda n: ((500 - n) * 5 if n < 500 else n * 5, n % 10, n),
               ("ts", "k", "n"), delay_seconds=3)
    first = t_env.sql_query("SELECT k, n FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn "
                            "FROM events) WHERE rn = 1")
    with first.execute().collect() as changes:
        rows = [(r.get_row_kind(), *r) for r in changes]
    assert sorted(rows) == [(RowKind.INSERT, k, 490 + k) for k in range(10)]  # append-only: one row per key


def test_deduplication_keeping_the_last_row_by_event_time_ignores_earlier_rows():
    from kindling.runtime.table.rank import DeduplicateFunction

    function = DeduplicateFunction(["ts", "k", "rn"], 0, keep_last=True, with_number=True)
    with KeyedProcessFunctionTestHarness(function, lambda row: row[1]) as harness:
        for t in (2000, 1000, 2000, 5000, 4000):
            harness.process_element(Row(_timestamp(t), "a"), t)
        assert [(kind, row[0].second) for kind, *row in _changes(harness)] == [
            ("+I", 2), ("-U", 2), ("+U", 2), ("-U", 2), ("+U", 5)]


def _timestamp(millis: int):
    from kindling.table.expressions import to_timestamp

    return to_timestamp(millis)


def test_rank_functions_in_batch_mode(env):
    t_env = StreamTableEnvironment.create(env, EnvironmentSettings.in_batch_mode())
    t_env.create_temporary_view("scores", t_env.from_elements(
        [(1, 'ann', 15), (2, 'bob', 20), (3, 'ann', 30), (4, 'bob', 20), (5, 'ann', None), (6, 'ann', 30)],
        ["id", "u", "score"]))
    ranked = t_env.sql_query(
        "SELECT * FROM (SELECT u, id, RANK() OVER (PARTITION BY u ORDER BY score DESC) AS r FROM scores) WHERE r <= 2")
    got = sorted(tuple(r) for r in ranked.execute().collect())
    assert got == [("ann", 3, 1), ("ann", 6, 1), ("bob", 2, 1), ("bob", 4, 1)]


def test_window_top_n_emits_each_window_once_when_the_watermark_passes_its_end_and_drops_late_rows():
    import datetime

    from kindling.runtime.table.rank import WindowRankFunction

    def at(seconds):
        return datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds)

    # (window_end, u, amount) rows of one window partition; top 2 by amount
    function = WindowRankFunction(["window_end", "u", "amount", "rn"], SortKey([(2, True)]), 1, 2, True, 0)
    with KeyedProcessFunctionTestHarness(function, lambda row: row[0]) as harness:
        for values in [(at(5), "ann", 1.5), (at(5), "bob", 2.0), (at(5), "cat", 0.5), (at(10), "ann", 9.0)]:
            harness.process_element(Row(*values))
        harness.process_watermark(4_998)
        assert _changes(harness) == []
        harness.process_watermark(4_999)
        assert _changes(harness) == [("+I", at(5), "bob", 2.0, 1), ("+I", at(5), "ann", 1.5, 2)]
        harness.process_element(Row(at(5), "dan", 7.0))  # its window has fired: late
        harness.process_watermark(20_000)
        assert _changes(harness)[2:] == [("+I", at(10), "ann", 9.0, 1)]
        assert function.take_late_records_dropped() == 1
