"""Deduplication and Top-N (ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) filtered on its number)
over an append-only stream: keep the first row by event time (when the watermark passes it), keep
the last one (-U/+U), Top-N with and without the number selected (Flink's changelogs), a global
Top-N with a tie, and Flink's errors for RANK() and for a descending ROW_NUMBER without a rank end
(Kindling has no OVER aggregation ordered by other columns than time). Partitions are processed in
no defined order.
# conformance: sorted
"""
from pyflink.common import Types
from pyflink.common.time import Instant
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, Schema, StreamTableEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)
events = [(2000, 'ann', 1.5), (2500, 'bob', 2.0), (1200, 'ann', 3.25), (6100, 'ann', 1.0), (4000, 'bob', 0.5),
          (7000, 'cat', 4.0), (5500, 'bob', 2.0), (6000, 'ann', 9.0), (12000, 'bob', 8.0), (30000, 'ann', 2.0)]
clicks = env.from_collection([(Instant.of_epoch_milli(t), u, a) for t, u, a in events],
                             type_info=Types.ROW([Types.INSTANT(), Types.STRING(), Types.DOUBLE()]))
t_env.create_temporary_view("clicks", t_env.from_data_stream(
    clicks, Schema.new_builder().column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
    .column("f1", DataTypes.STRING()).column("f2", DataTypes.DOUBLE())
    .watermark("ts", "ts - INTERVAL '3' SECOND").build()).alias("ts", "u", "amount"))

for query in [
    "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY u ORDER BY ts ASC) AS rn FROM clicks) WHERE rn = 1",
    "SELECT u, amount, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY u ORDER BY ts DESC) AS row_num "
    "FROM clicks) WHERE row_num = 1",
    "SELECT * FROM (SELECT u, amount, ROW_NUMBER() OVER (PARTITION BY u ORDER BY amount DESC) AS rn FROM clicks) "
    "WHERE rn <= 2",
    "SELECT u, amount FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY u ORDER BY amount DESC) AS rn FROM clicks) "
    "WHERE rn <= 2",
    "SELECT rn, u, amount FROM (SELECT ROW_NUMBER() OVER (ORDER BY amount ASC) AS rn, u, amount FROM clicks) "
    "WHERE rn < 4",
    "SELECT * FROM (SELECT u, ts, ROW_NUMBER() OVER (PARTITION BY u ORDER BY amount ASC, ts DESC) AS rn FROM clicks "
    "WHERE amount > 0.5) WHERE rn <= 1",
    "SELECT * FROM (SELECT *, RANK() OVER (PARTITION BY u ORDER BY amount DESC) AS rn FROM clicks) WHERE rn <= 1",
    "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY u ORDER BY amount DESC) AS rn FROM clicks)",
]:
    print(query)
    try:
        result = t_env.sql_query(query)
        result.print_schema()
        result.execute().print()
    except Exception as error:  # Flink's planner errors: the first line of the message
        print("error:", str(error).split("\n")[0].split("TableException: ")[-1])
