"""LAG and LEAD in SQL, and OVER windows without ORDER BY: in batch mode LAG and LEAD of any offset and
default, next to an aggregate of the same window, and the whole partition's aggregates on every row;
in streaming mode LAG over event time (a default CAST to the value's type, as Flink's streaming LAG
wants). Rows in no defined order.
# conformance: sorted
"""
from pyflink.common import Types
from pyflink.common.time import Instant
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, EnvironmentSettings, Schema, StreamTableEnvironment

events = [(1000, 'ann', 1.5), (2500, 'bob', 2.0), (1200, 'ann', 3.25), (6100, 'ann', 1.0), (4000, 'bob', 0.5),
          (7000, 'cat', 4.0), (5500, 'bob', 2.0), (8000, 'ann', 0.25), (12000, 'bob', 8.0), (30000, 'ann', 2.0)]


def clicks_view(settings):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    t_env = StreamTableEnvironment.create(env, settings)
    clicks = env.from_collection([(Instant.of_epoch_milli(t), u, a) for t, u, a in events],
                                 type_info=Types.ROW([Types.INSTANT(), Types.STRING(), Types.DOUBLE()]))
    table = t_env.from_data_stream(
        clicks, Schema.new_builder().column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
        .column("f1", DataTypes.STRING()).column("f2", DataTypes.DOUBLE())
        .watermark("ts", "ts - INTERVAL '3' SECOND").build()).alias("ts", "u", "amount")
    t_env.create_temporary_view("clicks", table)
    return t_env


def run(t_env, queries):
    for query in queries:
        print(query)
        result = t_env.sql_query(query)
        result.print_schema()
        result.execute().print()


run(clicks_view(EnvironmentSettings.in_batch_mode()), [
    "SELECT u, ts, LAG(amount) OVER (PARTITION BY u ORDER BY ts) AS p FROM clicks",
    "SELECT u, ts, LAG(amount, 2, -1.0) OVER w AS p, LEAD(amount) OVER w AS n, LEAD(u, 1, 'none') OVER w AS nu, "
    "SUM(amount) OVER w AS s FROM clicks WINDOW w AS (PARTITION BY u ORDER BY ts)",
    "SELECT u, ts, LAG(u) OVER (ORDER BY ts) AS p, LEAD(amount, 3) OVER (ORDER BY ts) AS n FROM clicks",
    "SELECT u, ts, MAX(amount) OVER (PARTITION BY u) AS m, COUNT(*) OVER (PARTITION BY u) AS c FROM clicks",
    "SELECT u, ts, SUM(amount) OVER () AS total FROM clicks",
])
run(clicks_view(EnvironmentSettings.in_streaming_mode()), [
    "SELECT u, ts, LAG(amount) OVER w AS p, LAG(amount, 2, CAST(-1.0 AS DOUBLE)) OVER w AS p2, "
    "COUNT(*) OVER w AS c FROM clicks WINDOW w AS (PARTITION BY u ORDER BY ts)",
])
