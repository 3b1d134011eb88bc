"""What the Kafka benchmarks share: a Tansu broker and the SparkSession for a run, topics, counting
a topic back, and the hand-written PySpark side's pieces: a Kafka data source (bounded offset
ranges, or a stream of them) read with a confluent-kafka Consumer, and a ``mapInArrow`` function
producing with a confluent-kafka Producer."""
from __future__ import annotations

import contextlib
import os
import sys
import time
import uuid
from typing import Callable, Iterator

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [p for p in (ROOT, os.path.join(ROOT, "tests", "connectors")) if p not in sys.path]

from kafka_support import create_topic, packaged_broker  # noqa: E402

PARTITIONS = 2


def produce_waiting(producer, topic: str, value: bytes, wait_s: float, **options) -> None:
    """Produces one record from the driver, letting deliveries drain a full local queue first."""
    while True:
        try:
            producer.produce(topic, value=value, **options)
            return
        except BufferError:
            producer.poll(wait_s)


@contextlib.contextmanager
def spark_and_broker() -> Iterator[tuple]:
    """``(spark, servers)``: the benchmarks' SparkSession (started first, untimed) and a fresh broker."""
    from benchmarks.harness import spark_session

    spark = spark_session()
    with packaged_broker() as servers:
        yield spark, servers


def new_topic(servers: str) -> str:
    return create_topic(servers, PARTITIONS)


def count_records(servers: str, topic: str, expected: int, timeout_s: float = 120) -> int:
    """How many records ``topic`` holds (read until ``expected`` came or 3 s pass with nothing new)."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": servers, "group.id": f"count-{uuid.uuid4().hex[:8]}",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    n = 0
    deadline = time.monotonic() + timeout_s
    quiet = time.monotonic() + 3
    try:
        while n < expected and time.monotonic() < min(deadline, quiet):
            got = consumer.consume(10_000, timeout=0.5)
            if got:
                n += sum(1 for m in got if not m.error())
                quiet = time.monotonic() + 3
    finally:
        consumer.close()
    return n


def cpu_seconds(exclude: str = "tansu") -> float:
    """CPU seconds used so far by this process and its descendants (the JVM, Spark's Python
    workers) but those whose command line names ``exclude`` (the broker): less moved by the
    machine's load than wall time."""
    from benchmarks.process_cpu import tick_seconds, tree_ticks

    return tick_seconds(sum(tree_ticks(os.getpid(), exclude).values()))


def handwritten_kafka(spark, servers: str, topic: str, ends: dict[int, int] | None = None):
    """What a PySpark user writes to read Kafka without Kindling: a DataFrame of the ``value`` bytes
    of ``topic``'s records, from offset 0 up to ``ends`` (bounded), or a stream of the records
    arriving (``ends`` None) in micro-batches of the offsets each partition reached."""
    import pyarrow as pa
    from pyspark.sql.datasource import DataSource, DataSourceReader, DataSourceStreamReader, InputPartition

    class Range(InputPartition):
        def __init__(self, partition: int, start: int, end: int):
            self.partition, self.start, self.end = partition, start, end

    def read(options: dict, split: Range):
        from confluent_kafka import Consumer, TopicPartition

        consumer = Consumer({"bootstrap.servers": options["servers"], "group.id": "handwritten",
                             "enable.auto.commit": False})
        consumer.assign([TopicPartition(options["topic"], split.partition, split.start)])
        position = split.start
        try:
            while position < split.end:
                values = []
                for m in consumer.consume(min(10_000, split.end - position), timeout=1.0):
                    if m.error():
                        raise RuntimeError(str(m.error()))
                    values.append(m.value())
                    position = m.offset() + 1
                if values:
                    yield pa.RecordBatch.from_arrays([pa.array(values, pa.binary())], names=["value"])
        finally:
            consumer.close()

    class Reader(DataSourceReader):
        def __init__(self, options):
            self.options = options

        def partitions(self):
            return [Range(p, 0, int(end)) for p, end in enumerate(self.options["ends"].split(","))]

        def read(self, split: Range):
            return read(self.options, split)

    class StreamReader(DataSourceStreamReader):
        def __init__(self, options):
            self.options = options
            self.consumer = None

        def initialOffset(self):
            return {str(p): 0 for p in range(PARTITIONS)}

        def latestOffset(self):
            from confluent_kafka import Consumer, TopicPartition

            if self.consumer is None:
                self.consumer = Consumer({"bootstrap.servers": self.options["servers"], "group.id": "handwritten"})
            return {str(p): self.consumer.get_watermark_offsets(TopicPartition(self.options["topic"], p), 10)[1]
                    for p in range(PARTITIONS)}

        def partitions(self, start, end):
            return [Range(int(p), start[p], end[p]) for p in end if end[p] > start[p]]

        def read(self, split: Range):
            return read(self.options, split)

    class HandwrittenKafka(DataSource):
        @classmethod
        def name(cls):
            return "handwritten_kafka"

        def schema(self):
            return "value binary"

        def reader(self, schema):
            return Reader(self.options)

        def streamReader(self, schema):
            return StreamReader(self.options)

    spark.dataSource.register(HandwrittenKafka)
    reader = spark.read if ends is not None else spark.readStream
    reader = reader.format("handwritten_kafka").option("servers", servers).option("topic", topic)
    if ends is not None:
        reader = reader.option("ends", ",".join(str(ends[p]) for p in range(PARTITIONS)))
    return reader.load()


def producing(servers: str, topic: str, convert: Callable) -> Callable:
    """A ``mapInArrow`` function producing ``convert(value)`` of each value of the first column
    (``acks=all``, flushed at the end of the task); yields how many it produced."""

    def produce(batches):
        import pyarrow as pa
        from confluent_kafka import Producer

        producer = Producer({"bootstrap.servers": servers, "acks": "all", "linger.ms": 5})
        n = 0
        for batch in batches:
            for value in batch.column(0).to_pylist():
                out = convert(value)
                while True:
                    try:
                        producer.produce(topic, value=out)
                        break
                    except BufferError:
                        producer.poll(0.05)
                n += 1
            producer.poll(0)
        if producer.flush(60):
            raise RuntimeError("records not delivered")
        yield pa.RecordBatch.from_arrays([pa.array([n], pa.int64())], names=["n"])

    return produce
