"""TIMESTAMP_LTZ values reaching Python functions: a scalar, table, aggregate and pandas function gets
each as a timezone-aware datetime in the session time zone (UTC), a pandas one a Series of UTC
timestamps; a scalar function's TIMESTAMP_LTZ result may be naive (read in the session time zone) or
aware; to_pandas gives UTC timestamps.
"""
import datetime

from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import call, col
from pyflink.table.udf import AggregateFunction, udaf, udf, udtf


def described(ts):
    return f"{ts} {type(ts).__name__} {ts.tzname()} {ts.utcoffset()} {ts.timestamp()}"


@udf(result_type=DataTypes.STRING())
def ltz_text(ts):
    return None if ts is None else described(ts)


@udtf(result_types=[DataTypes.STRING()])
def ltz_rows(ts):
    if ts is not None:
        yield described(ts)
        yield (ts + datetime.timedelta(hours=1)).isoformat()


@udf(result_type=DataTypes.STRING(), func_type='pandas')
def pandas_text(ts):
    return ts.astype(str) + ' ' + str(ts.dt.tz is not None)


@udf(result_type=DataTypes.TIMESTAMP_LTZ(3))
def naive_noon(n):
    return datetime.datetime(2024, 1, 1, 12, 0)


@udf(result_type=DataTypes.TIMESTAMP_LTZ(3))
def aware_noon(n):
    return datetime.datetime(2024, 1, 1, 12, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))


class Latest(AggregateFunction):
    def create_accumulator(self):
        return [None]

    def accumulate(self, accumulator, ts):
        if ts is not None and (accumulator[0] is None or ts > accumulator[0]):
            accumulator[0] = ts

    def get_value(self, accumulator):
        return None if accumulator[0] is None else described(accumulator[0])


latest = udaf(Latest(), result_type=DataTypes.STRING(), accumulator_type=DataTypes.ARRAY(DataTypes.STRING()))

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
for name, function in [('ltz_text', ltz_text), ('ltz_rows', ltz_rows), ('pandas_text', pandas_text),
                       ('naive_noon', naive_noon), ('aware_noon', aware_noon), ('latest', latest)]:
    t_env.create_temporary_function(name, function)
t_env.execute_sql("CREATE TEMPORARY VIEW v AS SELECT name, TO_TIMESTAMP_LTZ(ms, 3) AS ts FROM (VALUES ('a', 1000), "
                  "('b', 86400123), ('c', CAST(NULL AS BIGINT))) AS t(name, ms)")
for query in ["SELECT name, ltz_text(ts) AS t FROM v", "SELECT name, x FROM v, LATERAL TABLE(ltz_rows(ts)) AS T(x)",
              "SELECT name, pandas_text(ts) AS t FROM v", "SELECT latest(ts) AS t FROM v"]:
    print(t_env.sql_query(query).to_pandas().to_string())
t_env.execute_sql("SELECT name, naive_noon(1) AS n, aware_noon(1) AS a, CAST(aware_noon(1) AS STRING) AS s FROM v "
                  "WHERE name = 'a'").print()
print(t_env.from_path('v').select(col('name'), call('ltz_text', col('ts')).alias('t')).to_pandas().to_string())
frame = t_env.from_path('v').to_pandas()
print(frame.ts.dt.tz is not None, [str(ts) for ts in frame.ts])
