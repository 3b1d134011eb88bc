#!/usr/bin/env python
"""What a user's stateless job pays, source to sink: each shape as a user writes it with Kindling
against the same work written by hand in PySpark, alternating in one process (one SparkSession,
``local[2]``), so that both sides see the same machine. Each side's time covers building the job,
running it and handing its result to the caller (a list of Python values, or files written).

Shapes (``--only NAME``):

* ``sequence-batch``: BATCH, ``from_source(NumberSequenceSource(0, n - 1))`` -> ``map(x + 1)`` ->
  ``filter(even)`` -> ``execute_and_collect()``; by hand ``spark.range(n).mapInArrow(...).collect()``.
* ``sequence-streaming``: the same job in STREAMING mode (bounded, so Kindling runs it in one Spark step).
* ``collection-batch`` / ``collection-streaming``: ``from_collection(list)`` -> ``map(x + 1)`` ->
  ``execute_and_collect()``; by hand ``spark.createDataFrame(rows).mapInArrow(...).collect()``.
* ``file-batch``: a text ``FileSource`` -> ``map(upper)`` -> a row-format ``FileSink``; by hand
  ``spark.read.text(...).mapInArrow(...).write.text(...)``.

    .venv/bin/python benchmarks/stateless_shapes.py [--records 1000000] [--rounds 3] [--only NAME]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from typing import Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("KINDLING_SPARK_MASTER", "local[2]")

import pyarrow as pa  # noqa: E402

from benchmarks.workloads.stateless import is_even, plus_one, plus_one_keep_even  # noqa: E402

PARALLELISM = 2


def upper(line: str) -> str:
    return line.upper()


def _environment(mode: str):
    from kindling.common import Configuration
    from kindling.datastream import RuntimeExecutionMode, StreamExecutionEnvironment

    conf = Configuration()
    conf.set_boolean("kindling.progress", False)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_runtime_mode(getattr(RuntimeExecutionMode, mode))
    env.set_parallelism(PARALLELISM)
    return env


# -- Kindling ---------------------------------------------------------------------------

def kindling_sequence(mode: str) -> Callable[[int, dict], list]:
    def run(n: int, data: dict) -> list:
        from kindling.common import Types, WatermarkStrategy
        from kindling.datastream.connectors import NumberSequenceSource

        env = _environment(mode)
        return list(env.from_source(NumberSequenceSource(0, n - 1), WatermarkStrategy.no_watermarks(), "numbers")
                    .map(plus_one, output_type=Types.LONG()).filter(is_even).execute_and_collect())

    return run


def kindling_collection(mode: str) -> Callable[[int, dict], list]:
    def run(n: int, data: dict) -> list:
        from kindling.common import Types

        env = _environment(mode)
        return list(env.from_collection(data["values"], type_info=Types.LONG())
                    .map(plus_one, output_type=Types.LONG()).execute_and_collect())

    return run


def kindling_file(n: int, data: dict) -> list:
    from kindling.common import WatermarkStrategy, Types
    from kindling.common.serialization import Encoder
    from kindling.datastream.connectors.file_system import FileSink, FileSource, StreamFormat

    env = _environment("BATCH")
    out = _fresh(data["out"])
    (env.from_source(FileSource.for_record_stream_format(StreamFormat.text_line_format(), data["input"]).build(),
                     WatermarkStrategy.no_watermarks(), "lines")
        .map(upper, output_type=Types.STRING())
        .sink_to(FileSink.for_row_format(out, Encoder.simple_string_encoder()).build()))
    env.execute("bench-file")
    return _lines_written(out)


# -- by hand ----------------------------------------------------------------------------

def plus_one_all(batches):
    for batch in batches:
        yield pa.RecordBatch.from_arrays([pa.array(list(map(plus_one, batch.column(0).to_pylist())), pa.int64())],
                                         names=["value"])


def upper_all(batches):
    for batch in batches:
        yield pa.RecordBatch.from_arrays([pa.array(list(map(upper, batch.column(0).to_pylist())), pa.string())],
                                         names=["value"])


def handwritten_sequence(n: int, data: dict) -> list:
    rows = data["spark"].range(0, n, numPartitions=PARALLELISM).mapInArrow(plus_one_keep_even, "id long").collect()
    return [row[0] for row in rows]


def handwritten_collection(n: int, data: dict) -> list:
    frame = data["spark"].createDataFrame([(v,) for v in data["values"]], "value long")
    return [row[0] for row in frame.mapInArrow(plus_one_all, "value long").collect()]


def handwritten_file(n: int, data: dict) -> list:
    out = _fresh(data["out"])
    data["spark"].read.text(data["input"]).mapInArrow(upper_all, "value string").write.mode("overwrite").text(out)
    return _lines_written(out)


# -- shapes -----------------------------------------------------------------------------

def _fresh(path: str) -> str:
    shutil.rmtree(path, ignore_errors=True)
    return path


def _lines_written(directory: str) -> list:
    lines = []
    for root, _, names in os.walk(directory):
        for name in names:
            if not name.startswith((".", "_")):
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    lines.extend(f.read().splitlines())
    return lines


def _sorted(values: list) -> list:
    return sorted(values)


SHAPES = {
    "sequence-batch": (kindling_sequence("BATCH"), handwritten_sequence),
    "sequence-streaming": (kindling_sequence("STREAMING"), handwritten_sequence),
    "collection-batch": (kindling_collection("BATCH"), handwritten_collection),
    "collection-streaming": (kindling_collection("STREAMING"), handwritten_collection),
    "file-batch": (kindling_file, handwritten_file),
}


def _prepare(spark, n: int, directory: str) -> dict:
    path = os.path.join(directory, "input.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(f"line {i} of the input\n" for i in range(n))
    return {"spark": spark, "values": list(range(n)), "input": path, "out": os.path.join(directory, "out")}


def measure(name: str, n: int, rounds: int, data: dict) -> tuple[float, float]:
    """Warm-up, then ``rounds`` rounds of both sides, the first side alternating; median seconds."""
    kindling, handwritten = SHAPES[name]
    sides = [("kindling", kindling), ("by hand", handwritten)]
    expected = _sorted(handwritten(n, data))
    if _sorted(kindling(n, data)) != expected:
        raise AssertionError(f"{name}: Kindling's result differs from the hand-written one")
    times: dict[str, list[float]] = {"kindling": [], "by hand": []}
    for r in range(rounds):
        for side, fn in (sides if r % 2 == 0 else sides[::-1]):
            start = time.perf_counter()
            result = fn(n, data)
            times[side].append(time.perf_counter() - start)
            if len(result) != len(expected):
                raise AssertionError(f"{name}: {side} returned {len(result)} values, expected {len(expected)}")
            print(f"  {name} round {r + 1} {side}: {times[side][-1]:.2f} s (load {os.getloadavg()[0]:.1f})",
                  file=sys.stderr, flush=True)
    return statistics.median(times["kindling"]), statistics.median(times["by hand"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", action="append", choices=sorted(SHAPES), help="run only this shape (repeatable)")
    args = parser.parse_args()
    from kindling.spark.session import get_spark

    from kindling.common import Configuration

    spark = get_spark(Configuration(), PARALLELISM)
    directory = tempfile.mkdtemp(prefix="stateless-shapes-")
    try:
        data = _prepare(spark, args.records, directory)
        rows = [(name, *measure(name, args.records, args.rounds, data)) for name in args.only or SHAPES]
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    print(f"\n{args.records:,} records, {args.rounds} rounds, median, local[2], "
          f"load {os.getloadavg()[0]:.1f}, {time.strftime('%Y-%m-%d %H:%M')}")
    print(f"{'shape':22} {'Kindling s':>11} {'by hand s':>10} {'ratio':>7}")
    for name, kindling, handwritten in rows:
        print(f"{name:22} {kindling:11.2f} {handwritten:10.2f} {handwritten / kindling:6.2f}x")


if __name__ == "__main__":
    main()
