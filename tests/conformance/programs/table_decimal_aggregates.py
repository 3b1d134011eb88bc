"""SUM, AVG, MIN, MAX and COUNT of DECIMAL columns in batch mode: SUM(DECIMAL(p, s)) is DECIMAL(38, s),
AVG DECIMAL(38, max(6, s)) (rounded half up), MIN and MAX keep the argument's type. Groups come in
no defined order.
# conformance: sorted
"""
from pyflink.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql("CREATE TEMPORARY VIEW t AS SELECT * FROM (VALUES ('a', CAST(1.25 AS DECIMAL(10, 2))), "
                  "('a', CAST(2.10 AS DECIMAL(10, 2))), ('b', CAST(-0.01 AS DECIMAL(10, 2))), "
                  "('a', CAST(1.00 AS DECIMAL(10, 2))), ('b', CAST(NULL AS DECIMAL(10, 2))), "
                  "('c', CAST(0.05 AS DECIMAL(10, 2))), ('c', CAST(0.02 AS DECIMAL(10, 2))), "
                  "('d', CAST(1 AS DECIMAL(10, 2))), ('d', CAST(1 AS DECIMAL(10, 2))), "
                  "('d', CAST(2 AS DECIMAL(10, 2)))) AS v(k, d)")
for query in [
    "SELECT k, SUM(d) AS s, AVG(d) AS a, MIN(d) AS lo, MAX(d) AS hi, COUNT(d) AS n, SUM(CAST(d AS DECIMAL(5, 1))) "
    "AS s1, AVG(CAST(d AS DECIMAL(20, 8))) AS a8 FROM t GROUP BY k",
    "SELECT SUM(d / 3) AS s, AVG(d / 3) AS a FROM t",
]:
    result = t_env.sql_query(query)
    result.print_schema()
    result.execute().print()
