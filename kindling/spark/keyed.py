"""Keyed operators on Spark: ``groupBy(key).transformWithState`` in STREAMING mode,
``groupBy(key).applyInArrow`` in BATCH mode, both wrapping one runtime ``KeyedOperator``
and the stateless chain that follows it.

State: all of a key's Flink state and timers live in one ``KeyState``, stored as one binary
Spark ValueState (read once and written once per key per micro-batch), with one Spark timer
per key at its earliest pending timer.

Time: Spark's watermark is global and advances between micro-batches. Spark watches the
event time with a delay of ``out_of_orderness + 1`` ms, so its watermark equals Flink's
(``max_ts - out_of_orderness - 1``). The event-time column drives only the watermark: it is
not among the operator's input columns, so Spark drops no late element before the operator
(Flink's process functions see late elements; windows decide themselves what is late).
Elements carry the watermark their source partition had emitted before them (``__wm``),
which the operator replays within the batch. A bounded source ends with a control row
(``__wm == END_MARK``) that lifts the watermark to the end, so every event-time timer fires
before the job ends.
"""
from __future__ import annotations

import pickle
import time
from typing import Any, Iterator

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.streaming.stateful_processor import StatefulProcessor, StatefulProcessorHandle
from pyspark.sql.types import BinaryType, LongType, StructField, StructType

from kindling.graph.transformation import ChainedTransformation, KeyedTransformation, SourceTransformation
from kindling.runtime.batch import sort_for_batch
from kindling.runtime.key_state import KeyState
from kindling.runtime.task_info import MAX_WATERMARK, MIN_WATERMARK, TaskInfo
from kindling.spark.stage import ELEMENTS, END_KEY, END_MARK, KEY, TS, WM, StagePlan, StageRun

EVENT_TIME = "__et"
END_THRESHOLD = END_MARK - 10**12
STATE_SCHEMA = StructType([StructField("state", BinaryType()), StructField("timer", LongType())])

_operators: dict[str, Any] = {}


def _opened_operator(uid: str, operator: Any, task_info: TaskInfo) -> Any:
    """One opened operator per worker process (Spark re-creates processors per task)."""
    op = _operators.get(uid)
    if op is None:
        op = operator
        op.open(task_info)
        _operators[uid] = op
    return op


def _flink_watermark(spark_watermark: int) -> int:
    if spark_watermark <= 0:
        return MIN_WATERMARK
    if spark_watermark >= END_THRESHOLD:
        return MAX_WATERMARK
    return spark_watermark


class _DictRow(dict):
    """An output row for transformWithState, which asks rows for ``asDict``."""

    def asDict(self, recursive: bool = False) -> dict:
        return self


class KeyedStageProcessor(StatefulProcessor):
    """The transformWithState processor of one keyed operator and its chained successors."""

    def __init__(self, uid: str, operator: Any, plan: StagePlan, time_mode: str, late_records: Any = None):
        self.uid = uid
        self.operator = operator
        self.plan = plan
        self.time_mode = time_mode
        self.late_records = late_records  # a Spark accumulator of late elements the operator dropped

    def init(self, handle: StatefulProcessorHandle) -> None:
        from pyspark import TaskContext

        ctx = TaskContext.get()
        partition = ctx.partitionId() if ctx is not None else 0
        self.handle = handle
        self.state = handle.getValueState("kindling", STATE_SCHEMA)
        info = TaskInfo(self.operator.name, partition, self.plan.parallelism,
                        job_parameters=self.plan.job_parameters)
        self.op = _opened_operator(self.uid, self.operator, info)
        self.stage = StageRun(self.plan, partition)

    # -- state round trip --------------------------------------------------------------
    def _load(self) -> tuple[KeyState, int | None]:
        if self.state.exists():
            blob, timer = self.state.get()
            return KeyState.from_bytes(blob), timer
        return KeyState(), None

    def _store(self, state: KeyState, timer: int | None) -> None:
        if state.is_empty():
            if timer is not None:
                self.handle.deleteTimer(timer)
            self.state.clear()
            return
        if self.time_mode == "EventTime":
            wanted = state.next_event_timer()
            if wanted is not None:
                wanted = min(wanted, END_MARK)
        else:
            candidates = [t for t in (state.next_processing_timer(), state.ttl_expiry) if t is not None]
            wanted = min(candidates) if candidates else None
        if wanted != timer:
            if timer is not None:
                self.handle.deleteTimer(timer)
            if wanted is not None:
                self.handle.registerTimer(wanted)
        self.state.update((state.to_bytes(), wanted))

    def _rows(self, outputs) -> Iterator[_DictRow]:
        stage = self.stage
        for tag, value, ts in outputs:
            stage.push_output(tag, value, ts, None)
        count_late(self.op, self.late_records)
        for batch in stage.flush():
            for row in batch.to_pylist():
                yield _DictRow(row)

    @staticmethod
    def _decode(rows) -> list:
        """A key's elements ``(value, timestamp, stamp)`` from its rows (one per upstream task)."""
        elements: list = []
        for row in rows:
            elements.extend(pickle.loads(row[1]))
        return elements

    # -- Spark callbacks ----------------------------------------------------------------
    def handleInputRows(self, key, rows, timerValues) -> Iterator[_DictRow]:
        key_bytes = key[0]
        if key_bytes == END_KEY:
            # End of a bounded input: once the watermark reaches the end, this key's timer
            # fires after every other key's (see handleExpiredTimer), forwarding the end.
            for _ in rows:
                pass
            if not self.state.exists():
                self.handle.registerTimer(END_MARK)
                self.state.update((b"", END_MARK))
            return
        elements = self._decode(rows)
        k = pickle.loads(key_bytes)
        state, timer = self._load()
        watermark = _flink_watermark(timerValues.getCurrentWatermarkInMs())
        now = _processing_time(timerValues)
        yield from self._rows(self.op.process(k, state, elements, watermark, watermark, now))
        self._store(state, timer)

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo) -> Iterator[_DictRow]:
        key_bytes = key[0]
        watermark = _flink_watermark(timerValues.getCurrentWatermarkInMs()) if self.time_mode == "EventTime" else MIN_WATERMARK
        if key_bytes == END_KEY:
            self.state.clear()
            for batch in self.stage.end_of_input():
                for row in batch.to_pylist():
                    yield _DictRow(row)
            return
        k = pickle.loads(key_bytes)
        state, _ = self._load()
        now = _processing_time(timerValues)
        if watermark == MAX_WATERMARK:
            outputs = self.op.end_of_input(k, state, now)
        else:
            outputs = self.op.on_timers(k, state, watermark, now)
        yield from self._rows(outputs)
        self._store(state, None)  # Spark removes the expired timer itself

    def close(self) -> None:
        pass


def count_late(operator: Any, accumulator: Any) -> None:
    """Adds the late elements ``operator`` dropped since the last call to ``accumulator``."""
    take = getattr(operator, "take_late_records_dropped", None)
    if take is not None and accumulator is not None:
        dropped = take()
        if dropped:
            accumulator.add(dropped)


def _processing_time(timer_values) -> int:
    now = timer_values.getCurrentProcessingTimeInMs()
    return now if now and now > 0 else int(time.time() * 1000)


def _out_of_orderness(node) -> int | None:
    """The largest bounded out-of-orderness of the watermark strategies feeding ``node``
    (None when no strategy with advancing watermarks is upstream)."""
    found: list[int] = []
    stack = [node]
    seen = set()
    while stack:
        n = stack.pop()
        if n.id in seen:
            continue
        seen.add(n.id)
        if isinstance(n, ChainedTransformation) and n.operation == "timestamps":
            strategy = n.function
            if strategy.kind == "bounded":
                found.append(strategy.max_out_of_orderness_ms)
            elif strategy.kind == "monotonous":
                found.append(0)
            continue
        if isinstance(n, KeyedTransformation):
            found.append(0)
            continue
        stack.extend(n.inputs)
    return max(found) if found else None


def keyed_stage_frame(compiler, node: KeyedTransformation, input_df: DataFrame, plan: StagePlan) -> DataFrame:
    """The Spark plan of a keyed operator followed by its chained stage."""
    operator = node.operator_factory(node.name)
    uid = f"{compiler.job_id}/{node.id}"
    key_by = node.inputs[0]
    late_records = compiler.spark.sparkContext.accumulator(0)
    compiler.late_records[node.name] = late_records
    if not compiler.streaming:
        return input_df.select(KEY, ELEMENTS).groupBy(KEY).applyInArrow(
            _batch_function(uid, operator, plan, late_records), plan.schema())
    delay = _out_of_orderness(key_by)
    bounded = all(n.source.bounded for n in _sources_of(node))
    if delay is None and not bounded:
        time_mode = "ProcessingTime"
        df = input_df
    else:
        time_mode = "EventTime"
        spark_delay = (delay if delay is not None else 0) + 1
        # Without watermarks (a bounded input with no strategy) only the end row moves Spark's watermark.
        element_ms = F.lit(0) if delay is None else F.coalesce(F.col(TS), F.lit(0))
        event_ms = F.when(F.col(WM) == F.lit(END_MARK), F.lit(END_MARK)).otherwise(element_ms)
        df = input_df.withColumn(EVENT_TIME, F.timestamp_millis(event_ms)).withWatermark(
            EVENT_TIME, f"{spark_delay} milliseconds")
    processor = KeyedStageProcessor(uid, operator, plan, time_mode, late_records)
    # The event-time column only drives Spark's watermark; it stays out of the operator's rows.
    df = df.select(KEY, ELEMENTS)
    return df.groupBy(KEY).transformWithState(processor, plan.schema(), "Append", time_mode)


def _sources_of(node) -> list[SourceTransformation]:
    out, stack, seen = [], [node], set()
    while stack:
        n = stack.pop()
        if n.id in seen:
            continue
        seen.add(n.id)
        if isinstance(n, SourceTransformation):
            out.append(n)
        stack.extend(n.inputs)
    return out


def _batch_function(uid: str, operator: Any, plan: StagePlan, late_records: Any):
    """applyInArrow body for BATCH mode: a key's elements sorted by timestamp, then every timer."""

    def run(table: pa.Table) -> pa.Table:
        from pyspark import TaskContext

        ctx = TaskContext.get()
        partition = ctx.partitionId() if ctx is not None else 0
        info = TaskInfo(operator.name, partition, plan.parallelism, job_parameters=plan.job_parameters)
        op = _opened_operator(uid, operator, info)
        key = pickle.loads(table.column(KEY)[0].as_py())
        elements = sort_for_batch((e[0], e[1]) for blob in table.column(ELEMENTS).to_pylist()
                                  for e in pickle.loads(blob))
        stage = StageRun(plan, partition)
        for tag, value, ts in op.process_key_batch(key, KeyState(), elements, int(time.time() * 1000)):
            stage.push_output(tag, value, ts, None)
        count_late(op, late_records)
        batches = list(stage.flush())
        if not batches:
            return stage.empty_table()
        return pa.Table.from_batches(batches)

    return run
