"""GROUP BY of expressions: SQL (repeated in the SELECT list, under an alias, inside a larger expression,
in HAVING and ORDER BY, with ROLLUP, a Python function and a pandas function of the key) and the Table
API (a key expression named by its alias, in a group window too); a streaming group's changes as
Flink's changelog, and Flink's error for a column that is not grouped.
"""
from pyflink.common import Types
from pyflink.common.time import Instant
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, Schema, StreamTableEnvironment
from pyflink.table.expressions import col, lit
from pyflink.table.udf import udf
from pyflink.table.window import Tumble

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)
stream = env.from_collection(
    [(Instant.of_epoch_milli(t), i, k, v) for t, i, k, v in
     [(1000, 1, 'a', 10), (2000, 2, 'b', 20), (1500, 3, 'A', 30), (2500, 4, 'B', 15), (8000, 5, 'a', 7),
      (9000, 6, 'c', 1), (20000, 7, 'a', 2)]],
    type_info=Types.ROW([Types.INSTANT(), Types.INT(), Types.STRING(), Types.INT()]))
orders = t_env.from_data_stream(
    stream, Schema.new_builder().column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
    .column("f1", DataTypes.INT()).column("f2", DataTypes.STRING()).column("f3", DataTypes.INT())
    .watermark("ts", "ts - INTERVAL '1' SECOND").build()).alias("ts", "id", "k", "v")
t_env.create_temporary_view('orders', orders)
plus_one = udf(lambda x: x + 1, result_type=DataTypes.INT())
pandas_plus_one = udf(lambda x: x + 1, result_type=DataTypes.INT(), func_type='pandas')
t_env.create_temporary_function('plus_one', plus_one)
t_env.create_temporary_function('pandas_plus_one', pandas_plus_one)

for query in [
    "SELECT UPPER(k), SUM(v) FROM orders GROUP BY UPPER(k)",
    "SELECT id % 2 AS m, COUNT(*) AS n FROM orders GROUP BY id % 2 HAVING SUM(v) > 40",
    "SELECT (id % 3) * 10, k, MAX(v) FROM orders GROUP BY k, id % 3 HAVING id % 3 <> 1",
    "SELECT plus_one(id % 2), COUNT(*) FROM orders GROUP BY plus_one(id % 2)",
    "SELECT pandas_plus_one(id % 2) AS p, SUM(v) FROM orders GROUP BY pandas_plus_one(id % 2)",
    "SELECT UPPER(k), id % 2, SUM(v) FROM orders GROUP BY ROLLUP (UPPER(k), id % 2)",
    "SELECT window_start, UPPER(k) AS u, SUM(v) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND)) "
    "GROUP BY window_start, window_end, UPPER(k)",
]:
    t_env.sql_query(query).execute().print()

orders.group_by((col('id') % 2).alias('m')).select(col('m'), col('v').sum.alias('total'), col('m') * 100) \
    .execute().print()
orders.group_by(plus_one(col('v') % 3).alias('p'), col('k')) \
    .select(col('k'), col('p'), col('id').count.alias('n')).execute().print()
orders.window(Tumble.over(lit(5).seconds).on(col('ts')).alias('w')) \
    .group_by(col('w'), col('k').upper_case.alias('u')) \
    .select(col('u'), col('w').start, col('v').sum).execute().print()
for failing in [lambda: t_env.sql_query("SELECT id, COUNT(*) FROM orders GROUP BY id % 2"),
                lambda: t_env.sql_query("SELECT id % 2, COUNT(*) FROM orders GROUP BY id % 2 HAVING v > 1")]:
    try:
        failing()
    except Exception as e:
        print("not being grouped" in str(e))
