"""DataStreams of changes as tables (from_changelog_stream): all kinds (PyFlink's docs example, a GROUP BY
over it), an upsert stream with a primary key (repeated rows dropped, a delete with only its key set
giving the full row, an unknown key's delete dropped) and an insert-only one; to_changelog_stream in
upsert mode drops the -U rows. Parallel subtasks print in no defined order.
# conformance: sorted, ignore-prefix
"""
from pyflink.common import Row, RowKind, Types
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, Schema, StreamTableEnvironment
from pyflink.table.changelog_mode import ChangelogMode
from pyflink.table.expressions import col


def change(kind, *values):
    row = Row(*values)
    row.set_row_kind(kind)
    return row


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
t_env = StreamTableEnvironment.create(env)
scores = Types.ROW_NAMED(['name', 'score'], [Types.STRING(), Types.INT()])

changes = env.from_collection([change(RowKind.INSERT, 'Alice', 12), change(RowKind.INSERT, 'Bob', 5),
                               change(RowKind.UPDATE_BEFORE, 'Alice', 12), change(RowKind.UPDATE_AFTER, 'Alice', 100)],
                              type_info=scores)
table = t_env.from_changelog_stream(changes)
print(table.get_schema())
t_env.create_temporary_view('InputTable', table)
t_env.execute_sql('SELECT name, SUM(score) FROM InputTable GROUP BY name').print()
table.execute().print()

upserts = env.from_collection([change(RowKind.INSERT, 'Alice', 12), change(RowKind.INSERT, 'Bob', 5),
                               change(RowKind.UPDATE_AFTER, 'Alice', 100), change(RowKind.UPDATE_AFTER, 'Alice', 100),
                               change(RowKind.DELETE, 'Bob', None), change(RowKind.DELETE, 'Carl', None),
                               change(RowKind.UPDATE_AFTER, 'Dan', 3)], type_info=scores)
upserted = t_env.from_changelog_stream(upserts, Schema.new_builder().primary_key('name').build(),
                                       ChangelogMode.upsert())
print(upserted.get_schema())
upserted.execute().print()
t_env.create_temporary_view('Upserted', upserted)
t_env.execute_sql('SELECT name, score + 1 AS next_score FROM Upserted WHERE score > 4').print()

inserts = env.from_collection([Row('a', 1), Row('b', 2), Row('a', 3)], type_info=scores)
inserted = t_env.from_changelog_stream(inserts, Schema.new_builder().build(), ChangelogMode.insert_only())
totals = inserted.group_by(col('name')).select(col('name'), col('score').sum.alias('total'))
upsert_schema = Schema.new_builder().column('name', DataTypes.STRING()).column('total', DataTypes.INT()).build()
t_env.to_changelog_stream(totals, upsert_schema, ChangelogMode.upsert()) \
    .map(lambda row: f"upsert {row.get_row_kind()} {row.name}={row.total}").print()
env.execute('table_changelog_stream')
