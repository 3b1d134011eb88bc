#!/usr/bin/env python
"""End-to-end latency of an unbounded keyed job (Kafka in -> keyed process -> Kafka out), Kindling's
and the same work hand-written in PySpark, each on its own topics of one broker, one SparkSession:
from the time a record is produced to the time its result is consumed.

Starts its own Tansu broker (``tests/connectors/kafka_support.py``, as the connector tests do).
Each side's job counts per key in keyed state and writes ``value,count``: Kindling's is
``KafkaSource`` -> ``key_by`` -> a KeyedProcessFunction (ValueState) -> ``KafkaSink``; the
hand-written one is a Kafka data source (``kafka_common.handwritten_kafka``) -> ``groupBy(key)
.transformWithState`` (a ValueState count, no timers) -> ``foreachBatch`` producing with a
confluent-kafka Producer. For each side: start the job, wait until a first record went through,
then produce at a steady ``--rate`` records/s for ``--seconds`` over 1,000 keys, each value
carrying its produce time, while a consumer reads the output. Prints p50/p90/p99/max latency of
the records produced after ``--warmup`` seconds, the produce rate achieved, the machine's load
average, and Spark's micro-batch durations (where the time goes). ``--rounds`` rounds alternate
the sides' order; round 0 (at most 20 s of input) warms the session up (a first job pays for
the Python workers' imports and the JVM's warm-up).

    .venv/bin/python benchmarks/kafka_latency.py [--rate 10000] [--seconds 45] [--warmup 10]
        [--guarantee AT_LEAST_ONCE] [--interval-ms 0] [--sides kindling,handwritten] [--rounds 2]

``--interval-ms`` is the checkpoint interval (``env.enable_checkpointing``), which Kindling
uses as the micro-batch trigger interval (and the hand-written job as its trigger); 0 starts
each micro-batch as soon as the last ended.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid

from kafka_common import PARTITIONS, handwritten_kafka, new_topic, produce_waiting, producing, spark_and_broker

KEYS = 1_000


def start_kindling(spark, servers: str, source_topic: str, sink_topic: str, guarantee: str, interval_ms: int):
    """Starts Kindling's job; returns its streaming query's stop and progress (``(stop, progress)``)."""
    from kindling.common import Configuration, Types, WatermarkStrategy
    from kindling.common.serialization import SimpleStringSchema
    from kindling.datastream import StreamExecutionEnvironment
    from kindling.datastream.connectors import DeliveryGuarantee
    from kindling.datastream.connectors.kafka import (KafkaOffsetsInitializer, KafkaRecordSerializationSchema,
                                                      KafkaSink, KafkaSource)
    from kindling.datastream.functions import KeyedProcessFunction
    from kindling.datastream.state import ValueStateDescriptor

    class Count(KeyedProcessFunction):
        """``key,produced_ns`` -> ``key,produced_ns,count of the key so far``."""

        def open(self, runtime_context):
            self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.LONG()))

        def process_element(self, value, ctx):
            n = (self.count.value() or 0) + 1
            self.count.update(n)
            yield f"{value},{n}"

    conf = Configuration()
    conf.set_boolean("kindling.progress", False)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(PARTITIONS)
    if interval_ms > 0:
        env.enable_checkpointing(interval_ms)
    source = KafkaSource.builder().set_bootstrap_servers(servers).set_topics(source_topic) \
        .set_starting_offsets(KafkaOffsetsInitializer.earliest()) \
        .set_value_only_deserializer(SimpleStringSchema()).build()
    sink = KafkaSink.builder().set_bootstrap_servers(servers).set_record_serializer(
        KafkaRecordSerializationSchema.builder().set_topic(sink_topic)
        .set_value_serialization_schema(SimpleStringSchema()).build()) \
        .set_delivery_guarantee(DeliveryGuarantee[guarantee]) \
        .set_transactional_id_prefix(f"latency-{uuid.uuid4().hex[:6]}").build()
    env.from_source(source, WatermarkStrategy.no_watermarks(), "Kafka") \
        .key_by(lambda v: v.split(",", 1)[0]) \
        .process(Count(), Types.STRING()).sink_to(sink)
    client = env.execute_async("kafka latency")

    def stop():
        client.cancel()
        try:
            client.get_job_execution_result().result(60)
        except Exception:
            pass  # cancelled

    return stop, lambda: list(client._query.recentProgress) if client._query is not None else []


def start_handwritten(spark, servers: str, source_topic: str, sink_topic: str, guarantee: str, interval_ms: int):
    """Starts the hand-written PySpark job (at least once, whatever ``guarantee``); ``(stop, progress)``."""
    from pyspark.sql import Row
    from pyspark.sql import functions as F
    from pyspark.sql.streaming.stateful_processor import StatefulProcessor

    class Count(StatefulProcessor):
        def init(self, handle):
            self.count = handle.getValueState("count", "n long")

        def handleInputRows(self, key, rows, timerValues):
            n = self.count.get()
            n = n[0] if n else 0
            for row in rows:
                n += 1
                yield Row(value=f"{row.value},{n}")
            self.count.update((n,))

        def close(self):
            pass

    records = handwritten_kafka(spark, servers, source_topic) \
        .select(F.col("value").cast("string").alias("value"))
    counted = records.withColumn("key", F.substring_index("value", ",", 1)).groupBy("key") \
        .transformWithState(Count(), "value string", "Append", "None")
    produce = producing(servers, sink_topic, str.encode)
    query = counted.writeStream.foreachBatch(lambda df, _: df.mapInArrow(produce, "n long").collect()) \
        .option("checkpointLocation", tempfile.mkdtemp(prefix="latency-checkpoint-")) \
        .trigger(processingTime=f"{interval_ms} milliseconds").start()

    def stop():
        query.stop()

    return stop, lambda: list(query.recentProgress)


def produce_steadily(servers: str, topic: str, rate: int, seconds: float, sent: list) -> None:
    """Produces ``rate`` records/s in 10 ms ticks; appends the count and the achieved seconds to ``sent``."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": servers, "linger.ms": 2})
    tick = 0.01
    per_tick = max(1, round(rate * tick))
    n = 0
    started = time.monotonic()
    next_tick = started
    while time.monotonic() - started < seconds:
        for _ in range(per_tick):
            produce_waiting(producer, topic, f"k{n % KEYS},{time.time_ns()}".encode(), 0.001)
            n += 1
        producer.poll(0)
        next_tick += tick
        pause = next_tick - time.monotonic()
        if pause > 0:
            time.sleep(pause)
    producer.flush(30)
    sent.extend([n, time.monotonic() - started])


def measure(spark, servers: str, start, args) -> dict:
    """Runs one side's job on fresh topics at a steady rate; its latencies and micro-batches."""
    from confluent_kafka import Consumer, Producer, TopicPartition

    source_topic, sink_topic = new_topic(servers), new_topic(servers)
    consumer = Consumer({"bootstrap.servers": servers, "group.id": f"latency-{uuid.uuid4().hex[:6]}",
                         "enable.auto.commit": False, "fetch.wait.max.ms": 10})
    consumer.assign([TopicPartition(sink_topic, p, 0) for p in range(PARTITIONS)])
    stop, progress = start(spark, servers, source_topic, sink_topic, args.guarantee, args.interval_ms)
    try:
        probe = Producer({"bootstrap.servers": servers})
        probe.produce(source_topic, value=f"warm,{time.time_ns()}".encode())
        probe.flush(10)
        deadline = time.monotonic() + 600
        while not consumer.consume(100, timeout=1.0):  # the job runs: its first batch went through
            if time.monotonic() > deadline:
                raise RuntimeError("the job did not start")
        last_before = max((p.batchId for p in progress()), default=-1)
        batches: dict = {}  # batch id -> progress (Spark keeps only the last 100, no-data batches included)
        sent: list = []
        producer = threading.Thread(target=produce_steadily, args=(servers, source_topic, args.rate, args.seconds, sent))
        started_ns = time.time_ns()
        producer.start()
        latencies = []  # (produced ns, latency ms)
        quiet_until = None
        looked = time.monotonic()
        while True:
            got = consumer.consume(10_000, timeout=0.2)
            if time.monotonic() - looked > 1:
                looked = time.monotonic()
                batches.update((p.batchId, p) for p in progress() if p.batchId > last_before and p.numInputRows)
            now = time.time_ns()
            for m in got:
                if not m.error():
                    produced = int(m.value().split(b",")[1])
                    latencies.append((produced, (now - produced) / 1e6))
            if producer.is_alive():
                continue
            if got:
                quiet_until = None
            quiet_until = quiet_until or time.monotonic() + 10  # Tansu hides a last request's records
            if len(latencies) >= sent[0] or time.monotonic() > quiet_until:
                break
        producer.join()
        batches.update((p.batchId, p) for p in progress() if p.batchId > last_before and p.numInputRows)
    finally:
        stop()
        consumer.close()
    return {"sent": sent, "received": len(latencies), "batches": list(batches.values()), "load": os.getloadavg(),
            "measured": sorted(lat for produced, lat in latencies if produced >= started_ns + args.warmup * 1e9)}


def report(name: str, result: dict, rate: int) -> None:
    n_sent, produce_seconds = result["sent"]
    load = result["load"]
    print(f"  {name}: produced {n_sent:,} records in {produce_seconds:.1f} s ({n_sent / produce_seconds:,.0f}/s, "
          f"target {rate:,}/s); received {result['received']:,}; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    measured = result["measured"]
    if measured:
        def pct(q: float) -> float:
            return measured[min(len(measured) - 1, int(q * len(measured)))]

        print(f"    latency over {len(measured):,} records after the warm-up: p50 {pct(0.5):,.0f} ms, "
              f"p90 {pct(0.9):,.0f} ms, p99 {pct(0.99):,.0f} ms, max {measured[-1]:,.0f} ms")
    durations = [(p.numInputRows, p.durationMs) for p in result["batches"]]
    if durations:
        total = [d.get("triggerExecution", 0) for _, d in durations]
        parts: dict[str, list] = {}
        for _, d in durations:
            for k, v in d.items():
                if k != "triggerExecution":
                    parts.setdefault(k, []).append(v)
        print(f"    micro-batches with input: {len(durations)}, median {statistics.median(total):,.0f} ms, "
              f"median input rows {statistics.median(r for r, _ in durations):,.0f}; median parts: "
              + ", ".join(f"{k} {statistics.median(v):,.0f}" for k, v in sorted(parts.items())))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rate", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=45)
    parser.add_argument("--warmup", type=float, default=10)
    parser.add_argument("--guarantee", default="AT_LEAST_ONCE", choices=["NONE", "AT_LEAST_ONCE", "EXACTLY_ONCE"])
    parser.add_argument("--interval-ms", type=int, default=0)
    parser.add_argument("--sides", default="kindling,handwritten")
    parser.add_argument("--rounds", type=int, default=2, help="round 0 (20 s at most) warms the session up")
    args = parser.parse_args(argv)
    starts = {"kindling": ("Kindling", start_kindling), "handwritten": ("hand-written PySpark", start_handwritten)}
    sides = args.sides.split(",")
    results = []
    with spark_and_broker() as (spark, servers):
        for round_ in range(args.rounds):
            settings = argparse.Namespace(**vars(args))
            if round_ == 0 and args.rounds > 1:
                settings.seconds = min(args.seconds, 20)
            for side in sides if round_ % 2 == 0 else sides[::-1]:
                name = starts[side][0] + (" (warm-up round)" if round_ == 0 and args.rounds > 1 else f", round {round_}")
                results.append((name, measure(spark, servers, starts[side][1], settings)))
    print(f"Kafka -> keyed process -> Kafka ({args.guarantee}, trigger interval {args.interval_ms} ms), "
          f"{os.environ['KINDLING_SPARK_MASTER']}, {time.strftime('%Y-%m-%d %H:%M')}")
    for name, result in results:
        report(name, result, args.rate)
    return 0


if __name__ == "__main__":
    sys.exit(main())
