"""ORDER BY of expressions: in BATCH mode of the table's columns (selected or not, under an alias, by
ordinal), of aggregates and group keys, with DISTINCT and LIMIT; the Table API's order_by of
expressions; in STREAMING mode after the event time (SQL and the Table API), and Flink's errors for an
order Flink refuses.
"""
from pyflink.common import Types
from pyflink.common.time import Instant
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, EnvironmentSettings, Schema, StreamTableEnvironment, TableEnvironment
from pyflink.table.expressions import col
from pyflink.table.udf import udf

batch = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
batch.get_config().set("parallelism.default", "1")
batch.execute_sql("CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES (1, 'a', 10), (2, 'b', 20), (3, 'a', 30), "
                  "(4, 'C', 15), (5, 'b', 12)) AS x(id, k, v)")
batch.create_temporary_function('plus_one', udf(lambda x: x + 1, result_type=DataTypes.INT()))
for query in [
    "SELECT k, v FROM v ORDER BY v % 7",
    "SELECT k, v FROM v ORDER BY v % 7 DESC LIMIT 3",
    "SELECT k, v AS w FROM v ORDER BY w % 4, id",
    "SELECT k FROM v ORDER BY id % 3, id DESC",
    "SELECT k, v FROM v ORDER BY 2 DESC",
    "SELECT v % 7 AS v, k FROM v ORDER BY v",
    "SELECT k, SUM(v) AS s FROM v GROUP BY k ORDER BY SUM(v) % 7",
    "SELECT UPPER(k), SUM(v) AS s FROM v GROUP BY UPPER(k) ORDER BY UPPER(k) DESC",
    "SELECT k, COUNT(*) AS n FROM v GROUP BY k ORDER BY n * -1, UPPER(k)",
    "SELECT DISTINCT k FROM v ORDER BY UPPER(k) DESC",
    "SELECT k, v FROM v ORDER BY plus_one(v) DESC",
    "SELECT k, v FROM v ORDER BY 3",
    "SELECT DISTINCT k FROM v ORDER BY id",
    "SELECT k, COUNT(*) FROM v GROUP BY k ORDER BY id",
]:
    try:
        batch.execute_sql(query).print()
    except Exception as e:
        print([m for m in ("Ordinal out of range", "is not in the select clause", "is not being grouped")
               if m in str(e)])
table = batch.from_path('v')
table.order_by(col('v') % 7).execute().print()
table.order_by((col('v') % 7).desc).fetch(2).execute().print()

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)
stream = env.from_collection(
    [(Instant.of_epoch_milli(t), i, k) for t, i, k in
     [(1000, 1, 'a'), (2000, 2, 'B'), (1500, 3, 'b'), (2000, 4, 'A'), (8000, 5, 'a'), (8000, 6, 'c')]],
    type_info=Types.ROW([Types.INSTANT(), Types.INT(), Types.STRING()]))
events = t_env.from_data_stream(
    stream, Schema.new_builder().column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
    .column("f1", DataTypes.INT()).column("f2", DataTypes.STRING())
    .watermark("ts", "ts - INTERVAL '1' SECOND").build()).alias("ts", "id", "k")
t_env.create_temporary_view('events', events)
t_env.sql_query("SELECT id, k FROM events ORDER BY ts, UPPER(k) DESC").execute().print()
events.order_by(col('ts'), (col('id') % 2).desc, col('id')).execute().print()
for failing in [lambda: t_env.sql_query("SELECT id, k FROM events ORDER BY id % 2").execute(),
                lambda: events.order_by(col('id') % 2).execute()]:
    try:
        failing()
    except Exception as e:
        print("Sort on a non-time-attribute field is not supported." in str(e))
