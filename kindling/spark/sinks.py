"""Sink writers, called by the runner for every micro-batch (or once in BATCH mode).

Each is exactly-once where the target allows: output is keyed by the batch id, so a
batch that Spark replays after a failure rewrites the same output.
"""
from __future__ import annotations

import pickle
import sys

from pyspark.sql import DataFrame

from kindling.graph.specs import CollectSinkSpec, DiscardSinkSpec, FileSinkSpec, PrintSinkSpec


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


def writer_for(spec) -> SinkWriter:
    from kindling.graph.specs import KafkaSinkSpec  # Kafka: kindling/spark/kafka.py
    if isinstance(spec, KafkaSinkSpec):
        from kindling.spark.kafka import KafkaWriter

        return KafkaWriter(spec)
    from kindling.graph.specs import JdbcSinkSpec  # JDBC: kindling/spark/jdbc.py
    if isinstance(spec, JdbcSinkSpec):
        from kindling.spark.jdbc import JdbcWriter

        return JdbcWriter(spec)
    from kindling.spark.relational import AggregationSinkSpec, AggregationWriter
    if isinstance(spec, AggregationSinkSpec):
        return AggregationWriter(spec)
    if isinstance(spec, PrintSinkSpec):
        return PrintWriter(spec)
    if isinstance(spec, CollectSinkSpec):
        return CollectWriter(spec)
    if isinstance(spec, DiscardSinkSpec):
        return DiscardWriter()
    if isinstance(spec, FileSinkSpec):  # kindling/spark/files.py
        from kindling.spark.files import FileWriter

        return FileWriter(spec)
    raise TypeError(f"no Spark writer for sink {spec!r}")
