"""Pandas and async scalar functions called outside a projection or a filter, on Spark: the planner
computes the calls in a projection below the operator or a filter above it
(kindling/table/planner/python_calls.py), where calls are made for a batch of rows with the job's
``table.exec.async-scalar.*`` options; where PyFlink 2.3 does not call them for a batch, Kindling refuses
by name. tests/conformance/programs/table_pandas_udf_outside_projections.py compares the pandas
functions' Series with PyFlink's."""
from __future__ import annotations

import asyncio

import pytest

from kindling.table import DataTypes
from kindling.table.udf import udf, udtf

from table_support import collected, first_call_fails, quiet_t_env


@udf(result_type=DataTypes.BIGINT())
async def stuck(v):
    await asyncio.Event().wait()  # never set: only the timeout ends the call
    return v


def _t_env():
    t_env = quiet_t_env()
    t_env.create_temporary_view("src", t_env.from_elements([(i % 2, i) for i in range(6)], ["k", "v"]))
    t_env.create_temporary_view("other", t_env.from_elements([(0, 2), (1, 3)], ["k2", "w"]))
    return t_env


def test_an_async_call_as_an_aggregates_argument_has_the_jobs_options():
    t_env = _t_env()
    t_env.get_config().set("table.exec.async-scalar.retry-strategy", "NO_RETRY")
    t_env.create_temporary_function("first_fails", first_call_fails())
    with pytest.raises(Exception, match="the first call fails"):
        collected(t_env, "SELECT k, SUM(first_fails(v)) FROM src GROUP BY k")
    t_env.get_config().set("table.exec.async-scalar.timeout", "100 ms")
    t_env.create_temporary_function("stuck", stuck)
    with pytest.raises(Exception, match="Async function call has timed out"):
        collected(t_env, "SELECT k, SUM(stuck(v)) FROM src GROUP BY k")


def test_an_async_call_in_a_join_condition_has_the_jobs_retry_strategy():
    t_env = _t_env()
    t_env.create_temporary_function("first_fails", first_call_fails())
    query = "SELECT k, v, w FROM src JOIN other ON k = k2 AND first_fails(v) > w"
    assert collected(t_env, query) == [(0, 4, 2), (1, 5, 3)]  # FIXED_DELAY retries the failed call
    t_env.get_config().set("table.exec.async-scalar.retry-strategy", "NO_RETRY")
    t_env.create_temporary_function("first_fails", first_call_fails())
    with pytest.raises(Exception, match="the first call fails"):
        collected(t_env, query)


def test_a_pandas_function_as_a_table_functions_argument_is_refused_naming_pyflinks_reason():
    t_env = _t_env()
    t_env.create_temporary_function("centered", udf(lambda s: s - s.mean(), result_type=DataTypes.BIGINT(),
                                                    func_type='pandas'))
    t_env.create_temporary_function("twice", udtf(lambda x: [x, x], result_types=[DataTypes.BIGINT()]))
    with pytest.raises(ValueError, match="The pandas function .* is an argument of the table function .*PyFlink 2.3 "
                                         "calls it there on each row's values, not on Series"):
        collected(t_env, "SELECT k, x FROM src, LATERAL TABLE(twice(centered(v))) AS T(x)")


def test_an_outer_joins_condition_of_both_sides_is_refused_with_flinks_reason():
    t_env = _t_env()
    t_env.create_temporary_function("centered", udf(lambda s: s - s.mean(), result_type=DataTypes.BIGINT(),
                                                    func_type='pandas'))
    with pytest.raises(Exception, match="Only inner join condition with equality predicates supports the Python UDF"):
        collected(t_env, "SELECT k, v, w FROM src LEFT JOIN other ON k = k2 AND centered(v) > w")


def test_a_python_function_in_match_recognize_is_refused_with_pyflinks_reason():
    t_env = quiet_t_env()
    t_env.execute_sql("CREATE TABLE t (k BIGINT, v BIGINT, ms BIGINT, ts AS CAST(ms AS TIMESTAMP(3)), WATERMARK FOR "
                      "ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '3')")
    t_env.create_temporary_function("centered", udf(lambda s: s - s.mean(), result_type=DataTypes.BIGINT(),
                                                    func_type='pandas'))
    t_env.create_temporary_function("plus_one", udf(lambda v: v + 1, result_type=DataTypes.BIGINT()))
    for define, measure in [("centered(A.v) > 0", "A.v"), ("A.v > 0", "plus_one(A.v)")]:
        with pytest.raises(ValueError, match="Python Function can not be used in MATCH_RECOGNIZE for now"):
            collected(t_env, f"SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts MEASURES {measure} AS m "
                             f"PATTERN (A) DEFINE A AS {define})")


def test_an_async_call_in_an_interval_joins_condition_has_the_jobs_retry_strategy(env):
    from event_views import event_view
    from kindling.table import StreamTableEnvironment

    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    for name, offset in (("a", 0), ("b", 3)):  # b's row n is 3 ms after a's
        event_view(env, t_env, name, 20, lambda n, o=offset: (1000 + n * 2 + o, n, n * 10), ("ts", "id", "v"))
    query = ("SELECT a.id, b.v FROM a JOIN b ON a.id = b.id AND a.ts BETWEEN b.ts - INTERVAL '0.005' SECOND "
             "AND b.ts - INTERVAL '0.002' SECOND AND first_fails(b.v) % 7 <> 0")
    t_env.create_temporary_function("first_fails", first_call_fails())
    assert collected(t_env, query) == [(n, n * 10) for n in range(20) if n % 7]
    t_env.get_config().set("table.exec.async-scalar.retry-strategy", "NO_RETRY")
    t_env.create_temporary_function("first_fails", first_call_fails())
    with pytest.raises(Exception, match="the first call fails"):
        collected(t_env, query)


def test_a_window_aggregations_argument_is_computed_by_a_projection_below_it():
    from kindling.table.expressions import col, lit
    from kindling.table.window import Tumble

    t_env = quiet_t_env()
    t_env.execute_sql("CREATE TABLE t (k BIGINT, v BIGINT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR "
                      "ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '3')")
    centered = udf(lambda s: s - s.mean(), result_type=DataTypes.DOUBLE(), func_type='pandas', name='centered')
    t_env.create_temporary_function("centered", centered)
    windowed = t_env.from_path("t").window(Tumble.over(lit(1).seconds).on(col('ts')).alias('w'))
    tvf = t_env.sql_query("SELECT window_start, k, SUM(centered(v)) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), "
                          "INTERVAL '1' SECOND)) GROUP BY window_start, window_end, k")
    for table in (windowed.group_by(col('w'), col('k')).select(col('k'), centered(col('v')).sum.alias('s')), tvf):
        plan = table.explain().splitlines()
        assert plan[1].startswith(("GroupWindowAggregate(", "WindowAggregate("))
        assert plan[2].startswith("+- Calc(select=[k, v, ms, ts, centered(v) AS $f4])")
