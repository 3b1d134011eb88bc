"""SQL queries built of WITH, UNION [ALL] and VALUES, streaming and batch, with parallelism 2: VALUES
rows typed as Flink types them (DECIMAL, VARCHAR of the longest string, nullable where a NULL is),
WITH names seen by later names, UNION ALL and UNION (distinct), INSERT INTO ... VALUES. Rows of a
union and of parallel subtasks come in no defined order.
# conformance: sorted
"""
from pyflink.table import EnvironmentSettings, TableEnvironment

for settings in (EnvironmentSettings.in_streaming_mode(), EnvironmentSettings.in_batch_mode()):
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "2")
    t = t_env.sql_query("SELECT * FROM (VALUES (1, 'a', 2.5), (2, 'bb', 3.25), (3, CAST(NULL AS STRING), -1.0)) "
                        "AS v(id, name, score)")
    t.print_schema()
    t_env.create_temporary_view("v", t)
    t_env.execute_sql("WITH a AS (SELECT id, name FROM v WHERE id > 1), b AS (SELECT id + 10 AS id, name FROM a) "
                      "SELECT * FROM b UNION ALL SELECT id, name FROM v").print()
    t_env.execute_sql("SELECT id FROM v UNION SELECT id + 1 FROM v").print()
    t_env.execute_sql("WITH s AS (SELECT id, name, score FROM v WHERE score > 0) SELECT name, score, id * 2 AS twice FROM s").print()
    values = t_env.sql_query("VALUES (1, 'x'), (2, 'yy')")
    values.print_schema()
    values.execute().print()
    t_env.execute_sql("CREATE TABLE out_table (id INT, name STRING) WITH ('connector' = 'print')")
    t_env.execute_sql("INSERT INTO out_table VALUES (7, 'seven'), (8, 'eight')").wait()
