"""Nodes Spark's JVM operators compute in bounded jobs (kindling/table/planner/physical.py: frames,
kindling/spark/table/translate.py) give the rows the Python operators give on the same input (both
Flink's: tests/conformance/programs/table_*.py compare them with PyFlink's). The input is CSV files
read as two splits with parallelism 2; ``kindling.table.spark-operators`` and
``kindling.table.spark-aggregation`` false put every node on the Python operators. Explain says
which ran (tests/table/test_explain.py checks that against the job)."""
from __future__ import annotations

from collections import Counter

import pytest

from kindling.common import Configuration
from kindling.common.types import RowKind
from kindling.datastream import RuntimeExecutionMode
from kindling.table import StreamTableEnvironment

ORDERS = [(n, None if n % 17 == 0 else f"u{n % 13}", n * 10 % 97) for n in range(1, 201)]
USERS = [(f"u{n}", f"name{n}") for n in range(5, 20)] + [(None, "nobody")]


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
                                ("users", "uid STRING, name STRING", USERS)):
        t_env.execute_sql(f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'filesystem', "
                          f"'path' = '{directory / name}', 'format' = 'csv')")
    return t_env


def _applied(changes) -> Counter:
    """The rows a changelog leaves."""
    rows: Counter = Counter()
    for change in changes:
        rows[tuple(change)] += -1 if change.get_row_kind() in (RowKind.UPDATE_BEFORE, RowKind.DELETE) else 1
    assert all(n >= 0 for n in rows.values()), "a change retracts a row never emitted"
    return +rows


def _results(env, mode: str, jvm: bool, directory, queries: list, engines: dict) -> list:
    """Each query's changes (sorted) and the rows they leave; checks that explain puts the node kinds
    of ``engines`` (label prefix -> engine when ``jvm``) where it says."""
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
        out.append((sorted((str(r.get_row_kind()), str(tuple(r))) for r in changes), _applied(changes)))
    return out


@pytest.fixture
def tables(tmp_path):
    _write(tmp_path, "orders", ORDERS)
    _write(tmp_path, "users", USERS)
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


def test_outer_joins_in_one_step_stay_on_the_python_operator(env, tables):
    t_env = _environment(env, "one step", True, tables)
    plan = t_env.sql_query(_OUTER[0]).explain()
    assert "[Python, one step: an outer join's changes depend on the order its rows arrive]" in plan


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
