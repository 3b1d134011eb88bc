"""Jobs into a KafkaSink that fail once in the middle of a micro-batch and are started again on
the same checkpoint directory: a streaming Kafka -> keyed process -> Kafka job (with EXACTLY_ONCE
every input record is written once and the keyed state counted it once, with AT_LEAST_ONCE none
is lost), and an EXACTLY_ONCE job started again with another parallelism.

The failure comes from the sink's topic selector, which runs where the records are produced. With
EXACTLY_ONCE it fails one of the micro-batch's two transactions after the other committed (its
marker group's offset on ``__kindling_sink_commits`` passed the batch): the replay must skip the
committed transaction and write the other. Tansu (the test broker) shows aborted transactions'
records to ``read_committed`` readers, so the failing transaction fails on its first record,
before it produced any: an aborted record would otherwise count as written.
"""
from __future__ import annotations

import os
import time
import uuid
from collections import Counter, defaultdict

import pytest
from kafka_support import consume_all, produce

from kindling.common import Types, WatermarkStrategy
from kindling.common.serialization import SimpleStringSchema
from kindling.datastream.connectors import DeliveryGuarantee
from kindling.datastream.connectors.kafka import (KafkaOffsetsInitializer, KafkaRecordSerializationSchema, KafkaSink,
                                                  KafkaSource)
from kindling.datastream.functions import KeyedProcessFunction, MapFunction, RuntimeContext
from kindling.datastream.state import ValueStateDescriptor
from kindling.spark.kafka import commit_group

KEYS = 5
PHASE = 8  # records per partition produced in each of the three phases


def _marker_offset(servers: str, group: str) -> int:
    """The replay marker of one sink transaction: ``last committed batch id + 1`` (-1: none yet)."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": servers, "group.id": group})
    try:
        return consumer.committed([TopicPartition("__kindling_sink_commits", 0)], timeout=10)[0].offset
    finally:
        consumer.close()


class _FailOnce:
    """A KafkaSink topic selector choosing ``topic``. While ``marker`` exists, the first element it
    is given for which ``armed(value)`` holds fails its task, once (the task that claims the failure
    first; the marker is removed). With a transactional id ``prefix`` (EXACTLY_ONCE) it first waits
    until the micro-batch's other transaction (of two: the tests' shuffle partitions) committed."""

    def __init__(self, marker: str, topic: str, servers: str, prefix: str | None, armed=None):
        self.marker, self.topic, self.servers, self.prefix, self.armed = marker, topic, servers, prefix, armed

    def __call__(self, value) -> str:
        if not os.path.exists(self.marker) or (self.armed is not None and not self.armed(value)):
            return self.topic
        try:
            os.close(os.open(self.marker + ".claimed", os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return self.topic  # another task fails
        if self.prefix is not None:
            from pyspark import TaskContext

            task = TaskContext.get()
            batch = int(task.getLocalProperty("streaming.sql.batchId"))
            other = commit_group(self.prefix, task.getLocalProperty("sql.streaming.queryId"), 1 - task.partitionId())
            deadline = time.monotonic() + 60
            while _marker_offset(self.servers, other) <= batch:
                if time.monotonic() > deadline:
                    raise AssertionError(f"the other transaction did not commit batch {batch} within 60 s")
                time.sleep(0.2)
        os.remove(self.marker)
        raise RuntimeError("injected failure in the middle of a micro-batch")


class _CountPerKey(KeyedProcessFunction):
    """Emits ``value|n`` (n: the key's running count)."""

    def open(self, runtime_context: RuntimeContext):
        self.count = runtime_context.get_state(ValueStateDescriptor("n", Types.INT()))

    def process_element(self, value, ctx):
        n = (self.count.value() or 0) + 1
        self.count.update(n)
        yield f"{value}|{n}"


def _records(start: int) -> list:
    return [(p, f"{p}:{i}".encode(), None) for i in range(start, start + PHASE) for p in (0, 1)]


@pytest.mark.timeout(900)
@pytest.mark.parametrize("guarantee", [DeliveryGuarantee.EXACTLY_ONCE, DeliveryGuarantee.AT_LEAST_ONCE])
def test_restart_after_a_failure_in_the_middle_of_a_batch(make_env, kafka_broker, new_topic, tmp_path, guarantee):
    source_topic, sink_topic = new_topic(2), new_topic(2)
    prefix = f"restart-{uuid.uuid4().hex[:6]}"
    marker = str(tmp_path / "fail-once")
    exactly_once = guarantee == DeliveryGuarantee.EXACTLY_ONCE

    def start():
        env = make_env(**{"execution.checkpointing.dir": str(tmp_path / "checkpoints")})
        source = KafkaSource.builder().set_bootstrap_servers(kafka_broker).set_topics(source_topic) \
            .set_starting_offsets(KafkaOffsetsInitializer.earliest()) \
            .set_value_only_deserializer(SimpleStringSchema()) \
            .set_property("kindling.max-offsets-per-batch", "4").build()
        selector = _FailOnce(marker, sink_topic, kafka_broker, prefix if exactly_once else None)
        sink = KafkaSink.builder().set_bootstrap_servers(kafka_broker).set_record_serializer(
            KafkaRecordSerializationSchema.builder().set_topic_selector(selector)
            .set_value_serialization_schema(SimpleStringSchema()).build()) \
            .set_delivery_guarantee(guarantee).set_transactional_id_prefix(prefix).build()
        env.from_source(source, WatermarkStrategy.no_watermarks(), "Kafka") \
            .key_by(lambda s: int(s.split(":")[1]) % KEYS, key_type=Types.INT()) \
            .process(_CountPerKey(), Types.STRING()).sink_to(sink)
        return env.execute_async("kafka restart")

    def read(expected: int) -> list:
        return [v.decode() for _, _, v in consume_all(kafka_broker, sink_topic, expected, timeout_s=300)]

    produce(kafka_broker, source_topic, _records(0))
    client = start()
    try:
        assert len(read(2 * PHASE)) >= 2 * PHASE
        open(marker, "w").close()  # fail once in a later batch
        produce(kafka_broker, source_topic, _records(PHASE))
        with pytest.raises(Exception, match="injected failure"):
            client.get_job_execution_result().result(300)
    finally:
        client.cancel()
    assert not os.path.exists(marker)  # the failure happened

    produce(kafka_broker, source_topic, _records(2 * PHASE))
    client = start()
    try:
        out = read(6 * PHASE)
    finally:
        client.cancel()
        try:
            client.get_job_execution_result().result(60)
        except Exception:
            pass  # cancelled

    expected = {f"{p}:{i}" for i in range(3 * PHASE) for p in (0, 1)}
    values = Counter(o.split("|")[0] for o in out)
    if exactly_once:
        assert values == Counter(expected)  # each input record written exactly once
    else:
        assert set(values) == expected  # none lost (a replayed part may be written twice)
    counts = defaultdict(set)
    for o in out:
        value, n = o.split("|")
        counts[int(value.split(":")[1]) % KEYS].add(int(n))
    per_key = Counter(int(v.split(":")[1]) % KEYS for v in expected)
    for key, seen in counts.items():  # the keyed state counted each record once, across the restart
        assert seen == set(range(1, per_key[key] + 1)), key


def _in_the_third_batch(value: str) -> bool:
    return int(value) % 30 >= 20  # 20-29 and 50-59: the last 10 of each of the sequence's two splits


@pytest.mark.timeout(900)
def test_exactly_once_replay_after_a_parallelism_change(make_env, kafka_broker, new_topic, tmp_path):
    """A bounded sequence read in micro-batches of 20 elements (10 of each of its two splits, 0-29
    and 30-59), into an EXACTLY_ONCE sink. The job fails in its third micro-batch after one
    of the batch's two transactions committed and is started again with parallelism 3 instead of
    2 (the sequence keeps its two splits, as Flink keeps them in its checkpoint), but each record
    goes to the transaction it went to before (chosen by its value), so the replay skips the
    committed transaction and writes the other one. The topic holds every element once."""
    topic = new_topic(1)
    prefix = f"rescale-{uuid.uuid4().hex[:6]}"
    marker = str(tmp_path / "fail-once")
    open(marker, "w").close()

    def start(parallelism: int):
        env = make_env(**{"execution.checkpointing.dir": str(tmp_path / "checkpoints"),
                          "kindling.source.max-records-per-batch": "20"})
        env.set_parallelism(parallelism)
        selector = _FailOnce(marker, topic, kafka_broker, prefix, armed=_in_the_third_batch)
        sink = KafkaSink.builder().set_bootstrap_servers(kafka_broker).set_record_serializer(
            KafkaRecordSerializationSchema.builder().set_topic_selector(selector)
            .set_value_serialization_schema(SimpleStringSchema()).build()) \
            .set_delivery_guarantee(DeliveryGuarantee.EXACTLY_ONCE).set_transactional_id_prefix(prefix).build()
        env.generate_sequence(0, 59).map(str, Types.STRING()).sink_to(sink)
        return env.execute_async("parallelism change")

    with pytest.raises(Exception, match="injected failure"):
        start(2).get_job_execution_result().result(300)
    assert not os.path.exists(marker)  # the failure happened
    before = Counter(v.decode() for _, _, v in consume_all(kafka_broker, topic, 41, timeout_s=20,
                                                           isolation="read_committed"))
    first_two = {str(i) for i in range(60) if i % 30 < 20}
    assert first_two < set(before) < {str(i) for i in range(60)}  # the third batch in part
    assert max(before.values()) == 1

    start(3).get_job_execution_result().result(300)
    values = Counter(v.decode() for _, _, v in consume_all(kafka_broker, topic, 60, isolation="read_committed"))
    assert values == Counter(str(i) for i in range(60))


class _FailOnceOn(MapFunction):
    """Raises on ``poison`` the first time any worker process sees it (a file remembers)."""

    def __init__(self, failed: str, poison: int):
        self.failed, self.poison = failed, poison

    def map(self, value):
        if value == self.poison and not os.path.exists(self.failed):
            open(self.failed, "w").close()
            raise ValueError(f"injected failure on {value}")
        return str(value)


@pytest.mark.timeout(900)
def test_kafka_to_files_exactly_once_across_a_restart(make_env, kafka_broker, new_topic, tmp_path):
    """A bounded Kafka read in micro-batches of 4 offsets per partition, a map that fails once on
    one record, a fixed-delay restart strategy: the job restarts from its last checkpoint and
    the FileSink holds every record once (a replayed micro-batch rewrites its own part files)."""
    from kindling.common import RestartStrategies
    from kindling.common.serialization import Encoder
    from kindling.datastream.connectors.file_system import FileSink

    topic = new_topic(2)
    produce(kafka_broker, topic, [(p, str(i * 2 + p).encode(), None) for i in range(20) for p in (0, 1)])
    env = make_env()
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(2, 0))
    source = KafkaSource.builder().set_bootstrap_servers(kafka_broker).set_topics(topic) \
        .set_starting_offsets(KafkaOffsetsInitializer.earliest()).set_bounded(KafkaOffsetsInitializer.latest()) \
        .set_value_only_deserializer(SimpleStringSchema()) \
        .set_property("kindling.max-offsets-per-batch", "4").build()
    env.from_source(source, WatermarkStrategy.no_watermarks(), "Kafka").map(int, Types.INT()) \
        .map(_FailOnceOn(str(tmp_path / "failed"), 25), Types.STRING()) \
        .sink_to(FileSink.for_row_format(str(tmp_path / "out"), Encoder.simple_string_encoder()).build())
    result = env.execute("kafka to files")
    assert result.get_accumulator_result("numRestarts") == 1
    lines = [line for part in (tmp_path / "out").rglob("*") if part.is_file() and not part.name.startswith((".", "_"))
             for line in part.read_text().splitlines()]
    assert Counter(lines) == Counter(str(i) for i in range(40))
