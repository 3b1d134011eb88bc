"""Interval joins written with the Table API (``join`` / ``left_outer_join`` / ``full_outer_join`` whose
predicate bounds one table's event time against the other's, as Flink's planner finds them): time
attributes kept, unmatched rows padded with nulls when the watermark passes their bound.
# conformance: sorted
"""
from pyflink.common import Types
from pyflink.common.time import Instant
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, Schema, StreamTableEnvironment
from pyflink.table.expressions import col, lit

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)


def table(rows, names):
    stream = env.from_collection([(Instant.of_epoch_milli(t), k, v) for t, k, v in rows],
                                 type_info=Types.ROW([Types.INSTANT(), Types.INT(), Types.STRING()]))
    return t_env.from_data_stream(
        stream, Schema.new_builder().column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
        .column("f1", DataTypes.INT()).column("f2", DataTypes.STRING())
        .watermark("ts", "ts - INTERVAL '1' SECOND").build()).select(col("ts"), col("f1"), col("f2")) \
        .alias(*names)


a = table([(1000, 1, 'a1'), (2000, 2, 'a2'), (1500, 2, 'a0'), (2000, 1, 'a9'), (8000, 1, 'a3'), (9000, 3, 'a4'),
           (20000, 1, 'a5')], ["ats", "aid", "av"])
b = table([(3000, 1, 'b1'), (4000, 2, 'b2'), (12000, 1, 'b3'), (30000, 4, 'b4')], ["bts", "bid", "bv"])

inner = a.join(b, (col("aid") == col("bid")) & col("ats").between(col("bts") - lit(5).seconds, col("bts")))
inner.print_schema()
inner.select(col("aid"), col("av"), col("bv"), col("ats"), col("bts")).execute().print()
a.left_outer_join(b, (col("aid") == col("bid")) & (col("ats") >= col("bts") - lit(5).seconds)
                  & (col("ats") < col("bts"))).select(col("aid"), col("av"), col("bv")).execute().print()
a.full_outer_join(b, (col("aid") == col("bid")) & (col("bts") >= col("ats"))
                  & (col("bts") <= col("ats") + lit(3).seconds) & (col("av") != 'a2')) \
    .select(col("av"), col("bv")).execute().print()
