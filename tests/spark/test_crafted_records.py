"""Records crafted to look like a Kindling error payload never run code: every format and source
that quotes a record in its error (CSV, JSON, Avro, Kafka records, text files, a user function
quoting its element) fails the job with an error naming the real problem, and the canary the
crafted pickle would create (a directory, made by ``os.mkdir`` when unpickled) never appears,
neither in the driver nor in a worker. See kindling/runtime/errors.py and docs/security.md."""
from __future__ import annotations

import base64
import json
import os
import uuid

import pytest

from kindling.common import RestartStrategies, Types
from kindling.runtime.errors import MARKER_BEGIN, MARKER_END, UserFunctionError


@pytest.fixture
def canary():
    """A path in /tmp (short, so that a payload fits the 100 bytes an Avro error quotes) that the
    crafted pickle creates when anything unpickles it; removed afterwards."""
    path = f"/tmp/kc{uuid.uuid4().hex[:6]}"
    yield path
    if os.path.isdir(path):
        os.rmdir(path)


def crafted(canary: str) -> str:
    """What an attacker writes into a record: the error marker around a pickle that calls
    ``os.mkdir(canary)`` (hand-written protocol 0, as small as it gets), once in the layout of
    an unauthenticated payload and once with a made-up MAC in place of the job's."""
    pickled = base64.b64encode(b"cos\nmkdir\n(S'%s'\ntR." % canary.encode()).decode()
    forged = base64.b64encode(json.dumps({"operator": "x", "traceback": "", "element": None, "position": None,
                                          "cause": pickled}).encode()).decode()
    return f"{MARKER_BEGIN}{pickled}{MARKER_END} {MARKER_BEGIN}{forged}:{'0' * 64}{MARKER_END}"


def _fails(run, canary: str, problem: str) -> BaseException:
    with pytest.raises(Exception) as info:
        run()
    assert problem in str(info.value)
    assert not os.path.exists(canary), "a crafted record was unpickled"
    return info.value


def test_a_csv_field_read_as_int(spark, tmp_path, canary):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.csv").write_text(f"1,ann\n{crafted(canary)},bo\n")
    t_env = _table_env("streaming")
    t_env.execute_sql(f"CREATE TABLE src (id INT, name STRING) WITH ('connector' = 'filesystem', "
                      f"'path' = '{tmp_path}/in', 'format' = 'csv')")
    error = _fails(lambda: collected(t_env, "SELECT id, name FROM src"), canary, "ParseError: cannot read CSV record")
    assert "org.apache.spark" not in str(error)  # the check's message alone, not Spark's JVM stack


def test_a_json_field_read_as_int(spark, tmp_path, canary):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.json").write_text(json.dumps({"id": crafted(canary)}) + "\n")
    t_env = _table_env("batch")
    t_env.execute_sql(f"CREATE TABLE src (id INT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/in', "
                      "'format' = 'json')")
    _fails(lambda: collected(t_env, "SELECT id FROM src"), canary, "ParseError: cannot read JSON record")


def test_a_text_file_line_quoted_by_a_user_map(env, tmp_path, canary):
    from kindling.datastream.connectors.file_system import FileSource, StreamFormat

    (tmp_path / "lines.txt").write_text(f"1\n{crafted(canary)}\n3\n")
    env.set_parallelism(1)
    env.enable_checkpointing(1000)  # the micro-batch path, where an element's source position is known
    env.set_restart_strategy(RestartStrategies.no_restart())
    source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(tmp_path)).build()
    ds = env.from_source(source, _no_watermarks(), "lines").map(int, output_type=Types.INT()).name("parse")
    error = _fails(lambda: _drain(ds), canary, "invalid literal for int()")
    assert isinstance(error, UserFunctionError) and error.operator_name == "parse"
    assert MARKER_BEGIN in error.element and "lines.txt" in error.position  # the element, where it was read
    assert isinstance(error.__cause__, ValueError)


def test_a_keyed_function_quoting_its_element_in_its_message(any_env, canary):
    from kindling.datastream.functions import KeyedProcessFunction

    class Refuse(KeyedProcessFunction):
        def process_element(self, value, ctx):
            if value != "fine":
                raise ValueError(f"cannot handle {value}")
            yield value

    any_env.set_parallelism(2)
    ds = any_env.from_collection(["fine", crafted(canary)], Types.STRING()).key_by(len).process(Refuse()).name("refuse")
    error = _fails(lambda: _drain(ds), canary, "cannot handle")
    assert isinstance(error, UserFunctionError) and error.operator_name == "refuse" and MARKER_BEGIN in error.element
    assert isinstance(error.__cause__, ValueError) and str(error.cause).startswith("cannot handle ")


def test_an_event_time_at_a_control_rows_mark_leaves_an_element(make_env):
    """A row is a control row by its watermark stamp, and a control row's channel column is
    unpickled: an element whose stamp data made equal to a mark (event time 2**52 ms) must stay an
    element, not have its channel (a file name, for a file source) unpickled, nor end the input."""
    from kindling.common import Duration, WatermarkStrategy
    from kindling.common.watermark_strategy import TimestampAssigner

    class Second(TimestampAssigner):
        def extract_timestamp(self, value, record_timestamp):
            return value[1]

    env = make_env(**{"kindling.watermark.per-element": "true", "kindling.bounded.one-step": "false"})
    env.set_parallelism(1)
    pairs = Types.TUPLE([Types.INT(), Types.LONG()])
    stamped = env.from_collection([(1, 1000), (2, 2**52), (3, 2**52 + 1), (4, 2**52 + 2)], pairs) \
        .assign_timestamps_and_watermarks(WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(0))
                                          .with_timestamp_assigner(Second()))
    ds = stamped.union(env.from_collection([(9, 1)], pairs)).map(lambda v: v[0], output_type=Types.INT())
    assert sorted(_drain(ds)) == [1, 2, 3, 4, 9]


@pytest.fixture
def crafted_topic(kafka_broker, new_topic, canary):
    from kafka_support import produce

    topic = new_topic(1)
    produce(kafka_broker, topic, [(0, crafted(canary).encode(), None)])
    return topic


def _kafka_source(servers: str, topic: str, deserializer):
    from kindling.datastream.connectors.kafka import KafkaOffsetsInitializer, KafkaSource

    return KafkaSource.builder().set_bootstrap_servers(servers).set_topics(topic) \
        .set_starting_offsets(KafkaOffsetsInitializer.earliest()).set_bounded(KafkaOffsetsInitializer.latest()) \
        .set_value_only_deserializer(deserializer).build()


@pytest.mark.parametrize("deserializer", ["json", "avro"])
def test_a_kafka_record_through_json_and_avro(env, kafka_broker, crafted_topic, canary, deserializer):
    from kindling.datastream.formats.avro import AvroRowDeserializationSchema
    from kindling.datastream.formats.json import JsonRowDeserializationSchema

    if deserializer == "json":
        schema = JsonRowDeserializationSchema.builder().type_info(
            Types.ROW_NAMED(["id"], [Types.INT()])).build()
        problem = "malformed JSON row"
    else:
        schema = AvroRowDeserializationSchema(avro_schema_string=json.dumps(
            {"type": "record", "name": "r", "fields": [{"name": "a", "type": ["null", "string"]}]}))
        problem = "malformed Avro record"
    ds = env.from_source(_kafka_source(kafka_broker, crafted_topic, schema), _no_watermarks(), "Kafka")
    _fails(lambda: _drain(ds), canary, problem)


def test_a_kafka_table_record(spark, kafka_broker, crafted_topic, canary):
    t_env = _table_env("batch")
    t_env.execute_sql(f"CREATE TABLE src (id INT) WITH ('connector' = 'kafka', 'topic' = '{crafted_topic}', "
                      f"'properties.bootstrap.servers' = '{kafka_broker}', 'format' = 'csv', "
                      "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')")
    _fails(lambda: collected(t_env, "SELECT id FROM src"), canary, "could not deserialize the Kafka record")


def _table_env(mode: str):
    from kindling.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode() if mode == "batch"
                                    else EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("kindling.progress", "false")
    return t_env


def collected(t_env, query: str) -> list:
    with t_env.execute_sql(query).collect() as rows:
        return list(rows)


def _no_watermarks():
    from kindling.common import WatermarkStrategy

    return WatermarkStrategy.no_watermarks()


def _drain(ds) -> list:
    with ds.execute_and_collect() as results:
        return list(results)
