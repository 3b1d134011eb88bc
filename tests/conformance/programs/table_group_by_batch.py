"""Batch group aggregations (built-in and a pandas aggregate function) print only final rows, with no op column; Flink defines no order of groups.
# conformance: sorted
"""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col, lit
from pyflink.table.udf import udaf

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
orders = t_env.from_elements(
    [(1, 'pens', 10), (2, 'ink', 20), (3, 'pens', 30), (4, 'paper', 5), (5, 'ink', 1), (6, 'pens', 30)],
    DataTypes.ROW([DataTypes.FIELD('id', DataTypes.INT()), DataTypes.FIELD('item', DataTypes.STRING()),
                   DataTypes.FIELD('qty', DataTypes.INT())]))
orders.group_by(col('item')).select(col('item'), col('qty').sum.alias('total'), col('qty').avg, lit(1).count) \
    .execute().print()
orders.select(col('item')).distinct().execute().print()
mean_qty = udaf(lambda qty: float(qty.mean()), result_type=DataTypes.DOUBLE(), func_type='pandas')
orders.group_by(col('item')).select(col('item'), mean_qty(col('qty')).alias('mean')).execute().print()
t_env.create_temporary_view('orders', orders)
t_env.sql_query("SELECT item, MAX(qty) AS most FROM orders GROUP BY item HAVING COUNT(*) > 1").execute().print()
t_env.execute_sql("CREATE TABLE printed (item STRING, total INT) WITH ('connector' = 'print')")
orders.group_by(col('item')).select(col('item'), col('qty').sum).execute_insert('printed').wait()
