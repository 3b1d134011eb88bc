"""Stateless chain: ``map(x + 1) -> filter(even) -> count`` over 1,000,000 longs.

Measures Kindling's fused stateless stage (one ``mapInArrow`` running the chained Python
functions) against the same work written by hand in one ``mapInArrow``. Both sides call the
same two user functions, so the ratio is Kindling's own overhead. ``stateless-batch-inlined``
shows, for reference, a hand-written pass with the arithmetic inlined (no function calls),
which no framework that runs user functions can match on a workload this trivial.

* ``stateless-batch``: BATCH runtime mode; both sides read ``spark.range(0, n, numPartitions=2)``.
* ``stateless-streaming``: STREAMING runtime mode; both sides read Kindling's Python data
  source (``kindling_source``, a sequence) as a stream with ``trigger(availableNow=True)``
  and count in ``foreachBatch``.
"""
from __future__ import annotations

import pyarrow as pa

from benchmarks.harness import PARALLELISM, Workload, kindling_configuration
from benchmarks.workloads.keyed import run_counting, sequence_source_frame

RECORDS = 1_000_000


def expected_count(n: int) -> int:
    # x + 1 for x in 0..n-1 is 1..n; the even ones: n // 2
    return n // 2


def _check(n: int, count: int) -> None:
    if count != expected_count(n):
        raise AssertionError(f"expected {expected_count(n)} records, got {count}")


def plus_one(x: int) -> int:
    return x + 1


def is_even(x: int) -> bool:
    return x % 2 == 0


# -- Kindling ---------------------------------------------------------------------------

def _kindling(mode_name: str):
    def run(spark, n: int) -> int:
        from kindling.common import Types
        from kindling.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
        from kindling.datastream.connectors import DiscardingSink

        env = StreamExecutionEnvironment.get_execution_environment(kindling_configuration())
        env.set_runtime_mode(getattr(RuntimeExecutionMode, mode_name))
        env.set_parallelism(PARALLELISM)
        (env.generate_sequence(0, n - 1)
            .map(plus_one, output_type=Types.LONG())
            .filter(is_even)
            .sink_to(DiscardingSink()))
        result = env.execute(f"bench-stateless-{mode_name.lower()}")
        return result.get_accumulator_result("records-written:DiscardingSink")

    return run


# -- hand-written PySpark ---------------------------------------------------------------

def plus_one_keep_even(batches):
    """What a PySpark user writes for map(plus_one).filter(is_even) in one mapInArrow."""
    for batch in batches:
        out = [y for y in map(plus_one, batch.column(0).to_pylist()) if is_even(y)]
        yield pa.RecordBatch.from_arrays([pa.array(out, pa.int64())], names=["id"])


def plus_one_keep_even_inlined(batches):
    """The same with the arithmetic inlined: no function call per element."""
    for batch in batches:
        out = [y for y in (x + 1 for x in batch.column(0).to_pylist()) if y % 2 == 0]
        yield pa.RecordBatch.from_arrays([pa.array(out, pa.int64())], names=["id"])


def handwritten_batch(spark, n: int) -> int:
    return spark.range(0, n, numPartitions=PARALLELISM).mapInArrow(plus_one_keep_even, "id long").count()


def handwritten_batch_inlined(spark, n: int) -> int:
    return spark.range(0, n, numPartitions=PARALLELISM).mapInArrow(plus_one_keep_even_inlined, "id long").count()


def handwritten_streaming(spark, n: int) -> int:
    source = sequence_source_frame(spark, n)
    values = source.select("f0").where(source["f0"].isNotNull())  # drop the end-of-input row
    return run_counting(values.mapInArrow(plus_one_keep_even, "id long"))


WORKLOADS = [
    Workload("stateless-batch", RECORDS, _kindling("BATCH"), handwritten_batch, target_ratio=0.9,
             description="map(x+1) -> filter(even) -> count, BATCH mode, spark.range source", check=_check),
    Workload("stateless-batch-inlined", RECORDS, _kindling("BATCH"), handwritten_batch_inlined, target_ratio=None,
             description="as stateless-batch, the hand-written side with inlined arithmetic (reference only)",
             check=_check),
    Workload("stateless-streaming", RECORDS, _kindling("STREAMING"), handwritten_streaming, target_ratio=0.9,
             description="map(x+1) -> filter(even) -> count, STREAMING mode, kindling_source, availableNow",
             check=_check),
]
