"""An inner join on micro-batches is Spark's stream-stream join inside the job's streaming query
(kindling/spark/table/join.py ``streamed_pairs``): the same pairs as Flink's join, each once, across
micro-batches whose sides advance at different speeds, at parallelism 1 and 2, from Kindling's
sources and from Spark's file stream source, when a batch is replayed after a failure; print and
collect sinks get them in the per-batch join's order (``kindling.table.spark-stream-join: false``),
replayed batches too; explain names the choice, and the path it names is the one that runs; an
outer join and the setting keep the per-batch join; savepoints are refused."""
from __future__ import annotations

from collections import Counter

import pytest

from kindling.common import Configuration
from kindling.table import StreamTableEnvironment
from failure_support import fail_first_time  # tests/: on sys.path (tests/conftest.py)
from join_writer_support import sequence_rows, sequence_streams  # tests/: on sys.path (tests/conftest.py)

STREAMED = "Spark's stream-stream join in the streaming query"
JOIN = "SELECT l.n, r.m, l.v + r.w FROM l JOIN r ON l.k = r.key AND l.v <= r.w"


def _t_env(env, parallelism: int, per_batch: int = 30, streamed: bool = True, printed: bool = False):
    """Tables ``l`` and ``r`` of :func:`sequence_streams`' rows, ``per_batch`` of each side per micro-batch:
    the right side (half as many rows) ends batches before the left, and a key's rows come in other
    micro-batches on each side (null keys too). A blackhole ``dropped`` of the join's output."""
    env.set_parallelism(parallelism)
    env.configure(Configuration().set_string("kindling.bounded.one-step", "false")
                  .set_string("kindling.source.max-records-per-batch", str(per_batch)))
    t_env = StreamTableEnvironment.create(env)
    t_env.get_config().set("kindling.table.spark-stream-join", str(streamed).lower())
    left, right = sequence_streams(env)
    t_env.create_temporary_view("l", t_env.from_data_stream(left))
    t_env.create_temporary_view("r", t_env.from_data_stream(right))
    t_env.execute_sql("CREATE TEMPORARY TABLE dropped (a BIGINT, b BIGINT, c INT) WITH ('connector' = 'blackhole')")
    if printed:
        t_env.execute_sql("CREATE TEMPORARY TABLE printed (a BIGINT, b BIGINT, c INT) WITH ('connector' = 'print')")
    return t_env


def _expected() -> Counter:
    """The rows of :data:`JOIN` over :func:`_t_env`'s tables, by definition."""
    left, right = sequence_rows()
    return Counter((a[0], b[0], a[2] + b[2]) for a in left for b in right
                   if a[1] is not None and a[1] == b[1] and a[2] <= b[2])


@pytest.fixture
def pairs(monkeypatch):
    """The rows the join's writer got from the streaming query, by batch id (a replayed batch's
    replace its failed attempt's); ``fail``: a batch id whose first attempt fails after its pairs
    were written (the query's join ran and stored the batch's rows)."""
    from kindling.spark.table import join

    seen = {"batches": {}, "fail": None, "counter": None, "per_batch": 0}
    write_pairs, write_batch = join.JoinWriter.write_pairs, join.JoinWriter.write_batch

    def spied(self, df, batch_id):
        df = df.persist()  # one computing of the query's join for the spy and the writer
        try:
            seen["batches"][batch_id] = [tuple(row) for row in df.collect()]
            written = write_pairs(self, df, batch_id)
        finally:
            df.unpersist()
        if batch_id == seen["fail"]:
            fail_first_time(seen["counter"], f"batch {batch_id}")
        return written
    monkeypatch.setattr(join.JoinWriter, "write_pairs", spied)

    def per_batch(self, left, right, batch_id):
        seen["per_batch"] += 1
        return write_batch(self, left, right, batch_id)
    monkeypatch.setattr(join.JoinWriter, "write_batch", per_batch)
    return seen


def _rows(seen: dict) -> Counter:
    """The join's output rows the writer got (n, k, v, m, key, w) as :data:`JOIN`'s."""
    return Counter((r[0], r[3], r[2] + r[5]) for rows in seen["batches"].values() for r in rows)


@pytest.mark.parametrize("parallelism", [1, 2])
def test_an_inner_join_only_blackholes_read_is_spark_s_stream_stream_join(env, pairs, parallelism):
    t_env = _t_env(env, parallelism)
    statements = t_env.create_statement_set()
    statements.add_insert_sql("INSERT INTO dropped " + JOIN)
    joins = [line for line in statements.explain().splitlines() if "Join(" in line]
    assert STREAMED in joins[0], joins
    statements.execute().wait()
    assert len(pairs["batches"]) >= 4  # several micro-batches, the right side's rows done before the left's
    assert _rows(pairs) == _expected() and sum(_expected().values()) > 50


def test_a_batch_replayed_after_a_failure_gives_each_pair_once(env, pairs, tmp_path):
    """The batch fails after the query's join stored its rows; the restart replays it from the state
    before it (the query's checkpoint), so neither it nor a later batch doubles a pair."""
    from kindling.common import RestartStrategies

    t_env = _t_env(env, 2)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(1, 0))
    pairs["fail"], pairs["counter"] = 1, str(tmp_path / "failures")
    t_env.execute_sql("INSERT INTO dropped " + JOIN).wait()
    assert open(pairs["counter"]).read() == "x"  # failed once
    assert max(pairs["batches"]) >= 3
    assert _rows(pairs) == _expected()


def _join_lines(statements) -> list[str]:
    return [line for line in statements.explain().splitlines() if "Join(" in line]


@pytest.mark.parametrize("sink", ["printed", "dropped"])
def test_explain_s_path_is_the_one_that_runs(env, pairs, sink):
    """Whatever sink reads the pairs, explain names Spark's stream-stream join, and the query's join
    (the writer's ``write_pairs``) runs, never the per-batch join; with the setting false, both the
    other way round."""
    for streamed in (True, False):
        t_env = _t_env(env, 2, streamed=streamed, printed=True)
        statements = t_env.create_statement_set()
        statements.add_insert_sql(f"INSERT INTO {sink} " + JOIN)
        joins = _join_lines(statements)
        assert "[Spark JVM, micro-batches" in joins[0] and (STREAMED in joins[0]) == streamed, joins
        pairs["batches"].clear()
        pairs["per_batch"] = 0
        statements.execute().wait()
        assert (len(pairs["batches"]) >= 4, pairs["per_batch"] == 0) == (streamed, streamed), pairs["per_batch"]


def test_a_side_whose_rows_another_stage_carries_joins_in_the_query(env, pairs):
    """Each side's rows also feed a UNION ALL, whose stage carries them in its frame: the join still
    runs in the query, as explain says."""
    t_env = _t_env(env, 2)
    statements = t_env.create_statement_set()
    statements.add_insert_sql("INSERT INTO dropped " + JOIN)
    statements.add_insert_sql("INSERT INTO dropped SELECT n, n, v FROM l UNION ALL SELECT m, m, w FROM r")
    assert STREAMED in _join_lines(statements)[0]
    statements.execute().wait()
    assert pairs["per_batch"] == 0 and _rows(pairs) == _expected()


def test_an_outer_join_keeps_the_per_batch_join(env):
    t_env = _t_env(env, 2)
    left_outer = t_env.create_statement_set()
    left_outer.add_insert_sql("INSERT INTO dropped " + JOIN.replace("JOIN", "LEFT JOIN"))
    assert STREAMED not in left_outer.explain()  # an outer join's padded rows and their -D: per batch


def _printed(env, capfd, streamed: bool) -> list[str]:
    t_env = _t_env(env, 2, streamed=streamed, printed=True)
    capfd.readouterr()
    t_env.execute_sql("INSERT INTO printed " + JOIN).wait()
    return capfd.readouterr().out.splitlines()


def test_a_print_sink_prints_the_per_batch_join_s_lines_in_its_order(env, pairs, capfd):
    """At parallelism 2, the right side done batches before the left, a key's rows in other batches on
    each side: each subtask's lines (Flink's ``n>`` prefixes) in the order the per-batch join prints them."""
    lines = _printed(env, capfd, True)
    assert len(pairs["batches"]) >= 4 and pairs["per_batch"] == 0  # the query's join ran, over several batches
    assert {line[:3] for line in lines} == {"1> ", "2> "} and len(lines) == sum(_expected().values())
    assert lines == _printed(env, capfd, False)


def _collected(env, streamed: bool, parallelism: int = 2) -> list[tuple]:
    t_env = _t_env(env, parallelism, streamed=streamed)
    with t_env.execute_sql(JOIN).collect() as rows:
        return [tuple(row) for row in rows]


@pytest.mark.parametrize("parallelism", [1, 2])
def test_collected_rows_come_in_the_per_batch_join_s_order(env, pairs, parallelism):
    rows = _collected(env, True, parallelism)
    assert len(pairs["batches"]) >= 4 and pairs["per_batch"] == 0
    assert Counter(rows) == _expected()
    assert rows == _collected(env, False, parallelism)


def test_a_batch_replayed_after_a_failure_collects_each_row_once_in_order(env, pairs, tmp_path):
    """The batch fails after its pairs were collected; its replay (the join's state and the batch's
    timestamp from the query's checkpoint, each row's id from its place in the replayed batch) gives
    the same rows in the same order, which the collecting sink takes once."""
    from kindling.common import RestartStrategies

    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(1, 0))
    pairs["fail"], pairs["counter"] = 2, str(tmp_path / "failures")
    rows = _collected(env, True)
    assert open(pairs["counter"]).read() == "x"  # failed once
    assert rows == _collected(env, False)


def test_csv_tables_read_by_spark_s_file_stream_source_join_in_the_query(env, pairs, tmp_path):
    """The sides are Spark's file stream source's frames (a file of each side per micro-batch)."""
    for name, rows in (("left", [(i, i % 50, i * 2) for i in range(300)]),
                       ("right", [(i % 50 + (100 if i % 4 == 0 else 0), i) for i in range(120)])):
        (tmp_path / name).mkdir()
        for part in range(3):
            with open(tmp_path / name / f"part-{part}.csv", "w") as f:
                f.writelines(",".join(map(str, row)) + "\n" for row in rows[part::3])
    env.set_parallelism(2)
    env.configure(Configuration().set_string("kindling.bounded.one-step", "false")
                  .set_string("kindling.source.max-files-per-batch", "1"))
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(f"CREATE TEMPORARY TABLE l (id BIGINT, k INT, v BIGINT) WITH ('connector' = 'filesystem', "
                      f"'path' = '{tmp_path / 'left'}', 'format' = 'csv')")
    t_env.execute_sql(f"CREATE TEMPORARY TABLE r (k INT, w BIGINT) WITH ('connector' = 'filesystem', "
                      f"'path' = '{tmp_path / 'right'}', 'format' = 'csv')")
    t_env.execute_sql("CREATE TEMPORARY TABLE dropped (id BIGINT, v BIGINT, w BIGINT) WITH ('connector' = 'blackhole')")
    sql = "INSERT INTO dropped SELECT l.id, l.v, r.w FROM l JOIN r ON l.k = r.k"
    statements = t_env.create_statement_set()
    statements.add_insert_sql(sql)
    assert STREAMED in statements.explain()
    t_env.execute_sql(sql).wait()
    got = Counter((r[0], r[2], r[4]) for rows in pairs["batches"].values() for r in rows)
    left = [(i, i % 50, i * 2) for i in range(300)]
    right = [(i % 50 + (100 if i % 4 == 0 else 0), i) for i in range(120)]
    assert got == Counter((a[0], a[2], b[1]) for a in left for b in right if a[1] == b[0]) and len(got) > 100
    assert len(pairs["batches"]) >= 3


def test_a_savepoint_of_a_job_with_the_query_s_join_is_refused(env, tmp_path):
    from kindling.spark.savepoints import SavepointError

    t_env = _t_env(env, 1)
    t_env.get_config().set("execution.savepoint.path", str(tmp_path / "savepoint"))
    with pytest.raises(Exception) as raised:
        t_env.execute_sql("INSERT INTO dropped " + JOIN).wait()
    error = raised.value
    while error is not None and not isinstance(error, SavepointError):
        error = error.__cause__ or error.__context__
    assert error is not None and "stream-stream join" in str(error) and "kindling.table.spark-stream-join" in str(error)


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_the_join_s_rows_are_where_the_state_backend_keeps_state(env, pairs, tmp_path, backend):
    """Flink's ``hashmap`` backend (its default) keeps the join's rows in the JVM's heap (Spark's
    HDFS-backed state store: ``.delta`` files at checkpoints), ``rocksdb`` in Spark's RocksDB store
    (``.changelog`` files); the session's own store, RocksDB for keyed operators, is left as it was."""
    from kindling.spark.session import DEFAULTS, STATE_STORE_PROVIDER

    t_env = _t_env(env, 2)
    settings = Configuration().set_string("execution.checkpointing.dir", str(tmp_path / "checkpoints"))
    if backend == "rocksdb":
        settings.set_string("state.backend.type", "rocksdb")
    env.configure(settings)
    t_env.execute_sql("INSERT INTO dropped " + JOIN).wait()
    assert _rows(pairs) == _expected()
    files = [f.name for f in (tmp_path / "checkpoints").rglob("*") if f.is_file()]
    heap, rocksdb = any(f.endswith(".delta") for f in files), any(f.endswith(".changelog") for f in files)
    assert (heap, rocksdb) == (backend == "hashmap", backend == "rocksdb"), sorted(files)[:40]
    from kindling.spark.session import existing_spark
    assert existing_spark().conf.get(STATE_STORE_PROVIDER) == DEFAULTS[STATE_STORE_PROVIDER]
