"""Python scalar functions called on Arrow batches in Spark's frame (kindling/table/planner/arrow_calls.py,
kindling/spark/table/python_calls.py): the values a function gets and gives are those of the Python
map (the same job with ``kindling.table.spark-operators`` false, where the Calc is a Python map), in one step
and on micro-batches (whose control rows call no function), a pandas function gets a batch's
Series of at most ``python.fn-execution.arrow.batch.size`` rows, a failure names the function and the
values it was called on, and what cannot be called so stays a Python map, as explain says."""
from __future__ import annotations

import datetime
import decimal

import pytest

from kindling.table import DataTypes
from kindling.table.expressions import call, col
from kindling.table.udf import ScalarFunction, TableFunction, udf, udtf

from table_support import collected, quiet_t_env, runs_in

ARROW = "Python on Arrow batches"


def _t_env(mode: str = "streaming", one_step: bool = True, arrow: bool = True):
    t_env = quiet_t_env(mode)
    t_env.get_config().set("kindling.bounded.one-step", str(one_step).lower())
    t_env.get_config().set("kindling.table.spark-operators", str(arrow).lower())
    rows = [(i, f"s{i}" if i % 4 else None, i / 4, decimal.Decimal(i) / 8, datetime.date(2024, 1, 1 + i),
             datetime.datetime(2024, 1, 1, 0, 0, i), i % 3 == 0) for i in range(12)]
    t_env.create_temporary_view("src", t_env.from_elements(rows, DataTypes.ROW([
        DataTypes.FIELD("i", DataTypes.BIGINT()), DataTypes.FIELD("s", DataTypes.STRING()),
        DataTypes.FIELD("d", DataTypes.DOUBLE()), DataTypes.FIELD("m", DataTypes.DECIMAL(10, 3)),
        DataTypes.FIELD("day", DataTypes.DATE()), DataTypes.FIELD("t", DataTypes.TIMESTAMP(3)),
        DataTypes.FIELD("b", DataTypes.BOOLEAN())])))
    same = udf(lambda *values: repr(values), result_type=DataTypes.STRING())
    t_env.create_temporary_function("described", same)
    t_env.create_temporary_function("twice", udf(lambda x: None if x is None else x * 2, result_type=DataTypes.BIGINT()))
    t_env.create_temporary_function("later", udf(lambda t: t + datetime.timedelta(hours=1),
                                                 result_type=DataTypes.TIMESTAMP(3)))
    t_env.create_temporary_function("ltz", udf(lambda t: t, result_type=DataTypes.TIMESTAMP_LTZ(3)))
    t_env.create_temporary_function("centered", udf(lambda s: s - s.mean(), result_type=DataTypes.DOUBLE(),
                                                    func_type="pandas"))
    t_env.create_temporary_function("scaled", udf(lambda s: s * 2 + 1, result_type=DataTypes.DOUBLE(),
                                                  func_type="pandas"))
    t_env.create_temporary_function("length", udf(lambda s: s * 0 + len(s), result_type=DataTypes.BIGINT(),
                                                  func_type="pandas"))
    return t_env


QUERIES = [
    "SELECT i, described(i, s, d, m, day, t, b, 'x', CAST(NULL AS INT)) FROM src",
    "SELECT i, twice(i) + 1 AS j, later(t), s FROM src WHERE twice(i) > 4 AND s IS NOT NULL",
    "SELECT i, ltz(TO_TIMESTAMP_LTZ(i * 1000, 3)), described(TO_TIMESTAMP_LTZ(i, 0)) FROM src",
    "SELECT i, scaled(d), scaled(d + 1) FROM src",
]


@pytest.mark.parametrize("query", QUERIES)
def test_calls_on_arrow_batches_give_the_python_maps_values(query):
    arrow, python = _t_env(), _t_env(arrow=False)
    assert runs_in(arrow.sql_query(query)) == ARROW
    assert runs_in(python.sql_query(query)) == "Python"
    assert collected(arrow, query) == collected(python, query)


def test_calls_on_arrow_batches_in_batch_mode_and_under_an_aggregation():
    t_env = _t_env("batch")
    table = t_env.sql_query("SELECT b, COUNT(*), MAX(j) FROM (SELECT b, twice(i) AS j FROM src) GROUP BY b")
    assert ARROW in table.explain() and runs_in(table) == "Spark JVM"
    assert collected(t_env, "SELECT b, COUNT(*), MAX(j) FROM (SELECT b, twice(i) AS j FROM src) GROUP BY b") == \
        [(False, 8, 22), (True, 4, 18)]


def test_a_pandas_function_gets_a_whole_batchs_series():
    centered = [c for (c,) in collected(_t_env(), "SELECT centered(d) FROM src")]
    assert abs(sum(centered)) < 1e-9 and any(abs(c) > 0.1 for c in centered)  # each batch's values less their mean


def test_a_pandas_function_gets_batches_of_the_configured_size():
    t_env = _t_env()
    t_env.get_config().set("python.fn-execution.arrow.batch.size", "5")
    lengths = [n for (n,) in collected(t_env, "SELECT length(i) FROM src")]
    assert max(lengths) <= 5 and len(lengths) == 12


def test_a_failing_call_names_the_function_and_its_arguments():
    t_env = _t_env()
    t_env.create_temporary_function("inverse", udf(lambda i: 1 // (i - 3), result_type=DataTypes.BIGINT(),
                                                   name="inverse"))
    assert runs_in(t_env.sql_query("SELECT inverse(i) FROM src")) == ARROW
    with pytest.raises(Exception, match=r"(?s)'inverse' failed on the element inverse\(3\).*ZeroDivisionError"):
        collected(t_env, "SELECT inverse(i) FROM src")


def test_a_result_of_another_type_fails_naming_the_function():
    t_env = _t_env()
    t_env.create_temporary_function("wrong", udf(lambda i: f"n{i}", result_type=DataTypes.BIGINT(), name="wrong"))
    with pytest.raises(Exception, match="the Python function wrong returned a value that does not fit its result "
                                        "type BIGINT: value 'n0' \\(str\\)"):
        collected(t_env, "SELECT wrong(i) FROM src")


class Suffixed(ScalarFunction):
    def open(self, function_context):
        self.suffix = function_context.get_job_parameter("suffix", "!")

    def eval(self, s):
        return f"{s}{self.suffix}"


def test_what_cannot_be_called_on_batches_stays_a_python_map():
    t_env = _t_env()
    t_env.create_temporary_function("suffixed", udf(Suffixed(), result_type=DataTypes.STRING()))
    # a function with its own open (it gets its task's context), a call of a call
    for query in ("SELECT suffixed(s) FROM src", "SELECT twice(twice(i)) FROM src"):
        assert runs_in(t_env.sql_query(query)) == "Python", query
    assert collected(t_env, "SELECT suffixed(s) FROM src WHERE i = 1") == [("s1!",)]
    assert collected(t_env, "SELECT twice(twice(i)) FROM src WHERE i = 1") == [(4,)]


def test_calls_on_arrow_batches_over_an_aggregations_changes():
    query = "SELECT b, twice(n) FROM (SELECT b, COUNT(*) AS n FROM src GROUP BY b) WHERE twice(n) > 2"
    arrow, python = _t_env(), _t_env(arrow=False)
    assert runs_in(arrow.sql_query(query)) == ARROW
    with arrow.execute_sql(query).collect() as rows:  # Flink's changelog, each change's function value
        changes = sorted((r.get_row_kind().name, tuple(r)) for r in rows)
    with python.execute_sql(query).collect() as rows:
        assert changes == sorted((r.get_row_kind().name, tuple(r)) for r in rows)
    assert ("UPDATE_AFTER", (False, 16)) in changes


def _with_table_functions(t_env):
    @udtf(result_types=[DataTypes.STRING(), DataTypes.BIGINT()])
    def parts(s, i):
        for j in range(i % 3):
            yield f"{s}-{j}", i * 10 + j

    @udtf(result_types=[DataTypes.TIMESTAMP(3), DataTypes.DECIMAL(10, 3), DataTypes.STRING()])
    def echoed(t, m, day):
        yield t, m, repr(day)

    t_env.create_temporary_function("parts", parts)
    t_env.create_temporary_function("echoed", echoed)
    return t_env


TABLE_QUERIES = [
    "SELECT i, p, n FROM src, LATERAL TABLE(parts(s, i)) AS T(p, n)",
    "SELECT i, p, n FROM src LEFT JOIN LATERAL TABLE(parts(s, i + 1)) AS T(p, n) ON TRUE WHERE i < 9",
    "SELECT i, t2, m2, d2 FROM src, LATERAL TABLE(echoed(t, m, day)) AS T(t2, m2, d2)",
    "SELECT b, p FROM (SELECT b, COUNT(*) AS c FROM src GROUP BY b), LATERAL TABLE(parts('k', c)) AS T(p, n)",
]


@pytest.mark.parametrize("query", TABLE_QUERIES)
def test_table_functions_on_arrow_batches_make_the_python_operators_rows(query):
    arrow, python = _with_table_functions(_t_env()), _with_table_functions(_t_env(arrow=False))
    assert "Correlate(invocation=" in arrow.explain_sql(query) and f"[{ARROW}, one step]" in arrow.explain_sql(query)
    assert f"[{ARROW}" not in python.explain_sql(query)
    with arrow.execute_sql(query).collect() as rows:  # an aggregation's changes keep their kinds
        made = sorted((r.get_row_kind().name, tuple(r)) for r in rows)
    with python.execute_sql(query).collect() as rows:
        assert made == sorted((r.get_row_kind().name, tuple(r)) for r in rows)
    assert made


def test_the_table_api_lateral_joins_and_flat_map_on_arrow_batches():
    t_env = _with_table_functions(_t_env())
    t_env.get_config().set("python.fn-execution.arrow.batch.size", "5")  # a row's rows never cross parts
    src = t_env.from_path("src")
    parts = udtf(lambda s, i: [(f"{s}-{j}", i) for j in range(i % 3)],
                 result_types=[DataTypes.STRING(), DataTypes.BIGINT()])
    joined = src.join_lateral(parts(col("s"), col("i")).alias("p", "n")).select(col("i"), col("p"))
    outer = src.left_outer_join_lateral(parts(col("s"), col("i")).alias("p", "n")).select(col("i"), col("p"))
    flat = src.flat_map(parts(col("s"), col("i")))
    for table in (joined, outer, flat):
        assert f"[{ARROW}, one step]" in table.explain()
    assert sorted(tuple(r) for r in joined.execute().collect()) == sorted(
        (i, f"s{i}-{j}" if i % 4 else f"None-{j}") for i in range(12) for j in range(i % 3))
    assert len(list(outer.execute().collect())) == 12 + sum(max(i % 3 - 1, 0) for i in range(12))
    assert sorted(tuple(r) for r in flat.execute().collect())[:2] == [("None-0", 4), ("None-0", 8)]


class Opened(TableFunction):
    def open(self, function_context):
        self.suffix = "!"

    def eval(self, s):
        yield f"{s}{self.suffix}"


def test_a_failing_or_opened_table_function():
    t_env = _t_env()
    t_env.create_temporary_function("broken", udtf(lambda i: [(1 // (i - 3),)], result_types=[DataTypes.BIGINT()],
                                                   name="broken"))
    t_env.create_temporary_function("opened", udtf(Opened(), result_types=[DataTypes.STRING()]))
    query = "SELECT x FROM src, LATERAL TABLE(broken(i)) AS T(x)"
    assert f"[{ARROW}" in t_env.explain_sql(query)
    with pytest.raises(Exception, match=r"(?s)'broken' failed on the element broken\(3\).*ZeroDivisionError"):
        collected(t_env, query)
    query = "SELECT x FROM src, LATERAL TABLE(opened(s)) AS T(x) WHERE i = 1"
    assert f"[{ARROW}" not in t_env.explain_sql(query)  # it gets its task's context: the Python operator
    assert collected(t_env, query) == [("s1!",)]


def test_calls_on_arrow_batches_of_micro_batches_skip_the_control_rows(tmp_path):
    """On micro-batches a scan's rows come with its control rows (watermarks); the pass calls no function
    for them (a function of a column that is never null would fail on them)."""
    (tmp_path / "ev").mkdir()
    for part in "ab":
        (tmp_path / "ev" / f"{part}.csv").write_text(
            "".join(f"{i % 5},{i},2024-01-01 00:00:{i % 60:02d}\n" for i in range(200)))
    changes = {}
    for arrow in (True, False):
        t_env = _t_env(one_step=False, arrow=arrow)
        t_env.execute_sql("CREATE TABLE ev (k INT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' "
                          f"SECOND) WITH ('connector' = 'filesystem', 'path' = '{tmp_path / 'ev'}', 'format' = 'csv')")
        t_env.create_temporary_function("strict", udf(lambda v: v + 1, result_type=DataTypes.BIGINT()))
        t_env.create_temporary_function("strictp", udf(lambda v: v + 1, result_type=DataTypes.BIGINT(),
                                                       func_type="pandas"))
        query = "SELECT k, strict(v), strictp(v) FROM ev WHERE strict(v) > 3"
        assert (f"[{ARROW}, micro-batches]" in t_env.explain_sql(query)) == arrow
        changes[arrow] = collected(t_env, query)
    assert changes[True] == changes[False] and len(changes[True]) == 394


def _micro_batch_events(t_env, path, strict_udtf: bool = True):
    t_env.get_config().set("kindling.source.max-records-per-batch", "100")  # 3 micro-batches of the 300 rows
    t_env.execute_sql("CREATE TABLE ev (k INT, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' "
                      f"SECOND) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')")

    @udtf(result_types=[DataTypes.STRING(), DataTypes.INT()])
    def pieces(k, s):  # fails on a control row's nulls: it must not be called for one
        for j, piece in enumerate(s.split("-")[: k % 3]):
            yield piece, k + j

    t_env.create_temporary_function("pieces", pieces)
    return t_env


def test_table_functions_on_arrow_batches_of_micro_batches_skip_the_control_rows(tmp_path):
    """On micro-batches a table function's Correlate over a scan's rows is called on Arrow batches too: each
    control row (watermarks) passes through once, uncalled, and the rows made are the Python operator's, at
    parallelism 2 over several micro-batches; ``kindling.table.spark-operators: false`` keeps the operator."""
    (tmp_path / "ev").mkdir()
    for part in "ab":
        (tmp_path / "ev" / f"{part}.csv").write_text(
            "".join(f"{i % 7},x{i}-y{i}-z,2024-01-01 00:00:{i % 60:02d}\n" for i in range(150)))
    queries = ["SELECT k, p, n FROM ev, LATERAL TABLE(pieces(k, s)) AS T(p, n) WHERE n > 1",
               "SELECT k, s, p FROM ev LEFT JOIN LATERAL TABLE(pieces(k, s)) AS T(p, n) ON TRUE"]
    made = {}
    for arrow in (True, False):
        t_env = _micro_batch_events(_t_env(one_step=False, arrow=arrow), tmp_path / "ev")
        src = t_env.from_path("ev")
        tables = [t_env.sql_query(q) for q in queries] + [
            src.join_lateral(call("pieces", col("k"), col("s")).alias("p", "n")).select(col("s"), col("p")),
            src.flat_map(call("pieces", col("k"), col("s")))]
        for table in tables:
            explained = table.explain()
            assert ("Correlate(invocation=" in explained and f"[{ARROW}, micro-batches]" in explained) == arrow, \
                explained
        made[arrow] = [sorted(tuple(r) for r in table.execute().collect()) for table in tables]
    assert made[True] == made[False]
    print([len(rows) for rows in made[True]])
