"""Keyed state and timers on transformWithState.

Both sides read the same source: Kindling's Python data source (``kindling_source``) over
the sequence ``0 .. n-1`` as a stream with ``trigger(availableNow=True)``, and turn each
number into an event ``(key, timestamp, value)`` with the same Python function
(:func:`make_event`): Kindling in a ``map`` (typed output ``Types.TUPLE([LONG, LONG, LONG])``,
so events travel as three long columns), the hand-written side in a ``mapInArrow`` that
calls ``make_event`` per element and builds the same three long columns.

* ``keyed-reduce``: rolling ``key_by(key).reduce(sum_events)`` over 10,000 keys, one output per
  input (as Flink's rolling reduce), counted. Hand-written: ``groupBy("key").transformWithState``
  (row API, timeMode "None") with one ValueState per key holding the reduced event as three
  longs: read once per key per batch, ``sum_events`` per row, written back once, every rolling
  value emitted; counted in ``foreachBatch``.
* ``keyed-process-timer``: a KeyedProcessFunction counting elements per key in a ValueState
  and registering an event-time timer at ``timestamp + 1000`` per element; ``on_timer`` emits
  ``(key, count)``. Timestamps come from the event with
  ``WatermarkStrategy.for_bounded_out_of_orderness(200 ms)``. Kindling only (Spark has no
  equivalent of Flink's per-element watermark interleaving that a hand-written version could
  match result for result).

The helpers here (events, the source stream, the streaming run) are shared with ``windows.py``.
"""
from __future__ import annotations

import functools
import shutil
import tempfile
from typing import Callable, Iterator

import pyarrow as pa

from benchmarks.harness import PARALLELISM, Workload, kindling_configuration

RECORDS = 1_000_000
REDUCE_KEYS = 10_000
TIMER_KEYS = 10_000
OUT_OF_ORDERNESS_MS = 200
JITTER_MS = 150  # < OUT_OF_ORDERNESS_MS: no element is ever late
EVENTS_PER_MS = 10  # 1,000,000 events span 100 s of event time

EVENT_FIELDS = ("key", "ts", "value")


# -- events ----------------------------------------------------------------------------------

def event_time(i: int) -> int:
    """Event time of the i-th event: 10 events per ms, up to 150 ms out of order (deterministic)."""
    return i // EVENTS_PER_MS + 1_000 - (i * 7_919) % JITTER_MS


def _event_maker(keys: int) -> Callable[[int], tuple]:
    def make_event(i: int) -> tuple:
        return (i % keys, event_time(i), i)

    make_event.__name__ = f"make_event_{keys}"
    return make_event


make_event = _event_maker(REDUCE_KEYS)          # keyed-reduce
make_timer_event = _event_maker(TIMER_KEYS)     # keyed-process-timer


def sum_events(a: tuple, b: tuple) -> tuple:
    """The reduce function of both sides: the latest key and time, values summed."""
    return (a[0], b[1], a[2] + b[2])


def event_timestamp(event: tuple, record_timestamp: int) -> int:
    return event[1]


def event_type():
    from kindling.common import Types

    return Types.TUPLE([Types.LONG(), Types.LONG(), Types.LONG()])


def event_schema():
    from pyspark.sql.types import LongType, StructField, StructType

    return StructType([StructField(f, LongType()) for f in EVENT_FIELDS])


def events_mapper(maker: Callable[[int], tuple]) -> Callable:
    """The hand-written ``mapInArrow`` turning the sequence into events with ``maker``.

    The source's end-of-input control row (null ``f0``) is kept, with null columns, when
    ``keep_end`` rows are wanted downstream (the event-time side needs it to close windows)."""

    def to_events(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            events = [maker(i) for i in batch.column(0).to_pylist()]
            keys, ts, values = zip(*events) if events else ((), (), ())
            yield pa.RecordBatch.from_arrays([pa.array(keys, pa.int64()), pa.array(ts, pa.int64()),
                                              pa.array(values, pa.int64())], names=list(EVENT_FIELDS))

    return to_events


# -- the source, as a PySpark user reads it -----------------------------------------------------

def sequence_source_frame(spark, n: int):
    """Kindling's streaming source for ``generate_sequence(0, n - 1)``: columns ``f0`` (the value),
    ``__ts``, ``__wm`` and one end-of-input control row with null ``f0`` (``__ts`` = END_MARK)."""
    from kindling.common import Types
    from kindling.graph.specs import SequenceSourceSpec
    from kindling.spark.sources import FORMAT, KindlingSource, SourcePlan, encode_option

    spark.dataSource.register(KindlingSource)
    plan = SourcePlan(SequenceSourceSpec(start=0, end=n - 1), Types.LONG(), PARALLELISM, streaming=True)
    return spark.readStream.format(FORMAT).option("plan", encode_option(plan)).load()


def run_counting(df, keep_query: list | None = None) -> int:
    """Runs a streaming DataFrame with ``availableNow``, counting its rows in ``foreachBatch``."""
    counts = []
    checkpoint = tempfile.mkdtemp(prefix="bench-ckpt-")
    try:
        query = (df.writeStream
                 .foreachBatch(lambda batch, batch_id: counts.append(batch.count()))
                 .option("checkpointLocation", checkpoint)
                 .trigger(availableNow=True)
                 .start())
        query.awaitTermination()
        if query.exception() is not None:
            raise query.exception()
        if keep_query is not None:
            keep_query.append(query)
    finally:
        shutil.rmtree(checkpoint, ignore_errors=True)
    return sum(counts)


def kindling_env():
    from kindling.datastream import RuntimeExecutionMode, StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment(kindling_configuration())
    env.set_runtime_mode(RuntimeExecutionMode.STREAMING)
    env.set_parallelism(PARALLELISM)
    return env


def run_kindling(env, name: str, keep_client: list | None = None) -> int:
    """Runs a Kindling job to its end (``execute_async`` so that its streaming query can be read)."""
    client = env.execute_async(name)
    result = client.get_job_execution_result().result()
    if keep_client is not None:
        keep_client.append(client)
    return result.get_accumulator_result("records-written:DiscardingSink")


def state_figures(query) -> list[dict]:
    """Per micro-batch: the state operator's rows, memory and a few RocksDB metrics."""
    out = []
    for progress in query.recentProgress:
        for op in progress.stateOperators:
            custom = dict(op.customMetrics or {})
            out.append({
                "batch": progress.batchId,
                "input": progress.numInputRows,
                "rows": op.numRowsTotal,
                "updated": op.numRowsUpdated,
                "memory": op.memoryUsedBytes,
                "sst": custom.get("rocksdbSstFileSize"),
                "timers": custom.get("numRegisteredTimers"),
            })
    return out


def format_state(label: str, figures: list[dict]) -> str:
    lines = []
    for f in figures:
        lines.append(f"  {label:<28} batch {f['batch']}: {f['input']:>9,} input rows -> state rows {f['rows']:>7,}, "
                     f"memoryUsedBytes {f['memory']:>10,}, rocksdbSstFileSize {f['sst'] if f['sst'] is not None else '-'}"
                     + (f", timers {f['timers']}" if f["timers"] is not None else ""))
    return "\n".join(lines)


# -- keyed-reduce ---------------------------------------------------------------------------------

def kindling_reduce(spark, n: int) -> int:
    from kindling.datastream.connectors import DiscardingSink

    env = kindling_env()
    (env.generate_sequence(0, n - 1)
        .map(make_event, output_type=event_type())
        .key_by(lambda e: e[0])
        .reduce(sum_events)
        .sink_to(DiscardingSink()))
    return run_kindling(env, "bench-keyed-reduce")


def _rolling_reduce_processor():
    from pyspark.sql import Row
    from pyspark.sql.streaming.stateful_processor import StatefulProcessor

    class RollingReduce(StatefulProcessor):
        """One ValueState per key (the reduced event); read once, written once per key per batch."""

        def init(self, handle) -> None:
            self.state = handle.getValueState("acc", event_schema())

        def handleInputRows(self, key, rows, timerValues) -> Iterator[Row]:
            acc = tuple(self.state.get()) if self.state.exists() else None
            out = []
            for r in rows:
                event = (r[0], r[1], r[2])
                acc = event if acc is None else sum_events(acc, event)
                out.append(Row(key=acc[0], ts=acc[1], value=acc[2]))
            if acc is not None:
                self.state.update(acc)
            return iter(out)

        def close(self) -> None:
            pass

    return RollingReduce()


def handwritten_reduce(spark, n: int) -> int:
    events = (sequence_source_frame(spark, n)
              .where("f0 IS NOT NULL").select("f0")
              .mapInArrow(events_mapper(make_event), event_schema()))
    out = events.groupBy("key").transformWithState(_rolling_reduce_processor(), event_schema(), "Append", "None")
    return run_counting(out)


def _check_every_input(n: int, count: int) -> None:
    if count != n:
        raise AssertionError(f"expected {n} outputs (one per input), got {count}")


# -- keyed-process-timer -----------------------------------------------------------------------------

def _count_with_timer():
    from kindling.common import Types
    from kindling.datastream import KeyedProcessFunction
    from kindling.datastream.state import ValueStateDescriptor

    class CountWithTimer(KeyedProcessFunction):
        """Counts a key's elements; one event-time timer 1 s after each element emits the count."""

        def open(self, runtime_context):
            self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.LONG()))

        def process_element(self, value, ctx):
            self.count.update((self.count.value() or 0) + 1)
            ctx.timer_service().register_event_time_timer(ctx.timestamp() + 1000)

        def on_timer(self, timestamp, ctx):
            yield ctx.get_current_key(), self.count.value()

    return CountWithTimer()


def kindling_process_timer(spark, n: int) -> int:
    from kindling.common import Duration, Types, WatermarkStrategy
    from kindling.datastream.connectors import DiscardingSink

    env = kindling_env()
    strategy = (WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(OUT_OF_ORDERNESS_MS))
                .with_timestamp_assigner(event_timestamp))
    (env.generate_sequence(0, n - 1)
        .map(make_timer_event, output_type=event_type())
        .assign_timestamps_and_watermarks(strategy)
        .key_by(lambda e: e[0])
        .process(_count_with_timer(), output_type=Types.TUPLE([Types.LONG(), Types.LONG()]))
        .sink_to(DiscardingSink()))
    return run_kindling(env, "bench-keyed-process-timer")


@functools.lru_cache(maxsize=4)
def expected_timer_firings(n: int) -> int:
    """Distinct (key, timestamp + 1000) pairs: every distinct timer fires once."""
    return len({(i % TIMER_KEYS, event_time(i)) for i in range(n)})


def _check_timers(n: int, count: int) -> None:
    expected = expected_timer_firings(n)
    if count != expected:
        raise AssertionError(f"expected {expected} timer firings, got {count}")


WORKLOADS = [
    Workload("keyed-reduce", RECORDS, kindling_reduce, handwritten_reduce, target_ratio=0.9,
             description="rolling key_by.reduce(sum) over 10,000 keys, one output per input; STREAMING, "
                         "hand-written transformWithState with a ValueState per key",
             check=_check_every_input),
    Workload("keyed-process-timer", RECORDS, kindling_process_timer, None, target_ratio=None,
             description="KeyedProcessFunction: ValueState count + event-time timer at ts+1000 per element, "
                         "10,000 keys, bounded out-of-orderness 200 ms; Kindling only",
             check=_check_timers),
]
