"""Streaming group aggregations print Flink's changelog: +I for a new group, -U/+U for a changed one,
-D for a group whose last row was retracted; through execute().print(), the print connector, SQL
GROUP BY ... HAVING, distinct, and an aggregation over an aggregation.
"""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import call, col, lit

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
orders = t_env.from_elements(
    [(1, 'pens', 10), (2, 'ink', 20), (3, 'pens', 30), (4, 'paper', 5), (5, 'ink', 1), (6, 'pens', 30),
     (7, 'paper', -7)],
    DataTypes.ROW([DataTypes.FIELD('id', DataTypes.INT()), DataTypes.FIELD('item', DataTypes.STRING()),
                   DataTypes.FIELD('qty', DataTypes.INT())]))
totals = orders.group_by(col('item')).select(
    col('item'), col('qty').sum.alias('total'), col('qty').count.alias('n'), col('qty').avg.alias('mean'),
    col('qty').min, col('qty').max.alias('most'), lit(1).count, call('sum', col('id')) * 2)
totals.print_schema()
totals.execute().print()
orders.select(col('item')).distinct().execute().print()
orders.select(col('qty').sum.alias('all_qty'), col('qty').count.distinct.alias('distinct_qty')).execute().print()
orders.group_by(col('item')).select(col('item'), col('qty').sum.alias('total')) \
    .where(col('total') > 10).execute().print()

t_env.create_temporary_view('orders', orders)
t_env.sql_query("SELECT item, SUM(qty) AS total, COUNT(*) FROM orders GROUP BY item HAVING SUM(qty) > 10") \
    .execute().print()
t_env.execute_sql("CREATE TABLE printed (item STRING, total INT) WITH ('connector' = 'print')")
orders.group_by(col('item')).select(col('item'), col('qty').sum).execute_insert('printed').wait()
# groups of groups: a group's old total is retracted when it changes
orders.group_by(col('item')).select(col('item'), col('qty').sum.alias('total')) \
    .group_by(col('total')).select(col('total'), col('item').count.alias('items')).execute().print()
