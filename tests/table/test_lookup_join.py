"""Processing-time lookup joins (``JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.k = d.id``)
against ``jdbc`` tables on a real PostgreSQL server and SQLite files (kindling/table/lookup_join.py):
inner and LEFT, several matches per key, more ON conditions, in streaming and batch mode; a change of
the table reaching only the rows processed after it; the PARTIAL cache; the clear errors of an
event-time temporal join, of another connector, of keys of different types or no key."""
from __future__ import annotations

import asyncio
import os
import sqlite3
import time

import pytest

from table_support import collected, quiet_t_env

DIM_ROWS = [(1, "one"), (1, "uno"), (2, "two"), (7, "seven")]
#: ids 1..6, k = id % 4: 1, 2, 3, 0, 1, 2
ORDERS = ("CREATE TABLE orders (id INT, k AS id % 4, proc_time AS PROCTIME()) WITH ('connector' = 'datagen', "
          "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '6')")


def _dim(t_env, url: str, options: str = "") -> None:
    t_env.execute_sql(f"CREATE TABLE dim (id INT, name STRING) WITH ('connector' = 'jdbc', 'url' = '{url}', "
                      f"'table-name' = 'dim'{options})")


@pytest.fixture
def sqlite_url(tmp_path):
    path = tmp_path / "dim.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE dim (id INTEGER, name TEXT)")
        connection.executemany("INSERT INTO dim VALUES (?, ?)", DIM_ROWS)
    return f"jdbc:sqlite:{path}"


@pytest.fixture
def postgres_url(postgres):
    name = postgres.create_database()
    with postgres.connect(name) as connection:
        connection.execute("CREATE TABLE dim (id INT, name TEXT)")
        with connection.cursor() as cursor:
            cursor.executemany("INSERT INTO dim VALUES (%s, %s)", DIM_ROWS)
    return postgres.url(name)


@pytest.mark.parametrize("mode", ["streaming", "batch"])
@pytest.mark.parametrize("database", ["postgres", "sqlite"])
def test_inner_and_left_lookup_joins(spark, request, database, mode):
    url = request.getfixturevalue(f"{database}_url")
    t_env = quiet_t_env(mode)
    t_env.execute_sql(ORDERS)
    # PostgreSQL with a cache (each key read once per parallel instance), SQLite without
    _dim(t_env, url, ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '100', "
                     "'lookup.max-retries' = '1'" if database == "postgres" else "")
    inner = collected(t_env, "SELECT o.id, o.k, d.id, d.name FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF "
                             "o.proc_time AS d ON o.k = d.id")
    assert inner == [(1, 1, 1, "one"), (1, 1, 1, "uno"), (2, 2, 2, "two"), (5, 1, 1, "one"), (5, 1, 1, "uno"),
                     (6, 2, 2, "two")]
    left = collected(t_env, "SELECT o.id, d.name FROM orders AS o LEFT JOIN dim FOR SYSTEM_TIME AS OF o.proc_time "
                            "AS d ON o.k = d.id AND d.name <> 'uno' WHERE o.id < 5")
    assert left == [(1, "one"), (2, "two"), (3, None), (4, None)]


def _rows(path) -> list:
    with sqlite3.connect(path) as connection:
        try:
            return sorted(connection.execute("SELECT * FROM out").fetchall())
        except sqlite3.OperationalError:  # the sink's table is there from the start; a lock may be held
            return []


def test_a_change_of_the_table_reaches_only_the_rows_processed_after_it(spark, tmp_path, sqlite_url):
    # an unbounded probe table (files as they come): the rows of the first file are joined, then the
    # table changes, then the second file's rows see the change while the first's results stay
    incoming = tmp_path / "in"
    incoming.mkdir()
    out = tmp_path / "out.db"
    with sqlite3.connect(out) as connection:
        connection.execute("CREATE TABLE out (id INTEGER, name TEXT)")
    t_env = quiet_t_env("streaming")
    t_env.execute_sql(f"CREATE TABLE orders (id INT, k INT, proc_time AS PROCTIME()) WITH ('connector' = "
                      f"'filesystem', 'path' = '{incoming}', 'format' = 'csv', 'source.monitor-interval' = '200 ms')")
    _dim(t_env, sqlite_url)
    t_env.execute_sql(f"CREATE TABLE out (id INT, name STRING) WITH ('connector' = 'jdbc', 'url' = "
                      f"'jdbc:sqlite:{out}', 'table-name' = 'out')")
    client = t_env.execute_sql("INSERT INTO out SELECT o.id, d.name FROM orders AS o LEFT JOIN dim FOR SYSTEM_TIME "
                               "AS OF o.proc_time AS d ON o.k = d.id").get_job_client()
    try:
        def part(name: str, lines: str, rows: int) -> None:
            (tmp_path / name).write_text(lines)
            os.replace(tmp_path / name, incoming / name)
            deadline = time.monotonic() + 120
            while len(_rows(out)) < rows and time.monotonic() < deadline:
                time.sleep(0.1)

        part("1.csv", "1,2\n2,3\n", 2)
        assert _rows(out) == [(1, "two"), (2, None)]
        with sqlite3.connect(sqlite_url[len("jdbc:sqlite:"):]) as connection:
            connection.execute("UPDATE dim SET name = 'TWO' WHERE id = 2")
            connection.execute("INSERT INTO dim VALUES (3, 'three')")
        part("2.csv", "3,2\n4,3\n", 4)
    finally:
        client.cancel()
    assert _rows(out) == [(1, "two"), (2, None), (3, "TWO"), (4, "three")]


def test_the_partial_cache_serves_a_key_until_it_expires(tmp_path, sqlite_url):
    # the lookup function as a job's task runs it (its keys read together), on a clock of the test's
    from kindling.common.types import Row
    from kindling.common.typeinfo import Types
    from kindling.table.expressions import col
    from kindling.table.lookup_join import LookupCache, LookupFunction, lookup_spec

    now = [0.0]
    options = {"connector": "jdbc", "url": sqlite_url, "table-name": "dim", "lookup.cache": "PARTIAL",
               "lookup.partial-cache.expire-after-write": "10 s", "lookup.partial-cache.max-rows": "2",
               "lookup.partial-cache.cache-missing-key": "false"}
    spec = lookup_spec(options, "dim", ["id", "name"], Types.ROW_NAMED(["id", "name"], [Types.INT(), Types.STRING()]))
    function = LookupFunction(spec, ["id"], [0], [0], ["k", "id", "name"], col("k") == col("id"), outer=True)
    function.open(None)
    function.cache = LookupCache(spec, clock=lambda: now[0])
    reads = []
    read = function.read
    function.read = lambda keys: reads.append(sorted(keys)) or read(keys)

    def look(*keys) -> list:
        async def all_of():
            return await asyncio.gather(*(function.async_invoke(Row(k=k)) for k in keys))
        return [tuple(r) for rows in asyncio.run(all_of()) for r in rows]

    try:
        assert look(2, 1, 2, 9) == [(2, 2, "two"), (1, 1, "one"), (1, 1, "uno"), (2, 2, "two"), (9, None, None)]
        assert reads == [[(1,), (2,), (9,)]]  # one query for the distinct keys
        with sqlite3.connect(sqlite_url[len("jdbc:sqlite:"):]) as connection:
            connection.execute("UPDATE dim SET name = 'TWO' WHERE id = 2")
            connection.execute("INSERT INTO dim VALUES (9, 'nine')")
        now[0] = 9.5
        # 2 is cached (not read again), 9 was missing and missing keys are not cached
        assert look(2, 9) == [(2, 2, "two"), (9, 9, "nine")] and reads[1:] == [[(9,)]]
        now[0] = 10.5  # 2 expired, 1 is the oldest of the 2 rows the cache keeps past 9's
        assert look(2, 1) == [(2, 2, "TWO"), (1, 1, "one"), (1, 1, "uno")] and reads[2:] == [[(1,), (2,)]]
    finally:
        function.close()


def test_temporal_joins_of_unversioned_and_other_tables_fail_naming_what_is_supported(spark, sqlite_url):
    t_env = quiet_t_env("streaming")
    t_env.execute_sql(ORDERS)
    t_env.execute_sql("CREATE TABLE events (id INT, ms BIGINT, ts AS CAST(ms AS TIMESTAMP(3)), WATERMARK FOR ts "
                      "AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '3')")
    t_env.execute_sql("CREATE TABLE rates (id INT, name STRING) WITH ('connector' = 'datagen')")
    _dim(t_env, sqlite_url)
    with pytest.raises(ValueError, match="Temporal Table Join requires primary key in versioned table"):
        t_env.sql_query("SELECT e.id, d.name FROM events AS e JOIN dim FOR SYSTEM_TIME AS OF e.ts AS d "
                        "ON e.id = d.id")
    t_env.execute_sql(f"CREATE TABLE keyed (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                      f"'connector' = 'jdbc', 'url' = '{sqlite_url}', 'table-name' = 'dim')")
    with pytest.raises(ValueError, match="an event-time temporal join needs a versioned table with an event-time "
                                         "attribute"):
        t_env.sql_query("SELECT e.id, d.name FROM events AS e JOIN keyed FOR SYSTEM_TIME AS OF e.ts AS d "
                        "ON e.id = d.id")
    with pytest.raises(ValueError, match="rates is a 'datagen' table; temporal joins against versioned tables are "
                                         "not supported.*processing-time lookup joins against jdbc"):
        t_env.sql_query("SELECT o.id, r.name FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.proc_time AS r "
                        "ON o.k = r.id")


def test_keys_of_different_types_no_key_wrong_options_and_a_missing_table_fail_clearly(spark, sqlite_url):
    t_env = quiet_t_env("streaming")
    t_env.execute_sql("CREATE TABLE orders (id INT, code STRING, proc_time AS PROCTIME()) WITH ("
                      "'connector' = 'datagen', 'number-of-rows' = '3')")
    _dim(t_env, sqlite_url)
    with pytest.raises(ValueError, match=r"same type, but the condition is code\[STRING\]=id\[INT\]"):
        t_env.sql_query("SELECT o.id, d.name FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d "
                        "ON o.code = d.id")
    with pytest.raises(ValueError, match="needs an equality of a column of the probe table and a column of dim"):
        t_env.sql_query("SELECT o.id, d.name FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d "
                        "ON o.id > d.id")
    t_env.execute_sql(f"CREATE TABLE typo (id INT, name STRING) WITH ('connector' = 'jdbc', 'url' = '{sqlite_url}', "
                      "'table-name' = 'dim', 'lookup.cache.maxrows' = '10')")
    with pytest.raises(ValueError, match="Unsupported options for the 'jdbc' connector: lookup.cache.maxrows"):
        t_env.sql_query("SELECT o.id, d.name FROM orders AS o JOIN typo FOR SYSTEM_TIME AS OF o.proc_time AS d "
                        "ON o.id = d.id")
    t_env.execute_sql(f"CREATE TABLE full_cache (id INT, name STRING) WITH ('connector' = 'jdbc', 'url' = "
                      f"'{sqlite_url}', 'table-name' = 'dim', 'lookup.cache' = 'FULL')")
    with pytest.raises(ValueError, match="lookup.cache of full_cache is 'NONE' or 'PARTIAL'"):
        t_env.sql_query("SELECT o.id, d.name FROM orders AS o JOIN full_cache FOR SYSTEM_TIME AS OF o.proc_time AS d "
                        "ON o.id = d.id")
    t_env.execute_sql(f"CREATE TABLE missing (id INT, name STRING) WITH ('connector' = 'jdbc', 'url' = "
                      f"'{sqlite_url}', 'table-name' = 'missing')")
    with pytest.raises(Exception, match="The JDBC lookup could not read jdbc:sqlite:.*no such table: missing"):
        collected(t_env, "SELECT o.id, d.name FROM orders AS o JOIN missing FOR SYSTEM_TIME AS OF o.proc_time AS d "
                         "ON o.id = d.id")
