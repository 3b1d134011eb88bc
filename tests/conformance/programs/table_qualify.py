"""QUALIFY: rows filtered on a window function of the SELECT's rows (ROW_NUMBER per partition), in batch
mode and streaming (a Top-1 whose changes print as Flink's)."""
from pyflink.table import EnvironmentSettings, TableEnvironment

for settings in (EnvironmentSettings.in_batch_mode(), EnvironmentSettings.in_streaming_mode()):
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql("CREATE TEMPORARY VIEW t AS SELECT * FROM (VALUES ('a', 1), ('a', 2), ('b', 3), ('b', 1)) "
                      "AS x(name, v)")
    t_env.execute_sql("SELECT name, v FROM t QUALIFY ROW_NUMBER() OVER (PARTITION BY name ORDER BY v) = 1").print()
    t_env.execute_sql("SELECT * FROM t WHERE v > 1 QUALIFY ROW_NUMBER() OVER (PARTITION BY name ORDER BY v) <= 1").print()
t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.execute_sql("CREATE TEMPORARY VIEW t AS SELECT * FROM (VALUES ('a', 1), ('a', 2), ('b', 3), ('b', 1)) AS x(name, v)")
t_env.execute_sql("SELECT * FROM t QUALIFY ROW_NUMBER() OVER (PARTITION BY name ORDER BY v DESC) = 1").print()
