"""PyFlink's own Kafka examples (``examples/datastream/connectors/kafka_*.py`` of the apache-flink
wheel, read from it where it is installed, never copied here) on Kindling against the test broker,
changed only where they cannot stay as they are: ``pyflink`` -> ``kindling`` in the imports, the
test broker's address for their ``localhost:9092``, and their reading job bounded at the offsets
their writing job left (as written it reads forever; Tansu's "latest" offset falls short after a
produce request of several records, see kafka_support.py). Their ``main`` runs whole, ``add_jars``
of Flink's connector jars included, on an environment of parallelism 2 (PyFlink's local default is
the number of cores).

PyFlink cannot run them here (the Kafka connector jar is not in the wheel, and Maven Central is not
reachable), so what they must write and print is derived, not recorded: the records' bytes are what
PyFlink 2.3's own serialization schemas return for these rows when called in its JVM (flink-json,
flink-csv, RowFieldExtractorSchema; Avro's is the record's Avro binary encoding); a printed line is
PyFlink's ``print()`` of the element (a row as ``+I[1,hi]``: DataStream._align_output_type formats
rows in Python) after the ``n> `` of the reader subtask Flink's KafkaSource gives the topic's one
partition (KafkaSourceEnumerator.getSplitOwner: from the Java hash of the topic name; 2 of 2 for
the JSON, CSV and Avro topics, 1 for the byte-array one). Each topic is created first as a broker
with Kafka's defaults auto-creates it (one partition); the row-field-extractor example's with the
three partitions it asks for.
"""
from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter

import pytest
from kafka_support import consume_all, create_topic

from kindling.datastream import StreamExecutionEnvironment
from kindling.datastream.connectors.kafka import KafkaOffsetsInitializer, KafkaTopicPartition

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "datastream"))
from remote_model_inference_driver import example_path  # noqa: E402

EXAMPLES = example_path(os.path.join("examples", "datastream", "connectors"))
pytestmark = pytest.mark.skipif(EXAMPLES is None,
                                reason="the examples are part of apache-flink, which is not installed here")
START = ".set_starting_offsets(KafkaOffsetsInitializer.earliest())"
ROWS = [(1, "hi"), (2, "hello"), (3, "hi"), (4, "hello"), (5, "hi"), (6, "hello"), (6, "hello")]
COUNTRIES = [(1, "USA"), (2, "Canada"), (3, "Germany")]
JSON_TEXTS = [json.dumps({"id": i, "country": c}) for i, c in COUNTRIES]

# example -> (its topic, the records' values, what print() writes after the prefix, the prefix)
FORMATS = {
    "kafka_json_format.py": ("test_json_topic", [b'{"f0":%d,"f1":"%s"}' % (i, s.encode()) for i, s in ROWS],
                             [f"+I[{i},{s}]" for i, s in ROWS], "2> "),
    "kafka_csv_format.py": ("test_csv_topic", [b"%d,%s\n" % (i, s.encode()) for i, s in ROWS],
                            [f"+I[{i},{s}]" for i, s in ROWS], "2> "),
    # Avro: the int zig-zag encoded (2i), the string's length zig-zag encoded, then its bytes
    "kafka_avro_format.py": ("test_avro_topic", [bytes([2 * i, 2 * len(s)]) + s.encode() for i, s in ROWS],
                             [f"+I[{i},{s}]" for i, s in ROWS], "2> "),
    "kafka_bytearray_format.py": ("test_bytearray_topic", [t.encode() for t in JSON_TEXTS], JSON_TEXTS, "1> "),
}


def _run_main(name: str, servers: str, monkeypatch, make_env, written_offsets=None) -> None:
    """Runs the example's ``__main__`` block as described above; ``written_offsets()`` gives the
    offsets its reading job stops at."""
    path = os.path.join(EXAMPLES, name)
    with open(path) as f:
        source = f.read()
    assert "localhost:9092" in source and (written_offsets is None or START in source), f"{name} changed"
    source = re.sub(r"\bpyflink\b", "kindling", source).replace("localhost:9092", servers)
    source = source.replace(START, START + ".set_bounded(written_offsets())")
    env = make_env()
    monkeypatch.setattr(StreamExecutionEnvironment, "get_execution_environment",
                        staticmethod(lambda configuration=None: env))
    namespace = {"__name__": "__main__", "__file__": path, "written_offsets": written_offsets}
    exec(compile(source, path, "exec"), namespace)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FORMATS))
def test_format_example_writes_and_prints_what_pyflink_does(name, spark, make_env, kafka_broker, monkeypatch, capsys):
    topic, values, printed, prefix = FORMATS[name]
    create_topic(kafka_broker, 1, topic)
    written = []

    def written_offsets():
        written.extend(consume_all(kafka_broker, topic, len(values)))
        counts = Counter(partition for partition, _, _ in written)
        return KafkaOffsetsInitializer.offsets({KafkaTopicPartition(topic, p): n for p, n in counts.items()})

    _run_main(name, kafka_broker, monkeypatch, make_env, written_offsets)
    # the writing job's records (two sink subtasks in Flink: their order in the partition is not defined)
    assert sorted(value for _, _, value in written) == sorted(values)
    assert {key for _, key, _ in written} == {None}
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["start writing data to kafka", "start reading data from kafka"]
    assert sorted(out[2:]) == sorted(prefix + line for line in printed)


@pytest.mark.slow
def test_row_field_extractor_example_writes_keyed_records_where_kafka_s_java_producer_would(
        spark, make_env, kafka_broker, monkeypatch):
    topic = create_topic(kafka_broker, 3, "row-extractor-example")
    _run_main("kafka_row_field_extractor_example.py", kafka_broker, monkeypatch, make_env)
    records = sorted(consume_all(kafka_broker, topic, 4), key=lambda record: record[0])  # offset order kept
    # field 0 the key, field 1 the value; keys go to the partition of their murmur2 hash (Kafka's
    # default partitioner, which Flink's KafkaSink leaves the choice to): user-002 -> 0, the others -> 2
    assert records == [
        (0, b"user-002", b'{"type": "view", "item": "phone", "timestamp": "2024-01-07T10:30:00"}'),
        (2, b"user-001", b'{"type": "purchase", "item": "laptop", "price": 999.99}'),
        (2, b"user-001", b'{"type": "add_to_cart", "item": "mouse", "quantity": 2}'),
        (2, b"user-003", b'{"type": "purchase", "item": "keyboard", "price": 79.99}'),
    ]
