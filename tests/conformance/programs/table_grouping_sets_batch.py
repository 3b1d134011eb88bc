"""Batch GROUPING SETS, ROLLUP and CUBE over parallel sources print each group's final row, the keys a
grouping set leaves out NULL, with GROUPING and GROUPING_ID; Flink defines no order of groups.
# conformance: sorted
"""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "2")
orders = t_env.from_elements(
    [(1, 'pens', 'red', 10), (2, 'ink', 'blue', 20), (3, 'pens', 'blue', 30), (4, 'paper', 'red', 5),
     (5, 'ink', 'blue', 1), (6, None, 'red', 7)],
    DataTypes.ROW([DataTypes.FIELD('id', DataTypes.INT()), DataTypes.FIELD('item', DataTypes.STRING()),
                   DataTypes.FIELD('color', DataTypes.STRING()), DataTypes.FIELD('qty', DataTypes.INT())]))
t_env.create_temporary_view('orders', orders)
for query in [
    "SELECT item, color, SUM(qty) AS total, COUNT(*) AS n, GROUPING(item) AS gi, GROUPING_ID(item, color) AS gid "
    "FROM orders GROUP BY GROUPING SETS ((item, color), (item), ())",
    "SELECT item, color, AVG(qty), GROUPING_ID(color, item) FROM orders GROUP BY ROLLUP (item, color)",
    "SELECT color, item, MIN(qty), MAX(id), GROUPING(item, color) FROM orders GROUP BY CUBE (color, item)",
    "SELECT item, SUM(qty) FROM orders GROUP BY ROLLUP (item) HAVING SUM(qty) > 20",
    "SELECT item, COUNT(DISTINCT color), COUNT(item) FROM orders GROUP BY GROUPING SETS ((item), ())",
]:
    print(query)
    result = t_env.sql_query(query)
    result.print_schema()
    result.execute().print()
