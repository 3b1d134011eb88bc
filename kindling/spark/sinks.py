"""Sink writers, called by the runner for every micro-batch (or once in BATCH mode).

Each is exactly-once where the target allows: output is keyed by the batch id, so a
batch that Spark replays after a failure rewrites the same output.
"""
from __future__ import annotations

import glob
import os
import pickle
import sys
import time

import pyarrow as pa
from pyspark.sql import DataFrame

from kindling.graph.specs import CollectSinkSpec, DiscardSinkSpec, PrintSinkSpec, RowFileSinkSpec


class SinkWriter:
    """Writes one sink's part of a micro-batch; returns how many elements it wrote."""

    def write(self, df: DataFrame, batch_id: int) -> int:
        raise NotImplementedError

    def finish(self) -> None:
        """The job ended (finished, failed or was cancelled)."""


class PrintWriter(SinkWriter):
    """Writes the lines a stage formatted (with Flink's ``id:n> `` prefixes, see
    ``ExitPlan.line_prefix``) in the order of the DataFrame's partitions."""

    def __init__(self, spec: PrintSinkSpec):
        self.stream = sys.stderr if spec.to_stderr else sys.stdout

    def write(self, df: DataFrame, batch_id: int) -> int:
        n = 0
        lines = []
        for row in df.toLocalIterator():
            lines.append(row[0])
            n += 1
            if len(lines) >= 1000:
                print("\n".join(lines), file=self.stream, flush=True)
                lines.clear()
        if lines:
            print("\n".join(lines), file=self.stream, flush=True)
        return n


class CollectWriter(SinkWriter):
    """Hands elements to ``execute_and_collect``'s buffer on the driver, one partition at a time
    (``toLocalIterator``), so a large micro-batch is never held whole on the driver; the buffer
    makes this wait while it is full."""

    def __init__(self, spec: CollectSinkSpec):
        self.collector = spec.collector

    def write(self, df: DataFrame, batch_id: int) -> int:
        return self.collector.put_batch(batch_id, (pickle.loads(row[0]) for row in df.toLocalIterator()))

    def finish(self) -> None:
        self.collector.end()


class DiscardWriter(SinkWriter):
    def write(self, df: DataFrame, batch_id: int) -> int:
        return df.count()


class RowFileWriter(SinkWriter):
    """Part files named ``<prefix>-<batch>-<partition><suffix>`` in buckets under the base path.

    Tasks write hidden in-progress files; the driver renames them once the whole batch is
    written, so readers never see partial files and a replayed batch overwrites its own.
    """

    def __init__(self, spec: RowFileSinkSpec):
        self.spec = spec

    def write(self, df: DataFrame, batch_id: int) -> int:
        spec = self.spec
        bucket = time.strftime(spec.bucket_format) if spec.bucket_format else ""
        directory = os.path.join(spec.base_path, bucket)
        os.makedirs(directory, exist_ok=True)
        name = f"{spec.part_prefix}-{batch_id}"
        suffix = spec.part_suffix

        def write_partition(batches):
            from pyspark import TaskContext

            partition = TaskContext.get().partitionId()
            target = os.path.join(directory, f".{name}-{partition}{suffix}.inprogress")
            count = 0
            with open(target, "wb") as f:
                for batch in batches:
                    for value in batch.column(0).to_pylist():
                        f.write(value)
                        f.write(b"\n")
                        count += 1
            if count == 0:
                os.remove(target)
            yield pa.RecordBatch.from_arrays([pa.array([count], pa.int64())], names=["n"])

        counts = df.mapInArrow(write_partition, "n long").collect()
        for pending in glob.glob(os.path.join(glob.escape(directory), f".{glob.escape(name)}-*{glob.escape(suffix)}.inprogress")):
            final = os.path.join(directory, os.path.basename(pending)[1:-len(".inprogress")])
            os.replace(pending, final)
        return sum(r[0] for r in counts)


def writer_for(spec) -> SinkWriter:
    from kindling.graph.specs import KafkaSinkSpec  # Kafka: kindling/spark/kafka.py
    if isinstance(spec, KafkaSinkSpec):
        from kindling.spark.kafka import KafkaWriter

        return KafkaWriter(spec)
    if isinstance(spec, PrintSinkSpec):
        return PrintWriter(spec)
    if isinstance(spec, CollectSinkSpec):
        return CollectWriter(spec)
    if isinstance(spec, DiscardSinkSpec):
        return DiscardWriter()
    if isinstance(spec, RowFileSinkSpec):
        return RowFileWriter(spec)
    raise TypeError(f"no Spark writer for sink {spec!r}")
