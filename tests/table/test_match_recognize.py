"""MATCH_RECOGNIZE: the operator's semantics on the harness (rows matched in event-time order when the
watermark passes them, late rows dropped and counted, a match waiting behind an older open run until
WITHIN ends it, Flink's failure skipping to a match's first row), then on Spark over two splits whose
event times advance at different speeds, in BATCH mode, late rows counted, and what Flink refuses.
tests/conformance/programs/table_match_recognize.py compares quantifiers and skips with PyFlink 2.3."""
from __future__ import annotations

import datetime

import pytest
from event_views import event_view, late_row_view

from kindling.common.types import Row, RowKind
from kindling.runtime.table.match_recognize import MatchRecognizeFunction
from kindling.table import EnvironmentSettings, StreamTableEnvironment
from kindling.table.expressions import col
from kindling.table.match_recognize import Element, Reference, Skip
from kindling.testing import KeyedProcessFunctionTestHarness

NAMES = ["k", "v", "ts"]
CURRENT, FIRST_OF_A = Reference("cur", None, 1, False, 0), Reference("a", 0, 1, False, 0)
MEASURED = [Reference("av", 0, 1, False, 0), Reference("lb", 1, 1, False, 0), Reference("cv", 2, 1, False, 0)]


def at(ms: int) -> datetime.datetime:
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)


def _harness(skip=Skip("PAST LAST ROW"), within=None, elements=None):
    """``A B+ C`` (B: its v at least A's), measuring A.v, LAST(B.v) and C.v per key ``k``."""
    elements = elements or [Element(0, 1, 1, False), Element(1, 1, None, True), Element(2, 1, 1, False)]
    conditions = [None, col("cur") >= col("a"), None][:len(elements)]
    function = MatchRecognizeFunction(elements, conditions, [CURRENT, FIRST_OF_A], [col("av"), col("lb"), col("cv")],
                                      MEASURED, {}, "rowtime", [0], 2, skip, within, ["k", "av", "lb", "cv"])
    return function, KeyedProcessFunctionTestHarness(function, lambda row: row[0])


def _feed(harness, *rows):
    for ms, v in rows:
        harness.process_element(Row("d", v, at(ms)), ms)


def test_rows_are_matched_in_event_time_order_when_the_watermark_passes_and_late_rows_are_dropped():
    function, harness = _harness()
    with harness:
        _feed(harness, (1000, 1), (3000, 3), (2000, 2), (4000, 0))  # B takes 2 and 3 in time order, C 0
        harness.process_watermark(3000)
        assert harness.extract_output_values() == []  # 0 at 4000 has not been fed yet
        harness.process_watermark(4000)
        assert [tuple(r) for r in harness.extract_output_values()] == [("d", 1, 3, 0)]
        assert all(r.get_row_kind() is RowKind.INSERT for r in harness.extract_output_values())
        _feed(harness, (3500, 9))
        assert function.take_late_records_dropped() == 1


def test_a_match_waits_behind_an_older_open_run_until_within_ends_it():
    _, harness = _harness(Skip("TO LAST", 1), within=5000)
    with harness:
        # A=1's run takes every row as B (all >= 1) and stays open; A=2 B=3 C=1 completes at 4000
        _feed(harness, (1000, 1), (2000, 2), (3000, 3), (4000, 1))
        harness.process_watermark(5999)
        assert harness.extract_output_values() == []
        harness.process_watermark(6000)  # WITHIN is exclusive: the run of 1000 ends at 6000
        assert [tuple(r) for r in harness.extract_output_values()] == [("d", 2, 3, 1)]


@pytest.mark.parametrize("skip, message", [
    (Skip("TO FIRST", 0, "A"), "Could not skip to first element of a match."),
    (Skip("TO LAST", 2, "C"), "Could not skip to C. No such element in the found match."),
])
def test_skipping_to_the_first_row_of_a_match_or_to_a_variable_without_rows_fails_as_in_flink(skip, message):
    elements = [Element(0, 1, 1, False), Element(1, 1, 1, False), Element(2, 0, 1, False)]  # A B C?
    _, harness = _harness(skip, elements=elements)
    with harness:
        _feed(harness, (1000, 1), (2000, 2))
        with pytest.raises(Exception, match=message):
            harness.process_watermark(2000)


N = 400
QUERY = ("SELECT * FROM events MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts MEASURES A.v AS av, LAST(B.v, 1) AS b1, "
         "SUM(B.v) AS sb, C.v AS cv, MATCH_ROWTIME() AS mt AFTER MATCH SKIP PAST LAST ROW PATTERN (A B{2} C) "
         "DEFINE A AS A.v % 20 < 2) AS m")
#: per key (the parity of v), A at v = 20 j + k, B the next two rows of the key, C the one after
EXPECTED = sorted((k, 20 * j + k, 20 * j + k + 2, 40 * j + 2 * k + 6, 20 * j + k + 6, at(1000 + 5 * (20 * j + k + 6)))
                  for j in range(N // 20) for k in (0, 1) if 20 * j + k + 6 < N)


def _events(env, settings=None):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env, settings)
    # split 0 holds n < 200, split 1 the rest (ahead from the start): no row is late
    event_view(env, t_env, "events", N, lambda n: (1000 + n * 5, n % 2, n))
    return t_env


def test_matches_over_splits_at_different_speeds(env):
    table = _events(env).sql_query(QUERY)
    assert "Match(partitionBy=[k], orderBy=[ts ASC]" in table.explain()
    assert [str(t) for t in table.get_schema().get_field_data_types()] == [
        "BIGINT", "BIGINT", "BIGINT", "BIGINT", "BIGINT", "TIMESTAMP(3) NOT NULL"]
    assert sorted(tuple(r) for r in table.execute().collect()) == EXPECTED


def test_matches_in_batch_mode(env):
    table = _events(env, EnvironmentSettings.in_batch_mode()).sql_query(QUERY)
    assert sorted(tuple(r) for r in table.execute().collect()) == EXPECTED


def test_late_rows_are_dropped_and_counted(env):
    t_env = StreamTableEnvironment.create(env)
    late_row_view(env, t_env)
    result = t_env.sql_query("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.f1 AS a, B.f1 AS b "
                             "PATTERN (A B) DEFINE B AS B.f1 > A.f1) AS m").execute()
    with result.collect() as rows:
        assert [tuple(r) for r in rows] == [(1, 2), (2, 4)]  # 1500 is behind the watermark (4000)
    accumulators = result.get_job_client().get_job_execution_result().result().get_all_accumulator_results()
    assert sum(v for k, v in accumulators.items() if k.startswith("numLateRecordsDropped")) == 1


def _match(pattern: str, define: str = "B AS B.v > A.v", measures: str = "A.v AS av", rows: str = "") -> str:
    return (f"SELECT * FROM events MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts MEASURES {measures} {rows} "
            f"PATTERN ({pattern}) DEFINE {define}) AS m")


@pytest.mark.parametrize("query, message", [
    (_match("A B+"), "Greedy quantifiers are not allowed as the last element of a Pattern yet"),
    (_match("A B+ C?"), "Optional pattern cannot be preceded by greedy pattern"),
    (_match("A B?? C"), "Reluctant optional variables are not supported yet."),
    (_match("A B", rows="ALL ROWS PER MATCH"), "All rows per match mode is not supported yet."),
    (_match("A B", "B AS B.v > PREV(B.v)"), "Flink does not support physical offsets within partition."),
    (_match("A B", "B AS SUM(A.v) > 1"), "the aggregate SUM.* in DEFINE is not supported by Kindling yet"),
    (_match("A B", measures="CLASSIFIER() AS c"), "CLASSIFIER.* is not supported by Kindling yet"),
    (_match("(A | B) C"), "alternatives .* in PATTERN is not supported by Kindling yet"),
    (_match("A B", "X AS X.v > 1"), "DEFINE X names no variable of the PATTERN"),
    (_match("A B").replace("ORDER BY ts", "ORDER BY v"), "You must specify either rowtime or proctime"),
])
def test_what_flink_refuses_is_refused(env, query, message):
    with pytest.raises(ValueError, match=message):
        _events(env).sql_query(query)
