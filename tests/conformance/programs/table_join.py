"""Streaming inner joins on equal keys (the predicate given, or in a following where). The two inputs
race in Flink, so their rows come in no defined order; outer joins' changes depend on that order and
are checked applied, in tests/table/test_join.py.
# conformance: sorted
"""
from pyflink.table import EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
orders = t_env.from_elements([(1, 'u1', 10), (2, 'u2', 20), (3, 'u1', 30), (4, 'u9', 5)], ['oid', 'user', 'amount'])
users = t_env.from_elements([('u1', 'Ada'), ('u2', 'Alan'), ('u3', 'Grace')], ['uid', 'name'])
orders.join(users, col('user') == col('uid')).select(col('oid'), col('name'), col('amount')).execute().print()
orders.join(users).where((col('user') == col('uid')) & (col('amount') > 10)).select(col('oid'), col('name')).execute().print()
