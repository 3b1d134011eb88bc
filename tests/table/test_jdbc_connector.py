"""The ``jdbc`` table connector against a real PostgreSQL server (the session's ``postgres``
fixture) and SQLite files: a bounded scan (in one split, or partitioned by a column's ranges), an
append sink, and an upsert sink when the table declares a PRIMARY KEY (an updating query's
changes: ``+U`` upserts, ``-D`` deletes), in streaming and batch mode; the sink is the DataStream
JdbcSink (retries, batching, restarts: tests/connectors/test_jdbc.py)."""
from __future__ import annotations

import sqlite3

import pytest

from table_support import collected, quiet_t_env



@pytest.fixture
def database(postgres):
    """A fresh database with ``items`` (7 rows) and an empty ``totals``; ``(url, query)``."""
    name = postgres.create_database()
    with postgres.connect(name) as connection:
        connection.execute("CREATE TABLE items (id INT PRIMARY KEY, name TEXT, price DOUBLE PRECISION, "
                           "at TIMESTAMP)")
        connection.execute("INSERT INTO items SELECT i, 'n' || (i % 3), i * 1.5, TIMESTAMP '2024-01-01' + "
                           "i * INTERVAL '1 second' FROM generate_series(1, 7) AS i")
        connection.execute("CREATE TABLE totals (name TEXT PRIMARY KEY, n BIGINT)")
        connection.execute("CREATE TABLE copies (id INT, name TEXT)")

    def query(sql: str) -> list:
        with postgres.connect(name) as connection:
            return sorted(connection.execute(sql).fetchall())

    return postgres.url(name), query


def _tables(t_env, url: str, partitioned: bool) -> None:
    partitions = (", 'scan.partition.column' = 'id', 'scan.partition.num' = '3', 'scan.partition.lower-bound' = '1',"
                  " 'scan.partition.upper-bound' = '7'") if partitioned else ""
    t_env.execute_sql(f"CREATE TABLE items (id INT, name STRING, price DOUBLE, at TIMESTAMP(3)) WITH ("
                      f"'connector' = 'jdbc', 'url' = '{url}', 'table-name' = 'items'{partitions})")
    t_env.execute_sql(f"CREATE TABLE totals (name STRING, n BIGINT, PRIMARY KEY (name) NOT ENFORCED) WITH ("
                      f"'connector' = 'jdbc', 'url' = '{url}', 'table-name' = 'totals')")
    t_env.execute_sql(f"CREATE TABLE copies (id INT, name STRING) WITH ('connector' = 'jdbc', 'url' = '{url}', "
                      "'table-name' = 'copies', 'sink.buffer-flush.max-rows' = '2')")


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_postgres_scan_append_and_upsert(spark, database, mode):
    url, query = database
    t_env = quiet_t_env(mode)
    _tables(t_env, url, partitioned=mode == "streaming")
    rows = collected(t_env, "SELECT id, name, price, at FROM items WHERE id > 5")
    assert [r[:3] for r in rows] == [(6, "n0", 9.0), (7, "n1", 10.5)] and str(rows[0][3]) == "2024-01-01 00:00:06"
    statements = t_env.create_statement_set()
    statements.add_insert_sql("INSERT INTO totals SELECT name, COUNT(*) FROM items GROUP BY name")
    statements.add_insert_sql("INSERT INTO copies SELECT id, name FROM items")
    statements.execute().wait()
    assert query("SELECT * FROM totals") == [("n0", 2), ("n1", 3), ("n2", 2)]
    assert query("SELECT * FROM copies") == [(i, f"n{i % 3}") for i in range(1, 8)]


def test_upsert_sink_deletes_a_key_whose_row_is_retracted(spark, tmp_path):
    path = tmp_path / "t.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE best (k TEXT PRIMARY KEY, v BIGINT)")
        connection.execute("INSERT INTO best VALUES ('gone', 1)")
    t_env = quiet_t_env("streaming")
    t_env.execute_sql(f"CREATE TABLE best (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ("
                      f"'connector' = 'jdbc', 'url' = 'jdbc:sqlite:{path}', 'table-name' = 'best')")
    t_env.create_temporary_view("changes", t_env.from_elements([("a", 1), ("a", 5), ("b", 2), ("c", 3)], ["k", "v"]))
    # 'a' passes the filter with the sum 1, then its update to 6 retracts it: the count of 'a'
    # is inserted, then deleted (-D); the sink runs the DELETE after the upsert, in order
    t_env.execute_sql("INSERT INTO best SELECT k, COUNT(*) FROM (SELECT k, SUM(v) AS s FROM changes GROUP BY k) "
                      "WHERE s < 5 GROUP BY k").wait()
    with sqlite3.connect(path) as connection:
        assert sorted(connection.execute("SELECT * FROM best").fetchall()) == [("b", 1), ("c", 1), ("gone", 1)]


def test_wrong_options_and_an_unreachable_server_fail_clearly(spark, tmp_path):
    t_env = quiet_t_env("batch")
    t_env.execute_sql("CREATE TABLE x (id INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://h/db', "
                      "'table-name' = 'x')")
    with pytest.raises(ValueError, match="unsupported JDBC URL 'jdbc:mysql://h/db'"):
        t_env.from_path("x")
    t_env.execute_sql("CREATE TABLE y (id INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:sqlite:/tmp/y.db', "
                      "'table-name' = 'y', 'scan.partition.column' = 'id')")
    with pytest.raises(ValueError, match="all or none"):
        t_env.from_path("y")
    t_env.execute_sql("CREATE TABLE z (id INT) WITH ('connector' = 'jdbc', 'url' = "
                      "'jdbc:postgresql://127.0.0.1:9/none?connectTimeout=2', 'table-name' = 'z')")
    with pytest.raises(Exception, match=r"could not read z from jdbc:postgresql://127\.0\.0\.1:9/none"):
        collected(t_env, "SELECT * FROM z")
    streaming = quiet_t_env("streaming")  # where a count is updating
    streaming.create_temporary_view("w", streaming.from_elements([("a",)], ["k"]))
    streaming.execute_sql(f"CREATE TABLE counts (k STRING, n BIGINT) WITH ('connector' = 'jdbc', "
                          f"'url' = 'jdbc:sqlite:{tmp_path}/c.db', 'table-name' = 'counts')")
    with pytest.raises(ValueError, match="doesn't support consuming update.*PRIMARY KEY"):
        streaming.execute_sql("INSERT INTO counts SELECT k, COUNT(*) FROM w GROUP BY k")
