"""Kafka -> keyed event-time window -> Kafka: per sensor, the sum of readings per 10 seconds.

Input records are JSON objects ``{"sensor": "s1", "value": 3}`` whose Kafka record timestamps
are the event time; output records are ``{"sensor": ..., "window_end": ..., "total": ...}``,
written exactly once.

    python examples/kafka_windows.py --bootstrap-servers localhost:9092 produce   # feed the input topic
    python examples/kafka_windows.py --bootstrap-servers localhost:9092 run       # the job (until Ctrl-C)

``produce`` needs confluent-kafka (``pip install 'kindling-streams[kafka]'``); the topics must exist
(or the broker creates them on first use).
"""
from __future__ import annotations

import argparse
import json
import random
import time

from kindling.common import Time, Types, WatermarkStrategy
from kindling.common.serialization import SimpleStringSchema
from kindling.datastream import StreamExecutionEnvironment
from kindling.datastream.connectors import DeliveryGuarantee
from kindling.datastream.connectors.kafka import (KafkaOffsetsInitializer, KafkaRecordSerializationSchema, KafkaSink,
                                                  KafkaSource)
from kindling.datastream.formats.json import JsonRowDeserializationSchema, JsonRowSerializationSchema
from kindling.datastream.functions import ProcessWindowFunction
from kindling.datastream.window import TumblingEventTimeWindows

READING = Types.ROW_NAMED(["sensor", "value"], [Types.STRING(), Types.INT()])
TOTAL = Types.ROW_NAMED(["sensor", "window_end", "total"], [Types.STRING(), Types.LONG(), Types.INT()])


class Total(ProcessWindowFunction):
    """The sum of a sensor's readings in one window."""

    def process(self, key, context, elements):
        from kindling.common import Row

        yield Row(key, context.window().end, sum(r.value for r in elements))  # the fields of TOTAL, in order


def build(env: StreamExecutionEnvironment, servers: str, input_topic: str, output_topic: str,
          bounded: bool = False) -> None:
    """Adds the job to ``env``; ``bounded`` reads what the input topic holds at start, then ends."""
    builder = KafkaSource.builder().set_bootstrap_servers(servers).set_topics(input_topic) \
        .set_group_id("kafka-windows").set_starting_offsets(KafkaOffsetsInitializer.earliest()) \
        .set_value_only_deserializer(JsonRowDeserializationSchema.builder().type_info(READING).build())
    if bounded:
        builder.set_bounded(KafkaOffsetsInitializer.latest())
    sink = KafkaSink.builder().set_bootstrap_servers(servers) \
        .set_record_serializer(KafkaRecordSerializationSchema.builder().set_topic(output_topic)
                               .set_key_serialization_schema(_SensorKey())
                               .set_value_serialization_schema(JsonRowSerializationSchema.builder()
                                                               .with_type_info(TOTAL).build()).build()) \
        .set_delivery_guarantee(DeliveryGuarantee.EXACTLY_ONCE).set_transactional_id_prefix("kafka-windows").build()
    env.from_source(builder.build(), WatermarkStrategy.for_monotonous_timestamps(), "readings") \
        .key_by(lambda r: r.sensor) \
        .window(TumblingEventTimeWindows.of(Time.seconds(10))) \
        .process(Total(), TOTAL) \
        .sink_to(sink)


class _SensorKey(SimpleStringSchema):
    """The record key: the sensor's name."""

    def serialize(self, value) -> bytes:
        return super().serialize(value[0])


def produce(servers: str, topic: str, count: int, sensors: int = 3, start_ms: int | None = None) -> None:
    """Writes ``count`` readings spread over ``sensors`` sensors, one per 100 ms of event time."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": servers, "linger.ms": 0})
    start = start_ms if start_ms is not None else int(time.time() * 1000)
    rng = random.Random(7)
    for i in range(count):
        reading = {"sensor": f"s{i % sensors}", "value": rng.randint(0, 9)}
        producer.produce(topic, json.dumps(reading).encode(), timestamp=start + i * 100)
        producer.flush(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bootstrap-servers", default="localhost:9092")
    parser.add_argument("--input", default="readings")
    parser.add_argument("--output", default="totals")
    parser.add_argument("what", choices=["produce", "run"])
    parser.add_argument("--count", type=int, default=1000)
    args = parser.parse_args()
    if args.what == "produce":
        produce(args.bootstrap_servers, args.input, args.count)
    else:
        env = StreamExecutionEnvironment.get_execution_environment()
        build(env, args.bootstrap_servers, args.input, args.output)
        env.execute("kafka windows")


if __name__ == "__main__":
    main()
