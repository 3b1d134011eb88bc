"""Window table-valued functions in batch mode: window aggregations of TUMBLE, HOP and CUMULATE (final
rows, no op column), TUMBLE alone, and Flink's error for SESSION. Flink defines no order of the rows.
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
          (7000, 'cat', 4.0), (5500, 'bob', 2.0), (12000, 'bob', 8.0), (30000, 'ann', 2.0)]
clicks = env.from_collection([(Instant.of_epoch_milli(t), u, a) for t, u, a in events],
                             type_info=Types.ROW([Types.INSTANT(), Types.STRING(), Types.DOUBLE()]))
t_env.create_temporary_view("clicks", t_env.from_data_stream(
    clicks, Schema.new_builder().column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
    .column("f1", DataTypes.STRING()).column("f2", DataTypes.DOUBLE())
    .watermark("ts", "ts - INTERVAL '3' SECOND").build()).alias("ts", "u", "amount"))

for query in [
    "SELECT window_start, window_end, u, SUM(amount) AS total, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE clicks, "
    "DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, u",
    "SELECT window_start, window_end, MAX(amount) FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '2' SECOND, "
    "INTERVAL '4' SECOND)) GROUP BY window_start, window_end",
    "SELECT u, window_start, window_end, AVG(amount) FROM TABLE(CUMULATE(TABLE clicks, DESCRIPTOR(ts), "
    "INTERVAL '2' SECOND, INTERVAL '6' SECOND)) GROUP BY u, window_start, window_end",
    "SELECT u, window_start, window_end, COUNT(*) FROM TABLE(SESSION(TABLE clicks PARTITION BY u, DESCRIPTOR(ts), "
    "INTERVAL '2' SECOND)) GROUP BY u, window_start, window_end",
    "SELECT u, amount, window_start, window_end FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND))",
]:
    print(query)
    result = t_env.sql_query(query)
    result.print_schema()
    try:
        result.execute().print()
    except Exception as error:  # Flink's planner errors: the first line of the message
        print("error:", str(error).split("\n")[0].split("TableException: ")[-1])
