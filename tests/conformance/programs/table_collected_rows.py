"""Rows a query's collect() gives: positional, without field names (nested rows, rows in arrays too),
with their row kind; a SHOW statement's rows likewise; to_pandas names its columns."""
from pyflink.table import EnvironmentSettings, TableEnvironment

for settings in (EnvironmentSettings.in_batch_mode(), EnvironmentSettings.in_streaming_mode()):
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql("CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES ('a', 5), ('b', 7), ('a', 1)) AS x(name, n)")
    with t_env.execute_sql("SELECT name, n, ROW(n, name) AS r, ARRAY[ROW(n, 'y')] AS a FROM v").collect() as rows:
        for row in rows:
            print(repr(row), str(row), row.get_row_kind(), getattr(row, "_fields", None), len(row), row[0], row[2][1])
    with t_env.execute_sql("SELECT name, SUM(n) FROM v GROUP BY name").collect() as rows:
        print(sorted(repr(row) + " " + str(row.get_row_kind()) for row in rows))
    with t_env.execute_sql("SHOW VIEWS").collect() as rows:
        print([repr(row) for row in rows])
    frame = t_env.sql_query("SELECT name, SUM(n) AS total FROM v GROUP BY name").to_pandas()
    print(list(frame.columns), sorted(frame.values.tolist()))
