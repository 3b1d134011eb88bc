"""Unbounded jobs across several micro-batches: Spark timers fire keys that got no new data."""
from __future__ import annotations

from collect_support import take  # tests/: on sys.path (tests/conftest.py)

from kindling.common import Duration, WatermarkStrategy
from kindling.datastream import KeyedProcessFunction
from kindling.datastream.connectors.file_system import FileSource, StreamFormat


class LastSeen(KeyedProcessFunction):
    def process_element(self, value, ctx):
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 1000)
        yield ("element", ctx.get_current_key(), ctx.timestamp())

    def on_timer(self, timestamp, ctx):
        yield ("timer", ctx.get_current_key(), timestamp, ctx.timer_service().current_watermark())



def test_timers_fire_across_micro_batches(env, tmp_path):
    source = (FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(tmp_path))
              .monitor_continuously(Duration.of_millis(100)).build())
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda line, _: int(line.split(",")[1]))
    lines = env.from_source(source, strategy, "lines")
    stream = lines.key_by(lambda line: line.split(",")[0]).process(LastSeen())
    (tmp_path / "1.txt").write_text("a,1000\nb,1500\n")
    with stream.execute_and_collect() as results:
        first = take(results, 2)
        assert sorted(first) == [("element", "a", 1000), ("element", "b", 1500)]
        # A later batch with only key c moves the watermark past a's and b's timers:
        # Spark fires them although a and b got no data.
        (tmp_path / "2.txt").write_text("c,5000\n")
        later = take(results, 3)
        assert ("element", "c", 5000) in later
        timers = sorted(o for o in later if o[0] == "timer")
        assert [t[:3] for t in timers] == [("timer", "a", 2000), ("timer", "b", 2500)]
        assert all(t[3] == 4999 for t in timers)


def test_processing_time_windows_fire_on_the_clock(env, tmp_path):
    from kindling.common import Time
    from kindling.datastream import TumblingProcessingTimeWindows

    source = (FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(tmp_path))
              .monitor_continuously(Duration.of_millis(100)).build())
    words = env.from_source(source, WatermarkStrategy.no_watermarks(), "words")
    counts = (words.map(lambda w: (w, 1)).key_by(lambda p: p[0])
              .window(TumblingProcessingTimeWindows.of(Time.milliseconds(300)))
              .reduce(lambda a, b: (a[0], a[1] + b[1])))
    (tmp_path / "1.txt").write_text("x\nx\ny\n")
    with counts.execute_and_collect() as results:
        # no watermark and no end of input: only Spark's processing-time timers can fire these windows
        got = sorted(take(results, 2))
    # one micro-batch has one processing time, so its elements share a window
    assert got == [("x", 2), ("y", 1)]
