"""Streaming GROUPING SETS, ROLLUP and CUBE print Flink's changelog: each row updates one group per
grouping set, in the sets' order (a set before the sets it holds), the keys a set leaves out NULL;
GROUPING, GROUPING_ID and GROUP_ID tell the sets apart; an aggregate of a grouping key reads its
values; grouping sets over an updating table retract (-D) a group whose last row leaves.
"""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
orders = t_env.from_elements(
    [(1, 'pens', 'red', 10), (2, 'ink', 'blue', 20), (3, 'pens', 'blue', 30), (4, 'paper', 'red', 5),
     (5, 'ink', 'blue', 1)],
    DataTypes.ROW([DataTypes.FIELD('id', DataTypes.INT().not_null()), DataTypes.FIELD('item', DataTypes.STRING()),
                   DataTypes.FIELD('color', DataTypes.STRING()), DataTypes.FIELD('qty', DataTypes.INT())]))
t_env.create_temporary_view('orders', orders)
for query in [
    "SELECT item, color, SUM(qty) AS total, COUNT(*) AS n, GROUPING(item) AS gi, GROUPING_ID(item, color) AS gid "
    "FROM orders GROUP BY GROUPING SETS ((item, color), (item), ())",
    "SELECT item, color, SUM(qty) AS total, GROUPING_ID(color, item) FROM orders GROUP BY ROLLUP (item, color)",
    "SELECT item, color, MAX(qty), GROUPING(color), GROUP_ID() FROM orders WHERE qty > 1 GROUP BY CUBE (item, color)",
    "SELECT item, color, COUNT(*) FROM orders GROUP BY item, ROLLUP (color) HAVING COUNT(*) > 1",
    "SELECT item, id, COUNT(item), GROUPING(id, item) FROM orders GROUP BY ROLLUP (item, id)",
    "SELECT item, color FROM orders GROUP BY GROUPING SETS (item, color)",
    "SELECT total, COUNT(*) AS items FROM (SELECT item, SUM(qty) AS total FROM orders GROUP BY item) "
    "GROUP BY ROLLUP (total)",
]:
    print(query)
    result = t_env.sql_query(query)
    result.print_schema()
    result.execute().print()
