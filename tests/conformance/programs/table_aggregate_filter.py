"""Aggregates with FILTER (WHERE ...) in a streaming GROUP BY (COUNT(*), COUNT(DISTINCT), SUM, AVG, MIN,
MAX) and in batch mode, and FETCH FIRST n ROWS ONLY."""
from pyflink.table import EnvironmentSettings, TableEnvironment

for settings in (EnvironmentSettings.in_streaming_mode(), EnvironmentSettings.in_batch_mode()):
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql("CREATE TEMPORARY VIEW t AS SELECT * FROM (VALUES ('a', 1), ('a', 5), ('b', 2), ('a', 5), "
                      "('b', 7), ('c', 1)) AS x(name, v)")
    t_env.execute_sql(
        "SELECT name, COUNT(*) FILTER (WHERE v > 1) AS big, COUNT(DISTINCT v) FILTER (WHERE v > 1) AS distinct_big, "
        "SUM(v) FILTER (WHERE v < 6) AS small_sum, AVG(v) FILTER (WHERE v > 1) AS big_avg, "
        "MIN(v) FILTER (WHERE v > 1) AS big_min, MAX(v) FILTER (WHERE name = 'a') AS a_max, COUNT(*) AS n "
        "FROM t GROUP BY name").print()
t_env.execute_sql("SELECT name, v FROM t ORDER BY v DESC, name FETCH FIRST 3 ROWS ONLY").print()
