"""``filesystem`` tables declared PARTITIONED BY: rows go to ``k1=v1/k2=v2/`` directories without
their partition columns (Flink's escaping, ``__DEFAULT_PARTITION__`` for NULL and ''), partitions
are committed with success files (at the end of a bounded job, at micro-batch commits of an
unbounded one after ``sink.partition-commit.delay``), and reading the table takes the partition
columns from the directory names. The layout next to PyFlink's:
tests/conformance/programs/table_filesystem_partitions.py."""
from __future__ import annotations

import datetime
import os
import time

import pytest

from kindling.table.partitions import PartitionValues, escape_path_name, unescape_path_name
from table_support import collected, quiet_t_env

ROWS = [(1, "a", "2024-01-01", 1), (2, "b", "2024-01-01", 2), (3, "c", "a/b=c d%", 1), (4, "d", None, 3),
        (5, "e", "", None), (6, "f", "x:y#z?", 1), (7, "g", "2024-01-01", 1)]
#: each row's partition directory, as PyFlink 2.3 writes it
DIRECTORIES = {1: "d=2024-01-01/h=1", 2: "d=2024-01-01/h=2", 3: "d=a%2Fb%3Dc d%25/h=1", 4: "d=__DEFAULT_PARTITION__/h=3",
               5: "d=__DEFAULT_PARTITION__/h=__DEFAULT_PARTITION__", 6: "d=x%3Ay%23z%3F/h=1", 7: "d=2024-01-01/h=1"}


def _tree(root: str) -> dict:
    """{relative directory: sorted visible file names}"""
    tree = {}
    for directory, _, files in os.walk(root):
        visible = sorted(f for f in files if not f.startswith("."))
        if visible:
            tree[os.path.relpath(directory, root)] = visible
    return tree


def _values(rows) -> str:
    return ", ".join("(%d, '%s', %s, %s)" % (i, n, "CAST(NULL AS STRING)" if d is None else f"'{d}'",
                                             "CAST(NULL AS INT)" if h is None else h) for i, n, d, h in rows)


def _table(t_env, path: str, fmt: str = "csv", extra: str = "", name: str = "t") -> None:
    t_env.execute_sql(f"CREATE TABLE {name} (id INT, name STRING, d STRING, h INT) PARTITIONED BY (d, h) WITH ("
                      f"'connector' = 'filesystem', 'path' = '{path}', 'format' = '{fmt}'{extra})")


@pytest.mark.parametrize("mode,fmt", [("batch", "csv"), ("streaming", "csv"), ("batch", "parquet")])
def test_nested_partitions_written_without_their_columns_and_read_back(spark, tmp_path, mode, fmt):
    out = str(tmp_path / "out")
    t_env = quiet_t_env(mode, parallelism=2)
    _table(t_env, out, fmt, ", 'sink.partition-commit.policy.kind' = 'success-file'")
    t_env.execute_sql(f"INSERT INTO t VALUES {_values(ROWS)}").wait()
    tree = _tree(out)
    assert sorted(tree) == sorted(set(DIRECTORIES.values()))
    assert all(files[0] == "_SUCCESS" and all(f.startswith("part-") for f in files[1:]) for files in tree.values())
    if fmt == "csv":
        for row in ROWS:
            lines = [line for f in tree[DIRECTORIES[row[0]]][1:]
                     for line in open(os.path.join(out, DIRECTORIES[row[0]], f)).read().splitlines()]
            assert f"{row[0]},{row[1]}" in lines  # the partition columns are not in the files
    expected = sorted((i, n, d or None, h) for i, n, d, h in ROWS)
    assert collected(t_env, "SELECT * FROM t") == expected
    assert collected(t_env, "SELECT id, d FROM t WHERE h = 1") == [(1, "2024-01-01"), (3, "a/b=c d%"),
                                                                   (6, "x:y#z?"), (7, "2024-01-01")]
    assert collected(t_env, "SELECT id FROM t WHERE d IS NULL") == [(4,), (5,)]


def test_partition_columns_anywhere_typed_as_declared_and_no_commit_without_a_policy(spark, tmp_path):
    out = str(tmp_path / "out")
    t_env = quiet_t_env("batch", parallelism=2)
    t_env.execute_sql(f"CREATE TABLE t (day DATE, v STRING, ok BOOLEAN) PARTITIONED BY (ok, day) WITH ("
                      f"'connector' = 'filesystem', 'path' = '{out}', 'format' = 'json', "
                      "'partition.default-name' = 'none')")
    t_env.execute_sql("INSERT INTO t VALUES (DATE '2024-02-29', 'x', TRUE), (DATE '2024-03-01', 'y', FALSE), "
                      "(CAST(NULL AS DATE), 'z', TRUE)").wait()
    tree = _tree(out)
    # a DATE as Flink writes it: its days since 1970
    assert sorted(tree) == ["ok=false/day=19783", "ok=true/day=19782", "ok=true/day=none"]
    assert all("_SUCCESS" not in files for files in tree.values())
    assert open(os.path.join(out, "ok=false/day=19783", tree["ok=false/day=19783"][0])).read() \
        == '{"v":"y"}\n'
    assert collected(t_env, "SELECT * FROM t WHERE v <> 'z'") == [(datetime.date(2024, 2, 29), "x", True),
                                                                 (datetime.date(2024, 3, 1), "y", False)]
    assert collected(t_env, "SELECT v FROM t WHERE day IS NULL") == [("z",)]


def test_an_aggregation_s_changes_into_a_partitioned_changelog_table(spark, tmp_path):
    out = str(tmp_path / "out")
    t_env = quiet_t_env(parallelism=2)
    t_env.get_config().set("execution.checkpointing.interval", "1 s")  # micro-batches, Spark's aggregation
    t_env.execute_sql(f"CREATE TABLE counts (d STRING, n BIGINT) PARTITIONED BY (d) WITH ('connector' = 'filesystem', "
                      f"'path' = '{out}', 'format' = 'canal-json', "
                      "'sink.partition-commit.policy.kind' = 'success-file', 'sink.partition-commit.delay' = '1 h')")
    t_env.create_temporary_view("words", t_env.from_elements([("a",), ("b",), ("a",)], ["d"]))
    t_env.execute_sql("INSERT INTO counts SELECT d, COUNT(*) FROM words GROUP BY d").wait()
    tree = _tree(out)
    # committed at the end of the bounded input, whatever the delay
    assert sorted(tree) == ["d=a", "d=b"] and all(files[0] == "_SUCCESS" for files in tree.values())
    # as PyFlink 2.3 writes them: each change with its kind, without the partition column
    assert open(os.path.join(out, "d=a", tree["d=a"][1])).read().splitlines() == [
        '{"data":[{"n":1}],"type":"INSERT"}', '{"data":[{"n":1}],"type":"DELETE"}', '{"data":[{"n":2}],"type":"INSERT"}']


def test_a_monitored_partitioned_table_is_read_with_its_partition_columns(spark, tmp_path):
    out = str(tmp_path / "out")
    writer = quiet_t_env("batch")
    _table(writer, out, "parquet")
    writer.execute_sql(f"INSERT INTO t VALUES {_values(ROWS[:5])}").wait()
    reader = quiet_t_env(parallelism=2)
    _table(reader, out, "parquet", ", 'source.monitor-interval' = '1 s'")
    with reader.execute_sql("SELECT id, d, h FROM t WHERE d IS NULL OR h = 2").collect() as rows:
        got = sorted((next(rows), next(rows), next(rows)), key=repr)
    assert [tuple(r) for r in got] == [(2, "2024-01-01", 2), (4, None, 3), (5, None, None)]


def test_an_unbounded_job_commits_partitions_at_micro_batch_commits(spark, tmp_path):
    incoming, out, late = tmp_path / "in", str(tmp_path / "out"), str(tmp_path / "late")
    incoming.mkdir()
    t_env = quiet_t_env(parallelism=2)
    t_env.get_config().set("execution.checkpointing.interval", "200 ms")
    t_env.execute_sql(f"CREATE TABLE src (id INT, d STRING) WITH ('connector' = 'filesystem', "
                      f"'path' = '{incoming}', 'format' = 'csv', 'source.monitor-interval' = '200 ms')")
    success = ", 'sink.partition-commit.policy.kind' = 'success-file', 'sink.partition-commit.success-file.name' = "
    for name, path, extra in (("now", out, success + "'_DONE'"),
                              ("later", late, success + "'_DONE', 'sink.partition-commit.delay' = '1 h'")):
        t_env.execute_sql(f"CREATE TABLE {name} (id INT, d STRING) PARTITIONED BY (d) WITH ("
                          f"'connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv'{extra})")
    statements = t_env.create_statement_set()
    statements.add_insert_sql("INSERT INTO now SELECT id, d FROM src")
    statements.add_insert_sql("INSERT INTO later SELECT id, d FROM src")
    client = statements.execute().get_job_client()
    try:
        for batch, day in enumerate(["d1", "d2", "d1"]):
            (tmp_path / "f.csv").write_text("".join(f"{batch * 10 + i},{day}\n" for i in range(10)))
            os.replace(tmp_path / "f.csv", incoming / f"{batch}.csv")
            deadline = time.monotonic() + 240
            while not (_count(out) == _count(late) == (batch + 1) * 10 and "_DONE" in _tree(out).get(f"d={day}", [])) \
                    and time.monotonic() < deadline:
                time.sleep(0.2)
            assert _count(out) == (batch + 1) * 10 and "_DONE" in _tree(out)[f"d={day}"]
    finally:
        client.cancel()
    tree = _tree(out)
    assert sorted(tree) == ["d=d1", "d=d2"] and len(tree["d=d1"]) >= 3  # files of two micro-batches
    assert sorted(_tree(late)) == ["d=d1", "d=d2"]
    assert all("_DONE" not in files for files in _tree(late).values())  # their delay has not passed


def _count(root: str) -> int:
    """The rows in the part files under ``root``."""
    return sum(len(open(os.path.join(root, d, f)).read().splitlines())
               for d, files in _tree(root).items() for f in files if f.startswith("part-"))


def test_a_bounded_job_commits_every_partition_at_its_end(spark, tmp_path):
    out = str(tmp_path / "out")
    t_env = quiet_t_env(parallelism=2)
    _table(t_env, out, extra=", 'sink.partition-commit.policy.kind' = 'success-file', "
                             "'sink.partition-commit.trigger' = 'partition-time', "
                             "'partition.time-extractor.timestamp-pattern' = '$d 00:00:00', "
                             "'sink.partition-commit.watermark-time-zone' = 'Asia/Shanghai'")
    t_env.execute_sql(f"INSERT INTO t VALUES {_values(ROWS[:3])}").wait()
    assert all(files[0] == "_SUCCESS" for files in _tree(out).values()) and len(_tree(out)) == 3


@pytest.mark.parametrize("options,error", [
    ("'sink.partition-commit.policy.kind' = 'metastore,success-file'", "'metastore' adds partitions to a Hive"),
    ("'sink.partition-commit.policy.kind' = 'custom', 'sink.partition-commit.policy.class' = 'a.B'",
     "Unsupported options.*sink.partition-commit.policy.class"),
    ("'sink.partition-commit.policy.kind' = 'custom'", "'custom' needs a Java PartitionCommitPolicy"),
    ("'partition.time-extractor.kind' = 'custom'", "needs a Java PartitionTimeExtractor"),
    ("'sink.partition-commit.trigger' = 'partition-time'", "'partition-time' commits a partition when the sink's "
                                                           "watermark.*unbounded"),
    ("'sink.shuffle-by-partition.enable' = 'true'", "sink.shuffle-by-partition.enable is not supported"),
    ("'sink.partition-commit.delay' = 'soon'", "sink.partition-commit.delay"),
])
def test_what_kindling_cannot_give_is_refused_by_name(spark, tmp_path, options, error):
    t_env = quiet_t_env()
    (tmp_path / "in").mkdir()
    t_env.execute_sql(f"CREATE TABLE src (id INT, d STRING) WITH ('connector' = 'filesystem', "
                      f"'path' = '{tmp_path / 'in'}', 'format' = 'csv', 'source.monitor-interval' = '1 s')")
    t_env.execute_sql(f"CREATE TABLE p (id INT, d STRING) PARTITIONED BY (d) WITH ('connector' = 'filesystem', "
                      f"'path' = '{tmp_path / 'out'}', 'format' = 'csv', {options})")
    with pytest.raises(ValueError, match=error):
        t_env.execute_sql("INSERT INTO p SELECT * FROM src")


def test_unsupported_partition_columns_and_stray_files_fail_clearly(spark, tmp_path):
    t_env = quiet_t_env("batch")
    t_env.execute_sql(f"CREATE TABLE f (v INT, x DOUBLE) PARTITIONED BY (x) WITH ('connector' = 'filesystem', "
                      f"'path' = '{tmp_path}', 'format' = 'csv')")
    with pytest.raises(ValueError, match="the partition column 'x' is DOUBLE"):
        t_env.execute_sql("INSERT INTO f VALUES (1, 2.5)")
    (tmp_path / "k=oops").mkdir()
    (tmp_path / "k=oops" / "part-0").write_text("1\n")
    t_env.execute_sql(f"CREATE TABLE g (v INT, k INT) PARTITIONED BY (k) WITH ('connector' = 'filesystem', "
                      f"'path' = '{tmp_path}', 'format' = 'csv')")
    with pytest.raises(Exception, match="'k=oops' is not a INT"):
        collected(t_env, "SELECT * FROM g")


def test_escaping_round_trips_and_missing_partitions_are_named():
    for value in ["a/b=c d%", "x:y#z?", "\x01{[]}^*'\"\\", "%zz", "plain"]:
        assert unescape_path_name(escape_path_name(value)) == value
    assert escape_path_name("a/b=c d%") == "a%2Fb%3Dc d%25"
    values = PartitionValues(["d", "h"], ["STRING", "BIGINT"], "__DEFAULT_PARTITION__")
    assert values("d=a%2Fb/h=__DEFAULT_PARTITION__") == ["a/b", None]
    days = PartitionValues(["day"], ["DATE"], "__DEFAULT_PARTITION__")
    assert days("day=19782") == days("day=2024-02-29") == [datetime.date(2024, 2, 29)]
    assert days("day=-1") == [datetime.date(1969, 12, 31)]
    with pytest.raises(ValueError, match="has no partition 'h=...'"):
        values("d=x")


def test_pending_partitions_are_kept_with_the_checkpoint_and_committed_after_a_restart(spark, tmp_path):
    import pickle

    from kindling.common.types import Row
    from kindling.datastream.connectors.file_system import Encoder
    from kindling.graph.specs import FileSinkSpec, PartitionCommit
    from kindling.spark.file_sink import FileWriter
    from kindling.table.partitions import PartitionPath
    from kindling.table.schema import Schema
    from kindling.table.types import DataTypes

    schema = Schema(["v", "k"], [DataTypes.STRING(), DataTypes.STRING()])
    out, checkpoint = tmp_path / "out", str(tmp_path / "checkpoint")

    def writer(delay_ms):
        spec = FileSinkSpec(base_path=str(out), encoder=Encoder.simple_string_encoder(), bucket_format=None,
                            partitioning=PartitionPath("t", schema, ["k"], "__DEFAULT_PARTITION__"),
                            commit=PartitionCommit(success_file="_SUCCESS", delay_ms=delay_ms))
        files = FileWriter(spec)
        files.bind(checkpoint)
        files.token = "feedbeef"  # from the query's id: the same after a restart
        return files

    def rows(k):
        return spark.createDataFrame([(pickle.dumps(Row(v, k)),) for v in "xy"], "f0 binary").repartition(2)

    context = spark.sparkContext
    context.setLocalProperty("sql.streaming.queryId", "feedbeef-0000")  # a micro-batch of a streaming query
    try:
        assert writer(3_600_000).write(rows("a"), 0) == 2
        assert list(_tree(str(out))) == ["k=a"] and "_SUCCESS" not in _tree(str(out))["k=a"]  # its delay is 1 h
        assert writer(0).write(rows("b"), 1) == 2  # the restarted job commits what was pending, and its own
    finally:
        context.setLocalProperty("sql.streaming.queryId", None)
    assert {d: files[0] for d, files in _tree(str(out)).items()} == {"k=a": "_SUCCESS", "k=b": "_SUCCESS"}
