"""CURRENT_DATABASE() in the Table API and SQL follows the TableEnvironment's current database when the
query runs (USE, use_database, use_catalog), also for a query built before the USE."""
from pyflink.table import EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col, current_database

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql("CREATE DATABASE db1")
t = t_env.from_elements([(1,)], ["a"])
built_before = t.select(col("a"), current_database().alias("d"))
query_before = t_env.sql_query("SELECT CURRENT_DATABASE() AS d")
t_env.execute_sql("USE db1")
print(t_env.get_current_database())
built_before.execute().print()
query_before.execute().print()
t.select(col("a"), current_database().alias("d")).where(current_database() == "db1").execute().print()
t_env.execute_sql("SELECT CURRENT_DATABASE() AS d").print()
t_env.use_database("default_database")
print(t_env.get_current_database())
t.select(current_database()).execute().print()
t_env.execute_sql("CREATE CATALOG c2 WITH ('type' = 'generic_in_memory')")
t_env.use_catalog("c2")
print(t_env.get_current_catalog(), t_env.get_current_database())
t.select(current_database().alias("d"), current_database().upper_case.alias("u")).execute().print()
