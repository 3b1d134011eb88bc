"""Window table-valued functions in SQL over a DataStream's event time (a computed TIMESTAMP column
with a watermark): TUMBLE, HOP, CUMULATE and SESSION alone (each row with its windows, SESSION's when
the watermark closes the session) and as window aggregations (GROUP BY window_start, window_end),
with named arguments, WHERE before the windows, HAVING, a cascade on window_time and a TIMESTAMP_LTZ
event time. Windows closed by the same watermark come in no defined order.
# conformance: sorted
"""
from pyflink.common import Duration, Types, WatermarkStrategy
from pyflink.common.time import Instant
from pyflink.common.watermark_strategy import TimestampAssigner
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, Schema, StreamTableEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)
events = [(1000, 'ann', 1.5), (2500, 'bob', 2.0), (1200, 'ann', 3.25), (6100, 'ann', 1.0), (4000, 'bob', 0.5),
          (7000, 'cat', 4.0), (5500, 'bob', 2.0), (12000, 'bob', 8.0), (30000, 'ann', 2.0)]
clicks = env.from_collection([(Instant.of_epoch_milli(t), u, a) for t, u, a in events],
                             type_info=Types.ROW([Types.INSTANT(), Types.STRING(), Types.DOUBLE()]))
t_env.create_temporary_view("clicks", t_env.from_data_stream(
    clicks, Schema.new_builder().column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
    .column("f1", DataTypes.STRING()).column("f2", DataTypes.DOUBLE())
    .watermark("ts", "ts - INTERVAL '3' SECOND").build()).alias("ts", "u", "amount"))


class EventTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[0].to_epoch_milli()


stamped = clicks.assign_timestamps_and_watermarks(
    WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(3)).with_timestamp_assigner(EventTime()))
t_env.create_temporary_view("clicks_ltz", t_env.from_data_stream(
    stamped, Schema.new_builder().column_by_metadata("rowtime", DataTypes.TIMESTAMP_LTZ(3))
    .column("f1", DataTypes.STRING()).column("f2", DataTypes.DOUBLE())
    .watermark("rowtime", "SOURCE_WATERMARK()").build()))

for query in [
    "SELECT * FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND))",
    "SELECT u, amount, window_start, window_end FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '2' SECOND, "
    "INTERVAL '4' SECOND)) WHERE amount > 1",
    "SELECT u, window_start, window_end, window_time FROM TABLE(CUMULATE(TABLE clicks, DESCRIPTOR(ts), "
    "INTERVAL '2' SECOND, INTERVAL '6' SECOND))",
    "SELECT * FROM TABLE(SESSION(TABLE clicks PARTITION BY u, DESCRIPTOR(ts), INTERVAL '2' SECOND))",
    "SELECT window_start, window_end, u, SUM(amount) AS total, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE clicks, "
    "DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, u",
    "SELECT window_start, window_end, MAX(amount), MIN(u) FROM TABLE(HOP(DATA => TABLE clicks, TIMECOL => "
    "DESCRIPTOR(ts), SLIDE => INTERVAL '2' SECOND, SIZE => INTERVAL '4' SECOND)) WHERE u <> 'cat' "
    "GROUP BY window_start, window_end",
    "SELECT u, window_start, window_end, window_time, AVG(amount) FROM TABLE(CUMULATE(TABLE clicks, DESCRIPTOR(ts), "
    "INTERVAL '2' SECOND, INTERVAL '6' SECOND)) GROUP BY u, window_start, window_end, window_time "
    "HAVING COUNT(*) > 1",
    "SELECT u, window_start, window_end, COUNT(*), SUM(amount) FROM TABLE(SESSION(TABLE clicks PARTITION BY u, "
    "DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY u, window_start, window_end",
    "SELECT window_start, window_end, window_time, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE clicks_ltz, "
    "DESCRIPTOR(rowtime), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, window_time",
]:
    print(query)
    result = t_env.sql_query(query)
    result.print_schema()
    result.execute().print()

t_env.create_temporary_view("per_user", t_env.sql_query(
    "SELECT u, window_time, SUM(amount) AS total FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), "
    "INTERVAL '2' SECOND)) GROUP BY u, window_start, window_end, window_time"))
t_env.sql_query("SELECT window_start, window_end, MAX(total) AS best FROM TABLE(TUMBLE(TABLE per_user, "
                "DESCRIPTOR(window_time), INTERVAL '10' SECOND)) GROUP BY window_start, window_end").execute().print()
