"""The ``kafka`` table connector against the real broker the session starts (Tansu, the
``kafka_broker`` fixture): json, csv and raw values, key columns (``key.format``/``key.fields``),
the record timestamp as a metadata column, startup and bounded modes, delivery guarantees, and
event time from a WATERMARK over the partitions (each its own watermark). The source and sink
are the DataStream KafkaSource and KafkaSink (their restarts: tests/connectors/test_kafka_restart.py)."""
from __future__ import annotations

import json

import pytest

from kafka_support import consume_all, produce
from kindling.table.expressions import col, lit
from kindling.table.window import Tumble
from table_support import collected, quiet_t_env


def _kafka(topic: str, servers: str, extra: str = "") -> str:
    return f"'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{servers}'{extra}"


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_json_records_with_their_timestamps_to_csv_records_with_keys(spark, kafka_broker, new_topic, mode):
    source, sink = new_topic(2), new_topic(1)
    produce(kafka_broker, source, [(0, b'{"user": "a", "amount": 1.5}', 1000), (1, b'{"user": "b", "amount": 2}', 2000),
                                   (0, b'{"user": "a", "amount": 3, "extra": true}', 3000)])
    t_env = quiet_t_env(mode)
    t_env.execute_sql(f"""CREATE TABLE orders (`user` STRING, amount DOUBLE,
        ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL) WITH ({_kafka(source, kafka_broker)},
        'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')""")
    t_env.execute_sql(f"""CREATE TABLE doubled (`user` STRING, amount DOUBLE) WITH ({_kafka(sink, kafka_broker)},
        'key.format' = 'raw', 'key.fields' = 'user', 'value.format' = 'csv', 'value.fields-include' = 'EXCEPT_KEY',
        'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'tx-{sink}')""")
    rows = collected(t_env, "SELECT `user`, amount, ts FROM orders")
    assert [(u, a, t.to_epoch_milli()) for u, a, t in rows] == [("a", 1.5, 1000), ("a", 3.0, 3000), ("b", 2.0, 2000)]
    t_env.execute_sql("INSERT INTO doubled SELECT `user`, amount * 2 FROM orders").wait()
    records = consume_all(kafka_broker, sink, 3, isolation="read_committed")
    assert sorted((k, v) for _, k, v in records) == [(b"a", b"3.0"), (b"a", b"6.0"), (b"b", b"4.0")]


def test_startup_modes_and_bounds(spark, kafka_broker, new_topic):
    topic = new_topic(1)
    produce(kafka_broker, topic, [(0, str(i).encode(), None) for i in range(6)])
    t_env = quiet_t_env("batch")

    def read(name: str, options: str) -> list:
        t_env.execute_sql(f"CREATE TABLE {name} (v STRING) WITH ({_kafka(topic, kafka_broker)}, 'format' = 'raw', "
                          f"'scan.bounded.mode' = 'latest-offset'{options})")
        return [int(v) for v, in collected(t_env, f"SELECT * FROM {name}")]

    assert read("everything", "") == list(range(6))
    assert read("from_two", ", 'scan.startup.mode' = 'specific-offsets', "
                            "'scan.startup.specific-offsets' = 'partition:0,offset:2'") == [2, 3, 4, 5]
    assert read("to_three", ", 'scan.bounded.mode' = 'specific-offsets', "
                            "'scan.bounded.specific-offsets' = 'partition:0,offset:3'") == [0, 1, 2]
    assert read("none_new", ", 'scan.startup.mode' = 'latest-offset'") == []
    # group-offsets: the offsets a group committed (Kindling commits them after each micro-batch)
    assert read("grouped", ", 'properties.group.id' = 'g1', 'properties.auto.offset.reset' = 'earliest'") == \
        list(range(6))


def test_event_time_windows_over_kafka_partitions(spark, kafka_broker, new_topic):
    # partition 1 runs ahead in event time (each partition has its own watermark: the DataStream KafkaSource)
    topic = new_topic(2)
    records = [(1, json.dumps({"k": "x", "ts": f"2024-01-01 00:00:{s:02d}"}).encode(), None) for s in (10, 16, 22)]
    records += [(0, json.dumps({"k": "x", "ts": f"2024-01-01 00:00:{s:02d}"}).encode(), None) for s in (1, 3, 7)]
    produce(kafka_broker, topic, records)
    t_env = quiet_t_env("streaming")
    t_env.execute_sql(f"""CREATE TABLE clicks (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
        WITH ({_kafka(topic, kafka_broker)}, 'format' = 'json', 'scan.bounded.mode' = 'latest-offset')""")
    counts = t_env.from_path("clicks").window(Tumble.over(lit(5).seconds).on(col("ts")).alias("w")) \
        .group_by(col("w")).select(col("w").start.alias("start"), lit(1).count.alias("n")).to_pandas()
    assert {r.start.second: r.n for r in counts.itertuples()} == {0: 2, 5: 1, 10: 1, 15: 1, 20: 1}


def test_wrong_options_fail_naming_the_supported_ones(spark, kafka_broker):
    t_env = quiet_t_env()
    cases = {
        "'format' = 'json', 'scan.startup.mode' = 'newest'": "scan.startup.mode 'newest' is not one of",
        "'format' = 'avro'": "the format .avro. is not supported by Kindling yet; formats: canal-json, csv, json, raw",
        "'format' = 'json', 'json.strict' = 'true'": "Unsupported options for the 'json' format: json.strict",
        "'format' = 'json', 'scan.mode' = 'x'": "Unsupported options for the 'kafka' connector: scan.mode",
        "'format' = 'json', 'key.format' = 'raw'": "'key.format' needs 'key.fields'",
    }
    for i, (options, message) in enumerate(cases.items()):
        t_env.execute_sql(f"CREATE TABLE t{i} (v STRING) WITH ({_kafka('t', kafka_broker)}, {options})")
        with pytest.raises(ValueError, match=message):
            t_env.from_path(f"t{i}")
    t_env.execute_sql(f"CREATE TABLE counts (v STRING, n BIGINT) WITH ({_kafka('t', kafka_broker)}, 'format' = 'json')")
    t_env.create_temporary_view("w", t_env.from_elements([("a",)], ["v"]))
    with pytest.raises(ValueError, match="doesn't support consuming update and delete changes"):
        t_env.execute_sql("INSERT INTO counts SELECT v, COUNT(*) FROM w GROUP BY v")


def test_upsert_kafka_writes_and_reads_a_changelog(spark, kafka_broker, new_topic):
    topic = new_topic(1)
    t_env = quiet_t_env()
    t_env.execute_sql(f"""CREATE TABLE counts (word STRING, n BIGINT, PRIMARY KEY (word) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{kafka_broker}',
        'key.format' = 'raw', 'value.format' = 'json')""")
    t_env.create_temporary_view("words", t_env.from_elements([("a", 1), ("b", 2), ("a", 3)], ["word", "v"]))
    # a's sum passes the filter as 1, then leaves it as 4: its count is inserted, then deleted
    t_env.execute_sql("INSERT INTO counts SELECT word, COUNT(*) FROM (SELECT word, SUM(v) AS s FROM words GROUP BY "
                      "word) WHERE s < 3 GROUP BY word").wait()
    records = [(k, v) for _, k, v in consume_all(kafka_broker, topic, 3)]
    a, tombstone, b = (b"a", b'{"word":"a","n":1}'), (b"a", None), (b"b", b'{"word":"b","n":1}')
    assert len(records) == 3 and set(records) == {a, tombstone, b} and records.index(a) < records.index(tombstone)
    # read up to the three records (Tansu's "latest" offset falls short after a produce of several)
    t_env.execute_sql(f"""CREATE TABLE read_counts (word STRING, n BIGINT, PRIMARY KEY (word) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{kafka_broker}',
        'key.format' = 'raw', 'value.format' = 'json', 'scan.bounded.mode' = 'specific-offsets',
        'scan.bounded.specific-offsets' = 'partition:0,offset:3')""")
    with t_env.execute_sql("SELECT * FROM read_counts").collect() as rows:
        changes = sorted((str(r.get_row_kind()), *r) for r in rows)
    assert changes == [("+I", "a", 1), ("+I", "b", 1), ("-D", "a", 1)]


def test_upsert_kafka_filters_outside_the_key_in_the_normalization(spark, kafka_broker, new_topic):
    topic = new_topic(1)
    t_env = quiet_t_env()
    options = (f"'connector' = 'upsert-kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = "
               f"'{kafka_broker}', 'key.format' = 'raw', 'value.format' = 'json'")
    t_env.execute_sql(f"CREATE TABLE sums (word STRING, s BIGINT, PRIMARY KEY (word) NOT ENFORCED) WITH ({options})")
    t_env.create_temporary_view("words", t_env.from_elements([("a", 1), ("b", 2), ("a", 3)], ["word", "v"]))
    t_env.execute_sql("INSERT INTO sums SELECT word, SUM(v) FROM words GROUP BY word").wait()
    assert len(consume_all(kafka_broker, topic, 3)) == 3
    t_env.execute_sql(f"CREATE TABLE read_sums (word STRING, s BIGINT, PRIMARY KEY (word) NOT ENFORCED) WITH "
                      f"({options}, 'scan.bounded.mode' = 'specific-offsets', "
                      f"'scan.bounded.specific-offsets' = 'partition:0,offset:3')")
    # as PyFlink's ChangelogNormalize with the condition: a's sum 4 stops passing, which deletes a
    with t_env.execute_sql("SELECT word, s FROM read_sums WHERE s < 3").collect() as rows:
        changes = [(str(r.get_row_kind()), *r) for r in rows]
    assert sorted(changes) == [("+I", "a", 1), ("+I", "b", 2), ("-D", "a", 1)]
    assert changes.index(("+I", "a", 1)) < changes.index(("-D", "a", 1))


def test_upsert_kafka_normalizes_the_columns_a_filtered_query_reads():
    t_env = quiet_t_env()
    t_env.execute_sql("CREATE TABLE scores (name STRING, team STRING, score INT, PRIMARY KEY (name) NOT ENFORCED) "
                      "WITH ('connector' = 'upsert-kafka', 'topic' = 't', 'properties.bootstrap.servers' = "
                      "'127.0.0.1:9', 'key.format' = 'raw', 'value.format' = 'json')")
    plan = t_env.explain_sql("SELECT name FROM scores WHERE score > 6 AND name <> 'a'")
    # as Flink: the key's condition before the normalization, the other in it, over the columns read only
    normalize, narrowed, on_key = plan.splitlines()[2:5]
    assert "ChangelogNormalize(key=[name], condition=[(score > 6)])" in normalize
    assert "Calc(select=[name, score, __deleted])" in narrowed and "Calc(where=[(name !== 'a')])" in on_key
