"""Window TVF aggregations with GROUPING SETS, ROLLUP and CUBE (GROUP BY window_start, window_end,
GROUPING SETS (...)): one row per window and group of each set when the watermark closes the window,
over an event time of parallel splits. Windows closed by the same watermark come in no defined order.
# conformance: sorted
"""
from pyflink.common import Types
from pyflink.common.time import Instant
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, Schema, StreamTableEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
t_env = StreamTableEnvironment.create(env)
events = [(1000, 'ann', 'x', 1.5), (2500, 'bob', 'y', 2.0), (1200, 'ann', 'y', 3.25), (6100, 'ann', 'x', 1.0),
          (4000, 'bob', 'y', 0.5), (7000, 'cat', 'x', 4.0), (5500, 'bob', 'x', 2.0), (12000, 'bob', 'y', 8.0)]
clicks = env.from_collection([(Instant.of_epoch_milli(t), u, c, a) for t, u, c, a in events],
                             type_info=Types.ROW([Types.INSTANT(), Types.STRING(), Types.STRING(), Types.DOUBLE()]))
t_env.create_temporary_view("clicks", t_env.from_data_stream(
    clicks, Schema.new_builder().column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
    .column("f1", DataTypes.STRING()).column("f2", DataTypes.STRING()).column("f3", DataTypes.DOUBLE())
    .watermark("ts", "ts - INTERVAL '3' SECOND").build()).alias("ts", "u", "c", "amount"))
for query in [
    "SELECT window_start, window_end, u, SUM(amount) AS total, COUNT(*) AS n, GROUPING_ID(u) AS g FROM TABLE("
    "TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND)) "
    "GROUP BY window_start, window_end, GROUPING SETS ((u), ())",
    "SELECT window_start, window_end, u, c, COUNT(*) FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND, "
    "INTERVAL '10' SECOND)) GROUP BY window_start, window_end, ROLLUP (u, c)",
    "SELECT u, c, window_start, window_end, MAX(amount), GROUPING(c) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), "
    "INTERVAL '5' SECOND)) GROUP BY CUBE (u, c), window_start, window_end",
    "SELECT window_start, window_end, window_time, u, COUNT(u) FROM TABLE(CUMULATE(TABLE clicks, DESCRIPTOR(ts), "
    "INTERVAL '2' SECOND, INTERVAL '6' SECOND)) GROUP BY window_start, window_end, window_time, ROLLUP (u)",
]:
    print(query)
    result = t_env.sql_query(query)
    result.print_schema()
    result.execute().print()
