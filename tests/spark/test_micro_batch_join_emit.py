"""The Calcs after a join or aggregation Spark computes on micro-batches run as Spark columns of its
changes (kindling/spark/table/downstream.py), not as a Python pass: the sinks get the rows, the
print sink's subtasks and the order of the changes the Python pass gave; a blackhole after them is
written from the changes' frame without a compiled job."""
from __future__ import annotations

import pytest

from kindling.common import Configuration

SOURCES = ("CREATE TEMPORARY TABLE l (n BIGINT, k STRING, v INT) WITH ('connector' = 'datagen', "
           "'number-of-rows' = '90', 'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '90', "
           "'fields.k.length' = '1', 'fields.v.min' = '0', 'fields.v.max' = '9')",
           "CREATE TEMPORARY TABLE r (m BIGINT, key STRING, w INT) WITH ('connector' = 'datagen', "
           "'number-of-rows' = '60', 'fields.m.kind' = 'sequence', 'fields.m.start' = '1', 'fields.m.end' = '60', "
           "'fields.key.length' = '1', 'fields.w.min' = '0', 'fields.w.max' = '9')")


def _python_passes(frame) -> list[str]:
    """The Python nodes of ``frame``'s executed plan above the join's changes (kept in memory for the
    batch: the join computed them)."""
    plan = frame._jdf.queryExecution().executedPlan().toString().split("InMemoryTableScan")
    assert len(plan) > 1, plan[0]
    return [line.strip() for line in plan[0].splitlines() if "Python" in line or "Arrow" in line]


@pytest.fixture
def spied(monkeypatch):
    """What the writers after a Spark join or aggregation get: ``frames``, those a blackhole wrote
    (``python``: the Python nodes of their plans above the join's changes; ``written``: their rows),
    ``graphs``, the sinks of each job compiled after the join or aggregation."""
    from kindling.spark import sinks
    from kindling.spark.table import aggregation

    seen = {"frames": [], "graphs": [], "python": [], "written": 0}
    write = sinks.DiscardWriter.write

    def discard(self, df, batch_id):
        seen["frames"].append(df)
        seen["python"].extend(_python_passes(df))
        written = write(self, df, batch_id)
        seen["written"] += written
        return written
    monkeypatch.setattr(sinks.DiscardWriter, "write", discard)
    compiler = aggregation.AggregationWriter.__init__

    def init(self, spec, compiler_class, writer_for):
        def compiling(spark, sinks_, *args):
            seen["graphs"].append(sinks_)
            return compiler_class(spark, sinks_, *args)
        compiler(self, spec, compiling, writer_for)
    monkeypatch.setattr(aggregation.AggregationWriter, "__init__", init)
    return seen


def _t_env(env, per_batch: int = 40):
    from kindling.table import StreamTableEnvironment

    env.set_parallelism(2)
    env.configure(Configuration().set_string("kindling.bounded.one-step", "false")
                  .set_string("kindling.source.max-records-per-batch", str(per_batch)))
    t_env = StreamTableEnvironment.create(env)
    for ddl in SOURCES:
        t_env.execute_sql(ddl)
    return t_env


def _no_calc_in(graphs: list) -> bool:
    """Whether no job compiled after the join runs a Project or Condition in Python."""
    from kindling.graph.transformation import upstream_graph
    from kindling.runtime.table.rows import Condition, Project

    return all(not isinstance(getattr(n, "function", None), (Project, Condition))
               for sinks in graphs for n in upstream_graph(sinks))


def _printed(env, capfd, sql: str, fold: bool) -> list[str]:
    from kindling.spark.table import downstream

    with pytest.MonkeyPatch.context() as patch:
        if not fold:  # the Calcs in a Python pass, as before
            patch.setattr(downstream, "calc_step", lambda node: None)
        t_env = _t_env(env)
        t_env.execute_sql("CREATE TEMPORARY TABLE printed (a BIGINT, b STRING, c INT) WITH ('connector' = 'print')")
        capfd.readouterr()
        t_env.execute_sql("INSERT INTO printed " + sql).wait()
        return capfd.readouterr().out.splitlines()


JOIN = "SELECT l.n * 10 + r.m, CONCAT(l.k, '!'), l.v + r.w FROM l JOIN r ON l.k = r.key WHERE l.v > r.w - 3"


def test_a_calc_after_a_join_is_spark_columns_and_prints_what_the_python_pass_printed(env, capfd,
                                                                                     spied):
    lines = _printed(env, capfd, JOIN, True)
    assert len(lines) > 20 and {line[:3] for line in lines} == {"1> ", "2> "}, lines
    folded = spied["graphs"][:]
    assert folded and _no_calc_in(folded)
    assert lines == _printed(env, capfd, JOIN, False)  # each subtask's rows, in the same order
    assert not _no_calc_in(spied["graphs"][len(folded):])  # without the fold, a Python pass ran them


def test_a_blackhole_after_a_join_s_calc_is_written_without_a_python_pass(env, spied):
    t_env = _t_env(env)
    # the per-batch join (else Spark's stream-stream join in the query: test_micro_batch_stream_join.py)
    t_env.get_config().set("kindling.table.spark-stream-join", "false")
    t_env.execute_sql("CREATE TEMPORARY TABLE dropped (a BIGINT, b STRING, c INT) WITH ('connector' = 'blackhole')")
    t_env.execute_sql("INSERT INTO dropped " + JOIN).wait()
    assert len(spied["frames"]) >= 3 and not spied["graphs"]  # several micro-batches, no job compiled
    assert spied["python"] == []
    with t_env.execute_sql(JOIN).collect() as rows:
        assert spied["written"] == len(list(rows)) > 20


GROUPED = "SELECT COUNT(*) * 100 + k0, CONCAT(k, '?'), CAST(SUM(v) AS INT) FROM " \
          "(SELECT k, v, CHAR_LENGTH(k) AS k0 FROM l) GROUP BY k, k0 HAVING SUM(v) > 3"


def test_a_calc_after_an_aggregation_prints_what_the_python_pass_printed(env, capfd, spied):
    lines = _printed(env, capfd, GROUPED, True)
    assert len(lines) > 20 and {line[:3] for line in lines} == {"1> ", "2> "}, lines
    assert any(line[3:5] == "-U" for line in lines)  # a changelog, in order
    folded = spied["graphs"][:]
    assert folded and _no_calc_in(folded)
    assert lines == _printed(env, capfd, GROUPED, False)
