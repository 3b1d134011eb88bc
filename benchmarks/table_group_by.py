"""A streaming GROUP BY key count/sum over the same 1,000,000 events, side by side in one run
(``--windows``: 1 s tumbling windows per key instead, Spark SQL's window aggregation against
Kindling's Table API ``window(Tumble...)``):

* Spark SQL by hand: ``groupBy(key).agg(count, sum)``, update output mode, ``availableNow``
  (the JVM's streaming aggregation: one changed row per key per micro-batch, no previous value);
* Kindling's Table API: ``group_by(col('key')).select(key, count, sum)`` with Flink's changelog
  (``+I``, then ``-U``/``+U`` per row), into a discarding sink, computed by Spark's own operators
  (kindling/spark/table/aggregation.py); the same with ``table.exec.mini-batch.enabled`` (a group's changes
  once per micro-batch); and the same on the Python operator (``kindling.table.spark-aggregation``
  false), for reference;
* Kindling's DataStream API: ``key_by(key).reduce(...)`` emitting every rolling (count, sum).

``--dedup``: deduplication per key by processing time instead: Spark's ``dropDuplicates(["key"])``
(streaming, append: each key's first row) against Kindling's ``ROW_NUMBER() OVER (PARTITION BY key
ORDER BY pt [DESC]) = 1`` keep-first and keep-last (Flink's ``+I``, then ``-U``/``+U`` per row), on
Spark's aggregation machinery and on the Python operator (``kindling.table.spark-operators`` false).

Events ``(key, ts, value)`` come from Kindling's sequence source through the same Python function
on every side (benchmarks/workloads/keyed.py), 1,000 keys.

``--join``: a regular inner join on micro-batches instead, two inputs of ``--records`` rows each
(left ``(i, i % 100)``, right ``(i * 7919 % n, i % 100)``: each key once per side, its partners in
other parts of the input) joined on the key with the rest of the condition ``lv <= rv``: Spark
Structured Streaming's stream-stream inner join by hand (``availableNow``), Kindling's Table API
``join`` computed by Spark per micro-batch (kindling/spark/table/join.py) and on the Python operator
(``kindling.table.spark-operators`` false), for reference.

    .venv/bin/python benchmarks/table_group_by.py [--records 1000000] [--rounds 3] [--join]
"""
from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.harness import spark_session  # noqa: E402
from benchmarks.workloads.keyed import (OUT_OF_ORDERNESS_MS, _event_maker, event_schema,  # noqa: E402
                                        event_timestamp, events_mapper, kindling_env, run_kindling,
                                        sequence_source_frame)

KEYS = 1_000
make_event = _event_maker(KEYS)


def spark_sql(spark, n: int) -> int:
    from pyspark.sql import functions as F

    events = sequence_source_frame(spark, n).where("f0 IS NOT NULL").select("f0") \
        .mapInArrow(events_mapper(make_event), event_schema())
    totals = events.groupBy("key").agg(F.count(F.lit(1)).alias("n"), F.sum("value").alias("total"))
    return _run_update(totals)


def spark_sql_tumbling(spark, n: int) -> int:
    """1 s tumbling windows per key in Spark SQL: ``withWatermark`` of 200 ms, append mode."""
    from pyspark.sql import functions as F

    events = sequence_source_frame(spark, n).where("f0 IS NOT NULL").select("f0") \
        .mapInArrow(events_mapper(make_event), event_schema()) \
        .withColumn("et", F.timestamp_millis("ts")).withWatermark("et", f"{OUT_OF_ORDERNESS_MS} milliseconds")
    windows = events.groupBy(F.window("et", "1 second"), "key").agg(F.count(F.lit(1)).alias("n"),
                                                                    F.sum("value").alias("total"))
    return _run_update(windows.select("key", "window.start", "n", "total"), "append")


def spark_sql_dedup(spark, n: int) -> int:
    """Each key's first row in Spark Structured Streaming: ``dropDuplicates``, append mode."""
    events = sequence_source_frame(spark, n).where("f0 IS NOT NULL").select("f0") \
        .mapInArrow(events_mapper(make_event), event_schema())
    return _run_update(events.dropDuplicates(["key"]), "append")


def kindling_dedup(spark, n: int, last: bool = False, **config: str) -> int:
    """Kindling's deduplication by processing time, keep-first (or ``last``), into a discarding sink."""
    from kindling.common import Types
    from kindling.datastream.connectors import DiscardingSink
    from kindling.table import DataTypes, Schema, StreamTableEnvironment

    env = kindling_env()
    t_env = StreamTableEnvironment.create(env)
    for key, value in config.items():
        t_env.get_config().set(key, value)
    events = env.generate_sequence(0, n - 1).map(
        _event_row, output_type=Types.ROW_NAMED(["key", "ts", "value"], [Types.LONG()] * 3))
    schema = Schema.new_builder().column("key", DataTypes.BIGINT()).column("ts", DataTypes.BIGINT()) \
        .column("value", DataTypes.BIGINT()).column_by_expression("pt", "PROCTIME()").build()
    t_env.create_temporary_view("events", t_env.from_data_stream(events, schema))
    kept = t_env.sql_query("SELECT key, ts, value FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY key ORDER BY pt"
                           f"{' DESC' if last else ''}) AS rn FROM events) WHERE rn = 1")
    t_env.to_changelog_stream(kept).sink_to(DiscardingSink())
    return run_kindling(env, "bench-table-dedup")


def spark_sql_batch(spark, n: int) -> int:
    """The same GROUP BY as a Spark SQL batch query (one row per key)."""
    from pyspark.sql import functions as F

    events = spark.range(0, n, numPartitions=2).withColumnRenamed("id", "f0") \
        .mapInArrow(events_mapper(make_event), event_schema())
    return events.groupBy("key").agg(F.count(F.lit(1)).alias("n"), F.sum("value").alias("total")).count()


def _run_update(df, mode: str = "update") -> int:
    """Runs a streaming aggregation with ``availableNow``, counting the rows out."""
    import shutil
    import tempfile

    counts = []
    checkpoint = tempfile.mkdtemp(prefix="bench-ckpt-")
    try:
        query = (df.writeStream.outputMode(mode)
                 .foreachBatch(lambda batch, batch_id: counts.append(batch.count()))
                 .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
        query.awaitTermination()
    finally:
        shutil.rmtree(checkpoint, ignore_errors=True)
    return sum(counts)


def _event_row(i: int):
    return make_event(i)


def kindling_table(spark, n: int, **config: str) -> int:
    from kindling.common import Types
    from kindling.datastream.connectors import DiscardingSink
    from kindling.table import StreamTableEnvironment
    from kindling.table.expressions import col, lit

    env = kindling_env()
    t_env = StreamTableEnvironment.create(env)
    for key, value in config.items():
        t_env.get_config().set(key, value)
    events = env.generate_sequence(0, n - 1).map(
        _event_row, output_type=Types.ROW_NAMED(["key", "ts", "value"], [Types.LONG()] * 3))
    totals = t_env.from_data_stream(events).group_by(col("key")) \
        .select(col("key"), lit(1).count.alias("n"), col("value").sum.alias("total"))
    t_env.to_changelog_stream(totals).sink_to(DiscardingSink())
    return run_kindling(env, "bench-table-group-by")


def spark_sql_tumbling_batch(spark, n: int) -> int:
    """The same windows as a Spark SQL batch query (every window, the bounded input's end included)."""
    from pyspark.sql import functions as F

    events = spark.range(0, n, numPartitions=2).withColumnRenamed("id", "f0") \
        .mapInArrow(events_mapper(make_event), event_schema()).withColumn("et", F.timestamp_millis("ts"))
    windows = events.groupBy(F.window("et", "1 second"), "key").agg(F.count(F.lit(1)).alias("n"),
                                                                    F.sum("value").alias("total"))
    return windows.select("key", "window.start", "n", "total").count()


def kindling_table_tumbling(spark, n: int, **config: str) -> int:
    """The same windows in Kindling's Table API: the events' timestamps and watermarks (200 ms out of
    orderness) as the table's event time, ``window(Tumble...)``, Flink's one +I per key and window."""
    from kindling.common import Duration, Types, WatermarkStrategy
    from kindling.datastream.connectors import DiscardingSink
    from kindling.table import DataTypes, Schema, StreamTableEnvironment
    from kindling.table.expressions import col, lit
    from kindling.table.window import Tumble

    env = kindling_env()
    t_env = StreamTableEnvironment.create(env)
    for key, value in config.items():
        t_env.get_config().set(key, value)
    strategy = (WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(OUT_OF_ORDERNESS_MS))
                .with_timestamp_assigner(event_timestamp))
    events = env.generate_sequence(0, n - 1).map(
        _event_row, output_type=Types.ROW_NAMED(["key", "ts", "value"], [Types.LONG()] * 3)) \
        .assign_timestamps_and_watermarks(strategy)
    schema = Schema.new_builder().column("key", DataTypes.BIGINT()).column("ts", DataTypes.BIGINT()) \
        .column("value", DataTypes.BIGINT()).column_by_metadata("rowtime", DataTypes.TIMESTAMP_LTZ(3)) \
        .watermark("rowtime", "SOURCE_WATERMARK()").build()
    windows = t_env.from_data_stream(events, schema) \
        .window(Tumble.over(lit(1).seconds).on(col("rowtime")).alias("w")).group_by(col("key"), col("w")) \
        .select(col("key"), col("w").start, lit(1).count.alias("n"), col("value").sum.alias("total"))
    t_env.to_changelog_stream(windows).sink_to(DiscardingSink())
    return run_kindling(env, "bench-table-tumbling")


def _left_row(i: int) -> tuple:
    return (i, i % 100)


def _right_row(n: int, i: int) -> tuple:
    return (i * 7919 % n, i % 100)  # 7919 is prime: a permutation of the keys for n it does not divide


def _rows_mapper(maker, names: list):
    import pyarrow as pa

    def to_rows(batches):
        for batch in batches:
            rows = [maker(i) for i in batch.column(0).to_pylist()]
            columns = list(zip(*rows)) if rows else [(), ()]
            yield pa.RecordBatch.from_arrays([pa.array(c, pa.int64()) for c in columns], names=names)

    return to_rows


def spark_sql_join(spark, n: int) -> int:
    """The stream-stream inner join by hand: both sides from Kindling's sequence source through the
    same Python row makers, joined on the key with ``lv <= rv`` (append mode, ``availableNow``)."""
    from pyspark.sql.types import LongType, StructField, StructType

    def side(maker, names):
        schema = StructType([StructField(c, LongType()) for c in names])
        return sequence_source_frame(spark, n).where("f0 IS NOT NULL").select("f0") \
            .mapInArrow(_rows_mapper(maker, names), schema)

    left = side(_left_row, ["lk", "lv"])
    right = side(functools.partial(_right_row, n), ["rk", "rv"])
    return _run_update(left.join(right, (left.lk == right.rk) & (left.lv <= right.rv)), "append")


def kindling_table_join(spark, n: int, **config: str) -> int:
    """The same join in Kindling's Table API on micro-batches, into a discarding sink."""
    from kindling.common import Types
    from kindling.datastream.connectors import DiscardingSink
    from kindling.table import StreamTableEnvironment
    from kindling.table.expressions import col

    env = kindling_env()
    t_env = StreamTableEnvironment.create(env)
    for key, value in {"kindling.bounded.one-step": "false", **config}.items():
        t_env.get_config().set(key, value)
    left = env.generate_sequence(0, n - 1).map(_left_row, output_type=Types.ROW_NAMED(["lk", "lv"], [Types.LONG()] * 2))
    right = env.generate_sequence(0, n - 1).map(functools.partial(_right_row, n),
                                                output_type=Types.ROW_NAMED(["rk", "rv"], [Types.LONG()] * 2))
    joined = t_env.from_data_stream(left).join(t_env.from_data_stream(right),
                                               (col("lk") == col("rk")) & (col("lv") <= col("rv")))
    t_env.to_data_stream(joined).sink_to(DiscardingSink())
    return run_kindling(env, "bench-table-join")


def _count_and_sum(a, b):
    return (a[0], a[1] + b[1], a[2] + b[2])


def _one(event):
    return (event[0], 1, event[2])


def kindling_datastream(spark, n: int) -> int:
    from kindling.common import Types
    from kindling.datastream.connectors import DiscardingSink

    env = kindling_env()
    env.generate_sequence(0, n - 1) \
        .map(lambda i: _one(make_event(i)), output_type=Types.TUPLE([Types.LONG()] * 3)) \
        .key_by(lambda e: e[0]).reduce(_count_and_sum).sink_to(DiscardingSink())
    return run_kindling(env, "bench-datastream-reduce")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--windows", action="store_true", help="1 s tumbling windows instead of GROUP BY")
    parser.add_argument("--dedup", action="store_true", help="deduplication by processing time instead of GROUP BY")
    parser.add_argument("--join", action="store_true", help="a regular join of two inputs of --records rows")
    parser.add_argument("--python-operator", action="store_true", help="with --join: the Python operator too")
    args = parser.parse_args()
    spark = spark_session()
    if args.dedup:
        python = {"kindling.table.spark-operators": "false"}
        _compare(spark, args, "deduplication per key by processing time, micro-batches", [
            ("Spark SQL dropDuplicates (hand-written)", spark_sql_dedup),
            ("Kindling keep-first", kindling_dedup),
            ("Kindling keep-first, Python operator", functools.partial(kindling_dedup, **python)),
            ("Kindling keep-last", functools.partial(kindling_dedup, last=True)),
            ("Kindling keep-last, Python operator", functools.partial(kindling_dedup, last=True, **python))])
        return
    if args.join:
        sides = [("Spark SQL (hand-written)", spark_sql_join),
                 ("Kindling Table join, micro-batches", kindling_table_join)]
        if args.python_operator:
            sides.append(("Kindling Table join, Python operator", functools.partial(
                kindling_table_join, **{"kindling.table.spark-operators": "false"})))
        _compare(spark, args, "streaming inner join on a key, two inputs", sides, "rows each")
        return
    if args.windows:
        _compare(spark, args, "1 s tumbling windows per key, count/sum", [
            ("Spark SQL (hand-written)", spark_sql_tumbling),
            ("Spark SQL batch query", spark_sql_tumbling_batch),
            ("Kindling Table, one step", functools.partial(
                kindling_table_tumbling, **{"kindling.bounded.one-step": "true"})),
            ("Kindling Table, micro-batches", kindling_table_tumbling)])
        return
    _compare(spark, args, "streaming GROUP BY key count/sum", [
             ("Spark SQL (hand-written)", spark_sql),
             ("Spark SQL batch query", spark_sql_batch),
             ("Kindling Table, one step", functools.partial(kindling_table, **{"kindling.bounded.one-step": "true"})),
             ("Kindling Table, one step, mini-batch", functools.partial(
                 kindling_table, **{"kindling.bounded.one-step": "true", "table.exec.mini-batch.enabled": "true"})),
             ("Kindling Table API", kindling_table),
             ("Kindling Table, mini-batch", functools.partial(
                 kindling_table, **{"table.exec.mini-batch.enabled": "true"})),
             ("Kindling Table, Python operator", functools.partial(
                 kindling_table, **{"kindling.table.spark-aggregation": "false"})),
             ("Kindling DataStream reduce", kindling_datastream)])


def _compare(spark, args, title: str, sides: list, what: str = "events") -> None:
    """Runs every side ``args.rounds`` times after a warm-up round, alternating, and prints the medians."""
    times = {name: [] for name, _ in sides}
    outputs = {}
    for round_ in range(args.rounds + 1):  # the first round warms up
        for name, side in sides:
            start = time.perf_counter()
            outputs[name] = side(spark, args.records)
            if round_:
                times[name].append(time.perf_counter() - start)
            print(f"  round {round_} {name}: {time.perf_counter() - start:.1f} s, {outputs[name]:,} rows out, "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)
    load = os.getloadavg()[0]
    keys = f"{args.records:,} keys" if args.join else f"{KEYS:,} keys"
    print(f"{title}, {args.records:,} {what}, {keys}, {args.rounds} rounds (median), load {load:.1f}")
    sql_rate = args.records / statistics.median(times[sides[0][0]])
    for name, _ in sides:
        rate = args.records / statistics.median(times[name])
        print(f"  {name:<36} {rate:>12,.0f} rec/s   {rate / sql_rate:5.2f}x Spark SQL   "
              f"{outputs[name]:>10,} rows out")


if __name__ == "__main__":
    main()
