"""SQL statements and batch-only operators: CREATE TABLE/VIEW, SHOW, DESCRIBE, INSERT INTO (and its
printed result), SELECT through execute_sql, union_all/union, order_by with fetch/limit, a
StatementSet of two inserts, DROP. Union and the two inserts' rows come in no defined order.
# conformance: sorted
"""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql("CREATE TABLE src (id INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3', "
                  "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3', "
                  "'fields.name.kind' = 'sequence', 'fields.name.start' = '10', 'fields.name.end' = '12')").print()
t_env.execute_sql("CREATE TABLE snk (id INT, name STRING) WITH ('connector' = 'print')")
t_env.execute_sql("CREATE TEMPORARY VIEW v AS SELECT id * 10 AS x FROM src WHERE id > 1").print()
t_env.execute_sql("SHOW TABLES").print()
t_env.execute_sql("SHOW VIEWS").print()
t_env.execute_sql("DESCRIBE src").print()
t_env.execute_sql("INSERT INTO snk SELECT id, name FROM src").print()
t_env.execute_sql("SELECT x FROM v").print()
t = t_env.from_elements([(3, 'c'), (1, 'a'), (2, 'b'), (4, None)], ['id', 'name'])
t.union_all(t).order_by(col('id').desc).fetch(4).execute().print()
t.order_by(col('name')).limit(2).execute().print()
t.order_by(col('name').desc, col('id')).limit(2, 1).execute().print()
t.union(t).execute().print()
statements = t_env.create_statement_set()
statements.add_insert("snk", t.select(col('id').cast(DataTypes.INT()), col('name')))
statements.add_insert_sql("INSERT INTO snk SELECT id, name FROM src WHERE id = 2")
statements.execute().wait()
t_env.execute_sql("DROP TABLE snk").print()
t_env.execute_sql("DROP TEMPORARY VIEW v").print()
t_env.execute_sql("SHOW TABLES").print()
t_env.create_temporary_view('letters', t)
t_env.sql_query("SELECT id, name FROM letters ORDER BY name DESC LIMIT 2").execute().print()
