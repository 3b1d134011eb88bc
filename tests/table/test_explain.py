"""EXPLAIN tells where a query runs: for each kind of plan node, what ``Table.explain()`` claims (Spark's
JVM operators or Kindling's Python operator; one step, micro-batches or BATCH) is what the job then
ran. What ran is read from the running job: the plan nodes Spark translated into DataFrame
operations (kindling/spark/table/translate.py), the aggregations Spark computed
(kindling/spark/table/aggregation.py), the Python operators in the compiled job graph (each described
as explain prints its node), the source frames (a Spark local relation or Kindling's source) and
the run mode the runner chose."""
from __future__ import annotations

import re
from collections import Counter
from types import SimpleNamespace

import pytest

from event_views import event_view

from kindling.common import Configuration
from kindling.table import DataTypes, StreamTableEnvironment
from kindling.table.expressions import col, lit
from kindling.table.udf import udf, udtf
from kindling.table.window import Tumble

_LINE = re.compile(r"^[ :+|-]*(?P<label>.*) \[(?P<engine>Spark JVM|Python on Arrow batches|Python), (?P<mode>[^\]:]+)(: [^\]]+)?\], "
                   r"changelogMode=")
_MODES = {"one_step": "one step", "micro_batch": "micro-batches", "batch": "BATCH"}
#: where each engine explain names runs a node: its Python calls on Arrow batches are part of Spark's frame
_RUNS_IN = {"Spark JVM": "Spark JVM", "Python on Arrow batches": "Spark JVM", "Python": "Python"}


class _Ran:
    """What the jobs run since the last :meth:`clear` did, recorded by spies on the driver."""

    def __init__(self):
        self.clear()

    def clear(self) -> None:
        self.python, self.jvm, self.modes, self.read_by_spark = set(), set(), [], False


@pytest.fixture
def ran(monkeypatch):
    from kindling.graph.transformation import SourceTransformation, upstream_graph
    from kindling.spark import compiler, runner
    from kindling.spark.table import aggregation, downstream, join, translate
    from kindling.table.planner.explain import label

    record = _Ran()
    compile_job, source_frame = compiler.Compiler.compile, compiler.Compiler.source_frame
    relational_frame, write, split = translate.relational_frame, aggregation.AggregationWriter.write, \
        runner.split_aggregations
    join_batch, join_pairs, calc_step = join.JoinWriter.write_batch, join.JoinWriter.write_pairs, downstream.calc_step

    def compile_spy(self):
        compiled = compile_job(self)
        record.python |= {n.description for n in upstream_graph(self.sinks)
                          if n.description and not isinstance(n, SourceTransformation)}
        return compiled

    def source_frame_spy(self, node):
        frame = source_frame(self, node)
        plan = frame._jdf.queryExecution().logical().toString()
        record.read_by_spark |= "LocalRelation" in plan or "] csv" in plan  # elements, or Spark's CSV reader
        return frame

    def relational_frame_spy(spec, bases, control, parallelism, **options):
        stack = [spec.plan]
        while stack:
            node = stack.pop()
            if node.inputs:  # (Spark computes ranks in BATCH mode only)
                record.jvm.add(label(node, SimpleNamespace(in_batch=True)))
                stack.extend(node.inputs)
        return relational_frame(spec, bases, control, parallelism, **options)

    def write_spy(self, df, batch_id):
        record.jvm.add(self.spec.description)
        return write(self, df, batch_id)

    def join_spy(self, left, right, batch_id):
        record.jvm.add(self.spec.description)
        return join_batch(self, left, right, batch_id)

    def pairs_spy(self, pairs, batch_id):  # the pairs of Spark's stream-stream join in the streaming query
        record.jvm.add(self.spec.description)
        return join_pairs(self, pairs, batch_id)

    def calc_step_spy(node):  # a Calc after a micro-batch writer's changes, as Spark columns of them
        step = calc_step(node)
        if step is not None and node.description:
            record.jvm.add(node.description)
        return step

    def split_spy(sinks, mode, *arguments):
        record.modes.append(mode)
        return split(sinks, mode, *arguments)

    monkeypatch.setattr(compiler.Compiler, "compile", compile_spy)
    monkeypatch.setattr(compiler.Compiler, "source_frame", source_frame_spy)
    monkeypatch.setattr(translate, "relational_frame", relational_frame_spy)
    monkeypatch.setattr(aggregation.AggregationWriter, "write", write_spy)
    monkeypatch.setattr(runner, "split_aggregations", split_spy)
    monkeypatch.setattr(join.JoinWriter, "write_batch", join_spy)
    monkeypatch.setattr(join.JoinWriter, "write_pairs", pairs_spy)
    monkeypatch.setattr(downstream, "calc_step", calc_step_spy)
    return record


def _check(table, ran: _Ran) -> Counter:
    """Runs ``table`` and checks every claim of its explain against what ran; the claims, counted
    as (node kind, engine)."""
    claims = [_LINE.match(line) for line in table.explain().splitlines()[1:]]
    assert None not in claims, table.explain()
    ran.clear()
    with table.execute().collect() as rows:
        assert list(rows)
    assert {_MODES[m] for m in ran.modes} == {c["mode"].split(", ")[0] for c in claims}  # the mode, then how
    for claim in claims:
        name, engine = claim["label"], claim["engine"]
        if name.startswith("TableSourceScan") and "[from_data_stream]" not in name:  # read by a source
            # one job's scans read by Spark (a local relation, Spark's CSV reader) or all in Python
            scans = {c["engine"] for c in claims if c["label"].startswith("TableSourceScan")}
            assert ran.read_by_spark == ("Spark JVM" in scans), claim.string
        else:
            where = {"Python"} if name in ran.python else set()
            where |= {"Spark JVM"} if name in ran.jvm else set()
            assert where == {_RUNS_IN[engine]}, f"explain says {engine}, the job ran it in {where or 'nothing'}: {name}"
    return Counter((c["label"].split("(")[0], c["engine"]) for c in claims)


def _orders(t_env):
    return t_env.from_elements([(n, f"u{n % 3}", n * 10) for n in range(30)], ["id", "u", "amount"])


@udf(result_type=DataTypes.STRING())
def shout(text):
    return text.upper()


@udtf(result_types=[DataTypes.STRING()])
def letters(text):
    yield from text


def test_explain_says_what_runs_in_one_step_and_on_micro_batches(env, ran):
    seen = Counter()
    for one_step in ("true", "false"):
        env.configure(Configuration().set_string("kindling.bounded.one-step", one_step))
        t_env = StreamTableEnvironment.create(env)
        orders = _orders(t_env)
        t_env.create_temporary_view("orders", orders)
        seen += _check(t_env.sql_query("SELECT u, total * 2 AS twice FROM (SELECT u, SUM(amount) AS total, COUNT(*) "
                                       "AS n FROM orders WHERE amount > 20 GROUP BY u) WHERE n > 1"), ran)
        seen += _check(orders.select(shout(col('u')).alias('s'), col('amount'))
                       .group_by(col('s')).select(col('s'), col('amount').count.distinct,
                                                  col('amount').cast(DataTypes.FLOAT()).sum), ran)
        seen += _check(orders.join_lateral(letters(col('u')).alias('letter'))
                       .union_all(orders.select(col('id'), col('u'), col('amount'), col('u').alias('letter'))), ran)
        users = t_env.from_elements([(f"u{n}", n) for n in range(2)], ["uid", "rank"])
        seen += _check(orders.join(users, col('u') == col('uid')).select(col('id'), col('rank')), ran)
        seen += _check(orders.full_outer_join(users, col('u') == col('uid')).select(col('id'), col('rank')), ran)
    assert {("Calc", "Spark JVM"), ("Calc", "Python on Arrow batches"), ("Calc", "Python"), ("GroupAggregate", "Spark JVM"),
            ("GroupAggregate", "Python"), ("Correlate", "Python on Arrow batches"), ("Union", "Python"),
            ("Join", "Spark JVM"), ("Join", "Python")} <= set(seen)


def test_explain_says_what_runs_in_batch_mode(env, ran):
    from kindling.datastream import RuntimeExecutionMode

    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    t_env = StreamTableEnvironment.create(env)
    orders = _orders(t_env)
    t_env.create_temporary_view("orders", orders)
    t_env.create_temporary_view("more", _orders(t_env).where(col('id') > 10))
    sorted_totals = t_env.sql_query("SELECT u, MAX(amount) AS top FROM (SELECT * FROM orders INTERSECT SELECT * FROM "
                                    "more) GROUP BY u ORDER BY top DESC LIMIT 2")
    assert "[Python" not in sorted_totals.explain()  # set operations and sorts of a batch are Spark's
    seen = _check(sorted_totals, ran)
    # an intersection of DOUBLE columns (Flink compares their bits) is Python, and so what reads it
    sorted_totals = t_env.sql_query("SELECT u, MAX(a) AS top FROM (SELECT u, CAST(amount AS DOUBLE) AS a FROM orders "
                                    "INTERSECT SELECT u, CAST(amount AS DOUBLE) FROM more) GROUP BY u ORDER BY top DESC")
    assert "[Python, BATCH: a stateful node reads its changes]" in sorted_totals.explain()  # the aggregation
    seen += _check(sorted_totals, ran)
    seen += _check(t_env.sql_query("SELECT b.u, COUNT(*) AS n FROM orders AS a JOIN more AS b ON a.id = b.id "
                                   "GROUP BY b.u"), ran)
    seen += _check(t_env.sql_query("SELECT u, MIN(amount) AS low FROM more GROUP BY u"), ran)
    # a join of frames and the aggregation of its rows are Spark's
    assert {("GroupAggregate", "Spark JVM"), ("GroupAggregate", "Python"), ("Intersect", "Python"),
            ("Intersect", "Spark JVM"), ("Sort", "Python"), ("Sort", "Spark JVM"), ("Join", "Spark JVM"),
            ("Calc", "Spark JVM")} <= set(seen)


def _events(env, t_env, name: str, eager: bool, directory) -> None:
    """A table of 200 events ``(ts, k, v)``: a CSV file's rows with a Flink SQL watermark (``eager``: the
    job runs on micro-batches, kindling/spark/runner.py), or a DataStream's over two splits with a
    watermark emitted periodically (one step)."""
    event = lambda n: (1000 + n * 37 % 5000, n % 4, n)  # noqa: E731
    if not eager:
        event_view(env, t_env, name, 200, event)
        return
    path = directory / "events.csv"
    path.write_text("".join(f"1970-01-01 00:00:{t // 1000:02d}.{t % 1000:03d},{k},{v}\n"
                            for t, k, v in map(event, range(200))))
    t_env.execute_sql(f"CREATE TABLE {name} (ts TIMESTAMP(3), k BIGINT, v BIGINT, WATERMARK FOR ts AS ts - "
                      f"INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')")


@pytest.mark.parametrize("eager", [False, True], ids=["source-watermark", "sql-watermark"])
def test_explain_says_what_runs_for_event_time_nodes(env, ran, eager, tmp_path):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    _events(env, t_env, "events", eager, tmp_path)
    windows = ("SELECT window_start, k, SUM(v) AS total FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), "
               "INTERVAL '1' SECOND)) GROUP BY window_start, window_end, k")
    seen = _check(t_env.sql_query(windows), ran)
    seen += _check(t_env.sql_query("SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING "
                                   "AND CURRENT ROW) AS s FROM events"), ran)
    seen += _check(t_env.sql_query("SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) "
                                   "AS rn FROM events) WHERE rn = 1"), ran)
    seen += _check(t_env.sql_query("SELECT a.v, b.v FROM events AS a JOIN events AS b ON a.k = b.k AND a.ts BETWEEN "
                                   "b.ts - INTERVAL '0.1' SECOND AND b.ts"), ran)
    seen += _check(t_env.from_path("events").window(Tumble.over(lit(2).seconds).on(col('ts')).alias('w'))
                   .group_by(col('k'), col('w')).select(col('k'), col('w').end, col('v').max), ran)
    engine = "Python" if eager else "Spark JVM"  # Flink's per-element watermark decides windows on micro-batches
    assert {("WindowAggregate", engine), ("GroupWindowAggregate", engine), ("OverAggregate", "Python"),
            ("Deduplicate", "Python"), ("IntervalJoin", "Python"), ("WatermarkAssigner", "Python")} <= set(seen)


def test_explain_says_event_time_nodes_run_in_spark_in_batch_mode(env, ran, tmp_path):
    from kindling.datastream import RuntimeExecutionMode

    env.set_parallelism(2)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    t_env = StreamTableEnvironment.create(env)
    _events(env, t_env, "events", True, tmp_path)
    seen = _check(t_env.sql_query("SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING "
                                  "AND CURRENT ROW) AS s FROM events"), ran)
    seen += _check(t_env.sql_query("SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) "
                                   "AS rn FROM events) WHERE rn = 1"), ran)
    seen += _check(t_env.sql_query("SELECT a.v, b.v FROM events AS a LEFT JOIN events AS b ON a.k = b.k AND a.ts "
                                   "BETWEEN b.ts - INTERVAL '0.1' SECOND AND b.ts"), ran)
    seen += _check(t_env.sql_query("SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end "
                                   "ORDER BY v DESC) AS rn FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), "
                                   "INTERVAL '1' SECOND))) WHERE rn <= 2"), ran)
    seen += _check(t_env.sql_query("SELECT k FROM events UNION ALL SELECT v FROM events"), ran)
    assert {("OverAggregate", "Spark JVM"), ("Rank", "Spark JVM"), ("IntervalJoin", "Spark JVM"),
            ("WindowTableFunction", "Spark JVM"), ("Union", "Spark JVM"),
            ("WatermarkAssigner", "Spark JVM")} <= {(kind.split(",")[0], engine) for kind, engine in seen}
