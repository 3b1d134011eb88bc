"""GROUP BY over tables with a unique key: an upsert changelog stream's primary key, a ChangelogMode.all()
stream's, an insert-only table's declared one. Grouped by a unique key with
SUM/MIN/MAX only, Flink removes the aggregation (each change stays -U/+U, each group one input row);
COUNT keeps it (-D/+I); SQL reads only the columns it needs, so a change of the others is no change.
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
scores = Types.ROW_NAMED(['name', 'team', 'score'], [Types.STRING(), Types.STRING(), Types.INT()])
upserts = [change(RowKind.INSERT, 'Alice', 'red', 12), change(RowKind.INSERT, 'Bob', 'red', 5),
           change(RowKind.UPDATE_AFTER, 'Alice', 'red', 100), change(RowKind.UPDATE_AFTER, 'Bob', 'blue', 7),
           change(RowKind.INSERT, 'Carl', 'blue', 1), change(RowKind.DELETE, 'Carl', None, None)]
upserted = t_env.from_changelog_stream(env.from_collection(upserts, type_info=scores),
                                       Schema.new_builder().primary_key('name').build(), ChangelogMode.upsert())
t_env.create_temporary_view('Upserted', upserted)
t_env.execute_sql('SELECT name, SUM(score) AS total FROM Upserted GROUP BY name').print()
t_env.execute_sql('SELECT name, team, SUM(score) * 2 AS twice, MAX(score) AS best FROM Upserted '
                  'GROUP BY name, team').print()
t_env.execute_sql('SELECT who, MIN(s) AS least FROM (SELECT name AS who, score + 1 AS s FROM Upserted) '
                  'GROUP BY who').print()
t_env.execute_sql('SELECT name, COUNT(*) AS n FROM Upserted GROUP BY name').print()
t_env.execute_sql('SELECT name, SUM(score) FILTER (WHERE score > 6) AS big FROM Upserted GROUP BY name').print()
t_env.execute_sql('SELECT name, team FROM Upserted').print()
upserted.group_by(col('name')).select(col('name'), col('team').count.alias('n')).execute().print()
totals = upserted.group_by(col('name')).select(col('name'), col('score').max.alias('best'))
t_env.to_changelog_stream(totals).map(lambda row: f"changelog {row.get_row_kind()} {row.name}={row.best}").print()
env.execute('table_upsert_group_by')

changes = [change(RowKind.INSERT, 'Alice', 'red', 12), change(RowKind.INSERT, 'Bob', 'red', 5),
           change(RowKind.UPDATE_BEFORE, 'Alice', 'red', 12), change(RowKind.UPDATE_AFTER, 'Alice', 'red', 100),
           change(RowKind.DELETE, 'Bob', 'red', 5)]
keyed = t_env.from_changelog_stream(env.from_collection(changes, type_info=scores),
                                    Schema.new_builder().primary_key('name').build(), ChangelogMode.all())
keyed.group_by(col('name')).select(col('name'), col('score').sum.alias('total')).execute().print()
unkeyed = t_env.from_changelog_stream(env.from_collection(changes, type_info=scores))
unkeyed.group_by(col('name')).select(col('name'), col('score').sum.alias('total')).execute().print()

inserts = env.from_collection([Row('a', 1), Row('b', 2), Row('a', 3)],
                              type_info=Types.ROW_NAMED(['name', 'score'], [Types.STRING(), Types.INT()]))
declared = t_env.from_data_stream(inserts, Schema.new_builder().column('name', DataTypes.STRING().not_null())
                                  .column('score', DataTypes.INT()).primary_key('name').build())
declared.group_by(col('name')).select(col('name'), col('score').sum.alias('total')).execute().print()
