"""A checkpointed job reads a bounded input in several micro-batches (at most
``kindling.source.max-records-per-batch`` records each) and still gives every event-time window:
a split's watermark moves only as far as the split has been read, and a split ends (at
MAX_WATERMARK) only in the micro-batch that reads it to its end. The job of the "Trust" issue, on
every bounded source kind, end to end on Spark with parallelism 2: a keyed tumbling window counting
elements into a FileSink, splits whose event time advances at different speeds, each split's event
time increasing (so in Flink no element is late), the windows checked against a direct count."""
from __future__ import annotations

import os
from collections import Counter

import pytest

from kindling.common import Time, Types, WatermarkStrategy
from kindling.common.serialization import Encoder, SimpleStringSchema
from kindling.common.watermark_strategy import TimestampAssigner
from kindling.datastream import ProcessWindowFunction
from kindling.datastream.connectors.datagen import DataGeneratorSource
from kindling.datastream.connectors.file_system import FileSink, FileSource, StreamFormat
from kindling.datastream.connectors.number_seq import NumberSequenceSource
from kindling.datastream.window import TumblingEventTimeWindows

COUNT = 2000
LIMIT = 700  # records per micro-batch: at least COUNT // LIMIT micro-batches (3 of the 2,000 records)
KEYS = 3
WINDOW_MS = 100


def event_time(value: int) -> int:
    """Splits of the first and second half (parallelism 2): the second's event time runs 3 times
    as fast; both start at 0, so the second's elements would be late against its own watermark if
    it were taken for the first's."""
    return value if value < COUNT // 2 else (value - COUNT // 2) * 3


class EventTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return event_time(value)


class CountWindow(ProcessWindowFunction):
    def process(self, key, context, elements):
        yield f"{key},{context.window().start},{sum(1 for _ in elements)}"


def expected_windows(values) -> Counter:
    return Counter({(v % KEYS, event_time(v) - event_time(v) % WINDOW_MS): 0 for v in values}) + \
        Counter((v % KEYS, event_time(v) - event_time(v) % WINDOW_MS) for v in values)


def _files(directory) -> list[str]:
    found = []
    for root, dirs, names in os.walk(directory):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]
        found += [os.path.join(root, n) for n in names if not n.startswith((".", "_"))]
    return found


def run_windows(env, tmp_path, stream) -> tuple[Counter, int]:
    """Counts ``stream`` (ints) per key and window into a FileSink; the windows written and how
    many micro-batches the job committed."""
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime())
    (stream.assign_timestamps_and_watermarks(strategy)
     .key_by(lambda v: v % KEYS, key_type=Types.INT())
     .window(TumblingEventTimeWindows.of(Time.milliseconds(WINDOW_MS)))
     .process(CountWindow(), Types.STRING())
     .sink_to(FileSink.for_row_format(str(tmp_path / "out"), Encoder.simple_string_encoder()).build()))
    env.execute("windows")
    lines = [line for path in _files(tmp_path / "out") for line in open(path).read().splitlines()]
    windows = Counter()
    for line in lines:
        key, start, count = (int(x) for x in line.split(","))
        assert (key, start) not in windows, f"window {key},{start} written twice"
        windows[(key, start)] = count
    return windows, len(os.listdir(tmp_path / "checkpoints" / "windows" / "commits"))


@pytest.fixture
def checkpointed(make_env, tmp_path):
    # per-element watermarks: each split's watermark runs as far ahead as its elements allow
    env = make_env(**{"kindling.source.max-records-per-batch": str(LIMIT), "kindling.watermark.per-element": "true"})
    env.enable_checkpointing(1000)
    env.get_checkpoint_config().set_checkpoint_storage_dir(str(tmp_path / "checkpoints"))
    return env


def test_a_sequence_read_in_micro_batches_gives_every_window(checkpointed, tmp_path):
    numbers = checkpointed.from_source(NumberSequenceSource(0, COUNT - 1), WatermarkStrategy.no_watermarks(), "numbers")
    windows, batches = run_windows(checkpointed, tmp_path, numbers)
    assert batches >= COUNT // LIMIT
    assert windows == expected_windows(range(COUNT))


@pytest.mark.slow
def test_generated_records_read_in_micro_batches_give_every_window(checkpointed, tmp_path):
    source = DataGeneratorSource(lambda i: i, COUNT, Types.LONG())
    windows, batches = run_windows(checkpointed, tmp_path, checkpointed.from_source(
        source, WatermarkStrategy.no_watermarks(), "generated"))
    assert batches >= COUNT // LIMIT
    assert windows == expected_windows(range(COUNT))


@pytest.mark.slow
def test_a_collection_read_in_micro_batches_gives_every_window(checkpointed, tmp_path):
    values = list(range(COUNT // 2))  # one split (Flink reads a collection with parallelism 1)
    windows, batches = run_windows(checkpointed, tmp_path, checkpointed.from_collection(values, Types.LONG()))
    assert batches >= len(values) // LIMIT
    assert windows == expected_windows(values)


def test_files_read_in_micro_batches_give_every_window(checkpointed, tmp_path):
    # three files read two at a time (a file waits for a free reader, as in Flink), each in several
    # parts: 0-999 (event time 0-999) beside 1000-1499 (0-1497: 3 times as fast), then, once that
    # one ended, 1500-1999 (1500-2997: after what the first two reach)
    (tmp_path / "in").mkdir()
    for i, (lo, hi) in enumerate([(0, 1000), (1000, 1500), (1500, COUNT)]):
        (tmp_path / "in" / f"{i}.txt").write_text("".join(f"{v}\n" for v in range(lo, hi)))
    source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(tmp_path / "in")).build()
    lines = checkpointed.from_source(source, WatermarkStrategy.no_watermarks(), "files")
    windows, batches = run_windows(checkpointed, tmp_path, lines.map(int, Types.LONG()))
    assert batches >= COUNT // LIMIT
    assert windows == expected_windows(range(COUNT))


@pytest.mark.slow
def test_kafka_partitions_read_in_micro_batches_give_every_window(checkpointed, tmp_path, kafka_broker, new_topic):
    from kafka_support import produce

    from kindling.datastream.connectors.kafka import KafkaOffsetsInitializer, KafkaSource

    topic = new_topic(3)
    # the first half in partition 0, the second (event time 3 times as fast) in partitions 1 and 2
    values = range(0, COUNT, 2)
    produce(kafka_broker, topic, [(0 if v < COUNT // 2 else 1 + v // 2 % 2, str(v).encode(), None) for v in values])
    source = (KafkaSource.builder().set_bootstrap_servers(kafka_broker).set_topics(topic)
              .set_starting_offsets(KafkaOffsetsInitializer.earliest()).set_bounded(KafkaOffsetsInitializer.latest())
              .set_value_only_deserializer(SimpleStringSchema()).set_property("session.timeout.ms", "1000").build())
    records = checkpointed.from_source(source, WatermarkStrategy.no_watermarks(), "kafka")
    windows, batches = run_windows(checkpointed, tmp_path, records.map(int, Types.LONG()))
    assert batches >= len(values) // LIMIT
    assert windows == expected_windows(values)
