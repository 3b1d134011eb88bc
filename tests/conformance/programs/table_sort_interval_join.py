"""A stream sorted on its event time (rows in time order once the watermark passes them, ties by the
next key), LIMIT (the first rows) and ORDER BY time LIMIT (a Top-N), Flink's error for another order,
and interval joins (inner, left, right, full) whose unmatched rows come padded with nulls when the
watermark passes their bound. Rows of different keys come in no defined order.
# conformance: sorted
"""
from pyflink.common import Types
from pyflink.common.time import Instant
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, Schema, StreamTableEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)


def table(name, rows):
    stream = env.from_collection([(Instant.of_epoch_milli(t), k, v) for t, k, v in rows],
                                 type_info=Types.ROW([Types.INSTANT(), Types.INT(), Types.STRING()]))
    t_env.create_temporary_view(name, t_env.from_data_stream(
        stream, Schema.new_builder().column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
        .column("f1", DataTypes.INT()).column("f2", DataTypes.STRING())
        .watermark("ts", "ts - INTERVAL '1' SECOND").build()).alias("ts", "id", "v"))


table("a", [(1000, 1, 'a1'), (2000, 2, 'a2'), (1500, 2, 'a0'), (2000, 1, 'a9'), (8000, 1, 'a3'), (9000, 3, 'a4'),
            (20000, 1, 'a5')])
table("b", [(3000, 1, 'b1'), (4000, 2, 'b2'), (12000, 1, 'b3'), (30000, 4, 'b4')])
for query in [
    "SELECT * FROM a ORDER BY ts",
    "SELECT v, ts FROM a ORDER BY ts, v DESC",
    "SELECT * FROM a LIMIT 3",
    "SELECT * FROM a ORDER BY ts LIMIT 2",
    "SELECT * FROM a ORDER BY v",
    "SELECT a.id, a.v, b.v, a.ts, b.ts FROM a JOIN b ON a.id = b.id AND a.ts BETWEEN b.ts - INTERVAL '5' SECOND "
    "AND b.ts",
    "SELECT a.id, a.v, b.v FROM a LEFT JOIN b ON a.id = b.id AND a.ts BETWEEN b.ts - INTERVAL '5' SECOND AND b.ts",
    "SELECT a.id, a.v, b.v FROM a FULL OUTER JOIN b ON a.id = b.id AND a.ts >= b.ts - INTERVAL '5' SECOND "
    "AND a.ts < b.ts AND a.v <> 'a2'",
    "SELECT b.v, a.v FROM a RIGHT JOIN b ON a.id = b.id AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '5' SECOND",
]:
    print(query)
    try:
        result = t_env.sql_query(query)
        result.print_schema()
        result.execute().print()
    except Exception as error:  # Flink's planner errors: the first line of the message
        print("error:", str(error).split("\n")[0].split("TableException: ")[-1])
