"""A streaming GROUP BY of aggregates of expressions (SUM(v * 2), FILTER) and of expressions of aggregates
(SUM(v) > 0): Flink computes the arguments below the aggregation and the expressions above it, so every
change of an aggregate is a change of the row, even where the expression's value stays the same."""
from pyflink.table import EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t = t_env.from_elements([("a", 1), ("a", 2), ("b", -1), ("a", 3), ("b", 5), ("b", -3), ("a", -6)], ["k", "v"])
t_env.create_temporary_view("t", t)
t_env.execute_sql("SELECT k, SUM(v) > 0 AS pos, COUNT(*) >= 2 AS many FROM t GROUP BY k").print()
t_env.execute_sql("SELECT k, MAX(v) - MIN(v) AS spread, SUM(v) AS s FROM t GROUP BY k").print()
t_env.execute_sql("SELECT k, SUM(v * 2) AS s2, COUNT(*) FILTER (WHERE v > 0) AS c, AVG(ABS(v)) AS a "
                  "FROM t GROUP BY k").print()
t.group_by(col('k')).select(col('k'), (col('v') + 1).sum.alias('s'), col('v').count > 2).execute().print()
