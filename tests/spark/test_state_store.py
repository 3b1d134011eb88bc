"""Long lists across micro-batches: window contents and ListStates that outgrow a key's record
are kept in spilled segments (kindling.spark.state_store) and read back whole, in order."""
from __future__ import annotations

from collect_support import take  # tests/: on sys.path (tests/conftest.py)
import time

from kindling.common import Duration, Time, Types, WatermarkStrategy
from kindling.datastream import KeyedProcessFunction, ProcessWindowFunction, TumblingEventTimeWindows
from kindling.datastream.connectors.file_system import FileSource, StreamFormat
from kindling.datastream.state import ListStateDescriptor
from kindling.spark.state_store import SPILL_AT

PER_FILE = SPILL_AT + 10  # every file spills each key's list once more



def _write(directory, name, lines):
    tmp = directory / f".{name}"
    tmp.write_text("\n".join(lines) + "\n")
    tmp.rename(directory / name)


def _lines(keys, first, count, ts):
    return [f"{k},{i},{ts(i)}" for i in range(first, first + count) for k in keys]


def _write_and_read(results, directory, name, lines, after: int) -> int:
    """Writes a file and waits until a micro-batch after batch ``after`` has read it (so that the next
    file comes in a later one); returns that batch's id."""
    _write(directory, name, lines)
    deadline = time.time() + 300
    while time.time() < deadline:
        query = results._client._query
        for progress in query.recentProgress if query is not None else []:
            if progress.batchId > after and progress.numInputRows >= len(lines):
                return progress.batchId
        time.sleep(0.1)
    raise AssertionError(f"no micro-batch read {name} within 300 s")


class WholeWindow(ProcessWindowFunction):
    def process(self, key, context, elements):
        yield key, context.window().start, [int(e.split(",")[1]) for e in elements]


def test_window_contents_spilled_over_micro_batches_come_back_whole_and_in_order(env, tmp_path):
    env.set_parallelism(2)
    source = (FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(tmp_path))
              .monitor_continuously(Duration.of_millis(100)).build())
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda line, _: int(line.split(",")[2]))
    windows = (env.from_source(source, strategy, "lines")
               .key_by(lambda line: line.split(",")[0])
               .window(TumblingEventTimeWindows.of(Time.seconds(1000)))
               .process(WholeWindow()))
    with windows.execute_and_collect() as results:
        batch = -1
        for f in range(3):  # three micro-batches into the window [0, 1000 s)
            batch = _write_and_read(results, tmp_path, f"{f}.txt", _lines("ab", f * PER_FILE, PER_FILE, lambda i: i),
                                    batch)
        _write(tmp_path, "3.txt", _lines("ab", 10_000, 1, lambda i: 1_500_000))  # fires [0, 1000 s)
        first = sorted(take(results, 2))
        assert first == [(k, 0, list(range(3 * PER_FILE))) for k in "ab"]
        _write(tmp_path, "4.txt", _lines("ab", 20_000, 1, lambda i: 2_500_000))  # fires [1000, 2000 s)
        second = sorted(take(results, 2))
        assert second == [(k, 1_000_000, [10_000]) for k in "ab"]


class ListUntilFlush(KeyedProcessFunction):
    def open(self, runtime_context):
        self.seen = runtime_context.get_list_state(ListStateDescriptor("seen", Types.INT()))

    def process_element(self, value, ctx):
        key, n = value.split(",")[:2]
        if n == "flush":
            yield key, list(self.seen.get())
            self.seen.clear()
        else:
            self.seen.add(int(n))


def test_list_state_appended_over_micro_batches_reads_back_whole(env, tmp_path):
    env.set_parallelism(2)
    source = (FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(tmp_path))
              .monitor_continuously(Duration.of_millis(100)).build())
    flushed = (env.from_source(source, WatermarkStrategy.no_watermarks(), "lines")
               .key_by(lambda line: line.split(",")[0])
               .process(ListUntilFlush()))
    with flushed.execute_and_collect() as results:
        batch = -1
        for f in range(3):  # three micro-batches appending to each key's list
            batch = _write_and_read(results, tmp_path, f"{f}.txt", _lines("xy", f * PER_FILE, PER_FILE, lambda i: 0),
                                    batch)
        _write(tmp_path, "3.txt", ["x,flush,0", "y,flush,0"])
        assert sorted(take(results, 2)) == [(k, list(range(3 * PER_FILE))) for k in "xy"]
        _write(tmp_path, "4.txt", ["x,7,0", "x,flush,0"])
        assert take(results, 1) == [("x", [7])]
