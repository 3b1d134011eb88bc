"""SQL joins: qualified and unqualified columns, a right column named as a left one renamed name0 (as
Calcite names it). The inputs race in Flink: rows in no defined order.
# conformance: sorted
"""
from pyflink.table import EnvironmentSettings, TableEnvironment
t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.create_temporary_view('orders', t_env.from_elements([(1, 'u1', 10), (2, 'u2', 20), (3, 'u1', 30), (4, 'u9', 5)], ['id', 'user', 'amount']))
t_env.create_temporary_view('users', t_env.from_elements([('u1', 'Ada', 1), ('u2', 'Alan', 2)], ['user', 'name', 'id']))
t_env.sql_query("SELECT o.id, u.name, amount FROM orders AS o JOIN users AS u ON o.`user` = u.`user` WHERE amount > 5").execute().print()
t_env.sql_query("SELECT * FROM orders o JOIN users u ON o.`user` = u.`user`").execute().print()
