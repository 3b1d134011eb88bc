"""A ``filesystem`` table read on micro-batches by Spark's own file stream source
(kindling/spark/table/scans.py ``csv_stream_frame``) where the planner allows it (no node reads a
watermark, only Spark's micro-batch writers read the scan, no records limit:
kindling/table/planner/physical.py): a GROUP BY and a join give the changes Kindling's Python source
gives, ``kindling.source.max-files-per-batch`` files a micro-batch on both readers, across a failure
and restart from the checkpoint; a field that does not read fails naming the file, field and fix;
explain says which reader runs."""
from __future__ import annotations

import os
from collections import Counter

import pytest

from kindling.common import Configuration, Types
from kindling.table import StreamTableEnvironment
from failure_support import fail_first_time  # tests/: on sys.path (tests/conftest.py)
from file_sink_support import committed_lines  # tests/: on sys.path (tests/conftest.py)
from table_support import quiet_t_env

#: three files, each a micro-batch with a files limit of 1: (k, v) rows; key 1 in every file
FILES = {"a.csv": [(1, 10), (2, 20), (1, 11), (3, 30)],
         "b.csv": [(1, 12), (4, 40), (2, 21)],
         "c.csv": [(5, 50), (1, 13), (4, 41), (1, 14)]}
GROUP_BY = "SELECT k, COUNT(*) AS c, SUM(v) AS s FROM t GROUP BY k"


def _files(directory) -> str:
    """Writes :data:`FILES` under ``directory``, each modified a second after the one before (both
    readers take files in order of modification time)."""
    directory.mkdir(exist_ok=True)
    for i, (name, rows) in enumerate(sorted(FILES.items())):
        path = directory / name
        path.write_text("".join(f"{k},{v}\n" for k, v in rows))
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))
    return str(directory)


def _t_env(path: str, spark_scan: bool, extra: dict | None = None, ddl: str = ""):
    t_env = quiet_t_env("streaming", 2)
    settings = {"kindling.bounded.one-step": "false", "kindling.source.max-files-per-batch": "1",
                "kindling.table.spark-scan": str(spark_scan).lower(), **(extra or {})}
    for key, value in settings.items():
        t_env.get_config().set(key, value)
    t_env.execute_sql(f"CREATE TABLE t (k INT, v BIGINT{ddl}) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                      "'format' = 'csv')")
    return t_env


def _changes(t_env, query: str) -> Counter:
    with t_env.execute_sql(query).collect() as rows:
        return Counter((str(r.get_row_kind()), tuple(r)) for r in rows)


def _scan_line(t_env, query: str) -> str:
    return next(line for line in t_env.explain_sql(query).splitlines() if "TableSourceScan" in line)


@pytest.mark.parametrize("mini_batch", [False, True])
def test_a_group_by_reads_a_file_per_micro_batch_with_the_changes_of_kindlings_source(spark, tmp_path, mini_batch):
    path = _files(tmp_path / "in")
    extra = {"table.exec.mini-batch.enabled": "true", "table.exec.mini-batch.allow-latency": "1 s",
             "table.exec.mini-batch.size": "1000"} if mini_batch else {}
    changes = {}
    for spark_scan in (True, False):
        t_env = _t_env(path, spark_scan, extra)
        line = _scan_line(t_env, GROUP_BY)
        assert ("[Spark JVM, micro-batches]" if spark_scan else "[Python, micro-batches: kindling.table.spark-scan "
                                                                 "is false]") in line, line
        changes[spark_scan] = _changes(t_env, GROUP_BY)
    assert changes[True] == changes[False]
    if mini_batch:  # once per group and micro-batch: key 1 changes in each of the three batches
        assert changes[True] == Counter({
            ("+I", (1, 2, 21)): 1, ("-U", (1, 2, 21)): 1, ("+U", (1, 3, 33)): 1, ("-U", (1, 3, 33)): 1,
            ("+U", (1, 5, 60)): 1, ("+I", (2, 1, 20)): 1, ("-U", (2, 1, 20)): 1, ("+U", (2, 2, 41)): 1,
            ("+I", (3, 1, 30)): 1, ("+I", (4, 1, 40)): 1, ("-U", (4, 1, 40)): 1, ("+U", (4, 2, 81)): 1,
            ("+I", (5, 1, 50)): 1})
    else:  # after every row, in each file's order
        states = [(1, 1, 10), (1, 2, 21), (1, 3, 33), (1, 4, 46), (1, 5, 60)]
        ones = [("+I", states[0])] + [c for a, b in zip(states, states[1:]) for c in (("-U", a), ("+U", b))]
        assert Counter(c for c in changes[True].elements() if c[1][0] == 1) == Counter(ones)


def test_a_join_reads_both_tables_with_spark_file_stream_source(spark, tmp_path):
    path = _files(tmp_path / "in")
    right = tmp_path / "right"
    right.mkdir()
    (right / "r.csv").write_text("1,one\n2,two\n4,four\n6,six\n")
    query = "SELECT t.k, t.v, r.name FROM t JOIN r ON t.k = r.k"
    joined = {}
    for spark_scan in (True, False):
        t_env = _t_env(path, spark_scan)
        t_env.execute_sql(f"CREATE TABLE r (k INT, name STRING) WITH ('connector' = 'filesystem', "
                          f"'path' = '{right}', 'format' = 'csv')")
        lines = [line for line in t_env.explain_sql(query).splitlines() if "TableSourceScan" in line]
        assert len(lines) == 2 and all(("Spark JVM" in line) == spark_scan for line in lines), lines
        joined[spark_scan] = _changes(t_env, query)
    names = {1: "one", 2: "two", 4: "four"}
    assert joined[True] == joined[False] == Counter(
        ("+I", (k, v, names[k])) for rows in FILES.values() for k, v in rows if k in names)


def test_kindlings_source_reads_where_the_watermark_is_read_or_records_are_limited(spark, tmp_path):
    path = _files(tmp_path / "in")
    window = ("SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND)) "
              "GROUP BY k, window_start, window_end")
    timed = ", ts AS TO_TIMESTAMP_LTZ(v * 100, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND"
    t_env = _t_env(path, True, ddl=timed)
    assert "[Python, micro-batches: a node reads the watermark" in _scan_line(t_env, window)
    assert "[Spark JVM, micro-batches]" in _scan_line(t_env, GROUP_BY)  # declared, not read
    t_env = _t_env(path, True, {"kindling.source.max-records-per-batch": "2"})
    assert "[Python, micro-batches: kindling.source.max-records-per-batch is set" in _scan_line(t_env, GROUP_BY)
    t_env = _t_env(path, True, {"kindling.source.max-records-per-batch": "0"})  # no limit
    assert "[Spark JVM, micro-batches]" in _scan_line(t_env, GROUP_BY)
    t_env = _t_env(path, True)
    assert "[Python, micro-batches: its rows go to the client" in _scan_line(t_env, "SELECT k + 1 FROM t")
    t_env.execute_sql("CREATE TABLE p (a INT) WITH ('connector' = 'print')")
    assert "[Python, micro-batches: Sink reads its rows" in _scan_line(t_env, "INSERT INTO p SELECT k + 1 FROM t")
    top = "SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS n FROM t) WHERE n <= 2"
    assert "[Python, micro-batches: Rank reads its rows" in _scan_line(t_env, top)


def test_a_field_that_does_not_read_fails_the_job_naming_the_file_the_field_and_the_fix(spark, tmp_path):
    path = _files(tmp_path / "in")
    (tmp_path / "in" / "d.csv").write_text("6,60\n7,seven\n")
    t_env = _t_env(path, True)
    with pytest.raises(Exception, match=r"d\.csv: column 'v': cannot read 'seven' as BIGINT "
                                        r"\('csv.ignore-parse-errors' = 'true' skips such records\)"):
        _changes(t_env, GROUP_BY)


class _FailOnce:
    """A map of the changes that raises the first time it sees key 4 (the second file's; counted in a
    file: Spark's Python workers are separate processes), after the aggregation stored the batch's state."""

    def __init__(self, counter: str):
        self.counter = counter

    def __call__(self, row) -> str:
        if row[0] == 4:
            fail_first_time(self.counter, row)
        return f"{row.get_row_kind()}|{row[0]}|{row[1]}|{row[2]}"


def test_a_micro_batch_replayed_after_a_failure_neither_loses_nor_doubles_a_file(env, tmp_path):
    from kindling.common import RestartStrategies
    from kindling.common.serialization import Encoder
    from kindling.datastream.connectors.file_system import FileSink

    path = _files(tmp_path / "in")
    env.set_parallelism(2)
    env.configure(Configuration().set_string("kindling.bounded.one-step", "false")
                  .set_string("kindling.source.max-files-per-batch", "1"))
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(1, 0))
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(f"CREATE TABLE t (k INT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                      "'format' = 'csv')")
    assert "[Spark JVM, micro-batches]" in _scan_line(t_env, GROUP_BY)
    counter = str(tmp_path / "failures")
    t_env.to_changelog_stream(t_env.sql_query(GROUP_BY)).map(_FailOnce(counter), Types.STRING()) \
        .sink_to(FileSink.for_row_format(str(tmp_path / "out"), Encoder.simple_string_encoder()).build())
    env.execute("replayed group by")
    assert open(counter).read() == "x"  # failed once, in the second file's micro-batch
    final = Counter()
    for line in committed_lines(tmp_path / "out"):
        kind, k, c, s = line.split("|")
        final[(int(k), int(c), int(s))] += 1 if kind in ("+I", "+U") else -1
    rows = [row for file in FILES.values() for row in file]
    expected = {(k, sum(1 for kk, _ in rows if kk == k), sum(v for kk, v in rows if kk == k)) for k, _ in rows}
    assert {row for row, n in final.items() if n} == expected and all(n in (0, 1) for n in final.values())


@pytest.mark.timeout(300)
@pytest.mark.parametrize("spark_scan", [True, False])
def test_a_monitored_table_reads_the_files_that_appear_at_the_next_micro_batch(spark, tmp_path, spark_scan):
    """Both readers list the directory at every micro-batch (docs/table.md): an interval of an hour
    makes the table watched, and a file that appears is read without waiting for it."""
    incoming = tmp_path / "in"
    incoming.mkdir()
    t_env = quiet_t_env("streaming", 2)
    t_env.get_config().set("kindling.table.spark-scan", str(spark_scan).lower())
    t_env.execute_sql(f"CREATE TABLE t (k INT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '{incoming}', "
                      "'format' = 'csv', 'source.monitor-interval' = '1 h')")
    assert ("[Spark JVM, micro-batches]" if spark_scan else "[Python, micro-batches") in _scan_line(t_env, GROUP_BY)
    result = t_env.execute_sql(GROUP_BY)
    seen = []
    with result.collect() as rows:
        changes = iter(rows)
        for i, (text, count) in enumerate([("1,10\n2,20\n", 2), ("1,5\n", 2)]):
            (tmp_path / "f.csv").write_text(text)
            os.replace(tmp_path / "f.csv", incoming / f"{i}.csv")
            seen += [(str(r.get_row_kind()), tuple(r)) for r in (next(changes) for _ in range(count))]
    result.get_job_client().cancel()
    assert sorted(seen[:2]) == [("+I", (1, 1, 10)), ("+I", (2, 1, 20))]
    assert seen[2:] == [("-U", (1, 1, 10)), ("+U", (1, 2, 15))]


def test_a_keyed_datastream_operator_after_the_table_gets_kindlings_source(env, tmp_path):
    """The plan cannot see a keyed DataStream operator reading a GROUP BY's changes (the aggregation then
    runs in Python, kindling/spark/table/aggregation.py, after the source stage's Python pass): that
    pass reads the rows of Spark's file stream source (no control rows) and gives the same changes."""
    from kindling.datastream.functions import KeyedProcessFunction

    class Last(KeyedProcessFunction):
        def process_element(self, row, ctx):
            yield f"{row.get_row_kind()}|{row[0]}|{row[1]}|{row[2]}"

    path = _files(tmp_path / "in")
    env.set_parallelism(2)
    env.configure(Configuration().set_string("kindling.bounded.one-step", "false")
                  .set_string("kindling.source.max-files-per-batch", "1"))
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(f"CREATE TABLE t (k INT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                      "'format' = 'csv')")
    changes = t_env.to_changelog_stream(t_env.sql_query(GROUP_BY)).key_by(lambda r: r[0], Types.INT()) \
        .process(Last(), Types.STRING())
    with changes.execute_and_collect() as lines:
        got = Counter(lines)
    assert got["+U|1|5|60"] == 1 and got["+I|3|1|30"] == 1 and sum(got.values()) == 13 + 4


def test_the_planner_refuses_a_records_limit_the_runner_refuses(spark, tmp_path):
    """The planner and the runner read the limits by one rule (kindling/common/read_limits.py): a
    negative limit fails when the plan is made, not only when the job starts."""
    t_env = _t_env(_files(tmp_path / "in"), True, {"kindling.source.max-records-per-batch": "-1"})
    with pytest.raises(ValueError, match="kindling.source.max-records-per-batch must be >= 0"):
        t_env.explain_sql(GROUP_BY)
