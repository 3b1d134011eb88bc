"""from_data_stream with a Schema: one declaring only a rowtime metadata column and SOURCE_WATERMARK()
keeps the stream's columns before it (and runs an event-time window on the stream's watermarks);
one with physical columns keeps those, in its order; column types given as SQL strings.
# conformance: sorted
"""
from pyflink.common import Types, WatermarkStrategy
from pyflink.common.watermark_strategy import TimestampAssigner
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, Schema, StreamTableEnvironment


class ThirdField(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[2]


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
t_env = StreamTableEnvironment.create(env)
rows = Types.ROW_NAMED(["name", "v", "ts"], [Types.STRING(), Types.INT(), Types.LONG()])
ds = env.from_collection([("a", 1, 1000), ("b", 2, 2000), ("a", 3, 3500), ("b", 4, 3900), ("a", 5, 4100)], rows)
timed = ds.assign_timestamps_and_watermarks(
    WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(ThirdField()))

table = t_env.from_data_stream(timed, Schema.new_builder()
                               .column_by_metadata("rowtime", "TIMESTAMP_LTZ(3)")
                               .watermark("rowtime", "SOURCE_WATERMARK()").build())
table.print_schema()
t_env.create_temporary_view("t", table)
t_env.execute_sql("""SELECT name, SUM(v) AS s, COUNT(*) AS c, window_start, window_end
    FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(rowtime), INTERVAL '2' SECOND))
    GROUP BY name, window_start, window_end""").print()

computed = t_env.from_data_stream(ds, Schema.new_builder().column_by_expression("v2", "v * 2").build())
computed.print_schema()
computed.execute().print()

physical = t_env.from_data_stream(ds, Schema.new_builder().column("ts", "BIGINT").column("v", DataTypes.INT())
                                  .build())
physical.print_schema()
physical.execute().print()
