"""Watermarks across parallel inputs (Flink's rule: an operator's watermark is the minimum over
its input channels), end to end on Spark.

The test session runs Spark with 2 shuffle partitions (tests/conftest.py), so each keyed
operator has 2 partitions while the sources below are read as 4 splits (parallelism 4).
"""
from __future__ import annotations

from collect_support import take  # tests/: on sys.path (tests/conftest.py)

from kindling.common import Duration, Time, Types, WatermarkStrategy
from kindling.common.watermark_strategy import TimestampAssigner
from kindling.datastream import KeyedProcessFunction, ProcessWindowFunction
from kindling.datastream.connectors.file_system import FileSource, StreamFormat
from kindling.datastream.connectors.number_seq import NumberSequenceSource
from kindling.datastream.window import TumblingEventTimeWindows

SPEED = [10, 40, 90, 250]  # ms of event time per element in the splits of 0-99, 100-199, 200-299, 300-399


class BySplitSpeed(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return (value % 100) * SPEED[value // 100]


class Count(ProcessWindowFunction):
    def process(self, key, context, elements):
        yield key, context.window().start, len(list(elements))


# Recorded from PyFlink 2.3 (apache-flink 2.3, local, parallelism 4) running the same program
# (NumberSequenceSource(0, 399), assign_timestamps_and_watermarks, 5 s tumbling windows):
# every one of the 400 elements is counted, none is late.
PYFLINK_COUNTS = [
    (0, 0, 93), (0, 5000, 21), (0, 10000, 6), (0, 15000, 7), (0, 20000, 7),
    (1, 0, 92), (1, 5000, 21), (1, 10000, 7), (1, 15000, 7), (1, 20000, 6),
    (2, 0, 91), (2, 5000, 22), (2, 10000, 7), (2, 15000, 6), (2, 20000, 7),
]


def test_splits_at_different_speeds_hold_the_watermark_at_their_minimum(env):
    # Kindling's per-element emission makes the fast splits' watermarks run far ahead inside
    # the one micro-batch: with the maximum over splits, the slow splits' elements were late.
    env.get_configuration().set_boolean("kindling.watermark.per-element", True)
    env.set_parallelism(4)
    strategy = (WatermarkStrategy.for_monotonous_timestamps().with_idleness(Duration.of_seconds(1))
                .with_timestamp_assigner(BySplitSpeed()))
    numbers = env.from_source(NumberSequenceSource(0, 399), WatermarkStrategy.no_watermarks(), "numbers") \
        .assign_timestamps_and_watermarks(strategy)
    counts = (numbers.key_by(lambda n: n % 3, key_type=Types.LONG())
              .window(TumblingEventTimeWindows.of(Time.seconds(5))).process(Count()))
    out = sorted(counts.execute_and_collect())
    assert sum(c for _, _, c in out) == 400  # no element dropped as late
    assert out == PYFLINK_COUNTS


class PassOn(KeyedProcessFunction):
    def process_element(self, value, ctx):
        yield value


def test_a_keyed_operator_is_a_channel_of_the_next(env):
    # Every element reaches the window behind the first keyed operator before that operator's
    # watermark passes it: all 400 are counted (as in Flink, whatever the interleaving).
    env.get_configuration().set_boolean("kindling.watermark.per-element", True)
    env.set_parallelism(4)
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(BySplitSpeed())
    numbers = env.from_source(NumberSequenceSource(0, 399), WatermarkStrategy.no_watermarks(), "numbers") \
        .assign_timestamps_and_watermarks(strategy)
    counts = (numbers.key_by(lambda n: n % 3).process(PassOn())
              .key_by(lambda n: n % 2).window(TumblingEventTimeWindows.of(Time.seconds(5))).process(Count()))
    assert sorted(counts.execute_and_collect()) == [
        (0, 0, 138), (0, 5000, 32), (0, 10000, 10), (0, 15000, 10), (0, 20000, 10),
        (1, 0, 138), (1, 5000, 32), (1, 10000, 10), (1, 15000, 10), (1, 20000, 10)]


def test_a_slow_file_holds_the_watermark_and_idle_keys_fire_once_all_channels_pass(env, tmp_path):
    env.get_configuration().set_boolean("kindling.watermark.per-element", True)
    env.set_parallelism(4)
    source = (FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(tmp_path))
              .monitor_continuously(Duration.of_millis(100)).build())
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda line, _: int(line.split(",")[1]))
    lines = env.from_source(source, strategy, "lines")
    counts = (lines.key_by(lambda line: line.split(",")[0])
              .window(TumblingEventTimeWindows.of(Time.seconds(1))).process(Count()))
    # Two files (splits) in the first micro-batch: the fast one's watermark reaches 8999 while
    # the slow one is at 1199; the slow file's elements of key k are not late.
    (tmp_path / "a_fast.txt").write_text("k,1000\nk,3000\nk,5000\nk,7000\nidle,8000\nk,9000\n")
    (tmp_path / "b_slow.txt").write_text("k,1100\nk,1200\n")
    with counts.execute_and_collect() as results:
        first = sorted(take(results, 5))
        assert first == [("idle", 8000, 1), ("k", 1000, 3), ("k", 3000, 1), ("k", 5000, 1), ("k", 7000, 1)]
        # k's window [9000, 10000) is open; a later file with another key moves every channel past
        # it: Spark fires k's window although k gets no element.
        (tmp_path / "c_later.txt").write_text("other,12000\n")
        assert take(results, 1) == [("k", 9000, 1)]
