"""GROUP BY of expressions over an upsert changelog stream: as Flink's SQL reads only the columns the
query needs, a change of another column (Alice's team) is no change of the groups.
"""
from pyflink.common import Row, RowKind, Types
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import Schema, StreamTableEnvironment
from pyflink.table.changelog_mode import ChangelogMode


def change(kind, *values):
    row = Row(*values)
    row.set_row_kind(kind)
    return row


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)
scores = Types.ROW_NAMED(['name', 'team', 'score'], [Types.STRING(), Types.STRING(), Types.INT()])
upserts = [change(RowKind.INSERT, 'Alice', 'red', 12), change(RowKind.INSERT, 'Bob', 'red', 5),
           change(RowKind.UPDATE_AFTER, 'Alice', 'green', 12), change(RowKind.UPDATE_AFTER, 'Bob', 'blue', 7),
           change(RowKind.INSERT, 'Carl', 'blue', 1), change(RowKind.DELETE, 'Carl', None, None)]
t_env.create_temporary_view('Upserted', t_env.from_changelog_stream(
    env.from_collection(upserts, type_info=scores), Schema.new_builder().primary_key('name').build(),
    ChangelogMode.upsert()))
t_env.execute_sql('SELECT score % 2 AS odd, COUNT(*) AS n FROM Upserted GROUP BY score % 2').print()
t_env.execute_sql('SELECT UPPER(team) AS t, SUM(score) AS total FROM Upserted GROUP BY UPPER(team)').print()
