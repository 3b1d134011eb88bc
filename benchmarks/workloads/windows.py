"""Event-time windows on transformWithState.

Events ``(key, timestamp, value)`` over 1,000 keys, 10 per ms of event time (1,000,000 events
span 100 s), up to 150 ms out of order, with
``WatermarkStrategy.for_bounded_out_of_orderness(200 ms)`` (so no event is ever late). Both
sides read the same source (Kindling's ``kindling_source`` sequence, ``availableNow``) and make
the events with the same function; the window function is the same ``sum_events`` reduce
(latest time, values summed). Results are counted.

* ``window-tumbling``: 1 s tumbling windows, reduce. Hand-written: ``groupBy("key")
  .transformWithState`` in EventTime mode over ``withWatermark(et, "200 milliseconds")``,
  per key ONE ValueState holding the open windows as arrays (window start, last time, sum),
  read once and written once per key per batch, and ONE Spark timer per key at the earliest
  window end; on the timer it emits every window whose end the watermark passed. That is the
  layout Kindling uses internally, written directly; to close the last windows of the
  bounded input it keeps the source's end-of-input control row as an event at END_MARK (as
  Kindling does), so that the watermark reaches the end.
* ``window-sliding``: 10 s windows sliding by 1 s, reduce; Kindling only.
* ``window-session``: event-time session windows, gap 500 ms, reduce; the events come in
  5 s bursts separated by 1 s pauses, so each key has one session per burst. Kindling only.

``window-tumbling`` also reports Spark's state after each micro-batch (state rows, memory,
RocksDB SST size) for two input sizes: the state must be bounded by the open windows (one
row per key), not grow with the events seen.
"""
from __future__ import annotations

import functools
from typing import Iterator

import pyarrow as pa

from benchmarks.harness import Workload
from benchmarks.workloads.keyed import (EVENT_FIELDS, OUT_OF_ORDERNESS_MS, _event_maker, event_schema, event_time,
                                        event_timestamp, event_type, format_state, kindling_env, run_counting,
                                        run_kindling, sequence_source_frame, state_figures, sum_events)

RECORDS = 1_000_000
KEYS = 1_000
TUMBLE_MS = 1_000
SLIDE_SIZE_MS = 10_000
SLIDE_MS = 1_000
SESSION_GAP_MS = 500
BURST_EVENTS = 50_000   # 5 s of event time
PAUSE_MS = 1_000        # between bursts (> the session gap)

make_window_event = _event_maker(KEYS)


def session_event_time(i: int) -> int:
    return event_time(i) + (i // BURST_EVENTS) * PAUSE_MS


def make_session_event(i: int) -> tuple:
    return (i % KEYS, session_event_time(i), i)


# -- Kindling ---------------------------------------------------------------------------------------

def _kindling_window(maker, assigner_factory, name: str, keep_client: list | None = None):
    def run(spark, n: int) -> int:
        from kindling.common import Duration, WatermarkStrategy
        from kindling.datastream.connectors import DiscardingSink

        env = kindling_env()
        strategy = (WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(OUT_OF_ORDERNESS_MS))
                    .with_timestamp_assigner(event_timestamp))
        (env.generate_sequence(0, n - 1)
            .map(maker, output_type=event_type())
            .assign_timestamps_and_watermarks(strategy)
            .key_by(lambda e: e[0])
            .window(assigner_factory())
            .reduce(sum_events)
            .sink_to(DiscardingSink()))
        return run_kindling(env, f"bench-{name}", keep_client)

    return run


def _tumbling():
    from kindling.common import Time
    from kindling.datastream.window import TumblingEventTimeWindows

    return TumblingEventTimeWindows.of(Time.milliseconds(TUMBLE_MS))


def _sliding():
    from kindling.common import Time
    from kindling.datastream.window import SlidingEventTimeWindows

    return SlidingEventTimeWindows.of(Time.milliseconds(SLIDE_SIZE_MS), Time.milliseconds(SLIDE_MS))


def _session():
    from kindling.common import Time
    from kindling.datastream.window import EventTimeSessionWindows

    return EventTimeSessionWindows.with_gap(Time.milliseconds(SESSION_GAP_MS))


kindling_tumbling = _kindling_window(make_window_event, _tumbling, "window-tumbling")
kindling_sliding = _kindling_window(make_window_event, _sliding, "window-sliding")
kindling_session = _kindling_window(make_session_event, _session, "window-session")


# -- hand-written tumbling window -----------------------------------------------------------------

def _window_events_with_end(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Sequence -> events (``make_window_event``); the control row (null f0) becomes a row with a
    null key at END_MARK, which lifts the watermark to the end of the input."""
    from kindling.spark.rows import END_MARK

    for batch in batches:
        keys, ts, values = [], [], []
        for i in batch.column(0).to_pylist():
            if i is None:
                keys.append(None)
                ts.append(END_MARK)
                values.append(None)
            else:
                k, t, v = make_window_event(i)
                keys.append(k)
                ts.append(t)
                values.append(v)
        yield pa.RecordBatch.from_arrays([pa.array(keys, pa.int64()), pa.array(ts, pa.int64()),
                                          pa.array(values, pa.int64())], names=list(EVENT_FIELDS))


def _tumbling_processor():
    from pyspark.sql import Row
    from pyspark.sql.streaming.stateful_processor import StatefulProcessor
    from pyspark.sql.types import ArrayType, LongType, StructField, StructType

    state_schema = StructType([StructField("starts", ArrayType(LongType())),
                               StructField("ts", ArrayType(LongType())),
                               StructField("values", ArrayType(LongType())),
                               StructField("timer", LongType())])

    class TumblingReduce(StatefulProcessor):
        """Per key: the open windows in one ValueState (arrays), one timer at the earliest window end."""

        def init(self, handle) -> None:
            self.handle = handle
            self.state = handle.getValueState("windows", state_schema)

        def _load(self):
            if not self.state.exists():
                return {}, None
            starts, ts, values, timer = self.state.get()
            return {s: (t, v) for s, t, v in zip(starts, ts, values)}, timer

        def _store(self, windows: dict, timer) -> None:
            wanted = min(windows) + TUMBLE_MS - 1 if windows else None
            if wanted != timer:
                if timer is not None:
                    self.handle.deleteTimer(timer)
                if wanted is not None:
                    self.handle.registerTimer(wanted)
            if windows:
                starts = sorted(windows)
                self.state.update((starts, [windows[s][0] for s in starts], [windows[s][1] for s in starts], wanted))
            else:
                self.state.clear()

        def _fire(self, key, windows: dict, watermark: int) -> list:
            out = []
            for start in sorted(windows):
                if start + TUMBLE_MS - 1 > watermark:
                    break
                t, v = windows.pop(start)
                out.append(Row(key=key, ts=t, value=v))
            return out

        def handleInputRows(self, key, rows, timerValues) -> Iterator[Row]:
            k = key[0]
            if k is None:  # the end-of-input row: only moves the watermark
                for _ in rows:
                    pass
                return iter(())
            watermark = timerValues.getCurrentWatermarkInMs()
            windows, timer = self._load()
            for r in rows:
                t = r[1]
                start = t - t % TUMBLE_MS
                if start + TUMBLE_MS - 1 <= watermark:
                    continue  # late: dropped, as Flink's window operator does
                acc = windows.get(start)
                if acc is None:
                    windows[start] = (t, r[2])
                else:
                    _, _, value = sum_events((k, acc[0], acc[1]), (k, t, r[2]))
                    windows[start] = (t, value)
            out = self._fire(k, windows, watermark)
            self._store(windows, timer)
            return iter(out)

        def handleExpiredTimer(self, key, timerValues, expiredTimerInfo) -> Iterator[Row]:
            windows, _ = self._load()
            out = self._fire(key[0], windows, timerValues.getCurrentWatermarkInMs())
            self._store(windows, None)  # Spark removed the expired timer
            return iter(out)

        def close(self) -> None:
            pass

    return TumblingReduce()


def handwritten_tumbling(spark, n: int, keep_query: list | None = None) -> int:
    from pyspark.sql import functions as F

    events = (sequence_source_frame(spark, n).select("f0")
              .mapInArrow(_window_events_with_end, event_schema())
              .withColumn("et", F.timestamp_millis("ts"))
              .withWatermark("et", f"{OUT_OF_ORDERNESS_MS} milliseconds")
              .select(*EVENT_FIELDS))  # et only drives the watermark (END_MARK is no Python datetime)
    out = events.groupBy("key").transformWithState(_tumbling_processor(), event_schema(), "Append", "EventTime")
    return run_counting(out, keep_query)


# -- expected results -------------------------------------------------------------------------------

@functools.lru_cache(maxsize=8)
def expected_tumbling(n: int) -> int:
    return len({(i % KEYS, event_time(i) // TUMBLE_MS) for i in range(n)})


@functools.lru_cache(maxsize=8)
def expected_sliding(n: int) -> int:
    per = SLIDE_SIZE_MS // SLIDE_MS
    last_windows = {(i % KEYS, event_time(i) // SLIDE_MS) for i in range(n)}
    return len({(k, w - j) for k, w in last_windows for j in range(per)})


@functools.lru_cache(maxsize=8)
def expected_sessions(n: int) -> int:
    by_key: dict = {}
    for i in range(n):
        by_key.setdefault(i % KEYS, []).append(session_event_time(i))
    sessions = 0
    for times in by_key.values():
        times.sort()
        end = None
        for t in times:
            if end is None or t >= end:
                sessions += 1
            end = t + SESSION_GAP_MS if end is None else max(end, t + SESSION_GAP_MS)
    return sessions


def _checker(expected):
    def check(n: int, count: int) -> None:
        if count != expected(n):
            raise AssertionError(f"expected {expected(n)} window results, got {count}")

    return check


# -- state boundedness --------------------------------------------------------------------------------

STATE_SIZES = (200_000, 1_000_000)


def tumbling_state_notes(spark, n: int) -> str:
    """Runs the tumbling workload for two input sizes and reports Spark's state after each batch."""
    lines = ["Spark state of the transformWithState operator after each micro-batch "
             f"({KEYS:,} keys; batch 0 reads every event, the next batch fires the end of input):"]
    for size in STATE_SIZES:
        clients: list = []
        _kindling_window(make_window_event, _tumbling, "window-tumbling-state", clients)(spark, size)
        lines.append(format_state(f"Kindling, {size:,} events", state_figures(clients[0]._query)))
        queries: list = []
        handwritten_tumbling(spark, size, queries)
        lines.append(format_state(f"hand-written, {size:,} events", state_figures(queries[0])))
    return "\n".join(lines)


WORKLOADS = [
    Workload("window-tumbling", RECORDS, kindling_tumbling, handwritten_tumbling, target_ratio=1.0,
             description="1 s tumbling event-time windows, reduce(sum), 1,000 keys, out-of-orderness 200 ms; "
                         "hand-written TWS with one ValueState and one timer per key (target also >= 100k rec/s)",
             check=_checker(expected_tumbling), notes=tumbling_state_notes),
    Workload("window-sliding", RECORDS, kindling_sliding, None, target_ratio=None,
             description="10 s windows sliding by 1 s, reduce(sum), 1,000 keys; Kindling only",
             check=_checker(expected_sliding)),
    Workload("window-session", RECORDS, kindling_session, None, target_ratio=None,
             description="event-time session windows, gap 500 ms, 5 s bursts, reduce(sum), 1,000 keys; Kindling only",
             check=_checker(expected_sessions)),
]
