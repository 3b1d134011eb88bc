"""A table's resolved schema: column comments (CREATE TABLE ... COMMENT), a table comment, computed and
metadata columns, the watermark and the primary key, as print_schema, DESCRIBE, SHOW CREATE TABLE and
get_resolved_schema() give them; a query's and a statement's resolved schema.
"""
import os
import tempfile

from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.catalog import Column, ResolvedSchema, UniqueConstraint

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
path = os.path.join(tempfile.mkdtemp(), "events.csv")
open(path, "w").close()
t_env.execute_sql(f"""CREATE TABLE events (
    id BIGINT NOT NULL COMMENT 'the key',
    name STRING COMMENT 'it''s the name',
    doubled AS id * 2 COMMENT 'computed',
    ts TIMESTAMP(3),
    WATERMARK FOR ts AS ts - INTERVAL '1' SECOND,
    PRIMARY KEY (id) NOT ENFORCED
) COMMENT 'all events' WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')""")
t_env.execute_sql("CREATE TABLE plain (a INT, b STRING) WITH ('connector' = 'filesystem', "
                  f"'path' = '{path}', 'format' = 'csv')")
t_env.from_path("events").print_schema()
t_env.execute_sql("DESCRIBE events").print()
t_env.execute_sql("DESCRIBE plain").print()
print(t_env.execute_sql("SHOW CREATE TABLE events").collect().__next__()[0].replace(path, "PATH"))

schema = t_env.from_path("events").get_resolved_schema()
print(schema.get_column_count(), schema.get_column_names(), list(schema.get_primary_key_indexes()))
for column in schema.get_columns():
    print(type(column).__name__, column.get_name(), column.is_physical(), column.is_persisted(),
          column.get_comment(), column.explain_extras(), "|", column)
print(schema.get_column(1), "|", schema.get_column("ts"), "|", schema.get_column("nothing"))
print([w.get_rowtime_attribute() for w in schema.get_watermark_specs()],
      [w.as_summary_string() for w in schema.get_watermark_specs()])
key = schema.get_primary_key()
print(key.get_name(), key.is_enforced(), key.get_type(), key.get_columns(), key.get_type_string(), "|",
      key.as_summary_string())
print(t_env.sql_query("SELECT id, name, ts FROM events").get_resolved_schema())
print(t_env.sql_query("SELECT name, COUNT(*) AS n FROM events GROUP BY name").get_resolved_schema())
print(t_env.execute_sql("SELECT 1 AS x").get_resolved_schema())
print(t_env.from_elements([(1, 'a')], ['x', 'y']).get_resolved_schema())
physical = ResolvedSchema.physical(["x", "y"], [DataTypes.INT(), DataTypes.STRING()])
print(physical, physical == ResolvedSchema.of([Column.physical("x", DataTypes.INT()),
                                               Column.physical("y", DataTypes.STRING())]))
print(Column.metadata("k", DataTypes.BIGINT(), "offset", True), "|", Column.metadata("k", DataTypes.BIGINT(), None, False))
