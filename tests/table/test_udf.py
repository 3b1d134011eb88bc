"""Python functions of the Table API on Spark: scalar functions in select and where, table and
aggregate functions; wrong use fails naming the fix. tests/conformance/programs/table_udf.py compares
their printed results with PyFlink's."""
from __future__ import annotations

import pytest

from kindling.common import Row
from kindling.table import AggregateFunction, DataTypes, StreamTableEnvironment
from kindling.table.expressions import call, col
from kindling.table.udf import udaf, udf, udtf


@udf(result_type=DataTypes.BOOLEAN())
def is_prime(n):
    return n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))


def test_a_scalar_function_filters_and_computes_over_two_partitions(env):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    numbers = t_env.from_elements([(n,) for n in range(1, 60)], ['n'])
    square = udf(lambda n: n * n, result_type=DataTypes.BIGINT())
    primes = numbers.where(is_prime(col('n'))).select(col('n'), square(col('n')).alias('sq'))
    rows = sorted(tuple(r) for r in primes.execute().collect())
    assert rows == [(p, p * p) for p in range(2, 60) if is_prime._f(p)]


def test_a_table_function_joins_each_row_with_its_rows(env):
    t_env = StreamTableEnvironment.create(env)
    split = udtf(lambda s: ((w, len(w)) for w in s.split(',') if w), result_types=['STRING', 'INT'])
    lines = t_env.from_elements([(1, 'a,bb'), (2, ''), (3, 'ccc')], ['id', 'csv'])
    inner = lines.join_lateral(split(col('csv')).alias('w', 'len'), col('len') > 1).select(col('id'), col('w'))
    outer = lines.left_outer_join_lateral(split(col('csv')).alias('w', 'len')).select(col('id'), col('len'))
    assert sorted(tuple(r) for r in inner.execute().collect()) == [(1, 'bb'), (3, 'ccc')]
    assert sorted(tuple(r) for r in outer.execute().collect()) == [(1, 1), (1, 2), (2, None), (3, 3)]


def test_functions_are_called_by_registered_name(env):
    t_env = StreamTableEnvironment.create(env)
    t_env.create_temporary_system_function('is_prime', is_prime)
    try:
        t_env.create_temporary_view('numbers', t_env.from_elements([(n,) for n in range(1, 12)], ['n']))
        via_sql = t_env.sql_query("SELECT n FROM numbers WHERE is_prime(n)")
        via_call = t_env.from_path('numbers').where(call('is_prime', col('n')))
        assert sorted(r[0] for r in via_sql.execute().collect()) == [2, 3, 5, 7, 11]
        assert sorted(r[0] for r in via_call.execute().collect()) == [2, 3, 5, 7, 11]
    finally:
        t_env.drop_temporary_system_function('is_prime')


class _Total(AggregateFunction):
    def create_accumulator(self):
        return Row(0)

    def accumulate(self, accumulator, value):
        accumulator[0] += value

    def get_value(self, accumulator):
        return accumulator[0]


SHOUT = udf(lambda s: s + "!", result_type='STRING')  # for CREATE FUNCTION ... AS 'test_udf.SHOUT'


def test_a_temporary_system_function_shadowing_a_built_in_is_refused_by_name():
    """PyFlink 2.3 calls such a function in place of the built-in (UPPER, CONCAT, and the Table API's
    upper_case too); Kindling would call the built-in, so it refuses the name, however the function
    is registered as a system function (register_function, CREATE TEMPORARY SYSTEM FUNCTION)."""
    from kindling.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    for name in ("upper", "CONCAT", "sum"):
        with pytest.raises(ValueError, match=f"shadowing Flink's built-in function {name.upper()} is not supported"):
            t_env.create_temporary_system_function(name, SHOUT)
    with pytest.raises(ValueError, match="shadowing Flink's built-in function UPPER is not supported"):
        t_env.register_function("upper", SHOUT)
    with pytest.raises(ValueError, match="shadowing Flink's built-in function LOWER is not supported"):
        t_env.execute_sql("CREATE TEMPORARY SYSTEM FUNCTION lower AS 'test_udf.SHOUT' LANGUAGE PYTHON")
    t_env.create_temporary_system_function("shout", SHOUT)
    assert t_env.drop_temporary_system_function("shout")


def test_a_temporary_function_named_as_a_built_in_is_not_called_by_that_name(spark):
    """Flink's built-in function of a name (``plus``, the ``+`` operator's) shadows a temporary function
    of it: PyFlink 2.3 calls the built-in (and fails on a string: "No match found for function signature
    plus(<CHARACTER>)"); a temporary system function of the name shadows the built-in instead."""
    from table_support import quiet_t_env

    t_env = quiet_t_env("batch")
    t_env.create_temporary_view("words", t_env.from_elements([("a",)], ["w"]))
    t_env.create_temporary_function("plus", SHOUT)
    try:
        with pytest.raises(ValueError, match="plus: Flink calls its built-in function plus, not the temporary"):
            t_env.execute_sql("SELECT plus(w) FROM words")
        with pytest.raises(ValueError, match="plus: Flink calls its built-in function plus"):
            t_env.from_path("words").select(call("PLUS", col("w")))
        t_env.create_temporary_system_function("plus", SHOUT)
        with t_env.execute_sql("SELECT plus(w) FROM words").collect() as rows:
            assert [r[0] for r in rows] == ["a!"]
    finally:
        t_env.drop_temporary_function("plus")


def test_an_aggregate_function_emits_a_groups_changes_once_per_bundle(env):
    """PyFlink runs a Python aggregate function in bundles and emits each group's changes when the
    bundle ends: a small bounded input is one bundle, so one change per group, also where a one-step
    job replays the time its rows were read (kindling/spark/one_step.py)."""
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    people = t_env.from_elements([(1, 'ada', 36), (2, 'alan', 41), (3, 'grace', 85), (4, 'bob', 12),
                                  (5, 'cid', 90), (6, 'dan', 50)], ['id', 'name', 'age'])
    total = udaf(_Total(), result_type=DataTypes.BIGINT(),
                 accumulator_type=DataTypes.ROW([DataTypes.FIELD('total', DataTypes.BIGINT())]))
    result = people.add_columns((col('id') % 2).alias('odd')).group_by(col('odd')) \
        .select(col('odd'), total(col('age')))
    with result.execute().collect() as rows:
        changes = sorted((r.get_row_kind().short_string(), *r) for r in rows)
    assert changes == [('+I', 0, 103), ('+I', 1, 211)]


class _TypedTotal(_Total):
    def get_result_type(self):
        return DataTypes.BIGINT()

    def get_accumulator_type(self):
        return DataTypes.ARRAY(DataTypes.BIGINT())


def test_an_aggregate_function_object_registers_with_its_own_types_as_pyflink_wraps_it(env):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    t_env.create_temporary_system_function("typed_total", _TypedTotal())
    t_env.create_temporary_view("people", t_env.from_elements([(1, 36), (2, 41), (3, 85)], ['id', 'age']))
    rows = [tuple(r) for r in t_env.execute_sql("SELECT typed_total(age) FROM people").collect()]
    assert rows[-1] == (162,)
    with pytest.raises(ValueError, match="needs a result_type .or the function's get_result_type"):
        t_env.create_temporary_function("untyped", _Total())


def test_wrong_functions_fail_naming_the_fix(env):
    t_env = StreamTableEnvironment.create(env)
    with pytest.raises(ValueError, match="udf needs a result_type"):
        udf(lambda x: x)
    with pytest.raises(TypeError, match="takes an AggregateFunction object"):
        udaf(lambda x: x, result_type=DataTypes.INT())
    with pytest.raises(ValueError, match="No function named 'nope'"):  # resolved by the Table that uses it
        t_env.from_elements([(1,)], ['n']).select(call('nope', col('n')))
    with pytest.raises(TypeError, match="flat_map takes a table function made with udtf"):
        t_env.from_elements([(1,)], ['n']).flat_map(is_prime)
    with pytest.raises(ValueError, match="alias: 1 names"):
        udtf(lambda s: [], result_types=['STRING', 'INT'])(col('n')).alias('only_one')


def test_a_pandas_function_gets_batches_of_rows_on_spark(env):
    """Each parallel instance cuts its rows into batches of ``python.fn-execution.arrow.batch.size``:
    a function of the whole Series (its length, its mean) sees the batch, as in PyFlink; in a filter too."""
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    t_env.get_config().set("python.fn-execution.arrow.batch.size", "4")
    size = udf(lambda s: s.map(lambda _: len(s)), result_type=DataTypes.BIGINT(), func_type='pandas')
    total = udf(lambda s: s.map(lambda _: int(s.sum())), result_type=DataTypes.BIGINT(), func_type='pandas')
    numbers = t_env.from_elements([(n,) for n in range(1, 24)], ['n']).where(col('n') > 0)
    rows = [tuple(r) for r in numbers.select(col('n'), size(col('n')), total(col('n'))).execute().collect()]
    assert sorted(n for n, _, _ in rows) == list(range(1, 24))
    batches = {}
    for n, length, batch_total in rows:  # a batch: the rows of one (length, total)
        batches.setdefault((length, batch_total), []).append(n)
    assert all(len(ns) == length <= 4 and sum(ns) == batch_total for (length, batch_total), ns in batches.items())
    assert sum(length == 4 for length, _ in batches) >= 4  # 23 rows over 2 instances: at most one short batch each

    nonempty = udf(lambda s: s.map(lambda _: len(s) > 0), result_type=DataTypes.BOOLEAN(), func_type='pandas')
    assert sorted(r[0] for r in numbers.where(nonempty(col('n'))).execute().collect()) == list(range(1, 24))


def test_a_pandas_function_returning_one_value_fails_naming_the_fix(env):
    t_env = StreamTableEnvironment.create(env)
    mean = udf(lambda s: s.mean(), result_type=DataTypes.DOUBLE(), func_type='pandas', name='mean_of')
    numbers = t_env.from_elements([(n,) for n in range(1, 5)], ['n'])
    with pytest.raises(Exception, match="pandas UDF 'mean_of' must be pandas.Series.*udaf"):
        list(numbers.select(mean(col('n'))).execute().collect())


def test_python_aggregate_functions_pyflink_does_not_plan_are_refused_with_its_reason(spark):
    """PyFlink 2.3 runs general aggregate functions in streaming mode only (not in OVER windows) and
    pandas ones in batch mode, group windows and bounded OVER windows; elsewhere its planner refuses them."""
    from table_support import quiet_t_env

    total = udaf(_Total(), result_type=DataTypes.BIGINT(),
                 accumulator_type=DataTypes.ROW([DataTypes.FIELD('total', DataTypes.BIGINT())]))
    pandas_total = udaf(lambda v: int(v.sum()), result_type=DataTypes.BIGINT(), func_type='pandas')
    for mode in ("batch", "streaming"):
        t_env = quiet_t_env(mode)
        t_env.execute_sql("CREATE TABLE t (k STRING, v BIGINT, pt AS PROCTIME()) WITH ('connector' = 'datagen', "
                          "'number-of-rows' = '2')")
        t_env.create_temporary_function("total", total)
        t_env.create_temporary_function("pandas_total", pandas_total)
        refused = {"batch": ["SELECT k, total(v) FROM t GROUP BY k", "SELECT total(v) FROM t",
                             "SELECT k, total(v) OVER (PARTITION BY k ORDER BY pt) FROM t"],
                   "streaming": ["SELECT k, pandas_total(v) FROM t GROUP BY k",
                                 "SELECT k, total(v) OVER (PARTITION BY k ORDER BY pt) FROM t",
                                 "SELECT k, pandas_total(v) OVER (PARTITION BY k ORDER BY pt) FROM t"]}[mode]
        reasons = {"batch": ["non-Pandas UDAFs are not supported in batch mode currently"] * 3,
                   "streaming": ["Pandas UDAFs are not supported in streaming mode currently",
                                 "Non-Pandas Python UDAFs are not supported in stream mode currently",
                                 "Python UDAF is not supported to be used in UNBOUNDED PRECEDING OVER windows"]}[mode]
        for query, reason in zip(refused, reasons):
            with pytest.raises(ValueError, match=reason):
                t_env.execute_sql(query)
    with pytest.raises(ValueError, match="non-Pandas UDAFs are not supported in batch mode currently"):
        t_env = quiet_t_env("batch")
        t_env.from_elements([('a', 1)], ['k', 'v']).group_by(col('k')).select(total(col('v'))).execute()


def test_timestamp_ltz_values_reach_python_functions_as_pyflink_gives_them(env):
    """PyFlink 2.3 gives a TIMESTAMP_LTZ argument to a scalar, table or aggregate function as an aware
    datetime in the session time zone (UTC), to a pandas function as UTC timestamps, reads a result's
    wall-clock time in the session time zone whatever its tzinfo, and to_pandas gives UTC timestamps
    (tests/conformance/programs/table_ltz_python_functions.py prints them on both engines)."""
    import datetime

    from kindling.table.udf import udtf

    utc = datetime.timezone.utc
    t_env = StreamTableEnvironment.create(env)
    t_env.create_temporary_function("kind", udf(lambda ts: f"{ts.tzinfo == utc} {ts.isoformat()}",
                                                result_type='STRING'))
    t_env.create_temporary_function("pandas_kind", udf(lambda s: s.astype(str), result_type='STRING',
                                                       func_type='pandas'))
    t_env.create_temporary_function("rows_of", udtf(lambda ts: [ts.isoformat()], result_types=['STRING']))
    noon = datetime.datetime(2024, 1, 1, 12, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
    t_env.create_temporary_function("noon", udf(lambda n: noon, result_type=DataTypes.TIMESTAMP_LTZ(3)))
    t_env.create_temporary_view("v", t_env.sql_query("SELECT TO_TIMESTAMP_LTZ(1500, 3) AS ts"))
    frame = t_env.sql_query("SELECT ts, kind(ts) AS k, pandas_kind(ts) AS p, r, CAST(noon(1) AS STRING) AS n "
                            "FROM v, LATERAL TABLE(rows_of(ts)) AS T(r)").to_pandas()
    assert frame.ts.dt.tz is not None and str(frame.ts[0]) == "1970-01-01 00:00:01.500000+00:00"
    assert list(frame.iloc[0, 1:]) == ["True 1970-01-01T00:00:01.500000+00:00", "1970-01-01 00:00:01.500000+00:00",
                                       "1970-01-01T00:00:01.500000+00:00", "2024-01-01 12:00:00.000"]
    latest = udaf(_Latest(), result_type='STRING', accumulator_type=DataTypes.ARRAY(DataTypes.STRING()))
    assert t_env.from_path("v").select(latest(col("ts")).alias("l")).to_pandas().l[0] == \
        "1970-01-01T00:00:01.500000+00:00"


class _Latest(AggregateFunction):
    def create_accumulator(self):
        return [None]

    def accumulate(self, accumulator, ts):
        accumulator[0] = ts.isoformat()

    def get_value(self, accumulator):
        return accumulator[0]
