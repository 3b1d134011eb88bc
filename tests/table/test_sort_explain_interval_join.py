"""Streaming ORDER BY on the time attribute and LIMIT, EXPLAIN, interval joins and the temporal join's
error, on Spark: a sort and an interval join over splits whose event times advance at different
speeds. tests/conformance/programs/table_sort_interval_join.py compares more queries with PyFlink."""
from __future__ import annotations

import pytest

from event_views import event_view

from kindling.table import StreamTableEnvironment

N = 1000


def _view(t_env, env, name: str, count: int, spacing: int, offset: int = 0):
    """A view ``name`` of rows ``(ts, id, v)``: ids 0.., event time 1000 + id * spacing + offset ms;
    with parallelism 2 its two splits' event times advance at different speeds."""
    event_view(env, t_env, name, count, lambda n: (1000 + n * spacing + offset, n, n * 10), ("ts", "id", "v"))


def test_a_stream_sorted_on_its_time_over_splits_at_different_speeds(env):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    _view(t_env, env, "events", N, 3)
    with t_env.sql_query("SELECT id FROM events ORDER BY ts").execute().collect() as rows:
        assert [r[0] for r in rows] == list(range(N))


def test_interval_joins_over_splits_at_different_speeds(env):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    _view(t_env, env, "a", N, 2)
    _view(t_env, env, "b", N, 2, offset=3)  # b's row n is 3 ms after a's
    query = ("SELECT a.id, b.v FROM a LEFT JOIN b ON a.id = b.id AND a.ts BETWEEN b.ts - INTERVAL '0.005' SECOND "
             "AND b.ts - INTERVAL '0.002' SECOND AND b.v % 7 <> 0")
    with t_env.sql_query(query).execute().collect() as rows:
        got = sorted(tuple(r) for r in rows)
    assert got == [(n, None if n % 7 == 0 else n * 10) for n in range(N)]


def test_a_table_api_join_bounding_the_event_times_is_an_interval_join(env):
    from kindling.table.expressions import col, lit

    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    _view(t_env, env, "a", N, 2)
    _view(t_env, env, "b", N, 2, offset=3)
    a = t_env.from_path("a").select(col("ts").alias("ats"), col("id").alias("aid"))
    b = t_env.from_path("b").select(col("ts").alias("bts"), col("id").alias("bid"), col("v"))
    joined = a.left_outer_join(b, (col("aid") == col("bid")) & (col("ats") >= col("bts") - lit(5).millis)
                               & (col("bts") - lit(2).millis >= col("ats")) & (col("v") % 7 != 0))
    assert "IntervalJoin(joinType=[LeftOuterJoin]" in joined.explain()
    with joined.select(col("aid"), col("v")).execute().collect() as rows:
        assert sorted(tuple(r) for r in rows) == [(n, None if n % 7 == 0 else n * 10) for n in range(N)]


def test_explain_prints_kindlings_plan(env, capsys):
    t_env = StreamTableEnvironment.create(env)
    t_env.create_temporary_view("orders", t_env.from_elements([(1, "a", 10)], ["id", "u", "amount"]))
    table = t_env.sql_query("SELECT u, SUM(amount) AS total FROM orders WHERE amount > 1 GROUP BY u")
    assert table.explain() == (
        "== Kindling Plan ==\n"
        "GroupAggregate(groupBy=[u], select=[u, sum(amount) AS total]) [Spark JVM, one step], "
        "changelogMode=[I,UB,UA,D]\n"
        "+- Calc(where=[(amount > 1)]) [Spark JVM, one step], changelogMode=[I]\n"
        "   +- TableSourceScan(table=[from_elements], fields=[id, u, amount]) [Spark JVM, one step], "
        "changelogMode=[I]\n")
    t_env.execute_sql("EXPLAIN PLAN FOR SELECT u FROM orders").print()
    assert capsys.readouterr().out == ("== Kindling Plan ==\nCalc(select=[u]) [Spark JVM, one step], changelogMode=[I]\n"
                                       "+- TableSourceScan(table=[from_elements], fields=[id, u, amount]) "
                                       "[Spark JVM, one step], changelogMode=[I]\n\n")
    with pytest.raises(ValueError, match="EXPLAIN CHANGELOG_MODE is not supported"):
        t_env.execute_sql("EXPLAIN CHANGELOG_MODE SELECT u FROM orders")


def test_what_flink_refuses_on_a_stream_fails_with_its_error(env):
    t_env = StreamTableEnvironment.create(env)
    _view(t_env, env, "events", 10, 1)
    table = t_env.sql_query("SELECT * FROM events ORDER BY v")
    assert table.get_schema().get_field_names() == ["ts", "id", "v"]  # as in Flink, the job fails, not the query
    with pytest.raises(ValueError, match="Sort on a non-time-attribute field is not supported."):
        table.execute()
    with pytest.raises(ValueError, match="Temporal Table Join requires primary key in versioned table"):
        t_env.sql_query("SELECT * FROM events AS e JOIN events FOR SYSTEM_TIME AS OF e.ts AS r ON e.id = r.id")
