"""Window joins: the operator's semantics on the harness (a window's rows joined when the watermark passes
its end, outer sides padded, semi and anti joins, late rows dropped and counted, the window's state
cleared) and the SQL planner's choice on Spark (a window join of splits whose event times advance at
different speeds; different windows stay a regular join; Flink's refusals).
tests/conformance/programs/table_window_join.py compares more queries with PyFlink."""
from __future__ import annotations

import datetime

import pytest
from event_views import event_view

from kindling.common.types import Row, RowKind
from kindling.runtime.co_functions import KeyedCoProcessAdapter, SideKeySelector, Tagged
from kindling.runtime.table.window_join import WindowJoinFunction
from kindling.table import StreamTableEnvironment
from kindling.table.expressions import col
from kindling.testing import KeyedProcessFunctionTestHarness

LEFT, RIGHT = ["k", "v", "window_end"], ["k0", "w", "window_end0"]


def at(ms: int) -> datetime.datetime:
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)


def _harness(left_outer=False, right_outer=False, existence=None, condition=None):
    predicate = (col("k") == col("k0")) & (col("window_end") == col("window_end0"))
    function = WindowJoinFunction(LEFT, RIGHT, 2, 2, predicate if condition is None else predicate & condition,
                                  left_outer, right_outer, existence)
    return function, KeyedProcessFunctionTestHarness(KeyedCoProcessAdapter(function),
                                                     SideKeySelector(lambda r: r[0], lambda r: r[0]))


def _feed(harness):
    """Window [0, 10): left a1, a2, b1 and right a9, c9; window [10, 20): left a3."""
    harness.process_element(Tagged(0)(Row("a", 1, at(10))))
    harness.process_element(Tagged(1)(Row("a", 9, at(10))))
    harness.process_element(Tagged(0)(Row("b", 1, at(10))))
    harness.process_element(Tagged(0)(Row("a", 2, at(10))))
    harness.process_element(Tagged(1)(Row("c", 9, at(10))))
    harness.process_element(Tagged(0)(Row("a", 3, at(20))))


def _values(harness) -> list:
    return sorted(((tuple(r[:2]), tuple(r[3:5])) for r in harness.extract_output_values()), key=repr)


@pytest.mark.parametrize("outer, expected", [
    ((False, False), [(("a", 1), ("a", 9)), (("a", 2), ("a", 9))]),
    ((True, False), [(("a", 1), ("a", 9)), (("a", 2), ("a", 9)), (("b", 1), (None, None))]),
    ((False, True), [((None, None), ("c", 9)), (("a", 1), ("a", 9)), (("a", 2), ("a", 9))]),
    ((True, True), [((None, None), ("c", 9)), (("a", 1), ("a", 9)), (("a", 2), ("a", 9)), (("b", 1), (None, None))]),
])
def test_a_windows_rows_join_once_when_the_watermark_passes_its_end(outer, expected):
    _, harness = _harness(*outer)
    with harness:
        _feed(harness)
        harness.process_watermark(8)
        assert harness.extract_output_values() == []
        harness.process_watermark(9)
        assert _values(harness) == sorted(expected, key=repr)
        assert all(r.get_row_kind() is RowKind.INSERT for r in harness.extract_output_values())
        assert harness.num_keys_with_state() == 1  # only a's window [10, 20) is kept


def test_semi_and_anti_joins_emit_the_left_rows_with_or_without_a_partner_in_their_window():
    for existence, expected in (("SEMI", [("a", 1), ("a", 2)]), ("ANTI", [("b", 1)])):
        _, harness = _harness(existence=existence)
        with harness:
            _feed(harness)
            harness.process_watermark(9)
            assert sorted(tuple(r) for r in harness.extract_output_values()) == [(*e, at(10)) for e in expected]


def test_the_rest_of_the_condition_decides_the_partners():
    _, harness = _harness(True, False, condition=col("v") > 1)
    with harness:
        _feed(harness)
        harness.end_input()
        assert _values(harness) == sorted([(("a", 1), (None, None)), (("a", 2), ("a", 9)), (("a", 3), (None, None)),
                                           (("b", 1), (None, None))], key=repr)


def test_rows_of_a_fired_window_are_late_dropped_and_counted():
    function, harness = _harness(True, True)
    with harness:
        harness.process_element(Tagged(0)(Row("a", 1, at(10))))
        harness.process_watermark(9)
        harness.process_element(Tagged(1)(Row("a", 9, at(10))))
        harness.process_element(Tagged(0)(Row("a", 2, at(20))))
        harness.end_input()
        assert _values(harness) == sorted([(("a", 1), (None, None)), (("a", 2), (None, None))], key=repr)
        assert function.take_late_records_dropped() == 1
        assert harness.num_keys_with_state() == 0


def _view(t_env, env, name: str, spacing: int, offset: int = 0):
    """A view ``name`` of rows ``(ts, id, v)`` of ids 0..199, event time id * spacing + offset ms; with
    parallelism 2 its splits' event times advance at different speeds."""
    event_view(env, t_env, name, 200, lambda n: (n * spacing + offset, n % 10, n), ("ts", "id", "v"))


def _tumbling(table: str) -> str:
    return f"(SELECT * FROM TABLE(TUMBLE(TABLE {table}, DESCRIPTOR(ts), INTERVAL '0.1' SECOND)))"


def test_a_window_join_over_splits_at_different_speeds(env):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    _view(t_env, env, "a", 5)
    _view(t_env, env, "b", 5, offset=2)
    query = (f"SELECT a.v, b.v, a.window_start FROM {_tumbling('a')} a FULL JOIN {_tumbling('b')} b "
             "ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.id = b.id AND b.v % 7 <> 0")
    table = t_env.sql_query(query)
    assert "WindowJoin(window=[TUMBLE(time_col=[ts], size=100 ms)], joinType=[FullOuterJoin]" in table.explain()
    with table.execute().collect() as rows:
        got = sorted(((r[0], r[1]) for r in rows if r.get_row_kind() is RowKind.INSERT), key=repr)
    # rows n and n + 10 share an id; they share a window of 100 ms (20 rows) when n // 20 == (n + 10) // 20
    expected = sorted([(n, m) for n in range(200) for m in range(200) if n % 10 == m % 10 and n // 20 == m // 20
                       and m % 7 != 0] + [(n, None) for n in range(200) if all(
                           m % 7 == 0 for m in range(200) if n % 10 == m % 10 and n // 20 == m // 20)]
                      + [(None, m) for m in range(200) if m % 7 == 0], key=repr)
    assert got == expected


def test_other_windows_are_a_regular_join_and_processing_time_windows_are_refused_as_flink_does(env):
    t_env = StreamTableEnvironment.create(env)
    _view(t_env, env, "a", 5)
    _view(t_env, env, "b", 5)
    other = _tumbling("b").replace("'0.1'", "'0.2'")
    regular = t_env.sql_query(f"SELECT a.v FROM {_tumbling('a')} a JOIN {other} b ON a.window_start = b.window_start "
                              "AND a.window_end = b.window_end AND a.id = b.id")
    assert regular.explain().startswith("== Kindling Plan ==\nCalc") and "WindowJoin" not in regular.explain()
    session = _tumbling("b").replace("TUMBLE", "SESSION")
    with pytest.raises(ValueError, match="window join of SESSION windows is not supported by Kindling"):
        t_env.sql_query(f"SELECT a.v FROM {session.replace('b,', 'a,')} a JOIN {session} b "
                        "ON a.window_start = b.window_start AND a.window_end = b.window_end")


def test_a_window_join_after_a_window_aggregation_is_refused_by_name(env):
    t_env = StreamTableEnvironment.create(env)
    _view(t_env, env, "a", 5)
    totals = ("(SELECT id, window_start, window_end, SUM(v) AS total FROM TABLE(TUMBLE(TABLE {}, DESCRIPTOR(ts), "
              "INTERVAL '0.1' SECOND)) GROUP BY id, window_start, window_end)")
    with pytest.raises(ValueError, match="window join after a window aggregation or a window Top-N is not supported"):
        t_env.sql_query(f"SELECT x.total FROM {totals.format('a')} x LEFT JOIN {_tumbling('a')} y "
                        "ON x.window_start = y.window_start AND x.window_end = y.window_end AND x.id = y.id")
