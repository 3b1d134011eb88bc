"""Deduplication by processing time of a stream computed by Spark's aggregation machinery
(kindling/spark/table/aggregation.py, the planner's choice in kindling/table/planner/physical.py)
gives the changes the Python operator gives (Flink's: tests/conformance/programs/table_dedup_proctime.py):
keep-first ``+I`` once per key, keep-last ``+I`` then ``-U``/``+U`` per later row, in one step and on
micro-batches, on two partitions, when a batch is replayed, and with Flink's mini-batches."""
from __future__ import annotations

from collections import defaultdict

import pytest

from kindling.common import Configuration, Types
from kindling.common.types import RowKind
from kindling.common.watermark_strategy import WatermarkStrategy
from kindling.datastream.connectors.number_seq import NumberSequenceSource
from kindling.graph.specs import GroupAggregateSpec
from kindling.spark.codec import ROW_KIND
from kindling.spark.run_mode import RunMode
from kindling.table import DataTypes, Schema, StreamTableEnvironment

N = 300
FIRST = "SELECT n, key, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY key ORDER BY pt) AS rn FROM t) WHERE rn = 1"
LAST = ("SELECT key, v, n, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY key ORDER BY pt DESC) AS rn FROM t) "
        "WHERE rn = 1")


def _t_env(env, spark_operators: bool, **config):
    """The table ``t`` of rows (n, key, v, pt) from ``NumberSequenceSource`` splits: key k0..k4 or null
    (keys repeat across micro-batches), v null for every 7th n, pt the processing time."""
    t_env = StreamTableEnvironment.create(env)
    t_env.get_config().set("kindling.table.spark-operators", str(spark_operators).lower())
    for key, value in config.items():
        t_env.get_config().set(key, value)
    rows = env.from_source(NumberSequenceSource(1, N), WatermarkStrategy.no_watermarks(), "numbers").map(
        lambda n: (n, None if n % 11 == 0 else f"k{n % 5}", None if n % 7 == 0 else n % 13 - 4),
        output_type=Types.ROW_NAMED(['n', 'key', 'v'], [Types.LONG(), Types.STRING(), Types.INT()]))
    t_env.create_temporary_view("t", t_env.from_data_stream(rows, Schema.new_builder()
                                                            .column("n", DataTypes.BIGINT())
                                                            .column("key", DataTypes.STRING())
                                                            .column("v", DataTypes.INT())
                                                            .column_by_expression("pt", "PROCTIME()").build()))
    return t_env


def _per_key(changes, key: int) -> dict:
    """Each key's changes in order: what a parallel job defines (the order across keys is not)."""
    out = defaultdict(list)
    for change in changes:
        out[change[key]].append((str(change.get_row_kind()), tuple(change)))
    return dict(out)


def _changes(env, query: str, spark_operators: bool, **config) -> dict:
    t_env = _t_env(env, spark_operators, **config)
    table = t_env.sql_query(query)
    assert ("[Spark JVM" in table.explain().split("Deduplicate")[1].split("\n")[0]) == spark_operators
    with table.execute().collect() as rows:
        return _per_key(list(rows), 1 if query == FIRST else 0)


def _micro_batches(env, parallelism: int) -> None:
    env.set_parallelism(parallelism)
    env.configure(Configuration().set_string("kindling.bounded.one-step", "false")
                  .set_string("kindling.source.max-records-per-batch", "100"))


@pytest.mark.slow  # two jobs
@pytest.mark.parametrize("one_step, query", [("false", FIRST), ("false", LAST), ("true", LAST)],
                         ids=["micro-batches-first", "micro-batches-last", "one-step-last"])
def test_spark_computes_the_changes_the_python_operator_computes(env, one_step, query):
    """One split: one arrival order, so each key's changes are defined, across micro-batches too."""
    env.set_parallelism(1)
    env.configure(Configuration().set_string("kindling.bounded.one-step", one_step)
                  .set_string("kindling.source.max-records-per-batch", "100"))
    by_spark = _changes(env, query, True)
    assert by_spark == _changes(env, query, False)
    assert set(by_spark) == {None, "k0", "k1", "k2", "k3", "k4"}


def _final(changes: dict) -> dict:
    """The row each key's changes leave, checking that every -U retracts the row last emitted."""
    out = {}
    for key, own in changes.items():
        current = None
        for kind, row in own:
            if kind == "-U":
                assert row == current, f"{row} retracts a row never emitted ({current})"
                current = None
            else:
                assert current is None, f"{row} adds a second row for {key}"
                current = row
        out[key] = current
    return out


@pytest.mark.slow  # three jobs
def test_two_splits_give_a_consistent_changelog_of_every_row(env):
    """Two splits, parallelism 2, micro-batches of 100 rows per split: keys repeat across batches; which
    split's row of a key comes last is not defined, but keep-last emits each row once (+I or +U), retracts
    only the row it last emitted, as the Python operator; keep-first one +I per key."""
    _micro_batches(env, 2)
    by_spark, by_python = _changes(env, LAST, True), _changes(env, LAST, False)
    _final(by_spark)
    for key, own in by_spark.items():
        emitted = [sorted((row for kind, row in changes if kind != "-U"), key=str) for changes in (own, by_python[key])]
        assert emitted[0] == emitted[1]
        assert len(own) == len(by_python[key]) == 2 * len([n for n in range(1, N + 1) if (
            None if n % 11 == 0 else f"k{n % 5}") == key]) - 1
    first = _changes(env, FIRST, True)
    assert all(len(own) == 1 and own[0][0] == "+I" for own in first.values()) and len(first) == 6


def _dedup_writer(tmp_path, keep: str, seen: list, mini_batch: bool = False):
    """A micro-batch writer of a deduplication of ``(k, v)`` rows by ``k`` whose changes go to ``seen``."""
    from kindling.common.typeinfo import RowTypeInfo
    from kindling.spark.compiler import Compiler
    from kindling.spark.connectors import writer_for
    from kindling.spark.table.aggregation import AggregationSinkSpec
    from kindling.table.table import changelog_type

    row = RowTypeInfo([Types.STRING(), Types.LONG()], ["k", "v"])
    output_type = changelog_type(row) if keep == "last" else row
    spec = GroupAggregateSpec(keys=["k"], fields=[("column", 0), ("column", 1)], deduplicate=keep, columns=["k", "v"],
                              per_batch=mini_batch)
    writer = writer_for(AggregationSinkSpec(aggregate=spec, output_type=output_type, mode=RunMode.MICRO_BATCH,
                                            parallelism=2), Compiler)
    writer.bind(str(tmp_path))
    writer._emit = lambda changes, _: seen.append([(r.k, r.v, r[ROW_KIND]) for r in changes.orderBy("__seq", "__pos")
                                                   .collect()]) or 0
    return writer


def _stored(state_dir) -> list[tuple]:
    """Every stored ``(key, batch id, v)`` of a deduplication's state (the row it keeps)."""
    import json
    import os
    import sqlite3

    out = []
    for name in os.listdir(state_dir):
        with sqlite3.connect(os.path.join(state_dir, name)) as db:
            out += [(json.loads(group).get("__k0"), version, json.loads(value)["__res"]["v"])
                    for group, version, value in db.execute("SELECT id, version, value FROM state")]
    return sorted(out, key=str)


I, UB, UA = RowKind.INSERT.value, RowKind.UPDATE_BEFORE.value, RowKind.UPDATE_AFTER.value


@pytest.mark.parametrize("keep", ["first", "last"])
def test_a_replayed_micro_batch_gives_the_same_changes_and_state(spark, tmp_path, keep):
    seen = []
    writer = _dedup_writer(tmp_path, keep, seen)
    first = spark.createDataFrame([("a", 1), ("b", 2), ("a", 3), (None, 4)], "k string, v long").coalesce(1)
    second = spark.createDataFrame([("a", 5), ("c", 6), ("a", 5), (None, 7)], "k string, v long").coalesce(1)
    writer.write(first, 0)
    writer.write(second, 1)
    writer.write(second, 1)  # replayed after a failure before Spark committed batch 1
    if keep == "first":
        assert seen[0] == [("a", 1, I), ("b", 2, I), (None, 4, I)]
        assert seen[1] == seen[2] == [("c", 6, I)]
        assert writer.state_rows_written == 1  # a key's first row never changes: only c's is written
        assert _stored(writer.state_dir) == sorted([("a", 0, 1), (None, 0, 4), ("b", 0, 2), ("c", 1, 6)], key=str)
    else:
        assert seen[0] == [("a", 1, I), ("b", 2, I), ("a", 1, UB), ("a", 3, UA), (None, 4, I)]
        # an equal row too: -U/+U (Flink's rows differ in their processing time)
        assert seen[1] == seen[2] == [("a", 3, UB), ("a", 5, UA), ("c", 6, I), ("a", 5, UB), ("a", 5, UA),
                                      (None, 4, UB), (None, 7, UA)]
        assert _stored(writer.state_dir) == sorted([("a", 0, 3), ("a", 1, 5), (None, 0, 4), (None, 1, 7), ("b", 0, 2),
                                                    ("c", 1, 6)], key=str)


def test_mini_batch_keeps_the_last_row_of_a_key_once_per_micro_batch(spark, tmp_path):
    seen = []
    writer = _dedup_writer(tmp_path, "last", seen, mini_batch=True)
    writer.write(spark.createDataFrame([("a", 1), ("b", 2), ("a", 3)], "k string, v long").coalesce(1), 0)
    writer.write(spark.createDataFrame([("a", 5), ("a", 6), ("c", 7)], "k string, v long").coalesce(1), 1)
    assert sorted(seen[0], key=str) == sorted([("a", 3, I), ("b", 2, I)], key=str)
    assert sorted(seen[1], key=str) == sorted([("a", 3, UB), ("a", 6, UA), ("c", 7, I)], key=str)


def _explained(t_env, query: str) -> str:
    """The explain line of the query's Deduplicate (or Rank) node."""
    return next(line for line in t_env.sql_query(query).explain().splitlines() if "rankType" in line)


def test_explain_says_where_a_deduplication_runs_and_why(env):
    t_env = _t_env(env, True)
    assert "[Spark JVM, one step]" in _explained(t_env, LAST)
    assert "[Python, one step: a stateful node reads its changes]" in _explained(
        t_env, f"SELECT key, COUNT(*) FROM ({FIRST}) GROUP BY key")
    assert "a Top-N of a stream changes its rows as they arrive" in _explained(
        t_env, "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY key ORDER BY v) AS rn FROM t) WHERE rn = 1")
    t_env.execute_sql("CREATE TEMPORARY VIEW timed AS SELECT n, key, TO_TIMESTAMP_LTZ(n, 3) AS ts FROM t")
    t_env.create_temporary_view("events", t_env.from_data_stream(
        t_env.to_data_stream(t_env.from_path("timed")), Schema.new_builder()
        .column_by_metadata("rowtime", DataTypes.TIMESTAMP_LTZ(3)).watermark("rowtime", "SOURCE_WATERMARK()").build()))
    for order in ("", " DESC"):
        assert "an event-time deduplication follows Flink's per-element watermark" in _explained(
            t_env, f"SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY key ORDER BY rowtime{order}) AS rn "
                   "FROM events) WHERE rn = 1")
    assert "[Python, one step: kindling.table.spark-operators is false]" in _explained(_t_env(env, False), LAST)
