"""OVER aggregations over event time, in SQL (ROWS n PRECEDING, RANGE INTERVAL ... PRECEDING, UNBOUNDED
PRECEDING, a WINDOW clause, no partition) and the Table API (over_window with row_interval, time
intervals, UNBOUNDED_RANGE): each row once, when the watermark passes it, with its frame's
aggregates. Partitions are processed in no defined order.
# conformance: sorted
"""
from pyflink.common import Types
from pyflink.common.time import Instant
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, Schema, StreamTableEnvironment
from pyflink.table.expressions import CURRENT_RANGE, CURRENT_ROW, UNBOUNDED_RANGE, col, lit, row_interval
from pyflink.table.window import Over

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)
events = [(1000, 'ann', 1.5), (2500, 'bob', 2.0), (1200, 'ann', 3.25), (6100, 'ann', 1.0), (4000, 'bob', 0.5),
          (7000, 'cat', 4.0), (5500, 'bob', 2.0), (7000, 'ann', 0.25), (12000, 'bob', 8.0), (30000, 'ann', 2.0)]
clicks = env.from_collection([(Instant.of_epoch_milli(t), u, a) for t, u, a in events],
                             type_info=Types.ROW([Types.INSTANT(), Types.STRING(), Types.FLOAT()]))
table = t_env.from_data_stream(
    clicks, Schema.new_builder().column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
    .column("f1", DataTypes.STRING()).column("f2", DataTypes.FLOAT())
    .watermark("ts", "ts - INTERVAL '3' SECOND").build()).alias("ts", "u", "amount")
t_env.create_temporary_view("clicks", table)

for query in [
    "SELECT u, ts, amount, SUM(amount) OVER (PARTITION BY u ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) "
    "AS s, COUNT(*) OVER (PARTITION BY u ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS c FROM clicks",
    "SELECT u, ts, SUM(amount) OVER w, MAX(amount) OVER w, AVG(amount) OVER w FROM clicks "
    "WINDOW w AS (PARTITION BY u ORDER BY ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW)",
    "SELECT u, ts, SUM(amount) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM clicks",
    "SELECT u, ts, COUNT(amount) OVER (PARTITION BY u ORDER BY ts), MIN(amount) OVER (PARTITION BY u ORDER BY ts) "
    "FROM clicks",
    "SELECT u, amount * 2, SUM(amount) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW) "
    "+ 1 AS s FROM clicks WHERE u <> 'cat'",
]:
    print(query)
    result = t_env.sql_query(query)
    result.print_schema()
    result.execute().print()

over = table.over_window(Over.partition_by(col('u')).order_by(col('ts')).preceding(row_interval(2))
                         .following(CURRENT_ROW).alias('w')) \
    .select(col('u'), col('amount').max.over(col('w')), col('amount').sum.over(col('w')).alias('total'))
over.print_schema()
over.execute().print()
table.over_window(Over.partition_by(col('u')).order_by(col('ts')).preceding(lit(3).seconds)
                  .following(CURRENT_RANGE).alias('w')) \
    .select(col('u'), col('ts'), lit(1).count.over(col('w'))).execute().print()
table.over_window(Over.order_by(col('ts')).preceding(UNBOUNDED_RANGE).alias('w')) \
    .select(col('u'), col('amount').avg.over(col('w'))).execute().print()
