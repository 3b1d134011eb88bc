"""Table functions in a streaming job with checkpointing on over a csv table declaring a WATERMARK,
parallelism 2 (Kindling runs it on micro-batches): a window aggregation after ``join_lateral`` (a row
the function makes no row for is dropped; the rows keep their event time), after
``left_outer_join_lateral`` (that row once, the function's columns null) and after SQL ``LATERAL
TABLE`` (a TUMBLE window TVF), where the watermark is read (Kindling: the Python operators); and
``flat_map`` and a SQL ``LEFT JOIN LATERAL`` that nothing reads the time of (Kindling: on Arrow batches
of the scan's rows, its control rows passing through: docs/table.md). The rows come out of order by
less than the watermark's delay: no row is late whatever the timing.
# conformance: sorted
"""
import os
import tempfile

from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, StreamTableEnvironment
from pyflink.table.expressions import col, lit
from pyflink.table.udf import udtf
from pyflink.table.window import Tumble

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
env.enable_checkpointing(1000)
t_env = StreamTableEnvironment.create(env)
t_env.get_config().set("kindling.source.max-records-per-batch", "8")  # two micro-batches (Flink ignores it)
ROWS = [(0, 1, "a bb"), (300, 2, "ccc"), (900, 1, ""), (700, 2, "a a a"), (1400, 1, "bb"), (1200, 2, None),
        (2100, 1, "dd e"), (1900, 2, "e"), (2600, 1, ""), (3000, 2, "ffff g"), (3900, 1, "a"), (3600, 2, "bb bb"),
        (4500, 1, "h"), (4300, 2, "")]
path = tempfile.mkdtemp()
with open(os.path.join(path, "events.csv"), "w") as f:
    f.writelines(f"2024-01-01 00:00:{ms // 1000:02}.{ms % 1000:03},{k},{'' if s is None else s}\n" for ms, k, s in ROWS)
t_env.execute_sql(f"CREATE TABLE ev (ts TIMESTAMP(3), k INT, s STRING, WATERMARK FOR ts AS ts - INTERVAL '0.5' SECOND) "
                  f"WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')")


@udtf(result_types=[DataTypes.STRING(), DataTypes.INT()])
def words(s):
    for word in (s or "").split():
        yield word, len(word)


@udtf(result_types=[DataTypes.INT(), DataTypes.STRING()])
def tagged(k, s, ts):
    if s:
        yield k * 10, f"{s}@{ts.second}"


t_env.create_temporary_function("words", words)
ev = t_env.from_path("ev")
two_seconds = Tumble.over(lit(2).seconds).on(col('ts')).alias('w')

print("join_lateral, 2 s windows per word")
ev.join_lateral(words(col('s')).alias('word', 'n')) \
    .window(two_seconds).group_by(col('w'), col('word')) \
    .select(col('word'), col('w').start, col('w').end, col('n').sum.alias('letters'), lit(1).count.alias('c')) \
    .execute().print()

print("left_outer_join_lateral, 2 s windows per key")
ev.left_outer_join_lateral(words(col('s')).alias('word', 'n')) \
    .window(two_seconds).group_by(col('w'), col('k')) \
    .select(col('k'), col('w').start, col('w').end, lit(1).count.alias('rows'), col('word').count.alias('words'),
            col('n').sum.alias('letters')) \
    .execute().print()

print("LATERAL TABLE under TUMBLE")
t_env.create_temporary_view("ev_words", t_env.sql_query(
    "SELECT ts, k, word, n FROM ev, LATERAL TABLE(words(s)) AS T(word, n) WHERE n > 1"))
t_env.execute_sql("SELECT k, window_start, window_end, COUNT(*) AS c, MAX(word) AS longest, SUM(n) AS letters "
                  "FROM TABLE(TUMBLE(TABLE ev_words, DESCRIPTOR(ts), INTERVAL '1' SECOND)) "
                  "GROUP BY k, window_start, window_end").print()

print("flat_map")
ev.flat_map(tagged(col('k'), col('s'), col('ts'))).execute().print()

print("LEFT JOIN LATERAL")
t_env.execute_sql("SELECT k, s, word, n FROM ev LEFT JOIN LATERAL TABLE(words(s)) AS T(word, n) ON TRUE").print()
