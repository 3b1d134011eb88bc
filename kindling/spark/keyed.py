"""Keyed operators on Spark: ``groupBy(key).transformWithState`` in STREAMING mode,
``groupBy(key).applyInArrow`` in BATCH mode, both wrapping one runtime ``KeyedOperator``
and the stateless chain that follows it.

State: all of a key's Flink state and timers live in one ``KeyState``, stored as one record
(read once and written once per key per micro-batch; long lists spill into segments read only
when the list is read: ``kindling.spark.state_store``), with one Spark timer per key at its
earliest pending timer.

Time (docs/architecture.md, "Time across parallel inputs"): the operator's watermark is the
minimum over its input channels (source splits, upstream keyed operators). Each partition's
first key is its control key (sorted before every element's key): its rows are the batch's
channel reports, folded into a :class:`~kindling.runtime.channels.ChannelTable` kept in the
control key's state; every other key of the partition then replays its elements in one
valid Flink order with the watermark each element saw (``Replay``). Spark's own watermark
only fires the event-time timers of keys without elements; it must never run ahead of the
channels' minimum, so element rows give it no event time: only control rows do, the end of a
bounded input (``END_MARK``) and the watermark the runner hands back to the sources
(``WatermarkHandOff``). The event-time column is not among the operator's input columns, so
Spark drops no element before the operator (windows decide themselves what is late).
Processing-time timers of an event-time operator in an unbounded job fire on wake rows the
driver sends each key when its timer is due (``TimerWakes``; docs/architecture.md).
"""
from __future__ import annotations

import pickle
import time
from typing import TYPE_CHECKING, Any, Iterator

from pyspark.sql.streaming.stateful_processor import StatefulProcessor, StatefulProcessorHandle

from kindling.runtime.channels import ChannelTable, Replay
from kindling.runtime.key_state import KeyState
from kindling.runtime.task_info import MAX_WATERMARK, MIN_WATERMARK, TaskInfo
from kindling.spark.spine import is_carry_key
from kindling.spark.state_store import KeyStateStore, spillable_lists
from kindling.spark.key_placement import key_subtask
from kindling.spark.rows import CONTROL_MARK, ELEMENTS, END_KEY, END_MARK, KEY, SUBTASK, TS, WM, is_control_key
from kindling.spark.stage_plan import StagePlan
from kindling.spark.subtask_copies import SubtaskCopies

# Spark starts a fresh interpreter for every transformWithState operator of a query (its state-schema
# runner), which unpickles KeyedStageProcessor and calls only init without a task: what planning and
# tasks need besides (the operators, stages, sources, pyarrow) is imported where it is used, the tasks'
# names once per task (_import_task_side).
if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from kindling.graph.transformation import KeyedTransformation, SourceTransformation
    from kindling.spark.broadcast import BroadcastHandOff


def _import_task_side() -> None:
    """What KeyedStageProcessor's tasks use per key, imported into this module once per task (an
    import statement per key costs microseconds)."""
    global StageRun, WAKE_RUN, count_late, opened_operator, report_metrics
    from kindling.spark.metrics import report_metrics
    from kindling.spark.operators import count_late, opened_operator
    from kindling.spark.sources import WAKE_RUN
    from kindling.spark.stage import StageRun


EVENT_TIME = "__et"
END_THRESHOLD = END_MARK - 10**12

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


class _Instance:
    """One parallel instance (subtask) of a keyed operator in a Spark task: the opened operator,
    the stage of its chained successors, and where its long lists spill."""

    __slots__ = ("op", "stage", "spillable")

    def __init__(self, op: Any, stage: StageRun):
        self.op = op
        self.stage = stage
        self.spillable = spillable_lists(op)


class KeyedStageProcessor(StatefulProcessor):
    """The transformWithState processor of one keyed operator and its chained successors. A key's
    Spark partition is its Flink subtask's (modulo the partition count: the keyed exit places it,
    ``stage.placed_key``); each subtask the partition's keys belong to runs its own instance."""

    def __init__(self, uid: str, operator: Any, plan: StagePlan, time_mode: str, late_records: Any = None,
                 watermarks: Any = None, timer_reports: Any = None, broadcast: BroadcastHandOff | None = None,
                 carried: list[str] = ()):
        self.uid = uid
        self.carried = carried  # struct columns of rows passed through (kindling/spark/spine.py)
        self.copies = SubtaskCopies(operator, plan)  # each subtask's operator and plan, unpickled in the worker
        self.plan = plan
        self.time_mode = time_mode
        self.late_records = late_records  # a Spark accumulator of late elements the operator dropped
        self.watermarks = watermarks  # a Spark accumulator (max) of the operator's combined watermark
        # EventTime mode: a Spark accumulator of keys whose earliest processing-time timer changed
        # (the driver wakes them when it is due: kindling.spark.sources.TimerWakes)
        self.timer_reports = timer_reports
        self.broadcast_handoff = broadcast  # a broadcast operator's (kindling.spark.broadcast)

    def init(self, handle: StatefulProcessorHandle) -> None:
        from pyspark import TaskContext

        ctx = TaskContext.get()
        partition = ctx.partitionId() if ctx is not None else 0
        self.handle = handle
        self.store = KeyStateStore(handle)
        self.state = self.store.record  # also holds a control key's channel table and the end-of-input mark
        self.broadcast = None
        if self.broadcast_handoff:
            from kindling.spark.broadcast import BroadcastStates

            self.broadcast = BroadcastStates(handle, None, self.broadcast_handoff)
        if ctx is None:
            return  # Spark's driver-side pass that only learns the state schema: open no function there
        _import_task_side()
        self.instances: dict[int, _Instance] = {}
        self.control = StageRun(self.plan, partition)  # control rows and the end of input (no function runs)
        self.partition = partition
        # this operator is one channel for the next keyed operator; named without the job id, which
        # changes when the job restarts from its checkpoint (the channel names live in keyed state)
        self.channel = self.uid.split("/", 1)[-1].encode()
        self.replay: Replay | None = None  # set by the partition's control key, before any other key

    # -- state round trip --------------------------------------------------------------
    def _load(self) -> tuple[KeyState, int | None]:
        return self.store.load()

    def _store(self, state: KeyState, timer: int | None) -> None:
        if state.is_empty():
            if timer is not None:
                self.handle.deleteTimer(timer)
            self.store.clear()
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
        self.store.save(state, wanted)

    def _instance(self, subtask: int) -> _Instance:
        """The parallel instance ``subtask`` in this task, opened on first use (kept in the worker)."""
        instance = self.instances.get(subtask)
        if instance is None:
            operator, plan = self.copies.of(self.uid, subtask)
            info = TaskInfo(operator.name, subtask, plan.parallelism, plan.max_parallelism,
                            job_parameters=plan.job_parameters)
            instance = self.instances[subtask] = _Instance(opened_operator(self.uid, operator, info),
                                                           StageRun(plan, subtask))
            if self.broadcast is not None:  # its only instance here: see keyed_stage_frame
                self.broadcast.adapter = instance.op.function
        self.store.spillable = instance.spillable
        return instance

    def _instance_of(self, key: Any) -> _Instance:
        plan = self.plan
        return self._instance(key_subtask(key, plan.parallelism, plan.max_parallelism, plan.key_type))

    def _rows(self, instance: _Instance, outputs) -> Iterator[_DictRow]:
        stage = instance.stage
        channel = self.channel
        for tag, value, ts in outputs:
            stage.push_output(tag, value, ts, None, channel)
        count_late(instance.op, self.late_records)
        yield from stage.flush_rows(_DictRow)
        if self.plan.channels:
            yield from _dict_rows(stage.control_rows(stage.reports(final=False), only_if_any=True))

    def _control(self, rows, timerValues) -> Iterator[_DictRow]:
        """The partition's control key: folds the batch's channel reports into the channel
        table, prepares the replay of the other keys, and passes this operator's own watermark
        (and any handed-over watermark) on to the next operators."""
        from kindling.spark.broadcast import control_payloads

        payloads, broadcast_runs = control_payloads(rows)
        reports = [body for kind, body in payloads if kind == "report"]
        forward = [(kind, body) for kind, body in payloads if kind != "report"]
        table = ChannelTable.from_tuple(pickle.loads(self.state.get()[0])) if self.state.exists() else ChannelTable()
        now = _processing_time(timerValues)
        self.replay = table.begin_batch(reports, now)
        if self.broadcast is not None and self.partition < self.plan.parallelism:
            # the outputs of this parallel instance's broadcast function
            yield from self._rows(self._instance(self.partition),
                                  self.broadcast.apply(broadcast_runs, table.floor, now))
        self.state.update((pickle.dumps(table.to_tuple(), protocol=5), None))
        if self.watermarks is not None:
            self.watermarks.add(table.floor)
        # This operator's watermark goes on as a report only: an event time on it would move the
        # watermark operator in front of the next keyed operator, and Spark rejects the
        # micro-batch that follows ("Redefining watermark is disallowed"). A bounded input ends
        # at MAX_WATERMARK within its one micro-batch, so the next operator fires there too.
        own = ("report", {self.channel.decode(): (table.floor, False, True, None)})
        yield from _dict_rows(self.control.control_rows([own] + forward))

    # -- Spark callbacks ----------------------------------------------------------------
    def handleInputRows(self, key, rows, timerValues) -> Iterator[_DictRow]:
        key_bytes = key[0]
        if is_control_key(key_bytes):
            yield from self._control(rows, timerValues)
            return
        if is_carry_key(key_bytes):
            carried = self.carried
            for row in rows:
                yield _DictRow((name, packed) for name, packed in zip(carried, row[2:]) if packed is not None)
            return
        if key_bytes == END_KEY:
            # End of a bounded input: once the watermark reaches the end, this key's timer
            # fires after every other key's (see handleExpiredTimer), forwarding the end.
            for _ in rows:
                pass
            if not self.state.exists():
                self.handle.registerTimer(END_MARK)
                self.state.update((b"", END_MARK))
            return
        now = _processing_time(timerValues)
        runs = []
        woken = False
        for row in rows:
            if row[1] == WAKE_RUN:  # a due processing-time timer (its time in __ts, not among the columns)
                woken = True
            else:
                runs.append(pickle.loads(row[1]))
        if woken:
            # the wake was written once the timer was due; Spark's batch time may be a little older
            now = max(now, int(time.time() * 1000))
        k = pickle.loads(key_bytes)
        instance = self._instance_of(k)
        if self.broadcast is not None:
            self.broadcast.ensure_current()
        state, timer = self._load()
        pending = state.next_processing_timer()
        spark_watermark = _flink_watermark(timerValues.getCurrentWatermarkInMs())
        replay = self.replay or Replay({}, spark_watermark, spark_watermark)
        before, elements, after = replay.run(runs)
        before, after = max(before, spark_watermark), max(after, spark_watermark)
        yield from self._rows(instance, instance.op.process(k, state, elements, before, after, now))
        self._store(state, timer)
        self._report_processing_timer(key_bytes, state, pending, woken)

    def _report_processing_timer(self, key_bytes: bytes, state: KeyState, pending: int | None, woken: bool) -> None:
        """EventTime mode: tells the driver when the key's earliest processing-time timer changed
        (or is still pending after a wake-up), so that it wakes the key when that timer is due."""
        if self.timer_reports is None:
            return
        wanted = state.next_processing_timer()
        if wanted != pending or (woken and wanted is not None):
            self.timer_reports.add({key_bytes: wanted})

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo) -> Iterator[_DictRow]:
        key_bytes = key[0]
        watermark = _flink_watermark(timerValues.getCurrentWatermarkInMs()) if self.time_mode == "EventTime" else MIN_WATERMARK
        if key_bytes == END_KEY:
            self.state.clear()
            yield from _dict_rows(self.control.end_of_input())
            return
        k = pickle.loads(key_bytes)
        instance = self._instance_of(k)
        if self.broadcast is not None:
            self.broadcast.ensure_current()
        state, _ = self._load()
        pending = state.next_processing_timer()
        now = _processing_time(timerValues)
        if watermark == MAX_WATERMARK:
            outputs = instance.op.end_of_input(k, state, now)
        else:
            outputs = instance.op.on_timers(k, state, watermark, now)
        yield from self._rows(instance, outputs)
        self._store(state, None)  # Spark removes the expired timer itself
        self._report_processing_timer(key_bytes, state, pending, False)

    def close(self) -> None:
        if hasattr(self, "control"):  # not Spark's driver-side pass
            report_metrics(self.plan.metrics)


def _dict_rows(batches) -> Iterator[_DictRow]:
    for batch in batches:
        for row in batch.to_pylist():
            yield _DictRow(row)


def _processing_time(timer_values) -> int:
    now = timer_values.getCurrentProcessingTimeInMs()
    return now if now and now > 0 else int(time.time() * 1000)


def _out_of_orderness(*nodes) -> int | None:
    """The largest bounded out-of-orderness of the watermark strategies feeding ``nodes``
    (None when no strategy with advancing watermarks is upstream)."""
    from kindling.graph.transformation import ChainedTransformation, KeyedTransformation

    found: list[int] = []
    stack = list(nodes)
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


def keyed_stage_frame(compiler, node: KeyedTransformation, input_df: DataFrame, plan: StagePlan,
                      carried: list[str] = ()) -> DataFrame:
    """The Spark plan of a keyed operator followed by its chained stage; the ``carried`` struct
    columns (rows of other stages under carry keys, kindling/spark/spine.py) pass through it."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    from kindling.runtime.co_functions import BroadcastProcessAdapter, RoundRobinKey
    from kindling.spark.one_step import by_subtask, one_step_keyed_frame
    from kindling.spark.operators import keyed_operator
    from kindling.spark.run_mode import RunMode
    from kindling.spark.sources import FORMAT, encode_option

    operator = keyed_operator(node)
    uid = f"{compiler.job_id}/{node.id}"
    late_records = compiler.spark.sparkContext.accumulator(0)
    compiler.late_records[node.name] = late_records
    broadcast = isinstance(getattr(operator, "function", None), BroadcastProcessAdapter)
    if compiler.mode is RunMode.ONE_STEP:
        return one_step_keyed_frame(input_df, uid, operator, plan, late_records)
    if not compiler.streaming:  # a Spark partition per parallel instance, a key in its subtask's
        if broadcast:
            keyed = not isinstance(node.inputs[0].key_selector.selectors[0], RoundRobinKey)
            return by_subtask(input_df, plan.parallelism).applyInArrow(
                _batch_function(uid, operator, plan, late_records, per_subtask=True, keyed=keyed), plan.schema())
        return input_df.select(KEY, ELEMENTS).repartition(plan.parallelism, KEY).groupBy(KEY).applyInArrow(
            _batch_function(uid, operator, plan, late_records), plan.schema())
    if broadcast and plan.parallelism > compiler.shuffle_partitions:
        raise ValueError(f"the broadcast operator '{node.name}' has parallelism {plan.parallelism}, more than "
                         f"spark.sql.shuffle.partitions ({compiler.shuffle_partitions}), the partitions of Spark's "
                         "keyed state: its parallel instances are those partitions. Lower its parallelism, or set "
                         "spark.sql.shuffle.partitions before the SparkSession starts (Kindling sets it to the "
                         "job's parallelism when it starts Spark)")
    delay = _out_of_orderness(*node.inputs)  # its key-bys
    bounded = all(n.source.bounded for n in _sources_of(node))
    watermarks = timer_reports = None
    if delay is None and not bounded:
        time_mode = "ProcessingTime"
        df = input_df
    else:
        time_mode = "EventTime"
        if compiler.handoff is not None and _registers_processing_timers(operator):
            # Processing-time timers on the wall clock: a wake row per due key (TimerWakes).
            timer_reports, wake_plan = compiler.handoff.timer_wakes().add_operator(compiler.spark, uid)
            input_df = input_df.unionByName(
                compiler.spark.readStream.format(FORMAT).option("plan", encode_option(wake_plan)).load(),
                allowMissingColumns=True)
        # Only control rows give Spark's watermark an event time: the end of a bounded input and
        # the watermark handed back by the runner, never above the minimum over channels.
        event_ms = (F.when(F.col(WM) == F.lit(END_MARK), F.lit(END_MARK))
                    .when(F.col(WM) == F.lit(CONTROL_MARK), F.coalesce(F.col(TS), F.lit(0)))
                    .otherwise(F.lit(0)))
        df = input_df.withColumn(EVENT_TIME, F.timestamp_millis(event_ms)).withWatermark(EVENT_TIME, "0 milliseconds")
        watermarks = compiler.watermark_accumulator(node.name)
    processor = KeyedStageProcessor(uid, operator, plan, time_mode, late_records, watermarks, timer_reports,
                                    compiler.broadcast_handoff() if broadcast else None, list(carried))
    # The event-time column only drives Spark's watermark; it stays out of the operator's rows.
    df = df.select(KEY, ELEMENTS, *carried)
    schema = StructType(plan.schema().fields + [df.schema[c] for c in carried])
    return df.groupBy(KEY).transformWithState(processor, schema, "Append", time_mode)


def _registers_processing_timers(operator: Any) -> bool:
    """Whether ``operator`` runs a user's process function, which may register processing-time
    timers (KeyedStream's built-in map, reduce, ... never do; windows keep their documented
    behaviour, docs/semantics.md)."""
    from kindling.runtime import keyed_functions
    from kindling.runtime.keyed_operator import KeyedProcessOperator

    return (isinstance(operator, KeyedProcessOperator)
            and type(operator.function).__module__ != keyed_functions.__name__)


def _sources_of(node) -> list[SourceTransformation]:
    from kindling.graph.transformation import SourceTransformation

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


def _batch_function(uid: str, operator: Any, plan: StagePlan, late_records: Any, per_subtask: bool = False,
                    keyed: bool = True):
    """applyInArrow body for BATCH mode: a group is a key (or, ``per_subtask``, a parallel
    instance with its keys: broadcast operators, whose broadcast input is processed first as in
    Flink's BATCH execution); each key's elements sorted by timestamp (unless not ``keyed``: a
    non-keyed stream's in arrival order), then its timers."""
    # run is pickled by value with only the globals it names: what it uses per group goes with it
    import pyarrow as pa

    from kindling.runtime.batch import sort_for_batch
    from kindling.spark.broadcast import apply_broadcast_first, batch_groups
    from kindling.spark.metrics import report_metrics
    from kindling.spark.operators import count_late, opened_operator
    from kindling.spark.stage import StageRun

    copies = SubtaskCopies(operator, plan)  # the only reference the function keeps: pickled once
    parallelism, max_parallelism, key_type = plan.parallelism, plan.max_parallelism, plan.key_type

    def run(table: pa.Table) -> pa.Table:
        keys, broadcast, _ = batch_groups(table)
        if per_subtask:
            subtask = table.column(SUBTASK)[0].as_py()
        else:  # Flink's parallel instance of the group's key
            subtask = key_subtask(pickle.loads(next(iter(keys))), parallelism, max_parallelism, key_type)
        own_operator, own_plan = copies.of(uid, subtask)
        info = TaskInfo(own_operator.name, subtask, own_plan.parallelism, own_plan.max_parallelism,
                        job_parameters=own_plan.job_parameters)
        op = opened_operator(uid, own_operator, info)
        stage = StageRun(own_plan, subtask)
        now = int(time.time() * 1000)
        if per_subtask:
            for tag, value, ts in apply_broadcast_first(op.function, broadcast, now):
                stage.push_output(tag, value, ts, None)
        for key_blob in sorted(keys):
            elements = keys[key_blob]
            if per_subtask:  # elements carry their place (processing time, arrival, partition)
                elements.sort(key=lambda e: (e[2][2], e[2][1]))
            if keyed:
                elements = sort_for_batch(elements)
            for tag, value, ts in op.process_key_batch(pickle.loads(key_blob), KeyState(), elements, now):
                stage.push_output(tag, value, ts, None)
        count_late(op, late_records)
        batches = list(stage.flush())
        report_metrics(own_plan.metrics)
        if not batches:
            return stage.empty_table()
        return pa.Table.from_batches(batches)

    return run
