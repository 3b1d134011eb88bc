"""DECIMAL arithmetic in SQL: the result types Flink derives (precision at most 38, at least 6
fraction digits kept when shortened), values rounded half up, mixed with integers and DOUBLE,
unary minus keeping the type, CAST keeping NOT NULL.
"""
from pyflink.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.create_temporary_view("v", t_env.sql_query(
    "SELECT * FROM (VALUES (2.5, 12.345, 7, CAST(3 AS BIGINT), 1.5e0), (-1.25, 0.001, -2, CAST(4 AS BIGINT), 2e0)) "
    "AS v(a, b, i, l, d)"))
t = t_env.sql_query(
    "SELECT a + b, a - i, a * b, a * i, b * l, a / b, a / i, i / a, a % i, a + d, a * d, "
    "CAST(a AS DECIMAL(20, 3)) * CAST(b AS DECIMAL(30, 10)), CAST(a AS DECIMAL(20, 3)) / CAST(b AS DECIMAL(30, 10)), "
    "a + l, -a FROM v")
t.print_schema()
t.execute().print()
