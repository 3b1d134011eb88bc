"""Helpers of the Kafka tests: write records, read a topic back (with confluent-kafka directly)."""
from __future__ import annotations

import time
import uuid


def produce(servers: str, topic: str, records) -> None:
    """Writes ``(partition, value bytes, timestamp ms)`` records, one produce request each."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": servers, "linger.ms": 0})
    for partition, value, timestamp in records:
        producer.produce(topic, value=value, partition=partition, **({} if timestamp is None else {"timestamp": timestamp}))
        producer.flush(10)


def consume_all(servers: str, topic: str, expected: int, timeout_s: float = 30,
                isolation: str = "read_uncommitted") -> list:
    """Reads a topic from the start until ``expected`` records came (or ``timeout_s`` passed, or
    2 s passed with nothing new after they came): ``[(partition, key, value)]``."""
    from confluent_kafka import Consumer

    consumer = Consumer({"bootstrap.servers": servers, "group.id": f"check-{uuid.uuid4().hex[:8]}",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False,
                         "session.timeout.ms": 1000, "heartbeat.interval.ms": 300, "isolation.level": isolation})
    consumer.subscribe([topic])
    out = []
    deadline = time.monotonic() + timeout_s
    quiet_until = None
    try:
        while time.monotonic() < deadline:
            m = consumer.poll(0.5)
            if m is None:
                if len(out) >= expected:
                    quiet_until = quiet_until or time.monotonic() + 2
                    if time.monotonic() > quiet_until:
                        break
                continue
            if m.error():
                continue
            out.append((m.partition(), m.key(), m.value()))
    finally:
        consumer.close()
    return out
