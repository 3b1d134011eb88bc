"""JdbcSink end to end on Spark (parallelism 2) against a real PostgreSQL server (the ``postgres``
fixture) and SQLite files: inserts, upserts, batching, errors, and restarts from a checkpoint."""
from __future__ import annotations

import socket
import sqlite3
import time
from collections import Counter

import pytest

from kindling.common import Row, Types
from kindling.datastream.connectors.datagen import DataGeneratorSource, RateLimiterStrategy
from kindling.datastream.connectors.jdbc import JdbcConnectionOptions, JdbcExecutionOptions, JdbcSink

ROW = Types.ROW_NAMED(["id", "name", "amount"], [Types.INT(), Types.STRING(), Types.DOUBLE()])


def _options(url: str) -> JdbcConnectionOptions:
    return JdbcConnectionOptions.JdbcConnectionOptionsBuilder().with_url(url) \
        .with_driver_name("org.postgresql.Driver").build()


def _rows(n: int, start: int = 0) -> list[Row]:
    return [Row(i, f"n{i}", i * 1.5) for i in range(start, start + n)]


def _database_with(postgres, ddl: str):
    """A fresh database holding the table ``ddl`` creates; ``(database, query)``, ``query(sql)`` its rows."""
    database = postgres.create_database()
    with postgres.connect(database) as connection:
        connection.execute(ddl)

    def query(sql: str) -> list[tuple]:
        with postgres.connect(database) as connection:
            return connection.execute(sql).fetchall()

    return database, query


@pytest.fixture
def pg(postgres):
    """A fresh database with ``items(id, name, amount)``; ``(url, query)``."""
    database, query = _database_with(
        postgres, "CREATE TABLE items (id INT PRIMARY KEY, name TEXT NOT NULL, amount DOUBLE PRECISION)")
    return postgres.url(database), query


# -- build-time checks -----------------------------------------------------------------------

def test_builders_keep_their_settings_and_flink_defaults():
    options = JdbcConnectionOptions.JdbcConnectionOptionsBuilder().with_url("jdbc:sqlite:x.db") \
        .with_driver_name("org.sqlite.JDBC").with_user_name("u").with_password("p").build()
    assert (options.get_db_url(), options.get_driver_name(), options.get_user_name(), options.get_password()) == \
        ("jdbc:sqlite:x.db", "org.sqlite.JDBC", "u", "p")
    defaults = JdbcExecutionOptions.defaults()
    assert (defaults.get_batch_size(), defaults.get_batch_interval_ms(), defaults.get_max_retries()) == (5000, 0, 3)
    built = JdbcExecutionOptions.builder().with_batch_size(7).with_batch_interval_ms(100).with_max_retries(0).build()
    assert (built.get_batch_size(), built.get_batch_interval_ms(), built.get_max_retries()) == (7, 100, 0)
    with pytest.raises(ValueError, match="batch_size"):
        JdbcExecutionOptions.builder().with_batch_size(0)
    from kindling.datastream.connectors import JdbcSink as exported

    assert exported is JdbcSink


def test_unknown_url_scheme_names_the_supported_ones():
    with pytest.raises(ValueError, match=r"jdbc:mysql://h/db.*jdbc:postgresql:, jdbc:sqlite:"):
        JdbcSink.sink("INSERT INTO t VALUES (?, ?, ?)", ROW, _options("jdbc:mysql://h/db"))


def test_placeholders_must_match_the_row_fields():
    with pytest.raises(ValueError, match="2 '\\?' placeholders but the RowTypeInfo has 3 fields"):
        JdbcSink.sink("INSERT INTO t VALUES (?, '?', ?) -- ?", ROW, _options("jdbc:sqlite:/tmp/x.db"))
    with pytest.raises(TypeError, match="RowTypeInfo"):
        JdbcSink.sink("INSERT INTO t VALUES (?)", Types.INT(), _options("jdbc:sqlite:/tmp/x.db"))


def test_missing_driver_names_the_pip_package(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_psycopg(name, *args, **kwargs):
        if name == "psycopg":
            raise ImportError("No module named 'psycopg'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_psycopg)
    with pytest.raises(ImportError, match=r"pip install 'psycopg\[binary\]'"):
        JdbcSink.sink("INSERT INTO t VALUES (?, ?, ?)", ROW, _options("jdbc:postgresql://127.0.0.1:1/db"))


def test_placeholders_become_the_drivers_style():
    from kindling.graph.specs import JdbcSinkSpec
    from kindling.spark.jdbc import _Database

    spec = JdbcSinkSpec(sql="UPDATE t SET s = '50% ?' || ? WHERE id = ? AND s LIKE 'a%'", type_info=None,
                        url="jdbc:postgresql://127.0.0.1:5/db?user=me&currentSchema=app")
    database = _Database(spec)
    assert database.sql == "UPDATE t SET s = '50%% ?' || %s WHERE id = %s AND s LIKE 'a%%'"
    assert database.connect_args["user"] == "me" and database.connect_args["port"] == "5"
    assert "search_path=app" in database.connect_args["options"]


# -- PostgreSQL ---------------------------------------------------------------------------------

def test_inserts_in_batches_from_parallel_tasks(make_env, pg):
    url, query = pg
    env = make_env()
    env.from_collection(_rows(250), ROW).rebalance() \
        .add_sink(JdbcSink.sink("INSERT INTO items (id, name, amount) VALUES (?, ?, ?)", ROW, _options(url),
                                JdbcExecutionOptions.builder().with_batch_size(7).build()))
    result = env.execute("jdbc insert")
    assert result.get_accumulator_result("records-written:Sink: JdbcSink") == 250
    assert query("SELECT id, name, amount FROM items ORDER BY id") == [(i, f"n{i}", i * 1.5) for i in range(250)]


def test_upsert_keeps_the_last_value_of_each_key(make_env, pg):
    url, query = pg
    env = make_env()
    env.from_collection([Row(i % 10, f"v{i}", float(i)) for i in range(100)], ROW) \
        .key_by(lambda r: r[0]).reduce(lambda a, b: b) \
        .add_sink(JdbcSink.sink("INSERT INTO items (id, name, amount) VALUES (?, ?, ?) "
                                "ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, amount = EXCLUDED.amount",
                                ROW, _options(url), JdbcExecutionOptions.builder().with_batch_size(3).build()))
    env.execute("jdbc upsert")
    assert query("SELECT id, name FROM items ORDER BY id") == [(k, f"v{90 + k}") for k in range(10)]


def test_constraint_violation_fails_the_job_naming_the_database(make_env, pg):
    url, query = pg
    env = make_env()
    env.from_collection([Row(1, "a", 1.0), Row(1, "b", 2.0)], ROW) \
        .add_sink(JdbcSink.sink("INSERT INTO items (id, name, amount) VALUES (?, ?, ?)", ROW, _options(url)))
    with pytest.raises(Exception, match=r"(?s)JdbcSink could not write to jdbc:postgresql://127.*UniqueViolation"):
        env.execute("jdbc duplicate")


def test_value_of_the_wrong_type_fails_clearly(make_env, pg):
    url, _ = pg
    env = make_env()
    env.from_collection([Row(1, 2, 3.0)]) \
        .add_sink(JdbcSink.sink("INSERT INTO items (id, name, amount) VALUES (?, ?, ?)", ROW, _options(url)))
    with pytest.raises(Exception, match=r"field 1 \('name'\) of .* is int 2, which does not fit its declared type"):
        env.execute("jdbc wrong type")


def test_unreachable_database_fails_within_seconds(make_env):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once closed
    env = make_env()
    env.from_collection(_rows(3), ROW).add_sink(JdbcSink.sink(
        "INSERT INTO items (id, name, amount) VALUES (?, ?, ?)", ROW,
        _options(f"jdbc:postgresql://127.0.0.1:{port}/nowhere?user=x&password=secret"),
        JdbcExecutionOptions.builder().with_max_retries(1).build()))
    began = time.monotonic()
    with pytest.raises(Exception, match=rf"could not write to jdbc:postgresql://127.0.0.1:{port}/nowhere\?user=x&password=\*\*\* \(tried 2 times\)"):
        env.execute("jdbc unreachable")
    assert time.monotonic() - began < 60


# -- SQLite -------------------------------------------------------------------------------------

def test_sqlite_inserts_and_upserts(make_env, tmp_path):
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, amount REAL)")
    env = make_env()
    stream = env.from_collection(_rows(40) + [Row(i, f"again{i}", 0.0) for i in range(5)], ROW).rebalance()
    stream.add_sink(JdbcSink.sink("INSERT INTO items (id, name, amount) VALUES (?, ?, ?) "
                                  "ON CONFLICT (id) DO UPDATE SET name = excluded.name || '?'", ROW,
                                  _options(f"jdbc:sqlite:{path}"),
                                  JdbcExecutionOptions.builder().with_batch_size(4).with_batch_interval_ms(1).build()))
    env.execute("sqlite")
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT id, name FROM items ORDER BY id").fetchall()
    assert len(rows) == 40 and rows[10] == (10, "n10")  # no conflict: inserted as is
    again = {i: name for i, name in rows[:5]}
    assert all(name in (f"n{i}?", f"again{i}?") for i, name in again.items())


def test_sqlite_exactly_once(make_env, tmp_path):
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE items (id INTEGER, name TEXT, amount REAL)")
    env = make_env()
    env.from_collection(_rows(100), ROW).rebalance().add_sink(JdbcSink.exactly_once_sink(
        "INSERT INTO items (id, name, amount) VALUES (?, ?, ?)", ROW, _options(f"jdbc:sqlite:{path}")))
    env.execute("sqlite exactly-once")
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT id FROM items ORDER BY id").fetchall() == [(i,) for i in range(100)]
        assert {part for part, in connection.execute("SELECT part FROM kindling_jdbc_commits")} == {0, 1}


def test_sqlite_missing_table_fails_without_retrying(make_env, tmp_path):
    env = make_env()
    env.from_collection(_rows(2), ROW).add_sink(JdbcSink.sink(
        "INSERT INTO missing (id, name, amount) VALUES (?, ?, ?)", ROW, _options(f"jdbc:sqlite:{tmp_path}/e.db")))
    with pytest.raises(Exception, match=r"could not write to jdbc:sqlite:.*e\.db: OperationalError: no such table"):
        env.execute("sqlite missing table")


# -- restarts from a checkpoint -------------------------------------------------------------------

PAIR = Types.ROW([Types.INT(), Types.LONG()])
EVENTS = "CREATE TABLE events (k INT NOT NULL, i BIGINT NOT NULL)"


def _restart_run(make_env, tmp_path, postgres, database: str, sink: JdbcSink, written, stop_when) -> int:
    """Runs an endless generated stream (100 records/s, ``Row(i % 40, i)``) into ``sink``, then into a
    second JDBC sink whose table refuses ``i >= 150``: the micro-batch reaching 150 fails after
    ``sink`` wrote it. With the check dropped, the job runs again from its checkpoint (replaying
    that batch) until ``stop_when(first)``; returns ``first``, ``written()`` after the first run."""
    from kindling.common import WatermarkStrategy

    with postgres.connect(database) as connection:
        connection.execute("CREATE TABLE guard (i BIGINT CONSTRAINT below CHECK (i < 150))")
    checkpoints = str(tmp_path / "checkpoints")

    def start():
        # no restart: checkpointing alone would restart the failing job (exponential-delay, as Flink)
        env = make_env(**{"execution.checkpointing.dir": checkpoints, "restart-strategy.type": "none"})
        env.enable_checkpointing(500)
        stream = env.from_source(DataGeneratorSource(lambda i: Row(i % 40, i), None, RateLimiterStrategy.per_second(100),
                                                     PAIR), WatermarkStrategy.no_watermarks(), "generator")
        stream.add_sink(sink)
        stream.map(lambda r: Row(r[1]), Types.ROW([Types.LONG()])).add_sink(JdbcSink.sink(
            "INSERT INTO guard (i) VALUES (?)", Types.ROW([Types.LONG()]), _options(postgres.url(database)),
            JdbcExecutionOptions.builder().with_max_retries(0).build()))
        return env.execute_async("jdbc restart")

    client = start()
    with pytest.raises(Exception, match="CheckViolation"):
        client.get_job_execution_result().result(timeout=180)
    first = written()
    assert first >= 150, "the first sink did not write the failing batch before the second failed"
    with postgres.connect(database) as connection:
        connection.execute("ALTER TABLE guard DROP CONSTRAINT below")
    client = start()
    try:
        deadline = time.monotonic() + 120
        while not stop_when(first):
            assert time.monotonic() < deadline, "the restarted job wrote too little"
            time.sleep(0.5)
    finally:
        client.cancel()
        try:
            client.get_job_execution_result().result()
        except Exception:
            pass
    return first


def test_restart_with_exactly_once_sink_inserts_each_row_once(make_env, postgres, tmp_path):
    database, query = _database_with(postgres, EVENTS)
    ids = lambda: [r[0] for r in query("SELECT i FROM events ORDER BY i")]  # noqa: E731
    sink = JdbcSink.exactly_once_sink("INSERT INTO events (k, i) VALUES (?, ?)", PAIR, _options(postgres.url(database)))
    first = _restart_run(make_env, tmp_path, postgres, database, sink, lambda: max(ids(), default=0) + 1,
                         lambda first: len(ids()) >= first + 200)
    got = ids()
    assert len(got) == len(set(got)), "a replayed micro-batch was written twice"
    assert got[:first + 200] == list(range(first + 200))  # (the batch running at cancel may be part-written)


def test_restart_with_upsert_writes_each_key_once(make_env, postgres, tmp_path):
    database, query = _database_with(postgres, "CREATE TABLE latest (k INT PRIMARY KEY, i BIGINT NOT NULL)")
    rows = lambda: query("SELECT k, i FROM latest ORDER BY k")  # noqa: E731
    sink = JdbcSink.sink("INSERT INTO latest (k, i) VALUES (?, ?) "
                         "ON CONFLICT (k) DO UPDATE SET i = GREATEST(latest.i, EXCLUDED.i)", PAIR,
                         _options(postgres.url(database)))
    _restart_run(make_env, tmp_path, postgres, database, sink, lambda: max((i for _, i in rows()), default=0) + 1,
                 lambda first: min(i for _, i in rows()) >= first + 100)
    got = rows()
    assert [k for k, _ in got] == list(range(40))
    assert all(i % 40 == k for k, i in got)


def test_restart_with_plain_inserts_duplicates_the_replayed_batch(make_env, postgres, tmp_path):
    """The at-least-once sink with a plain INSERT shows the replay the two tests above survive."""
    database, query = _database_with(postgres, EVENTS)
    ids = lambda: [r[0] for r in query("SELECT i FROM events ORDER BY i")]  # noqa: E731
    sink = JdbcSink.sink("INSERT INTO events (k, i) VALUES (?, ?)", PAIR, _options(postgres.url(database)))
    first = _restart_run(make_env, tmp_path, postgres, database, sink, lambda: max(ids(), default=0) + 1,
                         lambda first: len(set(ids())) >= first + 200)
    got = ids()
    twice = sorted(i for i, n in Counter(got).items() if n > 1)
    assert twice and twice[-1] == first - 1  # at-least-once: the replayed batch (up to the failure) is there twice
    assert twice == list(range(twice[0], first))
    assert sorted(set(got))[:first + 200] == list(range(first + 200))


FAIL_ONCE_AFTER_THE_OTHER_PART = """
CREATE SEQUENCE claims;
CREATE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.i % 20 >= 10 THEN
    IF nextval('claims') = 1 THEN
      FOR attempt IN 1..600 LOOP
        IF EXISTS (SELECT 1 FROM kindling_jdbc_commits WHERE batch = 1) THEN
          RAISE EXCEPTION 'injected failure in the middle of a micro-batch';
        END IF;
        PERFORM pg_sleep(0.1);
      END LOOP;
      RAISE EXCEPTION 'no other transaction of the micro-batch committed within 60 s';
    END IF;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER fail_once BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION fail_once();
"""


def test_exactly_once_replay_after_a_parallelism_change(make_env, postgres, tmp_path):
    """A bounded sequence read in two micro-batches of 20 elements (10 of each of its two splits,
    0-19 and 20-39), into the exactly-once sink. A trigger on the table fails the transaction that
    first inserts a row of the second micro-batch (10-19, 30-39; claimed through a sequence, which no
    rollback resets) once another transaction of the batch has committed its marker; the job is
    started again with parallelism 3 instead of 2 (the sequence keeps its two splits, as Flink keeps
    them in its checkpoint), but each row goes to the part it went to before (chosen by its value), so the
    replay skips the committed part and writes the other: the table holds every row once."""
    database, query = _database_with(postgres, "CREATE TABLE events (i BIGINT NOT NULL)")
    with postgres.connect(database) as connection:
        connection.execute(FAIL_ONCE_AFTER_THE_OTHER_PART)
    url = postgres.url(database)

    def start(parallelism: int):
        env = make_env(**{"execution.checkpointing.dir": str(tmp_path / "checkpoints"),
                          "kindling.source.max-records-per-batch": "20"})
        env.set_parallelism(parallelism)
        env.generate_sequence(0, 39).map(lambda i: Row(i), Types.ROW([Types.LONG()])).add_sink(
            JdbcSink.exactly_once_sink("INSERT INTO events (i) VALUES (?)", Types.ROW([Types.LONG()]),
                                       _options(url)))
        return env.execute_async("jdbc parallelism change")

    ids = lambda: Counter(r[0] for r in query("SELECT i FROM events"))  # noqa: E731
    with pytest.raises(Exception, match="injected failure"):
        start(2).get_job_execution_result().result(300)
    before = ids()
    assert set(range(10)) | set(range(20, 30)) < set(before) < set(range(40))  # the second batch in part
    assert max(before.values()) == 1

    start(3).get_job_execution_result().result(300)
    assert ids() == Counter(range(40))
    # the markers of the last batch's parts (as many as when it first ran) are kept, earlier ones deleted
    assert sorted(query("SELECT batch, part FROM kindling_jdbc_commits")) == [(1, 0), (1, 1)]


def test_marker_table_of_another_layout_fails_naming_it(make_env, postgres):
    database, _ = _database_with(postgres, "CREATE TABLE kindling_jdbc_commits (job TEXT, batch BIGINT, task INT)")
    env = make_env()
    env.from_collection([Row(1)], Types.ROW([Types.LONG()])).add_sink(JdbcSink.exactly_once_sink(
        "INSERT INTO t (i) VALUES (?)", Types.ROW([Types.LONG()]), _options(postgres.url(database))))
    with pytest.raises(Exception, match=r"the table kindling_jdbc_commits is not the \(job, batch, part\) table"):
        env.execute("jdbc old markers")
