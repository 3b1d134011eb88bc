"""Async scalar functions (an AsyncScalarFunction class and an ``async def`` given to ``udf``) in SQL
and the Table API: awaited values, their types, job parameters in ``open``, a failing call retried
(FIXED_DELAY, the default). One row per query: PyFlink 2.3 can hand a call a later row's values when
several rows are in flight (its input row object is reused), which Kindling does not copy.
"""
import asyncio

from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col
from pyflink.table.udf import AsyncScalarFunction, udf


class Lookup(AsyncScalarFunction):
    def open(self, function_context):
        self.region = function_context.get_job_parameter("region", "none")

    async def eval(self, key, amount):
        await asyncio.sleep(0.01)
        return f"{key}@{self.region}:{amount}"


@udf(result_type=DataTypes.DOUBLE())
async def halve(v):
    await asyncio.sleep(0.01)
    return None if v is None else v / 2


failures = []


@udf(result_type=DataTypes.BIGINT())
async def flaky(v):
    failures.append(v)
    if len(failures) < 3:
        raise ConnectionError("not yet")
    return v + len(failures)


t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "2")
t_env.get_config().set("pipeline.global-job-parameters", "region:eu")
t_env.create_temporary_function("lookup", udf(Lookup(), result_type=DataTypes.STRING()))
t_env.create_temporary_function("halve", halve)
t_env.create_temporary_function("flaky", flaky)

t_env.sql_query("SELECT lookup(k, v) AS info, halve(CAST(v AS DOUBLE)) AS half "
                "FROM (VALUES ('a', 5)) AS t(k, v)").execute().print()
one = t_env.from_elements([('b', 7.0)], ['k', 'v'])
one.select(col('k'), halve(col('v')).alias('half')).execute().print()
one.where(halve(col('v')) > 3).select(col('k')).execute().print()
t_env.sql_query("SELECT flaky(v) AS retried FROM (VALUES (10)) AS t(v)").execute().print()
t_env.sql_query("SELECT halve(CAST(NULL AS DOUBLE)) AS nothing").execute().print()
t_env.sql_query("SELECT lookup('c', 1) AS info").print_schema()
