"""Nodes Spark's JVM operators compute in bounded jobs (kindling/table/planner/physical.py: frames,
kindling/spark/table/translate.py) give the rows the Python operators give on the same input (both
Flink's: tests/conformance/programs/table_*.py compare them with PyFlink's). The input is CSV files
read as two splits with parallelism 2; ``kindling.table.spark-operators`` and
``kindling.table.spark-aggregation`` false put every node on the Python operators. Explain says
which ran (tests/table/test_explain.py checks that against the job)."""
from __future__ import annotations

from collections import Counter
from decimal import ROUND_HALF_UP, Decimal

import pytest

from kindling.common import Configuration
from kindling.common.types import RowKind
from kindling.datastream import RuntimeExecutionMode
from kindling.table import StreamTableEnvironment
from kindling.table.expressions import col

ORDERS = [(n, None if n % 17 == 0 else f"u{n % 13}", n * 10 % 97) for n in range(1, 201)]
USERS = [(f"u{n}", f"name{n}") for n in range(5, 20)] + [(None, "nobody")]
# an event time shared by pairs of rows of one file (peers of a RANGE frame), none after 2 minutes
EVENTS = [(n, None if n % 17 == 0 else f"u{n % 7}", n * 10 % 97,
           f"2026-01-01 00:{(n - 1) // 120:02}:{(n - 1) // 2 % 60:02}") for n in range(1, 201)]


def _write(directory, name: str, rows: list) -> str:
    """``rows`` as two CSV files (two splits) under ``directory/name``."""
    path = directory / name
    path.mkdir()
    text = lambda part: "".join(",".join("" if v is None else str(v) for v in row) + "\n" for row in part)  # noqa
    half = len(rows) // 2
    (path / "a.csv").write_text(text(rows[:half]))
    (path / "b.csv").write_text(text(rows[half:]))
    return str(path)


def _environment(env, mode: str, jvm: bool, directory) -> StreamTableEnvironment:
    env.set_parallelism(2)
    if mode == "BATCH":
        env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    env.configure(Configuration().set_string("kindling.table.spark-operators", str(jvm).lower())
                  .set_string("kindling.table.spark-aggregation", str(jvm).lower()))
    t_env = StreamTableEnvironment.create(env)
    for name, columns, rows in (("orders", "oid INT, `user` STRING, amount INT", ORDERS),
                                ("users", "uid STRING, name STRING", USERS),
                                ("events", "eid INT, `user` STRING, amount INT, ts TIMESTAMP(3), "
                                 "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND", EVENTS)):
        t_env.execute_sql(f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'filesystem', "
                          f"'path' = '{directory / name}', 'format' = 'csv')")
    return t_env


def _applied(changes, values=tuple) -> Counter:
    """The rows a changelog leaves (each row's ``values``)."""
    rows: Counter = Counter()
    for change in changes:
        rows[values(change)] += -1 if change.get_row_kind() in (RowKind.UPDATE_BEFORE, RowKind.DELETE) else 1
    assert all(n >= 0 for n in rows.values()), "a change retracts a row never emitted"
    return +rows


def _results(env, mode: str, jvm: bool, directory, queries: list, engines: dict, values=tuple) -> list:
    """Each query's changes (sorted) and the rows they leave, of each row's ``values``; checks that explain
    puts the node kinds of ``engines`` (label prefix -> engine when ``jvm``) where it says."""
    t_env = _environment(env, mode, jvm, directory)
    out = []
    for query in queries:
        table = t_env.sql_query(query)
        plan = table.explain()
        for prefix, engine in engines.items():
            lines = [line for line in plan.splitlines() if line.lstrip(" :+|-").startswith(prefix)]
            wanted = engine if jvm else "Python"
            assert lines and all(f"[{wanted}, " in line for line in lines), plan
        with table.execute().collect() as rows:
            changes = list(rows)
        out.append((sorted((str(r.get_row_kind()), str(values(r))) for r in changes), _applied(changes, values)))
    return out


@pytest.fixture
def tables(tmp_path):
    _write(tmp_path, "orders", ORDERS)
    _write(tmp_path, "users", USERS)
    _write(tmp_path, "events", EVENTS)
    return tmp_path


_INNER = ["SELECT oid, name, amount FROM orders JOIN users ON `user` = uid",
          "SELECT oid, name FROM orders JOIN users ON `user` = uid AND amount > 50 AND name <> 'name7'",
          "SELECT a.oid, b.oid AS other FROM orders AS a JOIN orders AS b ON a.`user` = b.`user` AND a.oid + 13 = b.oid"]
_OUTER = ["SELECT oid, name FROM orders LEFT JOIN users ON `user` = uid",
          "SELECT oid, uid, name FROM orders RIGHT JOIN users ON `user` = uid AND amount > 40",
          "SELECT oid, uid FROM orders FULL JOIN users ON `user` = uid AND uid <> 'u7'"]


@pytest.mark.parametrize("mode", ["one step", "BATCH"])
def test_inner_joins_give_the_python_operators_rows(env, tables, mode):
    by_spark = _results(env, mode, True, tables, _INNER, {"Join(": "Spark JVM"})
    assert by_spark == _results(env, mode, False, tables, _INNER, {"Join(": "Python"})
    assert all(len(changes) > 10 for changes, _ in by_spark)


def test_outer_joins_in_batch_mode_give_the_python_operators_rows(env, tables):
    by_spark = _results(env, "BATCH", True, tables, _OUTER, {"Join(": "Spark JVM"})
    assert by_spark == _results(env, "BATCH", False, tables, _OUTER, {"Join(": "Python"})
    assert all(any(None in row for row in rows) for _, rows in by_spark)


def test_left_and_right_joins_in_one_step_are_their_batch_rows_as_inserts(env, tables):
    """In one step a LEFT (RIGHT) join emits its rows as Flink does when every right (left) row comes
    first: each pair and each padded row once, ``+I``; the rows the Python operator's changes leave."""
    by_spark = _results(env, "one step", True, tables, _OUTER[:2], {"Join(": "Spark JVM"})
    by_python = _results(env, "one step", False, tables, _OUTER[:2], {"Join(": "Python"})
    assert [rows for _, rows in by_spark] == [rows for _, rows in by_python]
    assert all(kind == "+I" for changes, _ in by_spark for kind, _ in changes)
    assert all(sum(rows.values()) == len(changes) for changes, rows in by_spark)
    assert all(any("None" in row for _, row in changes) for changes, _ in by_spark)


def test_a_full_outer_join_in_one_step_stays_on_the_python_operator(env, tables):
    t_env = _environment(env, "one step", True, tables)
    plan = t_env.sql_query(_OUTER[2]).explain()
    assert "[Python, one step: a full outer join's changes depend on the order its rows arrive]" in plan


_AFTER_AGGREGATION = [
    "SELECT name, total FROM (SELECT `user`, SUM(amount) AS total FROM orders GROUP BY `user`) JOIN users ON `user` = uid",
    "SELECT `user`, total FROM (SELECT `user`, total, ROW_NUMBER() OVER (ORDER BY total DESC) AS rn FROM "
    "(SELECT `user`, SUM(amount) AS total FROM orders GROUP BY `user`)) WHERE rn <= 3",
    "SELECT n, COUNT(*) AS groups FROM (SELECT `user`, COUNT(*) AS n FROM orders GROUP BY `user`) GROUP BY n",
]


@pytest.mark.parametrize("mode", ["one step", "BATCH"])
def test_an_aggregation_in_a_frame_feeds_any_node(env, tables, mode):
    """In one step its changes (per group in the order they were made) reach a Python join, Top-N and
    aggregation: the rows they leave are the Python operators' (the changes' interleaving across the
    two splits is the arrival order's, which Flink leaves open)."""
    engines = {"GroupAggregate(groupBy=[user]": "Spark JVM"}
    by_spark = _results(env, mode, True, tables, _AFTER_AGGREGATION, engines)
    by_python = _results(env, mode, False, tables, _AFTER_AGGREGATION, {})
    assert [rows for _, rows in by_spark] == [rows for _, rows in by_python]
    if mode == "BATCH":
        assert by_spark == by_python



def test_event_time_nodes_of_a_stream_stay_on_the_python_operators(env, tables):
    """A stream declaring a WATERMARK runs on micro-batches (Flink's watermark follows each element)."""
    t_env = _environment(env, "one step", True, tables)
    for query in _OVER[:1] + _INTERVAL[:1]:
        assert "[Python, micro-batches: the frames of micro-batches are Calcs and Correlates over a scan]" in \
            t_env.sql_query(query).explain()


_WHOLE = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
_OVER = [f"SELECT eid, SUM(amount) OVER w AS total, COUNT(`user`) OVER w AS n, MIN(`user`) OVER w AS first FROM events "
         f"WINDOW w AS (PARTITION BY `user` ORDER BY ts {_WHOLE})",
         "SELECT eid, MAX(amount) OVER w AS top, AVG(amount) OVER w AS mean FROM events "
         "WINDOW w AS (ORDER BY ts RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
         "SELECT eid, SUM(amount) OVER (PARTITION BY `user` ORDER BY ts RANGE BETWEEN INTERVAL '10' SECOND PRECEDING "
         "AND CURRENT ROW) AS recent FROM events",
         "SELECT eid, MIN(amount) OVER (ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS low FROM events"]


def test_over_aggregations_in_batch_mode_give_the_python_operators_rows(env, tables):
    """Ordered by the event time, ROWS frames in arrival order among rows of one time (the rows of one
    file here), RANGE frames sharing a time's values."""
    by_spark = _results(env, "BATCH", True, tables, _OVER, {"OverAggregate(": "Spark JVM"})
    assert by_spark == _results(env, "BATCH", False, tables, _OVER, {"OverAggregate(": "Python"})
    assert all(len(changes) == len(EVENTS) for changes, _ in by_spark)


_RANKS = {  # explain's label -> queries
    "Rank,": ["SELECT * FROM (SELECT eid, `user`, amount, ROW_NUMBER() OVER (PARTITION BY `user` ORDER BY amount DESC) "
              "AS rn FROM events) WHERE rn <= 2",
              "SELECT eid, `user` FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY `user` ORDER BY ts) AS rn "
              "FROM events) WHERE rn = 1",
              "SELECT `user`, amount FROM (SELECT `user`, amount, RANK() OVER (ORDER BY amount) AS r FROM orders) "
              "WHERE r <= 5",
              "SELECT * FROM (SELECT `user`, amount, DENSE_RANK() OVER (PARTITION BY `user` ORDER BY amount DESC) AS r "
              "FROM orders) WHERE r BETWEEN 2 AND 3"],
    "WindowTableFunction(": ["SELECT window_start, eid, amount, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
                             "window_start, window_end ORDER BY amount DESC) AS rn FROM TABLE(TUMBLE(TABLE events, "
                             "DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rn <= 3"]}


@pytest.mark.parametrize("label", list(_RANKS))
def test_top_n_and_deduplication_in_batch_mode_give_the_python_operators_rows(env, tables, label):
    """Top-N, deduplication (rank 1) and a Top-N per window: each partition's rows in range, once."""
    queries = _RANKS[label]
    by_spark = _results(env, "BATCH", True, tables, queries, {"Rank,": "Spark JVM", label: "Spark JVM"})
    assert by_spark == _results(env, "BATCH", False, tables, queries, {label: "Python"})
    assert all(len(changes) > 5 for changes, _ in by_spark)


_INTERVAL = ["SELECT a.eid, b.eid AS other FROM events AS a JOIN events AS b ON a.`user` = b.`user` "
             "AND a.ts BETWEEN b.ts - INTERVAL '3' SECOND AND b.ts + INTERVAL '2' SECOND",
             "SELECT a.eid, b.eid AS other FROM events AS a LEFT JOIN events AS b ON a.`user` = b.`user` "
             "AND a.ts >= b.ts + INTERVAL '1' SECOND AND a.ts < b.ts + INTERVAL '4' SECOND AND b.amount > 40",
             "SELECT a.eid, b.eid AS other FROM events AS a FULL JOIN events AS b ON a.`user` = b.`user` "
             "AND a.ts BETWEEN b.ts AND b.ts + INTERVAL '1' SECOND AND a.eid <> b.eid"]


def test_interval_joins_in_batch_mode_give_the_python_operators_rows(env, tables):
    """Pairs of one key within the bounds, an outer side's rows that joined none padded with nulls."""
    by_spark = _results(env, "BATCH", True, tables, _INTERVAL, {"IntervalJoin(": "Spark JVM"})
    assert by_spark == _results(env, "BATCH", False, tables, _INTERVAL, {"IntervalJoin(": "Python"})
    assert all(len(changes) > 10 for changes, _ in by_spark)
    assert all(any(None in row for row in rows) for _, rows in by_spark[1:])



def _to_scale_6(row) -> tuple:
    """The row's DECIMALs rounded half up to at most 6 fraction digits, trailing zeros dropped."""
    return tuple(v.quantize(Decimal("0.000001"), ROUND_HALF_UP).normalize() if isinstance(v, Decimal) else v
                 for v in row)


def _defined(results: list, mode: str) -> list:
    """What Flink defines of :func:`_results`: in one step, the rows the changes leave (a group's rows
    come from two splits, in no defined order)."""
    return [rows for _, rows in results] if mode == "one step" else results


def _of_scale_6(row) -> tuple:
    """The row (trailing zeros dropped), whose DECIMALs have at most 6 fraction digits."""
    assert all(v.as_tuple().exponent >= -6 for v in row if isinstance(v, Decimal)), row
    return _to_scale_6(row)


_DECIMAL = ["SELECT `user`, SUM(d) AS s, AVG(d) AS a, SUM0(d) AS z, MIN(d) AS low, MAX(d) AS high, COUNT(d) AS n "
            "FROM (SELECT `user`, CAST(amount AS DECIMAL(10, 2)) * 0.13 AS d FROM orders) GROUP BY `user`"]


@pytest.mark.parametrize("mode", ["one step", "BATCH"])
def test_decimal_aggregates_give_the_python_operators_rows(env, tables, mode):
    """SUM(DECIMAL(p, s)) is DECIMAL(38, s), AVG DECIMAL(38, max(6, s)) rounded half up once, as Flink's
    (tests/conformance/programs/table_decimal_aggregates.py): Spark's exact DECIMAL arithmetic up to
    scale 6; beyond it, a sum stays on the Python operator."""
    t_env = _environment(env, mode, True, tables)
    table = t_env.sql_query(_DECIMAL[0])  # d: DECIMAL(13, 4)
    assert [str(t) for t in table.get_schema().get_field_data_types()[1:3]] == ["DECIMAL(38, 4)", "DECIMAL(38, 6)"]
    by_spark = _results(env, mode, True, tables, _DECIMAL, {"GroupAggregate(": "Spark JVM"}, _of_scale_6)
    assert any(row[2] == Decimal("5.353636") for _, rows in by_spark for row in rows)  # 58.89 / 11, to scale 6
    # the Python operator's AVG keeps more digits than its type's until a sink writes it
    by_python = _results(env, mode, False, tables, _DECIMAL, {"GroupAggregate(": "Python"}, _to_scale_6)
    assert _defined(by_spark, mode) == _defined(by_python, mode)
    wide = t_env.sql_query(_DECIMAL[0].replace("* 0.13", "/ 7"))  # d: DECIMAL(23, 13)
    assert "[Python, " in next(line for line in wide.explain().splitlines() if "GroupAggregate(" in line)


_DISTINCT = ["SELECT `user`, COUNT(DISTINCT a) AS n, SUM(DISTINCT a) AS s, AVG(DISTINCT a) AS mean, MIN(DISTINCT a) "
             "AS low, COUNT(*) AS c, SUM(a) AS total FROM (SELECT `user`, amount % 7 AS a FROM orders) GROUP BY `user`",
             "SELECT window_start, COUNT(DISTINCT `user`) AS users, SUM(DISTINCT amount) AS s FROM TABLE(TUMBLE(TABLE "
             "events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end"]


@pytest.mark.parametrize("mode", ["one step", "BATCH"])
def test_distinct_aggregates_give_the_python_operators_rows(env, tables, mode):
    """BATCH: a group's rows aggregated at once; one step: changes after every row, of the values each
    group sees first (a value seen before changes nothing)."""
    by_spark = _results(env, mode, True, tables, _DISTINCT[:1], {"GroupAggregate(": "Spark JVM"})
    by_python = _results(env, mode, False, tables, _DISTINCT[:1], {"GroupAggregate(": "Python"})
    assert _defined(by_spark, mode) == _defined(by_python, mode)
    if mode == "one step":
        return
    by_spark = _results(env, "BATCH", True, tables, _DISTINCT[1:], {"WindowAggregate(": "Spark JVM"})
    assert by_spark == _results(env, "BATCH", False, tables, _DISTINCT[1:], {})


_SET_OPERATIONS = [
    "SELECT NULLIF(`user`, 'u3'), oid % 2 FROM orders INTERSECT SELECT NULLIF(`user`, 'u3'), oid % 3 FROM orders",
    "SELECT `user`, amount % 5 FROM orders INTERSECT ALL SELECT `user`, amount % 7 FROM orders WHERE oid > 50",
    "SELECT `user`, amount % 5 FROM orders EXCEPT SELECT `user`, amount % 7 FROM orders WHERE oid > 50",
    "SELECT `user`, amount % 5 FROM orders EXCEPT ALL SELECT `user`, amount % 7 FROM orders WHERE oid > 50",
]


def test_set_operations_in_batch_mode_give_the_python_operators_rows(env, tables):
    by_spark, by_python = [], []
    for queries, label in ((_SET_OPERATIONS[:2], "Intersect"), (_SET_OPERATIONS[2:], "Minus")):
        by_spark += _results(env, "BATCH", True, tables, queries, {label: "Spark JVM"})
        by_python += _results(env, "BATCH", False, tables, queries, {label: "Python"})
    assert by_spark == by_python
    assert all(rows for _, rows in by_spark) and any(n > 1 for _, rows in by_spark for n in rows.values())
    assert any(row[0] is None for _, rows in by_spark for row in rows)  # NULLs are equal in a set operation


def test_set_operations_of_floats_stay_on_the_python_operator(env, tables):
    t_env = _environment(env, "BATCH", True, tables)
    plan = t_env.sql_query("SELECT CAST(amount AS DOUBLE) FROM orders INTERSECT SELECT CAST(oid AS DOUBLE) FROM orders").explain()
    assert "a column of type DOUBLE, whose equality Spark decides otherwise than Flink" in plan


_SORTS = ["SELECT * FROM orders ORDER BY `user`, oid",
          "SELECT * FROM orders ORDER BY `user` DESC, amount, oid DESC LIMIT 50 OFFSET 7",
          "SELECT `user`, COUNT(*) AS c FROM orders GROUP BY `user` ORDER BY c DESC, `user`",
          "SELECT oid, NULLIF(`user`, 'u3') AS u FROM orders ORDER BY u DESC, oid LIMIT 40"]


def test_sorts_in_batch_mode_give_the_python_operators_rows_in_its_order(env, tables):
    ordered = {}
    for jvm in (True, False):
        t_env = _environment(env, "BATCH", jvm, tables)
        ordered[jvm] = []
        for query in _SORTS:
            table = t_env.sql_query(query)
            assert "Sort(orderBy=[" in table.explain().splitlines()[1]
            assert f"[{'Spark JVM' if jvm else 'Python'}, BATCH" in table.explain().splitlines()[1]
            with table.execute().collect() as rows:
                ordered[jvm].append([tuple(r) for r in rows])
        table = t_env.sql_query("SELECT oid, NULLIF(`user`, 'u3') AS u FROM orders") \
            .order_by(col("u").desc, col("oid")).fetch(30)  # the Table API's nulls are the largest values
        with table.execute().collect() as rows:
            ordered[jvm].append([tuple(r) for r in rows])
    assert ordered[True] == ordered[False]
    assert [len(rows) for rows in ordered[True]] == [200, 50, 14, 40, 30]
    # descending, SQL's nulls come last (the smallest values), the Table API's first (the largest)
    assert None not in [u for _, u in ordered[True][3]] and ordered[True][4][0][1] is None
