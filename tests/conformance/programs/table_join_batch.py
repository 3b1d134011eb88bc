"""Batch joins: each key's final joined rows (outer joins padded with nulls), in no defined order.
# conformance: sorted
"""
from pyflink.table import EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
orders = t_env.from_elements([(1, 'u1', 10), (2, 'u2', 20), (3, 'u1', 30), (4, 'u9', 5)], ['oid', 'user', 'amount'])
users = t_env.from_elements([('u1', 'Ada'), ('u2', 'Alan'), ('u3', 'Grace')], ['uid', 'name'])
orders.join(users, col('user') == col('uid')).select(col('oid'), col('name'), col('amount')).execute().print()
orders.join(users).where((col('user') == col('uid')) & (col('amount') > 10)).select(col('oid'), col('name')).execute().print()
orders.left_outer_join(users, col('user') == col('uid')).select(col('oid'), col('name')).execute().print()
orders.right_outer_join(users, col('user') == col('uid')).select(col('oid'), col('name')).execute().print()
orders.full_outer_join(users, col('user') == col('uid')).select(col('oid'), col('uid')).execute().print()
totals = orders.group_by(col('user')).select(col('user'), col('amount').sum.alias('total'))
totals.join(users, col('user') == col('uid')).select(col('name'), col('total')).execute().print()
