"""OVER aggregations in SQL in batch mode (ROWS, UNBOUNDED, ORDER BY ... DESC, on Spark and, for the
LAG of an expression, in Python): the same values as in streaming, rows in no defined order. (PyFlink
2.3 fails to compile a batch RANGE frame with an interval: tests/table/test_over.py checks Kindling's.)
# conformance: sorted
"""
from pyflink.common import Types
from pyflink.common.time import Instant
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, EnvironmentSettings, Schema, StreamTableEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env, EnvironmentSettings.in_batch_mode())
events = [(1000, 'ann', 1.5), (2500, 'bob', 2.0), (1200, 'ann', 3.25), (6100, 'ann', 1.0), (4000, 'bob', 0.5),
          (7000, 'cat', 4.0), (5500, 'bob', 2.0), (7000, 'ann', 0.25), (12000, 'bob', 8.0), (30000, 'ann', 2.0)]
clicks = env.from_collection([(Instant.of_epoch_milli(t), u, a) for t, u, a in events],
                             type_info=Types.ROW([Types.INSTANT(), Types.STRING(), Types.DOUBLE()]))
table = t_env.from_data_stream(
    clicks, Schema.new_builder().column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
    .column("f1", DataTypes.STRING()).column("f2", DataTypes.DOUBLE())
    .watermark("ts", "ts - INTERVAL '3' SECOND").build()).alias("ts", "u", "amount")
t_env.create_temporary_view("clicks", table)

for query in [
    "SELECT u, ts, amount, SUM(amount) OVER (PARTITION BY u ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) "
    "AS s FROM clicks",
    "SELECT u, ts, SUM(amount) OVER w, MAX(amount) OVER w FROM clicks "
    "WINDOW w AS (PARTITION BY u ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
    "SELECT u, ts, COUNT(*) OVER (ORDER BY ts) FROM clicks",
    "SELECT u, amount, SUM(amount) OVER w AS s, LAG(amount) OVER w AS l, MAX(ts) OVER w AS m FROM clicks "
    "WINDOW w AS (PARTITION BY u ORDER BY amount DESC)",
    "SELECT u, ts, COUNT(*) OVER (PARTITION BY u ORDER BY ts DESC ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS c "
    "FROM clicks",
    "SELECT u, amount, LAG(amount * 2) OVER (PARTITION BY u ORDER BY amount DESC) AS l2 FROM clicks",
]:
    print(query)
    result = t_env.sql_query(query)
    result.print_schema()
    result.execute().print()
