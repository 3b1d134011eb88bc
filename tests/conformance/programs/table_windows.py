"""Group windows of the Table API over a DataStream's event time declared in a Schema (a computed
TIMESTAMP column and its watermark): tumbling, sliding and session windows with the window's start,
end and rowtime, into the print connector and execute().print(). Windows of the same watermark fire
in no defined order.
# conformance: sorted
"""
from pyflink.common import Types
from pyflink.common.time import Instant
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, Schema, StreamTableEnvironment, TableDescriptor
from pyflink.table.expressions import col, lit
from pyflink.table.window import Session, Slide, Tumble

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)
clicks = env.from_collection(
    [(Instant.of_epoch_milli(t), user, amount) for t, user, amount in
     [(1000, 'ann', 1.5), (2500, 'bob', 2.0), (1200, 'ann', 3.25), (6100, 'ann', 1.0), (4000, 'bob', 0.5),
      (7000, 'cat', 4.0), (12000, 'bob', 8.0), (30000, 'ann', 2.0)]],
    type_info=Types.ROW([Types.INSTANT(), Types.STRING(), Types.DOUBLE()]))
table = t_env.from_data_stream(
    clicks, Schema.new_builder().column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
    .column("f1", DataTypes.STRING()).column("f2", DataTypes.DOUBLE())
    .watermark("ts", "ts - INTERVAL '2' SECOND").build()).alias("ts", "user", "amount")
table.print_schema()
t_env.create_temporary_table('printed', TableDescriptor.for_connector('print').schema(
    Schema.new_builder().column('user', DataTypes.STRING()).column('total', DataTypes.DOUBLE())
    .column('n', DataTypes.BIGINT()).column('w_start', DataTypes.TIMESTAMP(3))
    .column('w_end', DataTypes.TIMESTAMP_LTZ(3)).build()).build())
table.window(Tumble.over(lit(5).seconds).on(col('ts')).alias('w')).group_by(col('user'), col('w')) \
    .select(col('user'), col('amount').sum, lit(1).count, col('w').start, col('w').end) \
    .execute_insert('printed').wait()
table.window(Slide.over(lit(4).seconds).every(lit(2).seconds).on(col('ts')).alias('w')) \
    .group_by(col('w'), col('user')) \
    .select(col('user'), col('amount').max.alias('top'), col('w').end.alias('until'), col('w').rowtime) \
    .execute().print()
table.window(Session.with_gap(lit(2).seconds).on(col('ts')).alias('s')).group_by(col('user'), col('s')) \
    .select(col('user'), col('s').start, col('s').end, col('amount').avg.alias('mean')).execute().print()
