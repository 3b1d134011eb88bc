"""Group aggregations computed by Spark's own operators (kindling/spark/table/aggregation.py) give the
changes the Python operator gives (Flink's, tests/conformance/programs/table_*.py), on two
partitions, across micro-batches, when a batch is replayed, and with Flink's mini-batches; what
Spark cannot compute as Flink does stays on the Python operator."""
from __future__ import annotations

from collections import defaultdict

import pytest

from kindling.common import Configuration, Types
from kindling.common.types import RowKind
from kindling.common.watermark_strategy import WatermarkStrategy
from kindling.datastream.connectors.number_seq import NumberSequenceSource
from kindling.graph.specs import GroupAggregateSpec
from kindling.spark.run_mode import RunMode
from kindling.table import DataTypes, StreamTableEnvironment
from kindling.table.expressions import col, lit
from failure_support import fail_first_time  # tests/: on sys.path (tests/conftest.py)

N = 300


def _table(env, spark_aggregation: bool, **config):
    """Rows (n, key, v) from two splits: key k0..k4 or null, v null for every 7th n."""
    t_env = StreamTableEnvironment.create(env)
    t_env.get_config().set("kindling.table.spark-aggregation", str(spark_aggregation).lower())
    for key, value in config.items():
        t_env.get_config().set(key, value)
    rows = env.from_source(NumberSequenceSource(1, N), WatermarkStrategy.no_watermarks(), "numbers").map(
        lambda n: (n, None if n % 11 == 0 else f"k{n % 5}", None if n % 7 == 0 else n % 13 - 4),
        output_type=Types.ROW_NAMED(['n', 'key', 'v'], [Types.LONG(), Types.STRING(), Types.INT()]))
    return t_env, t_env.from_data_stream(rows)


def _aggregated(table):
    return table.group_by(col('key')).select(
        col('key'), col('v').sum.alias('total'), col('v').count.alias('c'), lit(1).count.alias('n'),
        col('v').avg.alias('mean'), col('v').min.alias('low'), col('n').max.alias('last'), col('v').sum0)


def _per_key(changes) -> dict:
    """Each group's changes in order: what a parallel job defines (the order across groups is not)."""
    out = defaultdict(list)
    for change in changes:
        out[change[0]].append((str(change.get_row_kind()), tuple(change)))
    return dict(out)


def _changes(env, spark_aggregation: bool, **config) -> dict:
    _, table = _table(env, spark_aggregation, **config)
    with _aggregated(table).execute().collect() as rows:
        return _per_key(list(rows))


@pytest.mark.parametrize("one_step", ["true", "false"])
def test_spark_computes_the_changes_the_python_operator_computes(env, one_step):
    """One split: one arrival order, so each group's changes are defined, across micro-batches too."""
    env.set_parallelism(1)
    env.configure(Configuration().set_string("kindling.bounded.one-step", one_step)
                  .set_string("kindling.source.max-records-per-batch", "100"))
    by_spark = _changes(env, True)
    assert by_spark == _changes(env, False)
    assert set(by_spark) == {None, "k0", "k1", "k2", "k3", "k4"}


def _final(changes: dict) -> dict:
    """The result each group's changes leave, checking that every -U retracts the row last emitted."""
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


def test_two_splits_give_a_consistent_changelog_with_the_same_results(env):
    env.set_parallelism(2)
    env.configure(Configuration().set_string("kindling.bounded.one-step", "false")
                  .set_string("kindling.source.max-records-per-batch", "100"))
    assert _final(_changes(env, True)) == _final(_changes(env, False))


def test_mini_batch_changes_each_group_once_per_micro_batch(env):
    env.set_parallelism(2)
    env.configure(Configuration().set_string("kindling.bounded.one-step", "false")
                  .set_string("kindling.source.max-records-per-batch", "100"))
    changes = _changes(env, True, **{"table.exec.mini-batch.enabled": "true"})
    per_row = _changes(env, False)
    for key, own in changes.items():
        kinds = [kind for kind, _ in own]
        assert kinds[0] == "+I" and kinds[1:] == ["-U", "+U"] * ((len(kinds) - 1) // 2)
        assert len(own) < len(per_row[key])  # fewer changes than one per row
        assert own[-1] == per_row[key][-1]  # the same final result
        for (_, before), (_, after) in zip(own[1::2], own[2::2]):
            assert before != after  # an unchanged result emits nothing


def test_batch_mode_gives_one_insert_per_group(env):
    from kindling.datastream import RuntimeExecutionMode

    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    env.set_parallelism(2)
    by_spark, by_python = _changes(env, True), _changes(env, False)
    assert by_spark == by_python
    assert all(len(own) == 1 and own[0][0] == "+I" for own in by_spark.values())


def test_a_filter_and_a_print_table_after_the_aggregation_print_as_on_the_python_operator(env, capsys):
    env.set_parallelism(1)
    printed = []
    for spark_aggregation in (True, False):
        t_env, table = _table(env, spark_aggregation)
        t_env.execute_sql("CREATE TEMPORARY TABLE printed (key STRING, total INT) WITH ('connector' = 'print')")
        table.group_by(col('key')).select(col('key'), col('v').sum.alias('total')) \
            .where(col('total') > 0).execute_insert('printed').wait()
        printed.append(capsys.readouterr().out.splitlines())
    assert printed[0] == printed[1]  # line for line: the arrival order, at parallelism 1
    assert {line[:3] for line in printed[0]} == {"+I[", "-U[", "+U["}


def _count_writer(tmp_path, seen: list):
    """A micro-batch writer of ``SELECT k, COUNT(*) ... GROUP BY k`` whose changes go to ``seen``."""
    from kindling.common.typeinfo import RowTypeInfo
    from kindling.spark.compiler import Compiler
    from kindling.spark.connectors import writer_for
    from kindling.spark.table.aggregation import AggregationSinkSpec
    from kindling.table.table import changelog_type

    output_type = changelog_type(RowTypeInfo([Types.STRING(), Types.LONG()], ["k", "n"]))
    aggregate = GroupAggregateSpec(keys=["k"], calls=[("count", None, False)], fields=[("key", 0), ("call", 0)])
    writer = writer_for(AggregationSinkSpec(aggregate=aggregate, output_type=output_type, mode=RunMode.MICRO_BATCH,
                                            parallelism=2), Compiler)
    writer.bind(str(tmp_path))
    writer._emit = lambda changes, _: seen.append(sorted((tuple(r)[:3] for r in changes.collect()), key=str)) or 0
    return writer


def _stored(state_dir) -> list[tuple]:
    """Every stored ``(key, batch id, count)`` of a count-per-key aggregation's state."""
    import json
    import os
    import sqlite3

    out = []
    for name in os.listdir(state_dir):
        with sqlite3.connect(os.path.join(state_dir, name)) as db:
            out += [(json.loads(group).get("__k0"), version, json.loads(value)["__res"]["n"])
                    for group, version, value in db.execute("SELECT id, version, value FROM state")]
    return sorted(out, key=str)


def test_a_replayed_micro_batch_gives_the_same_changes_and_state(spark, tmp_path):
    seen = []
    writer = _count_writer(tmp_path, seen)
    first = spark.createDataFrame([("a",), ("b",), ("a",)], "k string")
    second = spark.createDataFrame([("a",), ("c",)], "k string")
    writer.write(first, 0)
    writer.write(second, 1)
    writer.write(second, 1)  # replayed after a failure before Spark committed batch 1
    assert seen[1] == seen[2] == sorted([("a", 2, RowKind.UPDATE_BEFORE.value), ("a", 3, RowKind.UPDATE_AFTER.value),
                                         ("c", 1, RowKind.INSERT.value)], key=str)
    # a's state as of batch 0 stays for a replay of batch 1
    assert _stored(writer.state_dir) == [("a", 0, 2), ("a", 1, 3), ("b", 0, 1), ("c", 1, 1)]


def test_a_micro_batch_writes_the_state_of_the_groups_it_touches_only(spark, tmp_path):
    seen = []
    writer = _count_writer(tmp_path, seen)
    writer.write(spark.createDataFrame([(f"g{i}",) for i in range(200)], "k string"), 0)
    assert writer.state_rows_written == 200
    writer.write(spark.createDataFrame([("g7",), ("g7",), ("new",), (None,)], "k string"), 1)
    assert writer.state_rows_written == 3  # of 202 groups
    before, after, insert = RowKind.UPDATE_BEFORE.value, RowKind.UPDATE_AFTER.value, RowKind.INSERT.value
    assert seen[1] == sorted([("g7", 1, before), ("g7", 2, after), ("g7", 2, before), ("g7", 3, after),
                              ("new", 1, insert), (None, 1, insert)], key=str)
    writer.write(spark.createDataFrame([("g7",), (None,)], "k string"), 2)
    assert writer.state_rows_written == 2
    assert seen[2] == sorted([("g7", 3, before), ("g7", 4, after), (None, 1, before), (None, 2, after)], key=str)
    stored = _stored(writer.state_dir)
    # one version per group, two for a group a replay of the last batch needs the one before of
    assert len(stored) == 202 + 2 and [s for s in stored if s[0] == "g7"] == [("g7", 1, 3), ("g7", 2, 4)]


def _sum_writer(tmp_path, mini_batch: bool, blackhole: bool, seen: list | None = None):
    """A micro-batch writer of ``SELECT k, COUNT(*), SUM(v) ... GROUP BY k`` at parallelism 2 whose
    changes go to a blackhole reading them as they are (``blackhole``), else to ``seen``."""
    from kindling.common.typeinfo import RowTypeInfo
    from kindling.graph.specs import ChangesSourceSpec, DiscardSinkSpec
    from kindling.graph.transformation import SinkTransformation, SourceTransformation
    from kindling.spark.compiler import Compiler
    from kindling.spark.connectors import writer_for
    from kindling.spark.table.aggregation import AggregationSinkSpec
    from kindling.table.table import changelog_type

    output_type = changelog_type(RowTypeInfo([Types.STRING(), Types.LONG(), Types.LONG()], ["k", "n", "s"]))
    aggregate = GroupAggregateSpec(keys=["k"], calls=[("count", None, False), ("sum", "v", True)],
                                   fields=[("key", 0), ("call", 0), ("call", 1)], per_batch=mini_batch)
    source = ChangesSourceSpec(view="kindling_changes_test")
    changes = SourceTransformation(name="aggregate", type_info=output_type, source=source)
    downstream = [SinkTransformation(name="out", inputs=[changes], sink=DiscardSinkSpec())] if blackhole else []
    writer = writer_for(AggregationSinkSpec(aggregate=aggregate, output_type=output_type, mode=RunMode.MICRO_BATCH,
                                            parallelism=2, downstream=downstream, source=source), Compiler)
    writer.bind(str(tmp_path))
    if not blackhole:
        writer._emit = lambda changes, _: seen.append(len(changes.collect())) or 0
    return writer


def _stages_of(spark, run) -> list[int]:
    """The stages of each Spark job ``run()`` starts, once Spark's listeners have seen them all (they
    hear of a job after it ran; on a busy machine, later)."""
    from join_writer_support import spark_job_stages  # tests/: on sys.path (tests/conftest.py)

    def run_and_wait():
        run()
        spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(120_000)
    return spark_job_stages(spark, run_and_wait)


@pytest.mark.parametrize("mini_batch", [False, True])
def test_a_blackhole_after_a_micro_batch_aggregation_counts_its_changes_from_the_groups(
        spark, tmp_path, mini_batch, monkeypatch):
    """Only how many changes a blackhole drops counts: one Spark job a batch, the state's write, which
    sums each group's number of changes as it writes it (before, a second job summed them), not the
    changes themselves, and not one more read of the rows; its stages: the grouping's map side, the
    grouping with the lookup of the groups' state, the write (before, five: a shuffle of the keys to
    the lookup, a join of what it found with the groups)."""
    from kindling.spark.table import aggregation

    batches = [[("a", 1), ("b", 2), ("a", 3)], [("a", 1), ("c", None), ("a", 0), ("c", 5)],
               [("a", -2), ("b", 0), ("d", 1), (None, 4), (None, 4)], [("a", 0)]]
    frames = [spark.createDataFrame(rows, "k string, v int") for rows in batches]
    seen = []
    computed = _sum_writer(tmp_path / "computed", mini_batch, False, seen)
    for batch_id, frame in enumerate(frames):
        computed.write(frame, batch_id)
    # without mini-batches every row changes its group (COUNT(*)): 2n changes, a new group's 2n - 1
    assert mini_batch or seen == [2 * 3 - 2, 2 * 4 - 1, 2 * 5 - 2, 2 * 1]

    def computing(*args):
        raise AssertionError("a blackhole's changes were computed")
    monkeypatch.setattr(aggregation, "per_row_changes", computing)
    monkeypatch.setattr(aggregation, "per_batch_changes", computing)
    blackhole = _sum_writer(tmp_path / "counted", mini_batch, True)
    counted, stages = [], []
    for batch_id, frame in enumerate(frames):
        stages.append(_stages_of(spark, lambda: counted.append(blackhole.write(frame, batch_id))))
    assert blackhole.write(frames[-1], len(frames) - 1) == counted[-1]  # replayed: the same count
    assert counted == seen
    assert stages == [[3]] * len(frames)


def _dedup_writer(tmp_path, keep: str, seen: list):
    """A micro-batch writer of a deduplication of ``(k, v)`` rows by ``k`` keeping the ``keep`` row
    (``first`` or ``last``) whose changes go to ``seen``."""
    from kindling.common.typeinfo import RowTypeInfo
    from kindling.spark.compiler import Compiler
    from kindling.spark.connectors import writer_for
    from kindling.spark.table.aggregation import AggregationSinkSpec
    from kindling.table.table import changelog_type

    output_type = changelog_type(RowTypeInfo([Types.STRING(), Types.INT()], ["k", "v"]))
    aggregate = GroupAggregateSpec(keys=["k"], deduplicate=keep, columns=["k", "v"], fields=[("column", 0), ("column", 1)])
    writer = writer_for(AggregationSinkSpec(aggregate=aggregate, output_type=output_type, mode=RunMode.MICRO_BATCH,
                                            parallelism=2), Compiler)
    writer.bind(str(tmp_path))
    writer._emit = lambda changes, _: seen.append(sorted((tuple(r)[:3] for r in changes.collect()), key=str)) or 0
    return writer


@pytest.mark.parametrize("kind", ["per row", "mini-batch", "first", "last"])
def test_a_micro_batch_looks_up_its_groups_state_where_it_groups_them(spark, tmp_path, kind):
    """The stored state of a batch's groups is looked up in the partitions where the batch's rows are
    grouped, beside each group: no shuffle of the groups' keys to a lookup of their own, no join of
    what it found with the groups. The state's write job (a batch's first) has three stages: the
    grouping's map side, the grouping with the lookup and the merge, the write (a partition per
    SQLite shard); before, five. The changes after every row (but with mini-batches) take each
    group's stored state into the partitions of their window by group with the rows, not by a join:
    the emit (here a collect) is one job; before, a broadcast of the stored state ran first, and the
    join needed its own exchange of the rows. A batch replayed gives the same changes and stages."""

    batches = [[("a", 1), ("b", 2), ("a", 3)], [("a", 1), ("c", None), ("a", 0), ("c", 5)],
               [("a", -2), ("b", 0), ("d", 1), (None, 4), (None, 4)], [("a", 0)]]
    frames = [spark.createDataFrame(rows, "k string, v int") for rows in batches]
    seen = []
    writer = _dedup_writer(tmp_path, kind, seen) if kind in ("first", "last") else \
        _sum_writer(tmp_path, kind == "mini-batch", False, seen)
    stages = [_stages_of(spark, lambda: writer.write(frame, batch_id)) for batch_id, frame in enumerate(frames)]
    stages.append(_stages_of(spark, lambda: writer.write(frames[-1], len(frames) - 1)))  # replayed
    assert seen[-1] == seen[-2]
    assert stages == [[3, 2] if kind == "mini-batch" else [3, 3]] * (len(frames) + 1)
    if kind == "first":  # a key's first row, once
        assert seen == [[("a", 1, 0), ("b", 2, 0)], [("c", None, 0)], [("d", 1, 0), (None, 4, 0)], [], []]


@pytest.mark.parametrize("mini_batch", ["false", "true"])
def test_a_blackhole_counts_the_changes_a_collect_of_the_same_micro_batches_gets(spark, tmp_path, mini_batch):
    from kindling.table import EnvironmentSettings, TableEnvironment

    (tmp_path / "ev.csv").write_text("".join(f"{i % 7},{i % 5}\n" for i in range(300)))

    def t_env():
        t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
        for key, value in {"parallelism.default": "2", "kindling.progress": "false",
                           "kindling.bounded.one-step": "false", "kindling.source.max-records-per-batch": "70",
                           "table.exec.mini-batch.enabled": mini_batch}.items():
            t_env.get_config().set(key, value)
        t_env.execute_sql(f"CREATE TABLE ev (k INT, v BIGINT) WITH ('connector' = 'filesystem', "
                          f"'path' = '{tmp_path / 'ev.csv'}', 'format' = 'csv')")
        return t_env

    query = "SELECT CAST(k AS BIGINT), COUNT(*), SUM(v) FROM ev GROUP BY k"
    with t_env().sql_query(query).execute().collect() as rows:
        changes = len(list(rows))
    blackhole = t_env()
    blackhole.execute_sql("CREATE TABLE out (a BIGINT, b BIGINT, c BIGINT) WITH ('connector' = 'blackhole')")
    result = blackhole.execute_sql("INSERT INTO out " + query).get_job_client().get_job_execution_result().result()
    written = [v for k, v in result.get_all_accumulator_results().items() if k.startswith("records-written:")]
    assert written == [changes]
    assert changes == 2 * 300 - 7 if mini_batch == "false" else 7 <= changes < 2 * 300 - 7  # 5 batches


class _FailOnce:
    """A map of the changes that raises the first time it sees ``poison`` (counted in a file: Spark's
    Python workers are separate processes), after the aggregation has stored the batch's state."""

    def __init__(self, counter: str, poison: str):
        self.counter, self.poison = counter, poison

    def __call__(self, change) -> str:
        line = f"{change.get_row_kind()}|{change[0]}|{change[1]}"
        if line == self.poison:
            fail_first_time(self.counter, line)
        return line


def test_a_batch_replayed_after_a_failure_past_the_state_write_neither_loses_nor_doubles_a_change(env, tmp_path):
    import os

    from kindling.common import RestartStrategies
    from kindling.common.serialization import Encoder
    from kindling.datastream.connectors.file_system import FileSink

    env.set_parallelism(2)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(1, 0))
    env.configure(Configuration().set_string("kindling.bounded.one-step", "false")
                  .set_string("kindling.source.max-records-per-batch", "40"))
    t_env, table = _table(env, True)
    counter = str(tmp_path / "failures")
    counts = table.group_by(col('key')).select(col('key'), lit(1).count.alias('n'))
    t_env.to_changelog_stream(counts).map(_FailOnce(counter, "+U|k1|30"), Types.STRING()) \
        .sink_to(FileSink.for_row_format(str(tmp_path / "out"), Encoder.simple_string_encoder()).build())
    env.execute("replayed aggregation")
    assert open(counter).read() == "x"  # failed once, in the middle of the input
    changes = defaultdict(list)
    for root, dirs, files in os.walk(tmp_path / "out"):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]
        for name in (n for n in files if not n.startswith((".", "_"))):
            for line in open(os.path.join(root, name)).read().splitlines():
                kind, key, n = line.split("|")
                changes[key].append((kind, int(n)))
    for key, own in changes.items():
        rows = sum(1 for n in range(1, N + 1) if str(None if n % 11 == 0 else f"k{n % 5}") == key)
        # COUNT(*) changes with every row: +I 1, then -U i / +U i+1 in order, each once
        assert sorted(own) == sorted([("+I", 1)] + [
            change for i in range(1, rows) for change in (("-U", i), ("+U", i + 1))]), key
    assert len(changes) == 6


@pytest.mark.parametrize("one_step", ["true", "false"])
def test_spark_computes_aggregates_of_expressions_and_expressions_of_aggregates(env, one_step):
    """As Flink: the arguments by a projection below the aggregation, the expressions of its results above
    it (each change of an aggregate a change of the row, even where the expression stays the same)."""
    env.set_parallelism(1)
    env.configure(Configuration().set_string("kindling.bounded.one-step", one_step)
                  .set_string("kindling.source.max-records-per-batch", "100"))
    select = lambda t: t.group_by(col('key')).select(  # noqa: E731
        col('key'), (col('v') * 2).sum.alias('s2'), col('v').sum > 0, (col('n') % 3 == 0).count, col('v').max - 1)
    changes = {}
    for spark_aggregation in (True, False):
        _, table = _table(env, spark_aggregation)
        selected = select(table)
        aggregation = next(line for line in selected.explain().splitlines() if "GroupAggregate" in line)
        assert ("[Spark JVM" in aggregation) == spark_aggregation, aggregation
        with selected.execute().collect() as rows:
            changes[spark_aggregation] = _per_key(list(rows))
    assert changes[True] == changes[False]
    assert sum(map(len, changes[True].values())) == 2 * N - 6  # a change per row: +I, then -U/+U


@pytest.mark.parametrize("select", [
    # a stream's DISTINCT of floats (Flink's 0.0 and -0.0 are two values)
    lambda t: t.group_by(col('key')).select(col('key'), col('v').cast(DataTypes.DOUBLE()).count.distinct),
    lambda t: t.group_by(col('key')).select(col('key'), col('v').cast(DataTypes.FLOAT()).sum),  # float32 sums
    lambda t: t.group_by(col('key')).select(col('key'), col('v').cast(DataTypes.DECIMAL(20, 8)).avg),  # scale > 6
    lambda t: t.group_by(col('key')).select(col('key'), col('v').sum.alias('s')).group_by(col('s'))
    .select(col('s'), lit(1).count),  # an aggregation of an updating table
])
def test_what_spark_cannot_compute_as_flink_stays_on_the_python_operator(env, select):
    _, table = _table(env, True)
    aggregation = select(table)._stream()._transformation
    assert aggregation.relational is None


def test_a_stateful_operator_after_the_aggregation_keeps_it_on_the_python_operator(env):
    from kindling.datastream.connectors import DiscardingSink
    from kindling.spark.table.aggregation import split_aggregations

    t_env, table = _table(env, True)
    changes = t_env.to_changelog_stream(_aggregated(table))
    sinks = [changes.key_by(lambda row: row[0]).map(lambda row: row).sink_to(DiscardingSink())._transformation]
    assert split_aggregations(sinks, RunMode.MICRO_BATCH, 2, {}, "job") == sinks
    direct = [changes.sink_to(DiscardingSink())._transformation]
    assert split_aggregations(direct, RunMode.MICRO_BATCH, 2, {}, "job") != direct


def _window_queries(env, spark_aggregation: bool) -> list:
    """Tumbling, sliding and cumulative windows of the rows' timestamps (n * 37 % 1000 ms, two splits)
    through the Table API and SQL: each query's rows, sorted."""
    from kindling.common import Duration
    from kindling.table import DataTypes, Schema
    from kindling.table.window import Slide, Tumble

    t_env, _ = _table(env, spark_aggregation)
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(200)) \
        .with_timestamp_assigner(lambda row, _: row[0] * 37 % 1000 + row[0] * 3)
    rows = env.from_source(NumberSequenceSource(1, N), WatermarkStrategy.no_watermarks(), "numbers").map(
        lambda n: (n, f"k{n % 5}", n % 13 - 4),
        output_type=Types.ROW_NAMED(['n', 'key', 'v'], [Types.LONG(), Types.STRING(), Types.INT()])) \
        .assign_timestamps_and_watermarks(strategy)
    schema = Schema.new_builder().column("n", DataTypes.BIGINT()).column("key", DataTypes.STRING()) \
        .column("v", DataTypes.INT()).column_by_metadata("rowtime", DataTypes.TIMESTAMP_LTZ(3)) \
        .watermark("rowtime", "SOURCE_WATERMARK()").build()
    table = t_env.from_data_stream(rows, schema)
    t_env.create_temporary_view("events", table)
    queries = [
        table.window(Tumble.over(lit(250).millis).on(col("rowtime")).alias("w")).group_by(col("key"), col("w"))
        .select(col("key"), col("w").start, col("w").end, col("w").rowtime, col("v").sum, lit(1).count),
        table.window(Slide.over(lit(300).millis).every(lit(100).millis).on(col("rowtime")).alias("w"))
        .group_by(col("w")).select(col("w").start, col("v").max, col("n").min),
        t_env.sql_query("SELECT window_start, window_end, key, AVG(v), COUNT(*) FROM TABLE(CUMULATE(TABLE events, "
                        "DESCRIPTOR(rowtime), INTERVAL '0.1' SECOND, INTERVAL '0.4' SECOND)) "
                        "GROUP BY window_start, window_end, key"),
    ]
    out = []
    for query in queries:
        with query.execute().collect() as results:
            out.append(sorted((str(r.get_row_kind()), tuple(r)) for r in results))
    return out


@pytest.mark.parametrize("mode", ["one-step", "BATCH"])
def test_spark_computes_the_windows_the_python_window_operator_computes(env, mode, monkeypatch):
    from kindling.datastream import RuntimeExecutionMode
    from kindling.spark.table import aggregation as relational

    env.set_parallelism(2)
    if mode == "BATCH":
        env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    computed = []  # the windows Spark's own operators computed (else both sides ran the Python operator)
    window_results = relational.window_results
    monkeypatch.setattr(relational, "window_results", lambda *args: computed.append(1) or window_results(*args))
    by_spark = _window_queries(env, True)
    by_spark_calls = len(computed)
    assert by_spark_calls >= 3
    assert by_spark == _window_queries(env, False)
    assert len(computed) == by_spark_calls  # with spark-aggregation false, the Python operator's
    assert all(len(rows) > 10 for rows in by_spark)


_DISTINCT_DECIMAL_FILTER = (
    "SELECT key, COUNT(DISTINCT v) AS cv, SUM(DISTINCT v) AS sv, AVG(DISTINCT v) AS av, MAX(DISTINCT v) AS mv, "
    "SUM(d) AS sd, AVG(d) AS ad, SUM0(d) AS zd, MIN(d) AS ld, AVG(DISTINCT d) AS dd, "
    "COUNT(*) FILTER (WHERE v > 0) AS big, SUM(v) FILTER (WHERE n % 2 = 0) AS even "
    "FROM (SELECT key, n, v, CASE WHEN key = 'k4' THEN CAST(NULL AS DECIMAL(13, 4)) ELSE CAST(v AS DECIMAL(10, 2)) * 0.13 END AS d "
    "FROM t) GROUP BY key")


def _of_scale_6(row) -> tuple:
    """The row with its DECIMALs rounded half up to 6 fraction digits (Flink's scale of an AVG of a
    DECIMAL(13, 4); the Python operator's keeps more digits until a sink writes it), trailing zeros dropped."""
    from decimal import ROUND_HALF_UP, Decimal

    return tuple(v.quantize(Decimal("0.000001"), ROUND_HALF_UP).normalize() if isinstance(v, Decimal) else v
                 for v in row)


def _distinct_decimal_filter_changes(env, spark_aggregation: bool, **config) -> dict:
    t_env, table = _table(env, spark_aggregation, **config)
    t_env.create_temporary_view("t", table)
    query = t_env.sql_query(_DISTINCT_DECIMAL_FILTER)
    aggregation = next(line for line in query.explain().splitlines() if "GroupAggregate" in line)
    assert ("[Spark JVM" in aggregation) == spark_aggregation, aggregation
    with query.execute().collect() as rows:
        return {key: [(kind, _of_scale_6(row)) for kind, row in own] for key, own in _per_key(list(rows)).items()}


@pytest.mark.parametrize("one_step", ["true", "false"])
def test_distinct_filter_and_decimal_aggregates_give_the_python_operators_changes(env, one_step):
    """DISTINCT aggregates (a value a group saw, in this micro-batch or one before, changes nothing;
    NULLs are no value), FILTER aggregates, DECIMAL sums and averages (a group of NULLs sums to NULL)."""
    env.set_parallelism(1)
    env.configure(Configuration().set_string("kindling.bounded.one-step", one_step)
                  .set_string("kindling.source.max-records-per-batch", "100"))  # 3 micro-batches
    by_spark = _distinct_decimal_filter_changes(env, True)
    assert by_spark == _distinct_decimal_filter_changes(env, False)
    last = by_spark["k4"][-1][1]
    assert (last[5], last[7]) == (None, 0)  # SUM, SUM0 of NULLs
    k1 = [row for _, row in by_spark["k1"]]
    assert k1[-1][1] == 13 and len(k1) < 2 * sum(1 for n in range(1, N + 1) if n % 5 == 1 and n % 11)  # -4..8


@pytest.mark.parametrize("mini_batch", ["false", "true"])
def test_distinct_and_decimal_aggregates_on_two_splits_leave_the_python_operators_results(env, mini_batch):
    env.set_parallelism(2)
    env.configure(Configuration().set_string("kindling.bounded.one-step", "false")
                  .set_string("kindling.source.max-records-per-batch", "75"))  # 2 micro-batches per split
    config = {"table.exec.mini-batch.enabled": mini_batch}
    assert _final(_distinct_decimal_filter_changes(env, True, **config)) == \
        _final(_distinct_decimal_filter_changes(env, False, **config))


def _distinct_writer(tmp_path, seen: list):
    """A micro-batch writer of ``SELECT k, COUNT(DISTINCT v), SUM(DISTINCT v) ... GROUP BY k`` whose
    changes go to ``seen``."""
    from kindling.common.typeinfo import RowTypeInfo
    from kindling.spark.compiler import Compiler
    from kindling.spark.connectors import writer_for
    from kindling.spark.table.aggregation import AggregationSinkSpec
    from kindling.table.table import changelog_type

    output_type = changelog_type(RowTypeInfo([Types.STRING(), Types.LONG(), Types.INT()], ["k", "n", "s"]))
    aggregate = GroupAggregateSpec(keys=["k"], calls=[("count_distinct", "v", True), ("sum_distinct", "v", True)],
                                   fields=[("key", 0), ("call", 0), ("call", 1)])
    writer = writer_for(AggregationSinkSpec(aggregate=aggregate, output_type=output_type, mode=RunMode.MICRO_BATCH,
                                            parallelism=2), Compiler)
    writer.bind(str(tmp_path))
    writer._emit = lambda changes, _: seen.append(sorted((tuple(r)[:4] for r in changes.collect()), key=str)) or 0
    return writer


def test_distinct_values_seen_live_in_the_store_and_a_replayed_batch_sees_what_its_batch_saw(spark, tmp_path):
    seen = []
    writer = _distinct_writer(tmp_path, seen)
    batch = lambda rows: spark.createDataFrame(rows, "k string, v int")  # noqa: E731
    insert, before, after = RowKind.INSERT.value, RowKind.UPDATE_BEFORE.value, RowKind.UPDATE_AFTER.value
    writer.write(batch([("a", 1), ("a", 1), ("b", 2), ("a", None), ("c", None)]), 0)
    assert seen[0] == sorted([("a", 1, 1, insert), ("b", 1, 2, insert), ("c", 0, None, insert)], key=str)
    assert writer.state_rows_written == 3 + 2 * 2  # groups a, b, c; (a, 1), (b, 2) of each DISTINCT call
    second = batch([("a", 1), ("a", 3), ("b", None), ("a", 3)])
    writer.write(second, 1)
    writer.write(second, 1)  # replayed: 3 is new to a again, 1 is not
    assert seen[1] == seen[2] == sorted([("a", 1, 1, before), ("a", 2, 4, after)], key=str)
    assert writer.state_rows_written == 2 + 2  # groups a, b; (a, 3) of each call
    writer.write(batch([("a", 3), ("a", 4), ("c", 4)]), 2)
    assert seen[3] == sorted([("a", 2, 4, before), ("a", 3, 8, after), ("c", 0, None, before),
                              ("c", 1, 4, after)], key=str)
    assert writer.state_rows_written == 2 + 2 * 2


def test_distinct_values_seen_are_looked_up_beside_the_rows_that_bring_them(spark, tmp_path):
    """A DISTINCT call's values seen before are looked up in the partitions of the window that finds
    each group's first row of a value, beside those rows: no shuffle of the (group, value) pairs to a
    lookup, no join of what it found with the rows. A batch's jobs: the values' write per DISTINCT
    call, the groups' state's write, the emit's (here a collect); before, six jobs of 12-13 stages
    each (the values' lookups and joins ran again in every job reading the rows)."""

    seen = []
    writer = _distinct_writer(tmp_path, seen)
    batches = [[("a", 1), ("a", 1), ("b", 2), ("a", None)], [("a", 1), ("a", 3), ("b", None), ("a", 3)], [("a", 3)]]
    stages = [_stages_of(spark, lambda: writer.write(spark.createDataFrame(rows, "k string, v int"), batch_id))
              for batch_id, rows in enumerate(batches)]
    assert stages == [[4, 4, 5, 5]] * len(batches)
    assert seen[2] == []  # 3 was seen by a in batch 1


def test_a_double_sum_adds_row_by_row_onto_the_stored_sum_as_flink(env):
    """Flink adds each row to its group's sum in turn: ((stored + a) + b), not stored + (a + b), which
    differ in a DOUBLE's last bits (0.1 + 0.2 + 0.3 prints 0.6000000000000001)."""
    env.set_parallelism(1)
    env.configure(Configuration().set_string("kindling.bounded.one-step", "false")
                  .set_string("kindling.source.max-records-per-batch", "20"))  # 3 micro-batches

    def changes(spark_aggregation: bool) -> dict:
        t_env = StreamTableEnvironment.create(env)
        t_env.get_config().set("kindling.table.spark-aggregation", str(spark_aggregation).lower())
        rows = env.from_source(NumberSequenceSource(1, 60), WatermarkStrategy.no_watermarks(), "numbers").map(
            lambda n: (f"k{n % 2}", (n % 10) / 10),
            output_type=Types.ROW_NAMED(['key', 'v'], [Types.STRING(), Types.DOUBLE()]))
        table = t_env.from_data_stream(rows)
        with table.group_by(col('key')).select(col('key'), col('v').sum, col('v').avg).execute().collect() as out:
            return _per_key(list(out))

    by_spark = changes(True)
    assert by_spark == changes(False)
    assert any(repr(row[1]).endswith("0001") or repr(row[1]).endswith("9999") for own in by_spark.values()
               for _, row in own)  # sums whose last bits show the order of the additions
