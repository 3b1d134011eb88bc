#!/usr/bin/env python
"""CSV files -> map -> Parquet files, records/s: Kindling against the same work hand-written in
PySpark, side by side on one SparkSession.

Writes ``--records`` order lines into ``--files`` CSV files, then alternates the sides for
``--rounds`` timed rounds after an untimed warm-up; each round reads every file, applies
:func:`work` to every record (the total price, a new row) and writes Parquet files into a fresh
directory. Wall time is from building the job to its end; the output rows are counted back
(untimed) to check every side wrote every record.

* Kindling: ``FileSource`` (``CsvReaderFormat``) -> ``map(work)`` -> ``FileSink``
  (``ParquetBulkWriters``), BATCH mode.
* PySpark, Python map: ``spark.read.csv`` with a schema -> ``mapInArrow`` applying ``work`` to
  each row -> ``write.parquet`` (the same Python per record).
* PySpark, SQL expressions (for reference: no Python per record at all).

    .venv/bin/python benchmarks/files_parquet.py [--records 500000] [--files 4] [--rounds 3]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

NAMES = ["order_id", "customer", "quantity", "unit_price"]


def work(order_id: int, customer: str, quantity: int, unit_price: float) -> tuple:
    """The map every side applies: upper-case the customer and price the order line."""
    return order_id, customer.upper(), round(quantity * unit_price, 2)


def fill(directory: str, records: int, files: int) -> None:
    per_file = records // files
    for f in range(files):
        with open(os.path.join(directory, f"orders-{f}.csv"), "w") as out:
            start = f * per_file
            out.write("".join(f"{i},customer{i % 977},{i % 9 + 1},{i % 2000 / 100:.2f}\n"
                              for i in range(start, start + per_file)))


def kindling_side(spark, source: str, target: str, parallelism: int) -> None:
    from kindling.common import Configuration, Row, Types, WatermarkStrategy
    from kindling.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
    from kindling.datastream.connectors.file_system import BucketAssigner, FileSink, FileSource
    from kindling.datastream.formats.csv import CsvReaderFormat, CsvSchema
    from kindling.datastream.formats.parquet import ParquetBulkWriters

    conf = Configuration()
    conf.set_boolean("kindling.progress", False)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    env.set_parallelism(parallelism)
    schema = (CsvSchema.builder().add_number_column("order_id").add_string_column("customer")
              .add_number_column("quantity", Types.INT()).add_number_column("unit_price", Types.DOUBLE()).build())
    priced = Types.ROW_NAMED(["order_id", "customer", "total"], [Types.LONG(), Types.STRING(), Types.DOUBLE()])
    env.from_source(FileSource.for_record_stream_format(CsvReaderFormat.for_schema(schema), source).build(),
                    WatermarkStrategy.no_watermarks(), "orders") \
        .map(lambda o: Row(*work(o[0], o[1], o[2], o[3])), output_type=priced) \
        .sink_to(FileSink.for_bulk_format(target, ParquetBulkWriters.for_row_type(priced))
                 .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner()).build())
    env.execute("files -> parquet")


def _input(spark, source: str):
    return spark.read.csv(source, schema="order_id long, customer string, quantity int, unit_price double")


def pyspark_python_side(spark, source: str, target: str, parallelism: int) -> None:
    import pyarrow as pa

    out_schema = pa.schema([("order_id", pa.int64()), ("customer", pa.string()), ("total", pa.float64())])

    def priced(batches):
        for batch in batches:
            rows = [work(*r) for r in zip(*(batch.column(i).to_pylist() for i in range(4)))]
            yield pa.RecordBatch.from_arrays([pa.array(c, t.type) for c, t in zip(zip(*rows), out_schema)]
                                             if rows else [pa.array([], f.type) for f in out_schema], schema=out_schema)

    _input(spark, source).repartition(parallelism).mapInArrow(
        priced, "order_id long, customer string, total double").write.parquet(target)


def pyspark_sql_side(spark, source: str, target: str, parallelism: int) -> None:
    from pyspark.sql import functions as F

    _input(spark, source).select("order_id", F.upper("customer").alias("customer"),
                                 F.round(F.col("quantity") * F.col("unit_price"), 2).alias("total")) \
        .write.parquet(target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=500_000)
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--parallelism", type=int, default=2)
    args = parser.parse_args()

    from kindling.common import Configuration
    from kindling.spark.session import get_spark

    spark = get_spark(Configuration(), args.parallelism)
    work_dir = tempfile.mkdtemp(prefix="files-parquet-")
    source = os.path.join(work_dir, "in")
    os.makedirs(source)
    fill(source, args.records, args.files)
    records = args.records // args.files * args.files
    sides = {"Kindling FileSource -> map -> FileSink(Parquet)": kindling_side,
             "PySpark read.csv -> mapInArrow(Python) -> write.parquet": pyspark_python_side,
             "PySpark read.csv -> SQL expressions -> write.parquet": pyspark_sql_side}
    times: dict[str, list[float]] = {name: [] for name in sides}
    try:
        for round_ in range(args.rounds + 1):
            for name, side in sides.items():
                target = os.path.join(work_dir, f"out-{round_}-{len(times[name])}-{abs(hash(name))}")
                started = time.perf_counter()
                side(spark, source, target, args.parallelism)
                elapsed = time.perf_counter() - started
                written = spark.read.parquet(target).count()
                if written != records:
                    raise SystemExit(f"{name} wrote {written} records, expected {records}")
                if round_ > 0:  # round 0 warms up
                    times[name].append(elapsed)
                shutil.rmtree(target, ignore_errors=True)
        print(f"files -> Parquet, {records} records in {args.files} CSV files, parallelism {args.parallelism}, "
              f"median of {args.rounds} rounds:")
        baseline = records / statistics.median(times["PySpark read.csv -> mapInArrow(Python) -> write.parquet"])
        for name, ts in times.items():
            rate = records / statistics.median(ts)
            print(f"  {name:58} {rate:12,.0f} records/s  ({rate / baseline:.2f}x the Python-map PySpark)")
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
