"""LAG, LEAD and OVER windows without ORDER BY (BATCH mode), on Spark's window functions and on the
Python operator (``kindling.table.spark-operators`` false) over a CSV table read as two splits; a
stream's LAG; and what Flink refuses (its words). tests/conformance/programs/table_lag_lead.py
compares them with PyFlink line for line."""
from __future__ import annotations

import re

import pytest

from kindling.common import Configuration, Types
from kindling.common.time import Instant
from kindling.datastream import RuntimeExecutionMode
from kindling.table import DataTypes, Schema, StreamTableEnvironment

#: (k, ts second, v): distinct times, the two files' times interleaved
EVENTS = [(n % 3, (n * 7) % 40, n * 3 % 17) for n in range(40)]


def _environment(env, tmp_path, jvm: bool) -> StreamTableEnvironment:
    env.set_parallelism(2)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    env.configure(Configuration().set_string("kindling.table.spark-operators", str(jvm).lower()))
    for name, part in (("a.csv", EVENTS[:20]), ("b.csv", EVENTS[20:])):
        (tmp_path / name).write_text("".join(f"{k},{v},1970-01-01 00:00:{ts:02}\n"
                                             for k, ts, v in part))
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(f"CREATE TABLE events (k INT, v INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', "
                      f"'path' = '{tmp_path}', 'format' = 'csv')")
    return t_env


def _by_key_in_time() -> dict:
    by_key: dict = {}
    for k, ts, v in sorted(EVENTS, key=lambda e: e[1]):
        by_key.setdefault(k, []).append((ts, v))
    return by_key


@pytest.mark.parametrize("jvm", [True, False])
def test_lag_and_lead_in_batch_mode(env, tmp_path, jvm):
    t_env = _environment(env, tmp_path, jvm)
    table = t_env.sql_query("SELECT k, SECOND(ts), LAG(v) OVER w, LAG(v, 2, -1) OVER w, LEAD(v) OVER w, "
                            "SUM(v) OVER w FROM events WINDOW w AS (PARTITION BY k ORDER BY ts)")
    assert f"[{'Spark JVM' if jvm else 'Python'}, " in next(
        line for line in table.explain().splitlines() if "OverAggregate(" in line)
    want = []
    for k, rows in _by_key_in_time().items():
        values = [v for _, v in rows]
        for i, (ts, v) in enumerate(rows):
            want.append((k, ts, values[i - 1] if i >= 1 else None, values[i - 2] if i >= 2 else -1,
                         values[i + 1] if i + 1 < len(values) else None,
                         sum(values[:i + 1])))
    assert sorted(tuple(r) for r in table.execute().collect()) == sorted(want)
    assert [str(t) for t in table.get_schema().get_field_data_types()[2:4]] == ["INT", "INT NOT NULL"]


@pytest.mark.parametrize("jvm", [True, False])
def test_an_over_window_without_order_is_the_whole_partition(env, tmp_path, jvm):
    t_env = _environment(env, tmp_path, jvm)
    table = t_env.sql_query("SELECT k, v, MAX(v) OVER (PARTITION BY k), COUNT(*) OVER (PARTITION BY k) FROM events")
    whole = {k: (max(v for _, v in rows), len(rows)) for k, rows in _by_key_in_time().items()}
    assert sorted(tuple(r) for r in table.execute().collect()) == sorted(
        (k, v, *whole[k]) for k, _, v in EVENTS)


def _stream(env, rows):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    stream = env.from_collection([(Instant.of_epoch_milli(t), k, v) for t, k, v in rows],
                                 type_info=Types.ROW([Types.INSTANT(), Types.STRING(), Types.INT()]))
    t_env.create_temporary_view("events", t_env.from_data_stream(stream, Schema.new_builder().column_by_expression(
        "ts", "CAST(f0 AS TIMESTAMP(3))").column("f1", DataTypes.STRING()).column("f2", DataTypes.INT())
        .watermark("ts", "ts - INTERVAL '1' SECOND").build()).alias("ts", "k", "v"))
    return t_env


def test_lag_of_a_stream(env):
    t_env = _stream(env, [(1000, "a", 5), (2000, "b", 6), (3000, "a", 7), (4000, "a", 8), (5000, "b", 9)])
    table = t_env.sql_query("SELECT v, LAG(v) OVER w, LAG(v, 2, 0) OVER w FROM events "
                            "WINDOW w AS (PARTITION BY k ORDER BY ts)")
    assert sorted(tuple(r) for r in table.execute().collect()) == [
        (5, None, 0), (6, None, 0), (7, 5, 0), (8, 7, 5), (9, 6, 0)]


@pytest.mark.parametrize("query, words", [
    ("SELECT LEAD(v) OVER (PARTITION BY k ORDER BY ts) FROM events", "LEAD Function is not supported in stream mode."),
    ("SELECT MAX(v) OVER (PARTITION BY k) FROM events", "The window can only be ordered by a single time column."),
    ("SELECT LAG(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM events",
     "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions"),
    ("SELECT LAG(v) OVER (PARTITION BY k) FROM events", "LAG and LEAD need the window's ORDER BY"),
    ("SELECT LAG(v, v) OVER (PARTITION BY k ORDER BY ts) FROM events", "Kindling takes a constant offset"),
    ("SELECT LAG(v) FROM events", "OVER clause is necessary for window functions: LAG(v)"),
])
def test_what_flink_refuses_in_a_stream(env, query, words):
    t_env = _stream(env, [(1000, "a", 5)])
    with pytest.raises(ValueError, match=re.escape(words)):
        t_env.sql_query(query)
