#!/usr/bin/env python
"""Kafka -> map -> Kafka records/s: Kindling against the same work hand-written in PySpark with
confluent-kafka, side by side on one SparkSession and one broker.

Starts its own Tansu broker (``tests/connectors/kafka_support.py``, as the connector tests do),
fills a two-partition topic with ``--records`` CSV-like strings, then alternates the sides for
``--rounds`` timed rounds after an untimed warm-up. Each round reads the whole topic (a bounded
read up to the offsets it was filled to), applies :func:`work` to every record and writes the
results to a fresh topic with ``acks=all``; wall time is from building the job to its end, and
the output is counted back (untimed) to check both sides wrote every record. Each side's CPU seconds
per run (this process, the JVM and Spark's Python workers; the broker left out) are printed too:
the machine's load moves them far less than wall time.

* Kindling: ``KafkaSource`` (bounded) -> ``map(work)`` -> ``KafkaSink`` (AT_LEAST_ONCE), in
  STREAMING mode (a bounded job runs as one Spark step), and the same on the micro-batch path
  (``kindling.bounded.one-step: false``) for reference.
* Hand-written: a Python data source whose partitions are the Kafka partitions' offset ranges,
  read with a confluent-kafka Consumer into Arrow batches, then one ``mapInArrow`` that applies
  ``work`` and produces with a confluent-kafka Producer (flushed at the end of each task).

    .venv/bin/python benchmarks/kafka_throughput.py [--records 200000] [--rounds 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from kafka_common import (PARTITIONS, count_records, cpu_seconds, handwritten_kafka, new_topic, produce_waiting,
                          producing, spark_and_broker)


def work(line: str) -> str:
    """The map both sides apply: parse ``id,name,amount`` and write it back with the amount in cents."""
    ident, name, amount = line.split(",")
    return f"{ident},{name.upper()},{int(float(amount) * 100)}"


def fill(servers: str, topic: str, records: int) -> dict[int, int]:
    """Writes ``records`` lines round-robin over the partitions; returns each partition's end offset."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": servers, "linger.ms": 20})
    ends = {p: 0 for p in range(PARTITIONS)}
    for i in range(records):
        p = i % PARTITIONS
        produce_waiting(producer, topic, f"{i},name{i % 977},{i % 10_000 / 100:.2f}".encode(), 0.05, partition=p)
        ends[p] += 1
    producer.flush(60)
    return ends


def kindling_side(servers: str, source_topic: str, ends: dict[int, int], sink_topic: str, one_step: bool) -> None:
    from kindling.common import Configuration, Types, WatermarkStrategy
    from kindling.common.serialization import SimpleStringSchema
    from kindling.datastream import StreamExecutionEnvironment
    from kindling.datastream.connectors import DeliveryGuarantee
    from kindling.datastream.connectors.kafka import (KafkaOffsetsInitializer, KafkaRecordSerializationSchema,
                                                      KafkaSink, KafkaSource, KafkaTopicPartition)

    conf = Configuration()
    conf.set_boolean("kindling.progress", False)
    conf.set_boolean("kindling.bounded.one-step", one_step)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(PARTITIONS)
    stop = KafkaOffsetsInitializer.offsets({KafkaTopicPartition(source_topic, p): end for p, end in ends.items()})
    source = KafkaSource.builder().set_bootstrap_servers(servers).set_topics(source_topic) \
        .set_starting_offsets(KafkaOffsetsInitializer.earliest()).set_bounded(stop) \
        .set_value_only_deserializer(SimpleStringSchema()).build()
    sink = KafkaSink.builder().set_bootstrap_servers(servers).set_record_serializer(
        KafkaRecordSerializationSchema.builder().set_topic(sink_topic)
        .set_value_serialization_schema(SimpleStringSchema()).build()) \
        .set_delivery_guarantee(DeliveryGuarantee.AT_LEAST_ONCE).build()
    env.from_source(source, WatermarkStrategy.no_watermarks(), "Kafka").map(work, Types.STRING()).sink_to(sink)
    env.execute("kafka throughput")


def handwritten_side(spark, servers: str, source_topic: str, ends: dict[int, int], sink_topic: str) -> None:
    """What a PySpark user writes without Kindling: a Kafka data source and a producing mapInArrow."""
    df = handwritten_kafka(spark, servers, source_topic, ends)
    df.mapInArrow(producing(servers, sink_topic, lambda value: work(value.decode()).encode()), "n long").collect()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with spark_and_broker() as (spark, servers):
        source_topic = new_topic(servers)
        ends = fill(servers, source_topic, args.records)
        sides = {
            "Kindling": lambda out: kindling_side(servers, source_topic, ends, out, one_step=True),
            "Kindling (micro-batch path)": lambda out: kindling_side(servers, source_topic, ends, out, one_step=False),
            "hand-written PySpark": lambda out: handwritten_side(spark, servers, source_topic, ends, out),
        }
        seconds: dict[str, list[float]] = {name: [] for name in sides}
        cpu: dict[str, list[float]] = {name: [] for name in sides}
        for round_ in range(args.rounds + 1):  # round 0 warms up
            order = list(sides) if round_ % 2 == 0 else list(reversed(sides))
            for name in order:
                out = new_topic(servers)
                started, used = time.perf_counter(), cpu_seconds()
                sides[name](out)
                elapsed, used = time.perf_counter() - started, cpu_seconds() - used
                written = count_records(servers, out, args.records)
                if written != args.records:
                    raise AssertionError(f"{name} wrote {written} of {args.records} records")
                if round_:
                    seconds[name].append(elapsed)
                    cpu[name].append(used)
    load = os.getloadavg()
    rates = {name: args.records / statistics.median(s) for name, s in seconds.items()}
    base = rates["hand-written PySpark"]
    print(f"Kafka -> map -> Kafka, {args.records:,} records, {PARTITIONS} partitions, "
          f"{os.environ['KINDLING_SPARK_MASTER']}, {args.rounds} rounds, median; "
          f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; {time.strftime('%Y-%m-%d %H:%M')}")
    for name, rate in rates.items():
        runs = ", ".join(f"{args.records / s:,.0f}" for s in seconds[name])
        print(f"  {name:<28} {rate:>10,.0f} rec/s  {rate / base:.2f}x  (rounds: {runs}); "
              f"CPU {statistics.median(cpu[name]):.2f} s per run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
