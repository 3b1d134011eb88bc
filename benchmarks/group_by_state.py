"""What a micro-batch of Spark's streaming GROUP BY costs as the groups it has seen grow.

The aggregation (kindling/spark/table/aggregation.py, ``GROUP BY k`` count/sum with Flink's
changelog per row) is fed directly: micro-batches load new groups until 10k, 100k and 1M groups
are held, and at each size a few micro-batches of 10k rows (keys drawn from the groups held, half
of them new) are timed. The changes are counted, not written (a blackhole sink), so the figure is
the aggregation and its state. Per-batch time should not grow with the groups held.

    .venv/bin/python benchmarks/group_by_state.py [--sizes 10000,100000,1000000] [--rounds 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.harness import spark_session  # noqa: E402

BATCH_ROWS = 10_000
LOAD_ROWS = 250_000  # rows of one loading micro-batch (each a new group)


def aggregation_writer(checkpoint_dir: str):
    """The writer of a streaming ``SELECT k, COUNT(*), SUM(v) ... GROUP BY k`` into a blackhole table,
    which counts its changes."""
    from kindling.common import Types
    from kindling.common.typeinfo import RowTypeInfo
    from kindling.graph.specs import ChangesSourceSpec, DiscardSinkSpec, GroupAggregateSpec
    from kindling.graph.transformation import SinkTransformation, SourceTransformation
    from kindling.spark.compiler import Compiler
    from kindling.spark.connectors import writer_for
    from kindling.spark.run_mode import RunMode
    from kindling.spark.table.aggregation import AggregationSinkSpec
    from kindling.table.table import changelog_type

    output_type = changelog_type(RowTypeInfo([Types.LONG(), Types.LONG(), Types.LONG()], ["k", "n", "total"]))
    aggregate = GroupAggregateSpec(keys=["k"], calls=[("count", None, False), ("sum", "v", True)],
                                   fields=[("key", 0), ("call", 0), ("call", 1)])
    source = ChangesSourceSpec(view="kindling_changes_bench")
    changes = SourceTransformation(name="aggregate", type_info=output_type, source=source)
    blackhole = SinkTransformation(name="blackhole", inputs=[changes], sink=DiscardSinkSpec())
    writer = writer_for(AggregationSinkSpec(aggregate=aggregate, output_type=output_type, mode=RunMode.MICRO_BATCH,
                                            state_key="bench", parallelism=2, downstream=[blackhole], source=source),
                        Compiler)
    writer.bind(checkpoint_dir)
    return writer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from pyspark.sql import functions as F

    spark = spark_session()
    writer = aggregation_writer(tempfile.mkdtemp(prefix="group-by-state-"))
    held, batch_id = 0, 0
    print(f"{'groups held':>12} | {'ms per 10k-row batch (median)':>30} | runs")
    for size in (int(s) for s in args.sizes.split(",")):
        while held < size:  # new groups held..held+n
            n = min(LOAD_ROWS, size - held)
            writer.write(spark.range(held, held + n, numPartitions=2).select(
                F.col("id").alias("k"), F.lit(1).cast("long").alias("v")), batch_id)
            held, batch_id = held + n, batch_id + 1
        times = []
        for _ in range(args.rounds):
            # half the rows update held groups spread over all of them, half make new groups
            rows = spark.range(0, BATCH_ROWS, numPartitions=2).select(
                F.when(F.col("id") % 2 == 0, (F.col("id") * 7919) % held).otherwise(
                    held + F.floor(F.col("id") / 2)).alias("k"), F.lit(1).cast("long").alias("v"))
            started = time.perf_counter()
            writer.write(rows, batch_id)
            times.append((time.perf_counter() - started) * 1000)
            batch_id += 1
            held += BATCH_ROWS // 2
        print(f"{size:>12,} | {statistics.median(times):>30,.0f} | {', '.join(f'{t:,.0f}' for t in times)}",
              flush=True)


if __name__ == "__main__":
    main()
