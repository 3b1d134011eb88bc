"""State cost as a window fills: per-batch time and bytes written, per micro-batch.

A keyed process window of 60 s (``ProcessWindowFunction`` over the window's elements, so the
window holds every element until it fires) over 1,000 keys, fed 5 elements per key per
micro-batch (one file per micro-batch, ``maxFilesPerTrigger=1``; each element an 80-character
string), each micro-batch one second of event time: the window fills for 60 micro-batches, fires, and the next one starts filling.

Both sides run the same runtime ``WindowOperator`` inside the same transformWithState
processor; only the way a key's state is kept in Spark differs:

* ``before``: the whole KeyState pickled as one blob in one ValueState, rewritten every
  micro-batch (what ``kindling.spark.keyed`` did);
* ``after``: ``kindling.spark.state_store.KeyStateStore``: the record in one ValueState, the
  window's elements moved into ListState segments every ``SPILL_AT`` elements (appended, read
  only when the window fires).

The two queries run side by side on one session, so that both see the same machine load. The
curve printed is, per micro-batch as the window fills: its wall time (``foreachBatch``), the
time the processor spent loading and storing key state (summed over its tasks), and the bytes
written to Spark state. For ``after`` both stay flat as the window fills; for ``before`` they
grow with the window.

Run alone: ``.venv/bin/python benchmarks/workloads/state_growth.py [batches]``.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from typing import Any, Iterator, Optional

KEYS = 1_000
PER_KEY = 5           # elements per key per micro-batch
WINDOW_MS = 60_000
BATCH_MS = 1_000      # event time covered by one micro-batch
BATCHES = 75
PAYLOAD = "p" * 64    # elements are 80-character strings, a small event record

_operators: dict[str, Any] = {}


def _write_inputs(directory: str, batches: int) -> None:
    for b in range(batches):
        lines = []
        for k in range(KEYS):
            for j in range(PER_KEY):
                ts = b * BATCH_MS + (k * 7 + j * 199) % BATCH_MS
                lines.append(json.dumps({"k": k, "ts": ts, "v": "event-%09d-%s" % (b * PER_KEY + j, PAYLOAD)}))
        with open(os.path.join(directory, "batch-%05d.json" % b), "w") as f:
            f.write("\n".join(lines) + "\n")


class _Counting:
    """A Spark state handle that adds the bytes it is given to an accumulator."""

    def __init__(self, inner, written):
        self._inner = inner
        self._written = written

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def update(self, row):
        self._written.add(len(row[0]))
        self._inner.update(row)

    def put(self, rows):
        self._written.add(sum(len(r[1]) for r in rows))
        self._inner.put(rows)

    def appendList(self, rows):
        self._written.add(sum(len(r[1]) for r in rows))
        self._inner.appendList(rows)


class _BlobStore:
    """The single-blob layout: a key's whole KeyState in one ValueState, rewritten each batch."""

    def __init__(self, handle):
        from kindling.spark.state_store import RECORD_SCHEMA

        self.record = handle.getValueState("kindling", RECORD_SCHEMA)

    def load(self):
        from kindling.runtime.key_state import KeyState

        if self.record.exists():
            blob, timer = self.record.get()
            return KeyState.from_bytes(blob), timer
        return KeyState(), None

    def save(self, state, timer) -> None:
        self.record.update((state.to_bytes(), timer))

    def clear(self) -> None:
        self.record.clear()


def _store(handle, store, state, timer) -> None:
    if state.is_empty():
        if timer is not None:
            handle.deleteTimer(timer)
        store.clear()
        return
    wanted = state.next_event_timer()
    if wanted != timer:
        if timer is not None:
            handle.deleteTimer(timer)
        if wanted is not None:
            handle.registerTimer(wanted)
    store.save(state, wanted)


def _processor(layout: str, written, state_time):
    from pyspark.sql import Row
    from pyspark.sql.streaming.stateful_processor import StatefulProcessor

    class WindowProcessor(StatefulProcessor):
        def init(self, handle) -> None:
            from kindling.spark.state_store import KeyStateStore, spillable_lists

            op = _operators.get(layout)
            if op is None:
                op = _operators[layout] = _window_operator()
                op.open()
            self.op = op
            self.handle = handle
            if layout == "before":
                self.store = _BlobStore(handle)
            else:
                self.store = KeyStateStore(handle, spillable_lists(op))
                self.store.segments = _Counting(self.store.segments, written)
            self.store.record = _Counting(self.store.record, written)

        def _rows(self, outputs) -> Iterator[Row]:
            for _tag, value, _ts in outputs:
                yield Row(k=value[0], n=value[1])

        def handleInputRows(self, key, rows, timerValues) -> Iterator[Row]:
            elements = [(r.v, r.ts, None) for r in rows]
            t0 = time.perf_counter()
            state, timer = self.store.load()
            t1 = time.perf_counter()
            wm = _watermark(timerValues)
            out = list(self.op.process(key[0], state, elements, wm, wm, int(time.time() * 1000)))
            t2 = time.perf_counter()
            _store(self.handle, self.store, state, timer)
            state_time.add(t1 - t0 + time.perf_counter() - t2)
            yield from self._rows(out)

        def handleExpiredTimer(self, key, timerValues, expiredTimerInfo) -> Iterator[Row]:
            t0 = time.perf_counter()
            state, _ = self.store.load()
            t1 = time.perf_counter()
            out = list(self.op.on_timers(key[0], state, _watermark(timerValues), int(time.time() * 1000)))
            t2 = time.perf_counter()
            _store(self.handle, self.store, state, None)
            state_time.add(t1 - t0 + time.perf_counter() - t2)
            yield from self._rows(out)

        def close(self) -> None:
            pass

    return WindowProcessor()


def _watermark(timer_values) -> int:
    from kindling.runtime.task_info import MIN_WATERMARK

    wm = timer_values.getCurrentWatermarkInMs()
    return wm if wm and wm > 0 else MIN_WATERMARK


def _window_operator():
    from kindling.datastream.functions import ProcessWindowFunction
    from kindling.datastream.window import TumblingEventTimeWindows
    from kindling.runtime.window.window_operator import CONTENTS_LIST, WindowOperator

    class CountElements(ProcessWindowFunction):
        def process(self, key, context, elements):
            yield key, len(elements)

    return WindowOperator(TumblingEventTimeWindows.of(WINDOW_MS), None, CONTENTS_LIST, None, CountElements())


def run_layouts(spark, layouts: tuple, batches: int = BATCHES) -> dict:
    """Runs ``batches`` micro-batches for each layout ("before", "after"), the queries side by
    side so that both see the same machine load; returns ``{layout: (window results, curve)}``
    with curve ``[(batch, seconds, state seconds, bytes written)]``: the batch's wall time, the
    time spent loading and storing key state in it (summed over tasks), and the bytes written
    to Spark state."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StructField, StructType

    work = tempfile.mkdtemp(prefix="kindling-state-growth-")
    try:
        src = os.path.join(work, "in")
        os.makedirs(src)
        _write_inputs(src, batches)
        out_schema = StructType([StructField("k", LongType()), StructField("n", LongType())])
        runs = {}
        for layout in layouts:
            written = spark.sparkContext.accumulator(0)
            state_time = spark.sparkContext.accumulator(0.0)
            df = (spark.readStream.schema("k long, ts long, v string").option("maxFilesPerTrigger", 1).json(src)
                  .withColumn("et", F.timestamp_millis(F.col("ts"))).withWatermark("et", "1 millisecond")
                  .select("k", "ts", "v"))
            result = df.groupBy("k").transformWithState(_processor(layout, written, state_time), out_schema,
                                                        "Append", "EventTime")
            curve: list = []
            results = [0]

            def each_batch(batch_df, batch_id, written=written, state_time=state_time, curve=curve,
                           results=results) -> None:
                w0, s0 = written.value, state_time.value
                start = time.perf_counter()
                results[0] += batch_df.count()
                curve.append((batch_id, time.perf_counter() - start, state_time.value - s0, written.value - w0))

            q = (result.writeStream.foreachBatch(each_batch)
                 .option("checkpointLocation", os.path.join(work, "ck-" + layout))
                 .trigger(availableNow=True).start())
            runs[layout] = (q, results, curve)
        for q, _, _ in runs.values():
            q.awaitTermination()
        return {layout: (results[0], curve) for layout, (q, results, curve) in runs.items()}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def format_curves(before: list, after: list, every: int = 5) -> str:
    """The two per-batch curves side by side, one line every ``every`` batches."""
    lines = ["state growth: 60 s process window, %d keys, %d elements/key/batch (one batch = %d ms of event time)"
             % (KEYS, PER_KEY, BATCH_MS),
             "times: batch wall ms / ms spent loading+storing state (summed over tasks); KB written to Spark state",
             "batch | held/key | before: batch ms  state ms  KB written | after: batch ms  state ms  KB written",
             "------+----------+------------------------------------+-----------------------------------"]
    by = [{b: rest for b, *rest in curve} for curve in (before, after)]
    batches = sorted(set(by[0]) | set(by[1]))
    for batch in batches:
        if batch % every and batch != batches[-1]:
            continue
        held = PER_KEY * ((batch % (WINDOW_MS // BATCH_MS)) + 1)
        cells = []
        for side in by:
            r = side.get(batch)
            cells.append("%15s %9s %11s" % (("%.0f" % (r[0] * 1000), "%.0f" % (r[1] * 1000), "%.0f" % (r[2] / 1024))
                                            if r else ("-", "-", "-")))
        lines.append("%5d | %8d | %s | %s" % (batch, held, cells[0], cells[1]))
    for name, curve in (("before", before), ("after", after)):
        for lo, hi in ((5, 15), (45, 58)):
            part = curve[lo:hi]
            if part:
                wall = sorted(r[1] for r in part)[len(part) // 2] * 1000
                state = sorted(r[2] for r in part)[len(part) // 2] * 1000
                kb = sum(r[3] for r in part) / len(part) / 1024
                lines.append("%-6s batches %2d-%2d (%3d-%3d elements/key): median batch %6.0f ms, state %6.0f ms, "
                             "mean %5.0f KB written" % (name, lo, hi - 1, PER_KEY * (lo + 1), PER_KEY * hi,
                                                        wall, state, kb))
    return "\n".join(lines)


def _after(spark, records: int) -> int:
    n, _ = run_layouts(spark, ("after",), max(2, records // (KEYS * PER_KEY)))["after"]
    return n


def _notes(spark, records: int) -> str:
    runs = run_layouts(spark, ("before", "after"), max(2, records // (KEYS * PER_KEY)))
    return format_curves(runs["before"][1], runs["after"][1])


def _workloads() -> list:
    from benchmarks.harness import Workload

    return [Workload("state-growth", KEYS * PER_KEY * BATCHES, _after, None, target_ratio=None,
                     description="60 s process window, 1,000 keys, 5 elements/key/batch: per-batch time "
                                 "and state bytes written as the window fills (spilled segments vs one blob)",
                     notes=_notes)]


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
WORKLOADS = _workloads()


def main(argv: Optional[list] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    batches = int(argv[0]) if argv else BATCHES
    from benchmarks.harness import spark_session

    spark = spark_session()
    start = time.perf_counter()
    runs = run_layouts(spark, ("before", "after"), batches)
    print("before: %d window results, after: %d; %.1f s" % (runs["before"][0], runs["after"][0],
                                                             time.perf_counter() - start), flush=True)
    print(format_curves(runs["before"][1], runs["after"][1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
