"""SQL's row constructors ROW(a, b) and (a, b) name their fields EXPR$0, EXPR$1 (the Table API's row()
names them f0, f1), nested rows too; a field read by that name.
"""
from pyflink.table import EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col, row

for settings in (EnvironmentSettings.in_batch_mode(), EnvironmentSettings.in_streaming_mode()):
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "2")
    t = t_env.from_elements([(1, 'a'), (2, 'b')], ['id', 'name'])
    t.select(row(col('id'), col('name')).alias('r')).print_schema()
    t_env.create_temporary_view('t', t)
    q = t_env.sql_query("SELECT (id, name) AS r, ROW(id, ROW(name, 1)) AS n FROM t WHERE id = 1")
    q.print_schema()
    q.execute().print()
    t_env.sql_query("SELECT r.EXPR$0 AS x, r.EXPR$1 AS y FROM (SELECT ROW(id, name) AS r FROM t) "
                    "WHERE r.EXPR$0 = 2").execute().print()
