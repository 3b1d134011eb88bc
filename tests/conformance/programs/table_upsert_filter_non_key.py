"""A filter on columns outside the primary key of an upsert table: Flink pushes it into its
ChangelogNormalize, which keeps per key the last row that passes. A row that starts to pass inserts
the key (+I), one that stops passing deletes it (-D); conditions on the key alone filter the records
before; a condition calling a Python function stays above the normalization and filters each change
(+U and -U alone).
"""
from pyflink.common import Row, RowKind, Types
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, Schema, StreamTableEnvironment
from pyflink.table.changelog_mode import ChangelogMode
from pyflink.table.expressions import col
from pyflink.table.udf import udf


def change(kind, *values):
    row = Row(*values)
    row.set_row_kind(kind)
    return row


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)
scores = Types.ROW_NAMED(['name', 'team', 'score'], [Types.STRING(), Types.STRING(), Types.INT()])
I, U, D = RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE
upserts = [change(I, 'Alice', 'red', 12), change(I, 'Bob', 'red', 5), change(U, 'Alice', 'red', 100),
           change(U, 'Bob', 'blue', 7), change(U, 'Alice', 'red', 100), change(U, 'Alice', 'green', 3),
           change(U, 'Alice', 'green', 2), change(D, 'Alice', None, None), change(I, 'Carl', 'blue', 1),
           change(D, 'Carl', None, None), change(U, 'Dan', 'red', 9), change(U, 'Dan', 'blue', 9),
           change(D, 'Dan', None, None), change(U, 'Eve', 'red', 9), change(U, 'Eve', 'red', 10),
           change(U, 'Eve', 'red', 1), change(U, 'Eve', 'red', 11)]
upserted = t_env.from_changelog_stream(env.from_collection(upserts, type_info=scores),
                                       Schema.new_builder().primary_key('name').build(), ChangelogMode.upsert())
t_env.create_temporary_view('u', upserted)
t_env.execute_sql('SELECT team FROM u WHERE score > 6').print()
t_env.execute_sql('SELECT * FROM u WHERE score > 6').print()
t_env.execute_sql("SELECT name, score + 1 AS s FROM u WHERE score > 6 AND name <> 'Bob'").print()
t_env.execute_sql("SELECT name, team FROM u WHERE score > 10 OR name = 'Dan'").print()
t_env.execute_sql("SELECT team, COUNT(*) AS n FROM u WHERE score > 6 GROUP BY team").print()
upserted.where(col('score') > 6).select(col('name'), col('team')).execute().print()


@udf(result_type=DataTypes.BOOLEAN())
def big(score):
    return score is not None and score > 6


t_env.create_temporary_function('big', big)
t_env.execute_sql('SELECT team FROM u WHERE big(score)').print()
t_env.execute_sql('SELECT team FROM u WHERE score > 6 AND big(score)').print()
