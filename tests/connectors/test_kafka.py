"""The Kafka connector end to end, against a real Kafka-protocol broker (``kafka_broker``,
see conftest.py): KafkaSource (per-partition watermarks, bounded reads, offsets committed to
the group), KafkaSink with each DeliveryGuarantee, exactly-once replay of a batch, and the
legacy FlinkKafkaConsumer / FlinkKafkaProducer."""
from __future__ import annotations

import json
import time
import uuid
from collections import Counter

import pytest
from kafka_support import consume_all, java_partition, produce

from kindling.common import Time, Types, WatermarkStrategy
from kindling.common.serialization import SimpleStringSchema
from kindling.datastream import RuntimeExecutionMode
from kindling.datastream.connectors import DeliveryGuarantee
from kindling.datastream.functions import ProcessWindowFunction
from kindling.datastream.connectors.kafka import (FlinkKafkaConsumer, FlinkKafkaProducer, KafkaOffsetsInitializer,
                                                  KafkaRecordSerializationSchema, KafkaSink, KafkaSource,
                                                  KafkaTopicPartition)
from kindling.datastream.formats.json import JsonRowDeserializationSchema, JsonRowSerializationSchema
from kindling.datastream.window import TumblingEventTimeWindows

SPEEDS = {0: 1_000, 1: 3_000, 2: 7_000}  # event-time step (ms) between a partition's records
PER_PARTITION = 30
BASE = 1_000_000  # record timestamps start here (a producer's timestamp 0 means "now")


def _source(servers: str, topic: str, **props) -> KafkaSource:
    builder = KafkaSource.builder().set_bootstrap_servers(servers).set_topics(topic) \
        .set_starting_offsets(KafkaOffsetsInitializer.earliest()).set_bounded(KafkaOffsetsInitializer.latest()) \
        .set_value_only_deserializer(SimpleStringSchema()).set_property("session.timeout.ms", "1000")
    for key, value in props.items():
        builder.set_property(key, value)
    return builder


def _fill_three_partitions(kafka_broker: str, topic: str) -> None:
    """Partition p gets records ``p:i`` at event time ``BASE + i * SPEEDS[p]``: partition 2's event time
    runs 7 times faster than partition 0's, so a watermark taken over the fastest partition
    would make partition 0's records late."""
    produce(kafka_broker, topic, [(p, f"{p}:{i}".encode(), BASE + i * step)
                                  for i in range(PER_PARTITION) for p, step in SPEEDS.items()])


def _expected_window_counts() -> Counter:
    return Counter((str(p), (BASE + i * step) // 10_000 * 10_000) for p, step in SPEEDS.items() for i in range(PER_PARTITION))


def test_partitions_at_different_speeds_through_event_time_windows(spark, make_env, kafka_broker, new_topic):
    topic = new_topic(3)
    _fill_three_partitions(kafka_broker, topic)
    # micro-batches of 10 records per partition: each partition's watermark advances at its own speed
    env = make_env(**{"kindling.bounded.one-step": "false"})
    source = _source(kafka_broker, topic, **{"kindling.max-offsets-per-batch": "10"}).set_group_id("windows").build()
    counts = env.from_source(source, WatermarkStrategy.for_monotonous_timestamps(), "Kafka") \
        .map(lambda s: (s.split(":")[0], 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()])) \
        .key_by(lambda e: e[0]) \
        .window(TumblingEventTimeWindows.of(Time.seconds(10))) \
        .process(_CountWindow(), Types.TUPLE([Types.STRING(), Types.LONG(), Types.INT()]))
    result = Counter()
    with counts.execute_and_collect() as rows:
        for key, start, n in rows:
            result[(key, start)] += n
    assert result == _expected_window_counts()
    assert sum(result.values()) == 3 * PER_PARTITION  # every element counted: none was late

    from confluent_kafka import Consumer, TopicPartition

    group = Consumer({"bootstrap.servers": kafka_broker, "group.id": "windows"})
    committed = group.committed([TopicPartition(topic, p) for p in range(3)], timeout=10)
    group.close()
    assert [c.offset for c in committed] == [PER_PARTITION] * 3  # committed back for monitoring


@pytest.mark.timeout(240)
def test_unbounded_event_time_windows_fire_as_the_slowest_partition_advances(spark, make_env, kafka_broker, new_topic):
    """Unbounded: windows fire once every partition's watermark passed them (the job's watermark is
    handed back to the source, which starts the micro-batches that fire them)."""
    topic = new_topic(3)
    _fill_three_partitions(kafka_broker, topic)
    source = KafkaSource.builder().set_bootstrap_servers(kafka_broker).set_topics(topic) \
        .set_value_only_deserializer(SimpleStringSchema()).set_starting_offsets(KafkaOffsetsInitializer.earliest()) \
        .build()
    slowest = BASE + (PER_PARTITION - 1) * min(SPEEDS.values())  # the watermark stops just below it
    due = Counter({k: n for k, n in _expected_window_counts().items() if k[1] + 10_000 <= slowest})
    counts = make_env().from_source(source, WatermarkStrategy.for_monotonous_timestamps(), "Kafka") \
        .map(lambda s: (s.split(":")[0], 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()])) \
        .key_by(lambda e: e[0]).window(TumblingEventTimeWindows.of(Time.seconds(10))) \
        .process(_CountWindow(), Types.TUPLE([Types.STRING(), Types.LONG(), Types.INT()]))
    fired = Counter()
    for key, start, n in counts.execute_and_collect(limit=len(due)):
        fired[(key, start)] += n
    assert fired == due


class _CountWindow(ProcessWindowFunction):
    """(key, window start, count) per window."""

    def process(self, key, context, elements):
        yield key, context.window().start, sum(1 for _ in elements)


def test_bounded_read_stops_at_the_offsets_current_at_start(spark, make_env, kafka_broker, new_topic):
    topic = new_topic(2)
    produce(kafka_broker, topic, [(i % 2, f"v{i}".encode(), 1_000 + i) for i in range(10)])
    source = _source(kafka_broker, topic).build()
    values = sorted(make_env().from_source(source, WatermarkStrategy.no_watermarks(), "Kafka").execute_and_collect())
    assert values == sorted(f"v{i}" for i in range(10))

    batch = make_env()
    batch.set_runtime_mode(RuntimeExecutionMode.BATCH)
    assert sorted(batch.from_source(source, WatermarkStrategy.no_watermarks(), "Kafka").execute_and_collect()) == values

    # starting offsets given per partition
    start = KafkaOffsetsInitializer.offsets({KafkaTopicPartition(topic, 0): 3, KafkaTopicPartition(topic, 1): 4})
    source = _source(kafka_broker, topic).set_starting_offsets(start).build()
    values = make_env().from_source(source, WatermarkStrategy.no_watermarks(), "Kafka").execute_and_collect()
    assert sorted(values) == ["v6", "v8", "v9"]
    # KafkaOffsetsInitializer.timestamp(...) is not tested: Tansu answers ListOffsets by timestamp with offset 0


def test_json_rows_with_record_timestamps(spark, make_env, kafka_broker, new_topic):
    """Typed rows from JSON; the record timestamps are the event time (no timestamp assigner)."""
    topic = new_topic(2)
    row = Types.ROW_NAMED(["name", "amount"], [Types.STRING(), Types.INT()])
    produce(kafka_broker, topic, [(i % 2, json.dumps({"name": "ab"[i % 2], "amount": i}).encode(),
                                   BASE + i * 4_000)
                                  for i in range(10)])
    source = KafkaSource.builder().set_bootstrap_servers(kafka_broker).set_partitions(
        {KafkaTopicPartition(topic, 0), KafkaTopicPartition(topic, 1)}).set_bounded(KafkaOffsetsInitializer.latest()) \
        .set_value_only_deserializer(JsonRowDeserializationSchema.builder().type_info(row).build()).build()
    sums = make_env().from_source(source, WatermarkStrategy.for_monotonous_timestamps(), "Kafka") \
        .key_by(lambda r: r.name).window(TumblingEventTimeWindows.of(Time.seconds(20))) \
        .reduce(lambda a, b: type(a)(name=a.name, amount=a.amount + b.amount)).execute_and_collect()
    assert sorted((r.name, r.amount) for r in sums) == [("a", 0 + 2 + 4), ("a", 6 + 8), ("b", 1 + 3), ("b", 5 + 7 + 9)]


def test_a_malformed_record_fails_the_job_naming_where_it_is_unless_skipped(spark, make_env, kafka_broker, new_topic):
    topic = new_topic(1)
    row = Types.ROW_NAMED(["n"], [Types.INT()])
    produce(kafka_broker, topic, [(0, b'{"n": 1}', None), (0, b"{broken", None), (0, b'{"n": 3}', None)])

    def read(schema):
        source = KafkaSource.builder().set_bootstrap_servers(kafka_broker).set_topics(topic) \
            .set_bounded(KafkaOffsetsInitializer.latest()).set_value_only_deserializer(schema).build()
        return list(make_env().from_source(source, WatermarkStrategy.no_watermarks(), "Kafka").execute_and_collect())

    with pytest.raises(Exception, match=f"Kafka record at {topic}-0 offset 1"):
        read(JsonRowDeserializationSchema.builder().type_info(row).build())
    skipped = read(JsonRowDeserializationSchema.builder().type_info(row).ignore_parse_errors().build())
    assert [r.n for r in skipped] == [1, 3]


def test_a_function_failing_on_a_record_names_its_partition_and_offset(spark, make_env, kafka_broker, new_topic):
    from kindling.runtime.errors import UserFunctionError

    topic = new_topic(2)
    produce(kafka_broker, topic, [(0, b"1", None), (1, b"2", None), (1, b"x", None), (0, b"4", None)])
    env = make_env()
    env.from_source(_source(kafka_broker, topic).build(), WatermarkStrategy.no_watermarks(), "Kafka") \
        .map(int, Types.INT()).name("parse").print()
    with pytest.raises(UserFunctionError, match="invalid literal") as failure:
        env.execute("poisoned topic")
    assert failure.value.element == "'x'"
    assert failure.value.position == f"Kafka topic {topic}, partition 1, offset 1"


@pytest.mark.parametrize("one_step", ["true", "false"])
def test_skipped_records_are_counted_in_the_job_metrics(spark, make_env, kafka_broker, new_topic, one_step):
    """``ignore_parse_errors()``: the skipped records are ``metrics:<source>.numRecordsInErrors``
    in the job result (the one-step batch read and the micro-batch read)."""
    topic = new_topic(2)
    row = Types.ROW_NAMED(["n"], [Types.INT()])
    produce(kafka_broker, topic, [(0, b'{"n": 1}', None), (0, b"{broken", None), (1, b"[]", None),
                                  (1, b'{"n": 4}', None), (1, b"no json", None)])
    sink_topic = new_topic(1)
    source = KafkaSource.builder().set_bootstrap_servers(kafka_broker).set_topics(topic) \
        .set_bounded(KafkaOffsetsInitializer.latest()) \
        .set_value_only_deserializer(JsonRowDeserializationSchema.builder().type_info(row).ignore_parse_errors().build()) \
        .build()
    env = make_env(**{"kindling.bounded.one-step": one_step})
    env.from_source(source, WatermarkStrategy.no_watermarks(), "json in").map(lambda r: str(r.n), Types.STRING()) \
        .sink_to(KafkaSink.builder().set_bootstrap_servers(kafka_broker).set_record_serializer(
            KafkaRecordSerializationSchema.builder().set_topic(sink_topic)
            .set_value_serialization_schema(SimpleStringSchema()).build()).build())
    result = env.execute("skipping")
    assert result.get_accumulator_result("metrics:json in.numRecordsInErrors") == 3
    assert sorted(v for _, _, v in consume_all(kafka_broker, sink_topic, 2)) == [b"1", b"4"]


@pytest.mark.parametrize("guarantee", [DeliveryGuarantee.NONE, DeliveryGuarantee.AT_LEAST_ONCE,
                                       DeliveryGuarantee.EXACTLY_ONCE])
def test_sink_writes_with_each_delivery_guarantee(spark, make_env, kafka_broker, new_topic, guarantee):
    topic = new_topic(2)
    row = Types.ROW_NAMED(["id", "name"], [Types.INT(), Types.STRING()])
    serializer = KafkaRecordSerializationSchema.builder().set_topic(topic) \
        .set_value_serialization_schema(JsonRowSerializationSchema.builder().with_type_info(row).build()) \
        .set_key_serialization_schema(SimpleStringSchema()).build()
    sink = KafkaSink.builder().set_bootstrap_servers(kafka_broker).set_record_serializer(serializer) \
        .set_delivery_guarantee(guarantee).set_transactional_id_prefix(f"tx-{uuid.uuid4().hex[:8]}").build()
    from kindling.common import Row

    env = make_env()
    env.from_collection([Row(id=i, name=f"n{i}") for i in range(20)], type_info=row) \
        .map(lambda r: r, output_type=row).sink_to(sink)
    from kindling.spark.compiler import Compiler
    from kindling.spark.run_mode import RunMode

    plan = Compiler(spark, list(env._sinks), RunMode.MICRO_BATCH, 2).compile()
    # without transactions the stage computing the elements sends them: no separate sink pass
    assert plan.sinks[0].columns == ({"f0": "x0__f0", "__ts": "__ts"} if guarantee == DeliveryGuarantee.EXACTLY_ONCE
                                     else {"produced": "x0__produced", "__ts": "__ts"})
    result = env.execute("kafka sink")
    assert result.get_accumulator_result("records-written:Kafka Sink") == 20
    records = consume_all(kafka_broker, topic, 20)
    assert sorted(json.loads(v)["id"] for _, _, v in records) == list(range(20))
    assert all(k is not None for _, k, _ in records)  # the key schema wrote keys
    # each in the partition Kafka's Java producer gives its key (librdkafka's default would put about half elsewhere)
    assert [p for p, _, _ in records] == [java_partition(k, 2) for _, k, _ in records]


def _string_sink(servers: str, topic: str, **props) -> KafkaSink:
    builder = KafkaSink.builder().set_bootstrap_servers(servers).set_record_serializer(
        KafkaRecordSerializationSchema.builder().set_topic(topic).set_value_serialization_schema(SimpleStringSchema())
        .build()).set_delivery_guarantee(DeliveryGuarantee.AT_LEAST_ONCE)
    for key, value in props.items():
        builder.set_property(key, value)
    return builder.build()


def test_partitions_are_read_by_their_stage_s_own_pass(spark, make_env, kafka_broker, new_topic):
    """The task reading a partition hands the records straight to the stage's functions, in one
    Python pass: a bounded job run in one Spark step has no data source scan (a Spark partition per
    Kafka partition), a streaming query's reader tasks run the stage (no mapInArrow of its own)."""
    from kindling.spark.compiler import Compiler
    from kindling.spark.run_mode import RunMode

    topic, out = new_topic(2), new_topic(1)
    produce(kafka_broker, topic, [(i % 2, f"v{i}".encode(), BASE + i) for i in range(10)])
    env = make_env()
    env.from_source(_source(kafka_broker, topic).build(), WatermarkStrategy.no_watermarks(), "Kafka") \
        .map(str.upper, Types.STRING()).sink_to(_string_sink(kafka_broker, out))
    one_step = Compiler(spark, list(env._sinks), RunMode.ONE_STEP, 2).compile().df
    plan = one_step._jdf.queryExecution().executedPlan().toString()
    assert "kindling_kafka" not in plan and plan.count("MapInArrow") == 1 and "Range" in plan
    streaming = Compiler(spark, list(env._sinks), RunMode.MICRO_BATCH, 2).compile().df
    assert "MapInArrow" not in streaming._jdf.queryExecution().logical().toString()
    assert env.execute("one pass").get_accumulator_result("records-written:Kafka Sink") == 10
    assert sorted((v, t) for _, _, v, t in consume_all(kafka_broker, out, 10, timestamps=True)) == \
        sorted((f"V{i}".encode(), BASE + i) for i in range(10))


@pytest.mark.parametrize("keyed", [False, True])
def test_records_the_broker_never_takes_fail_the_job(spark, make_env, kafka_broker, new_topic, keyed):
    """Only failed deliveries are reported back, and the task waits for them: a record no broker
    acknowledges fails the job (sent from a stateless stage, or by the sink after a keyed one)."""
    topic = new_topic(1)
    produce(kafka_broker, topic, [(0, b"a", None), (0, b"b", None)])
    env = make_env(**{"kindling.bounded.one-step": "false"})
    stream = env.from_source(_source(kafka_broker, topic).build(), WatermarkStrategy.no_watermarks(), "Kafka")
    if keyed:
        stream = stream.key_by(lambda v: v).map(str.upper, Types.STRING())
    stream.sink_to(_string_sink("127.0.0.1:1", "nowhere", **{"message.timeout.ms": "1500"}))
    with pytest.raises(Exception, match="KafkaSink could not deliver"):
        env.execute("nowhere")


def _as_query(spark, query: str | None) -> None:
    """Makes the driver's next Spark jobs those of streaming query ``query`` (None: no query), as
    in a streaming query's foreachBatch."""
    spark.sparkContext.setLocalProperty("sql.streaming.queryId", query)


def test_exactly_once_replay_of_a_batch_does_not_duplicate(spark, kafka_broker, new_topic, tmp_path):
    """A batch Spark replays after a failure (same query, same batch id) is written once, its rows
    spread over tasks as they may be; a new batch is written; another job (another query) using
    the same transactional id prefix writes its own batch of the same id."""
    from kindling.graph.specs import KafkaSinkSpec
    from kindling.spark.kafka import KafkaWriter

    topic = new_topic(1)
    spec = KafkaSinkSpec(bootstrap_servers=kafka_broker, topic=topic, value_schema=SimpleStringSchema(),
                         guarantee="EXACTLY_ONCE", transactional_id_prefix=f"replay-{uuid.uuid4().hex[:8]}")
    assert spec.layout == "encoded"  # the stage serializes the values
    df = spark.createDataFrame([(f"r{i}".encode(),) for i in range(6)], "f0 binary").repartition(2)
    writer = KafkaWriter(spec)
    writer.bind(str(tmp_path / "checkpoint"))
    try:
        _as_query(spark, uuid.uuid4().hex)
        assert writer.write(df, 7) == 6
        assert writer.write(df.repartition(3), 7) == 0  # the replay, its rows in other tasks: all committed
        assert writer.write(df.coalesce(1), 8) == 6
        _as_query(spark, uuid.uuid4().hex)
        assert KafkaWriter(spec).write(df, 7) == 6  # another job's batch 7
    finally:
        _as_query(spark, None)
    values = sorted(v for _, _, v in consume_all(kafka_broker, topic, 18, isolation="read_committed"))
    assert values == sorted([f"r{i}".encode() for i in range(6)] * 3)


class _KeyBeforeColon:
    """A key serialization schema: the part of a string element before its ':'."""

    def serialize(self, value: str) -> bytes:
        return value.split(":")[0].encode()


def test_exactly_once_spreads_keyed_records_by_key(spark, kafka_broker, new_topic, tmp_path):
    """With a key schema the sink's elements reach it pickled; the transactions are chosen by the
    serialized keys, so a key's records stay in one transaction, in their order, and a replay with
    the rows in other tasks writes nothing again."""
    import pickle

    from kindling.graph.specs import KafkaSinkSpec
    from kindling.spark.kafka import KafkaWriter

    topic = new_topic(2)
    spec = KafkaSinkSpec(bootstrap_servers=kafka_broker, topic=topic, value_schema=SimpleStringSchema(),
                         key_schema=_KeyBeforeColon(), guarantee="EXACTLY_ONCE",
                         transactional_id_prefix=f"keyed-{uuid.uuid4().hex[:8]}")
    assert spec.layout == "pickled"
    records = [f"k{i % 3}:{i}" for i in range(30)]
    df = spark.createDataFrame([(pickle.dumps(r),) for r in records], "f0 binary").coalesce(1)
    writer = KafkaWriter(spec)
    writer.bind(str(tmp_path / "checkpoint"))
    try:
        _as_query(spark, uuid.uuid4().hex)
        assert writer.write(df, 0) == 30
        assert writer.write(df.repartition(4), 0) == 0
    finally:
        _as_query(spark, None)
    written = [(k.decode(), v.decode()) for _, k, v in consume_all(kafka_broker, topic, 30, isolation="read_committed")]
    assert sorted(written) == sorted((r.split(":")[0], r) for r in records)
    for key in ("k0", "k1", "k2"):  # each key's records in one Kafka partition, in the order they came
        numbers = [int(v.split(":")[1]) for k, v in written if k == key]
        assert numbers == sorted(numbers)


def test_element_timestamps_are_the_record_timestamps(spark, make_env, kafka_broker, new_topic):
    """As in Flink, the sink writes each element's timestamp as the record's: the source's record
    timestamps carried through maps (two sinks in one job), or those an assigner gave."""
    source_topic, kept, doubled, assigned = new_topic(2), new_topic(1), new_topic(1), new_topic(1)
    produce(kafka_broker, source_topic, [(i % 2, f"{i}".encode(), BASE + i * 1_000) for i in range(8)])

    def sink(topic):
        return KafkaSink.builder().set_bootstrap_servers(kafka_broker).set_record_serializer(
            KafkaRecordSerializationSchema.builder().set_topic(topic)
            .set_value_serialization_schema(SimpleStringSchema()).build()).build()

    def numbers(env):
        return env.from_source(_source(kafka_broker, source_topic).build(),
                               WatermarkStrategy.for_monotonous_timestamps(), "Kafka").map(lambda s: s, Types.STRING())

    def written(topic):
        return sorted((int(v), t) for _, _, v, t in consume_all(kafka_broker, topic, 8, timestamps=True))

    env = make_env()
    stream = numbers(env)
    stream.sink_to(sink(kept))
    stream.map(lambda s: str(2 * int(s)), Types.STRING()).sink_to(sink(doubled))
    env.execute("timestamps")
    assert written(kept) == [(i, BASE + i * 1_000) for i in range(8)]
    assert written(doubled) == [(2 * i, BASE + i * 1_000) for i in range(8)]

    from kindling.common.watermark_strategy import TimestampAssigner

    class FromValue(TimestampAssigner):
        def extract_timestamp(self, value, record_timestamp):
            return 5_000_000 + int(value)

    env = make_env()
    numbers(env).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(FromValue())).sink_to(sink(assigned))
    env.execute("assigned timestamps")
    assert written(assigned) == [(i, 5_000_000 + i) for i in range(8)]

    # elements without a timestamp: the producer's time
    plain = new_topic(1)
    env = make_env()
    env.from_collection(["x"]).sink_to(sink(plain))
    before = int(time.time() * 1000)
    env.execute("no timestamps")
    [(_, _, _, stamp)] = consume_all(kafka_broker, plain, 1, timestamps=True)
    assert before - 60_000 < stamp <= int(time.time() * 1000)


def test_topic_selector(spark, make_env, kafka_broker, new_topic):
    even, odd = new_topic(1), new_topic(1)
    serializer = KafkaRecordSerializationSchema.builder() \
        .set_topic_selector(lambda v: even if int(v) % 2 == 0 else odd) \
        .set_value_serialization_schema(SimpleStringSchema()).build()
    sink = KafkaSink.builder().set_bootstrap_servers(kafka_broker).set_record_serializer(serializer).build()
    env = make_env()
    env.from_collection([str(i) for i in range(8)]).sink_to(sink)
    env.execute("selector")
    assert sorted(v for _, _, v in consume_all(kafka_broker, even, 4)) == [b"0", b"2", b"4", b"6"]
    assert sorted(v for _, _, v in consume_all(kafka_broker, odd, 4)) == [b"1", b"3", b"5", b"7"]


def test_legacy_consumer_and_producer_unbounded(spark, make_env, kafka_broker, new_topic):
    """``env.add_source(FlinkKafkaConsumer(...))`` -> map -> ``add_sink(FlinkKafkaProducer(...))``:
    an unbounded job that picks up records produced while it runs."""
    source_topic, sink_topic = new_topic(2), new_topic(1)
    produce(kafka_broker, source_topic, [(i % 2, f"a{i}".encode(), None) for i in range(4)])
    props = {"bootstrap.servers": kafka_broker, "group.id": f"legacy-{uuid.uuid4().hex[:6]}",
             "auto.offset.reset": "earliest"}
    env = make_env()
    env.add_source(FlinkKafkaConsumer(source_topic, SimpleStringSchema(), props)) \
        .map(lambda s: s.upper(), output_type=Types.STRING()) \
        .add_sink(FlinkKafkaProducer(sink_topic, SimpleStringSchema(), {"bootstrap.servers": kafka_broker}))
    client = env.execute_async("legacy")
    try:
        first = consume_all(kafka_broker, sink_topic, 4, timeout_s=90)
        assert sorted(v for _, _, v in first) == [b"A0", b"A1", b"A2", b"A3"]
        produce(kafka_broker, source_topic, [(i % 2, f"b{i}".encode(), None) for i in range(4)])
        later = consume_all(kafka_broker, sink_topic, 8, timeout_s=60)
        assert sorted(v for _, _, v in later) == sorted([b"A0", b"A1", b"A2", b"A3", b"B0", b"B1", b"B2", b"B3"])
    finally:
        client.cancel()
        try:
            client.get_job_execution_result().result()
        except Exception:
            pass  # cancelled


def test_restart_from_checkpoint_with_exactly_once_loses_and_duplicates_nothing(spark, make_env, kafka_broker, new_topic,
                                                                               tmp_path):
    """An unbounded job is stopped and started again on the same checkpoint: it goes on from the
    offsets in Spark's checkpoint, and the exactly-once sink writes every record once."""
    source_topic, sink_topic = new_topic(2), new_topic(1)
    prefix = f"restart-{uuid.uuid4().hex[:6]}"

    def start():
        env = make_env(**{"execution.checkpointing.dir": str(tmp_path)})
        source = KafkaSource.builder().set_bootstrap_servers(kafka_broker).set_topics(source_topic) \
            .set_starting_offsets(KafkaOffsetsInitializer.earliest()) \
            .set_value_only_deserializer(SimpleStringSchema()).build()
        sink = KafkaSink.builder().set_bootstrap_servers(kafka_broker).set_record_serializer(
            KafkaRecordSerializationSchema.builder().set_topic(sink_topic)
            .set_value_serialization_schema(SimpleStringSchema()).build()) \
            .set_delivery_guarantee(DeliveryGuarantee.EXACTLY_ONCE).set_transactional_id_prefix(prefix).build()
        env.from_source(source, WatermarkStrategy.no_watermarks(), "Kafka").map(str.upper, Types.STRING()).sink_to(sink)
        return env.execute_async("restart")

    def stop(client):
        client.cancel()
        try:
            client.get_job_execution_result().result()
        except Exception:
            pass  # cancelled

    produce(kafka_broker, source_topic, [(i % 2, f"a{i}".encode(), None) for i in range(6)])
    client = start()
    try:
        assert len(consume_all(kafka_broker, sink_topic, 6, timeout_s=90)) == 6
    finally:
        stop(client)
    produce(kafka_broker, source_topic, [(i % 2, f"b{i}".encode(), None) for i in range(4)])
    client = start()
    try:
        values = sorted(v for _, _, v in consume_all(kafka_broker, sink_topic, 10, timeout_s=90,
                                                     isolation="read_committed"))
    finally:
        stop(client)
    assert values == sorted([f"A{i}".encode() for i in range(6)] + [f"B{i}".encode() for i in range(4)])


def test_topic_pattern_discovers_new_topics(spark, make_env, kafka_broker):
    """An unbounded source reading a topic pattern picks up a matching topic created while it runs
    (Tansu cannot add partitions to a topic, so discovery is tested with a new topic)."""
    from confluent_kafka.admin import AdminClient, NewTopic

    stem = f"disc-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": kafka_broker})

    def create(name):
        for future in admin.create_topics([NewTopic(name, 1, 1)]).values():
            future.result(10)

    create(f"{stem}-a")
    produce(kafka_broker, f"{stem}-a", [(0, b"a0", None), (0, b"a1", None)])
    source = KafkaSource.builder().set_bootstrap_servers(kafka_broker).set_topic_pattern(f"{stem}-.*") \
        .set_value_only_deserializer(SimpleStringSchema()).set_property("partition.discovery.interval.ms", "500") \
        .build()
    seen = []
    with make_env().from_source(source, WatermarkStrategy.no_watermarks(), "Kafka").execute_and_collect() as values:
        for value in values:
            seen.append(value)
            if len(seen) == 2:
                create(f"{stem}-b")
                produce(kafka_broker, f"{stem}-b", [(0, b"b0", None)])
            if len(seen) == 3:
                break
    assert sorted(seen) == ["a0", "a1", "b0"]


def test_unreachable_broker_fails_quickly(make_env, spark):
    source = KafkaSource.builder().set_bootstrap_servers("127.0.0.1:1").set_topics("nothing") \
        .set_value_only_deserializer(SimpleStringSchema()).set_bounded(KafkaOffsetsInitializer.latest()).build()
    started = time.monotonic()
    with pytest.raises(Exception, match="could not reach Kafka at 127.0.0.1:1"):
        list(make_env().from_source(source, WatermarkStrategy.no_watermarks(), "Kafka").execute_and_collect())
    assert time.monotonic() - started < 60


def test_builders_reject_incomplete_configuration():
    with pytest.raises(ValueError, match="set_bootstrap_servers"):
        KafkaSource.builder().set_topics("t").set_value_only_deserializer(SimpleStringSchema()).build()
    with pytest.raises(ValueError, match="exactly one of set_topics"):
        KafkaSource.builder().set_bootstrap_servers("h:1").set_value_only_deserializer(SimpleStringSchema()).build()
    with pytest.raises(ValueError, match="set_transactional_id_prefix"):
        KafkaSink.builder().set_bootstrap_servers("h:1").set_delivery_guarantee(DeliveryGuarantee.EXACTLY_ONCE) \
            .set_record_serializer(KafkaRecordSerializationSchema.builder().set_topic("t")
                                   .set_value_serialization_schema(SimpleStringSchema()).build()).build()
    with pytest.raises(ValueError, match="committed_offsets"):
        KafkaSource.builder().set_bootstrap_servers("h:1").set_topics("t") \
            .set_starting_offsets(KafkaOffsetsInitializer.committed_offsets()) \
            .set_value_only_deserializer(SimpleStringSchema()).build()


def test_bootstrap_servers_may_be_a_property():
    # as in Flink, where set_bootstrap_servers sets the property (PyFlink's Kafka examples set it so)
    source = KafkaSource.builder().set_properties({"bootstrap.servers": "h:1", "group.id": "g"}).set_topics("t") \
        .set_value_only_deserializer(SimpleStringSchema()).build()
    assert source._spec.bootstrap_servers == "h:1" and source._spec.properties == {"group.id": "g"}
    sink = KafkaSink.builder().set_property("bootstrap.servers", "h:2").set_record_serializer(
        KafkaRecordSerializationSchema.builder().set_topic("t").set_value_serialization_schema(SimpleStringSchema())
        .build()).build()
    assert sink._spec.bootstrap_servers == "h:2" and sink._spec.properties == {}


def test_partitions_are_placed_where_flinks_reader_subtasks_read_them():
    # KafkaSourceEnumerator.getSplitOwner: partition 0 at the subtask the Java hash of the topic
    # name picks (test_json_topic: 1 of 0..1, 2 of 0..3), the next ones in turn; a Spark partition's
    # index is its stage's subtask (modulo the parallelism), so the gaps are empty splits
    from kindling.spark.kafka import _by_reader, _Split, reader_subtask

    assert [reader_subtask("test_json_topic", p, 2) for p in range(3)] == [1, 0, 1]
    assert [reader_subtask("test_json_topic", p, 4) for p in range(3)] == [3, 0, 1]
    placed = _by_reader([_Split("test_json_topic", p, 0, 5) for p in range(3)], 2)
    assert [(s.partition, s.end) if s.end else None for s in placed] == [(1, 5), (0, 5), None, (2, 5)]
    placed = _by_reader([_Split("test_json_topic", 0, 0, 5)], 4)
    assert [s.end for s in placed] == [0, 0, 0, 5]


def test_a_missing_kafka_client_fails_when_the_job_is_built(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "confluent_kafka" else real(name, *a))
    with pytest.raises(ImportError, match=r"confluent-kafka.*pip install 'kindling-streams\[kafka\]'"):
        KafkaSource.builder().set_bootstrap_servers("h:1").set_topics("t") \
            .set_value_only_deserializer(SimpleStringSchema()).build()
    with pytest.raises(ImportError, match="confluent-kafka"):
        KafkaSink.builder().set_bootstrap_servers("h:1").build()
