"""A fused stage: one Python pass running a tree of chained operators and encoding what
leaves it ("exits") as Arrow columns (kindling/spark/exit_buffers.py).

A stage's elements come from Arrow batches (``mapInArrow`` over a source or a union) or
from a keyed operator's outputs (inside transformWithState). Either way they are pushed
through the same chain. Its rows and control rows: kindling/spark/rows.py.
"""
from __future__ import annotations

import functools
import gc
import itertools
import pickle
from itertools import repeat
from typing import Any, Callable, Iterable, Iterator

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.types import StructField, StructType

from kindling.runtime.chain import ChainNode, Record, build_chain, build_list_chain, fan_out
from kindling.runtime.errors import UserFunctionError, task_failure, user_error_of
from kindling.runtime.key_groups import compute_default_max_parallelism
from kindling.runtime.partitioners import InstanceChooser
from kindling.runtime.task_info import MAX_WATERMARK, MIN_WATERMARK, TaskInfo
from kindling.runtime.watermarks import Generators, wall_clock_ms
from kindling.spark.codec import arrow_type, codec_for
from kindling.spark.exit_buffers import Cursor, KeyedExitBuffer, exit_buffer_class
from kindling.spark.key_placement import partition_keys
from kindling.spark.metrics import report_metrics
from kindling.spark.rows import (CHANNEL, CONTROL_MARK, ELEMENTS, END_KEY, END_MARK, EXIT, KEY, LAST_SPLIT_END_MARK, POS,
                                 PART_SEPARATOR, READ_MS, SPLIT_END_MARK, TS, WM)
from kindling.spark.sources import describe_position
from kindling.spark.stage_plan import ExitPlan, StagePlan, StreamExit, one_step_exits


def _channel_name(assigner_uid: str) -> str:
    """An assigner's channel name: its uid without the job id, which changes when the job restarts
    from its checkpoint (keyed operators keep the channels' watermarks in their state)."""
    return assigner_uid.split("/", 1)[-1]


_task_generators: dict[tuple, Generators] = {}  # (stage uid, partition) -> generators kept across micro-batches


class StageRun:
    """One task's instance of a stage (the parallel instance ``partition`` modulo the stage's
    parallelism): the exit buffers, and the chain, wired (its functions opened) when first pushed to."""

    def __init__(self, plan: StagePlan, partition: int, watermark_generators: dict | None = None):
        self.plan = plan
        self.record = Record()
        subtask = partition % max(plan.parallelism, 1)
        self.cursor = Cursor(f"p{partition}", subtask)
        self.info = TaskInfo(plan.name, subtask, plan.parallelism, plan.max_parallelism or
                             compute_default_max_parallelism(plan.parallelism), job_parameters=plan.job_parameters)
        cursor = self.cursor
        # async I/O emits an element after later ones: it keeps the element's channel and subtask
        self.record.save_context = lambda: (cursor.channel, cursor.subtask)
        self.record.restore_context = lambda saved: (setattr(cursor, "channel", saved[0]),
                                                     setattr(cursor, "subtask", saved[1]))
        self.buffers = [KeyedExitBuffer(ex, self.record, cursor, partition, plan.shuffle_partitions, plan.uid)
                        if ex.layout == "keyed"
                        else exit_buffer_class(ex)(ex, self.record, cursor, ex.index in plan.timed_exits) for ex in plan.exits]
        for buf in self.buffers:
            if isinstance(buf.plan, StreamExit) and buf.plan.distribution is not None:
                buf.chooser = InstanceChooser(buf.plan.distribution, subtask, f"{plan.uid}#{buf.plan.index}")
        self.pushers = {b.plan.index: b.push for b in self.buffers}
        self.extenders = {b.plan.index: b.extend for b in self.buffers}
        # A one-step job's source task: time is the source's, when it handed each batch (as in
        # PyFlink, where Python functions hand their outputs on in bundles: docs/semantics.md)
        self.reads_in_time = plan.reads_source and one_step_exits(plan.exits)
        if watermark_generators is None:
            watermark_generators = self._generators(partition)
        self.generators = watermark_generators
        self.reported: dict[str, tuple] = {}  # channel -> what this task last reported of it
        self.forward: list[tuple] = []  # control payloads from the input, passed on at the end
        self.read_split = False  # a source stage's task has read rows of a split
        self.split_end: int | None = None  # the split's level when the source said it ended (SPLIT_END_MARK)
        self.set_split(self.cursor.split)

    def _wire(self, roots: list[ChainNode], exits: list[int]) -> Callable[[Any], None]:
        return fan_out([build_chain(r, self.pushers, self.record, self.info, self.generators) for r in roots]
                       + [self.pushers[e] for e in exits])

    @functools.cached_property
    def push(self) -> Callable[[Any], None]:
        """Pushes one element of the stage's input through its chain."""
        return self._wire(self.plan.roots, self.plan.root_exits)

    @functools.cached_property
    def push_list(self) -> Callable[[list], None]:
        """Pushes elements without timestamps through the chain, a list at a time."""
        plan = self.plan
        return fan_out([build_list_chain(r, self.pushers, self.extenders, self.record, self.info, self.generators)
                        for r in plan.roots] + [self.extenders[e] for e in plan.root_exits])

    @functools.cached_property
    def side_push(self) -> dict[str, Callable[[Any], None]]:
        """A keyed stage's pushers of each side output of its operator."""
        plan = self.plan
        return {tag: self._wire(plan.side_roots.get(tag, []), plan.side_root_exits.get(tag, []))
                for tag in set(plan.side_roots) | set(plan.side_root_exits)}

    def _generators(self, partition: int) -> Generators:
        plan = self.plan
        make = lambda: Generators(plan.watermark_interval_ms, plan.per_element_watermarks)  # noqa: E731
        if one_step_exits(plan.exits):  # a one-step job: the source's time (an exchanged row's __read)
            make = lambda: Generators(plan.watermark_interval_ms, plan.per_element_watermarks,  # noqa: E731
                                      clock=self._read_clock)
        if plan.reads_source or not plan.channels:
            return make()  # a split is read by one task: its generators start with it
        # a partition of a union or keyed stage is a channel that lives across micro-batches
        key = (plan.uid, partition)
        generators = _task_generators.get(key)
        if generators is None:
            job = plan.uid.split("/", 1)[0]
            for old in [k for k in _task_generators if k[0].split("/", 1)[0] != job]:
                del _task_generators[old]  # another job's: this worker moved on
            generators = _task_generators[key] = make()
        return generators

    def _read_clock(self) -> int:
        read_ms = self.cursor.read_ms
        return wall_clock_ms() if read_ms is None else read_ms

    def set_split(self, split: str) -> None:
        """Names the split this task reads; the channel of an assigner is its uid and the split."""
        self.cursor.split = split
        for buf in self.buffers:
            if buf.plan.assigner is not None:
                buf.fixed_channel = self.channel_of(buf.plan).encode()

    def channel_of(self, exit_plan: ExitPlan) -> str:
        return f"{_channel_name(exit_plan.assigner)}|{self.cursor.split}"

    def push_output(self, tag: str | None, value: Any, timestamp: int | None, watermark: int | None,
                    channel: bytes | None = None, processing_time: int | None = None) -> None:
        """Pushes one output of a keyed operator (main or side output) into the chain; a one-step
        job gives the processing time at which the operator made it (None: the clock's)."""
        record = self.record
        record.timestamp = timestamp
        record.watermark = watermark
        record.processing_time = processing_time
        self.cursor.channel = channel
        if tag is None:
            self.push(value)
        else:
            target = self.side_push.get(tag)
            if target is not None:
                target(value)

    def run_arrow(self, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        """The mapInArrow body: decode, push every element, encode every exit."""
        codec = codec_for(self.plan.input_type)
        n_value_cols = len(codec.fields)
        record = self.record
        cursor = self.cursor
        push = self.push
        reads_source = self.plan.reads_source
        ended = False
        if reads_source:  # (C iterators: a source's failure is not reported through another frame)
            batches = itertools.chain.from_iterable(map(_elements_apart, batches))
        reads_in_time = self.reads_in_time
        for batch in batches:
            if reads_in_time:
                cursor.read_ms = wall_clock_ms()
            values = codec.decode([batch.column(i) for i in range(n_value_cols)])
            if batch.num_columns == n_value_cols:  # a BATCH-mode source: no time columns
                self.push_list(values)
                yield from self.flush(final=False)
                continue
            names = batch.schema.names
            ts_col = batch.column(TS) if TS in names else pa.nulls(batch.num_rows, pa.int64())  # sources: no __ts
            wm_col = batch.column(WM)
            ch_col = batch.column(CHANNEL) if CHANNEL in names else pa.nulls(batch.num_rows, pa.binary())
            if reads_source and batch.num_rows and wm_col.null_count == batch.num_rows:
                self._reading(ch_col[0].as_py())  # a source's rows carry the name of their split
                ch_col = pa.nulls(batch.num_rows, pa.binary())
            read_col = batch.column(READ_MS) if READ_MS in names else None
            # a one-step job's exchanged rows: each is read when its source handed it (or a keyed operator made it)
            reads = read_col.to_pylist() if read_col is not None and read_col.null_count < len(read_col) else None
            if reads is None and ts_col.null_count == len(ts_col) and wm_col.null_count == len(wm_col) \
                    and ch_col.null_count == len(ch_col):
                record.timestamp = None
                record.watermark = None
                cursor.channel = None
                try:
                    self.push_list(values)
                except RuntimeError as exc:
                    raise self._at_source_position(exc, values, batch) from None
            elif reads is None and wm_col.null_count == len(wm_col) \
                    and ch_col.null_count == len(ch_col):  # timestamps only
                record.watermark = None
                cursor.channel = None
                try:
                    for v, t in zip(values, ts_col.to_pylist()):
                        record.timestamp = t
                        push(v)
                except RuntimeError as exc:
                    raise self._at_source_position(exc, values, batch) from None
            else:
                try:
                    for i, (v, t, w, c) in enumerate(zip(values, ts_col.to_pylist(), wm_col.to_pylist(),
                                                          ch_col.to_pylist())):
                        if w == END_MARK:
                            ended = True
                            continue
                        if w == CONTROL_MARK:
                            self.forward.append((*pickle.loads(c), t or 0))  # passed on with its event time
                            continue
                        if reads_source and w in (SPLIT_END_MARK, LAST_SPLIT_END_MARK):
                            self._reading(c)
                            self.split_end = MAX_WATERMARK if w == LAST_SPLIT_END_MARK else MIN_WATERMARK
                            continue
                        record.timestamp = t
                        record.watermark = w
                        cursor.channel = c
                        if reads is not None:
                            cursor.read_ms = reads[i]
                        push(v)
                except RuntimeError as exc:
                    raise self._at_source_position(exc, values, batch) from None
            yield from self.flush(final=False)
        yield from self.flush()
        if self.plan.channels:
            yield from self.control_rows(self.reports(final=True) + self.forward)
        if ended:
            yield from self.end_of_input()

    def _reading(self, label: bytes) -> None:
        """This source task reads the split ``label`` names (its channel; a file split's label also
        names the part read: kindling/spark/files.py, ``channel_label``)."""
        split = label.decode().split(PART_SEPARATOR, 1)[0]
        if split != self.cursor.split:
            self.set_split(split)
        self.read_split = True

    def _at_source_position(self, exc: RuntimeError, values: list, batch: pa.RecordBatch) -> RuntimeError:
        """``exc`` naming, when a function of a source's stage failed on an element the source read,
        where that element is in the source (file and line, Kafka partition and offset, ...)."""
        element = getattr(exc, "kindling_element", None)
        failure = user_error_of(exc)
        if failure is None or POS not in batch.schema.names or not self.plan.reads_source:
            return exc
        row = next((i for i, value in enumerate(values) if value is element), None)
        if row is None:  # an element made further down the chain: its source row is not known
            return exc
        position = describe_position(self.plan.source, batch.column(CHANNEL)[row].as_py().decode(),
                                     batch.column(POS)[row].as_py())
        return task_failure(UserFunctionError(failure.operator_name, failure.user_traceback, failure.cause,
                                              failure.element, position))

    def reports(self, final: bool) -> list[tuple]:
        """Channel reports of this task's assigners: all of them when the task ends
        (``final``), else those whose level changed or that got their first elements. A channel
        finishes only where its source said that its split ended: a task reading a part of a
        split (a micro-batch's share) leaves the split at the level it reached."""
        finished = final and self.split_end is not None
        report = {}
        if self.plan.reads_source and not self.read_split:
            return []  # a control partition (end of input, watermark hand-off) reads no split
        for buf in self.buffers:
            ex = buf.plan
            if ex.assigner is None or not buf.plan.carries_control:
                continue
            channel = self.channel_of(ex)
            generator = self.generators.get(ex.assigner)
            if generator is None:
                level = self.split_end if finished else MIN_WATERMARK
                entry = (level, finished, False, ex.idleness_ms)
            else:
                level = generator.level() if final else generator.current_watermark
                if finished:
                    level = max(level, self.split_end)  # a bounded source's last splits end at MAX_WATERMARK
                entry = (level, finished, generator.seen > 0, generator.idleness_ms)
            last = self.reported.get(channel)
            if final or last is None or last[0] != entry[0] or (entry[2] and not last[2]):
                report[channel] = entry
                self.reported[channel] = entry
        return [("report", report)] if report else []

    def control_rows(self, payloads: list[tuple], event_time: int = 0,
                     only_if_any: bool = False) -> Iterator[pa.RecordBatch]:
        """Control rows for every exit that carries them: a report's channels go only to the
        exits they feed (an exit behind an assigner gets that assigner's channel only). Without
        payloads, keyed exits still get an empty report unless ``only_if_any``."""
        if not payloads:
            if not only_if_any and any(b.plan.layout == "keyed" for b in self.buffers):
                payloads = [("report", {})]  # each keyed partition still learns a batch ran
            else:
                return
        schema = _arrow_schema(self.plan)
        assigners = {_channel_name(ex.assigner) for ex in self.plan.exits if ex.assigner is not None}
        for buf in self.buffers:
            ex = buf.plan
            if not ex.carries_control:
                continue
            rows: list[tuple[bytes, int]] = []
            for payload in payloads:
                kind, body = payload[:2]
                time = payload[2] if len(payload) > 2 else event_time
                if kind == "report":
                    if ex.assigner is not None:
                        own = self.channel_of(ex)
                        body = {ch: e for ch, e in body.items() if ch == own}
                    else:
                        body = {ch: e for ch, e in body.items() if ch.split("|", 1)[0] not in assigners}
                    rows.append((pickle.dumps(("report", body), protocol=5), time))
                else:
                    rows.append((pickle.dumps((kind, body), protocol=5), body if kind == "watermark" else time))
            keys = partition_keys(self.plan.shuffle_partitions) if ex.layout == "keyed" else [None]
            n = len(rows) * len(keys)
            columns = []
            for f in schema:
                if f.name == EXIT:
                    columns.append(pa.array([ex.index] * n, pa.int32()))
                elif f.name == TS:
                    columns.append(pa.array([t for _, t in rows for _ in keys], pa.int64()))
                elif f.name == WM:
                    columns.append(pa.array([CONTROL_MARK] * n, pa.int64()))
                elif ex.layout == "keyed" and f.name == ex.prefixed(KEY):
                    columns.append(pa.array([k for _ in rows for k in keys], pa.binary()))
                elif ex.layout == "keyed" and f.name == ex.prefixed(ELEMENTS):
                    columns.append(pa.array([p for p, _ in rows for _ in keys], pa.binary()))
                elif ex.layout != "keyed" and f.name == CHANNEL:
                    columns.append(pa.array([p for p, _ in rows], pa.binary()))
                else:
                    columns.append(pa.nulls(n, f.type))
            yield pa.RecordBatch.from_arrays(columns, schema=schema)

    def flush(self, final: bool = True) -> Iterator[pa.RecordBatch]:
        """Encodes and clears what the exits collected, one Arrow batch per exit. Unless
        ``final``, keyed exits keep collecting (up to a bound) to group more per key."""
        schema = None
        for buf, n, arrays, ts, wm, ch in self._taken(final):
            if schema is None:
                schema = _arrow_schema(self.plan)
            own = {buf.plan.prefixed(f.name): a for f, a in zip(buf.plan.value_fields(), arrays)}
            columns = []
            for f in schema:
                if f.name == EXIT:
                    columns.append(pa.array([buf.plan.index] * n, pa.int32()))
                elif f.name in own:
                    columns.append(own[f.name])
                elif f.name == TS and ts is not None:
                    columns.append(pa.array(ts, pa.int64()))
                elif f.name == WM and wm is not None:
                    columns.append(pa.array(wm, pa.int64()))
                elif f.name == CHANNEL and ch is not None:
                    columns.append(pa.array(ch, pa.binary()))
                else:
                    columns.append(pa.nulls(n, f.type))
            yield pa.RecordBatch.from_arrays(columns, schema=schema)

    def flush_rows(self, row: Callable[[Iterable], dict] = dict) -> Iterator[dict]:
        """What :meth:`flush` encodes (all of it), as one ``row`` (a dict) per element holding only
        the columns that are not null: the rows a transformWithState processor returns, which
        Arrow completes with nulls. Cheaper than building an Arrow batch per key and reading it back."""
        for buf, n, arrays, ts, wm, ch in self._taken(True):
            ex = buf.plan
            names = [EXIT] + [ex.prefixed(f.name) for f in ex.value_fields()]
            columns = [repeat(ex.index, n)] + [a.to_pylist() for a in arrays]
            for name, values in ((TS, ts), (WM, wm), (CHANNEL, ch)):
                if values is not None:
                    names.append(name)
                    columns.append(values)
            for values in zip(*columns):
                yield row(zip(names, values))

    def _taken(self, final: bool) -> Iterator[tuple]:
        """``(buffer, *buffer.take())`` of every exit with something to hand on (see :meth:`flush`)."""
        self.record.finish(final)  # async I/O: what completed; when final, all still in flight
        for buf in self.buffers:
            if buf.ready(final):
                yield (buf, *buf.take())

    def end_of_input(self) -> Iterator[pa.RecordBatch]:
        """Control rows telling the consumers of every stream exit that the input ended."""
        schema = _arrow_schema(self.plan)
        for buf in self.buffers:
            if not buf.plan.carries_control:
                continue
            columns = []
            for f in schema:
                if f.name == EXIT:
                    columns.append(pa.array([buf.plan.index], pa.int32()))
                elif f.name in (TS, WM):
                    columns.append(pa.array([END_MARK], pa.int64()))
                elif f.name == buf.plan.prefixed(KEY):
                    columns.append(pa.array([END_KEY], pa.binary()))
                else:
                    columns.append(pa.nulls(1, f.type))
            yield pa.RecordBatch.from_arrays(columns, schema=schema)

    def empty_table(self) -> pa.Table:
        return _arrow_schema(self.plan).empty_table()


def _elements_apart(batch: pa.RecordBatch) -> tuple[pa.RecordBatch, ...]:
    """A source's Arrow batch with its elements (``__wm`` null) and the control rows after them
    (a split's end) in batches of their own: Spark may hand a task both in one batch."""
    if WM not in batch.schema.names or batch.column(WM).null_count in (0, batch.num_rows):
        return (batch,)
    elements = batch.column(WM).is_null()
    return batch.filter(elements), batch.filter(pc.invert(elements))


def _arrow_schema(plan: StagePlan) -> pa.Schema:
    schema = plan.__dict__.get("_arrow_schema")
    if schema is None:
        schema = pa.schema([pa.field(f.name, arrow_type(f.dataType), True) for f in plan.schema()])
        plan.__dict__["_arrow_schema"] = schema
    return schema


def freeze_loaded_objects() -> None:
    """Moves what a Python worker holds before its first task (modules, functions, the stage's
    plan) out of the cyclic garbage collector's reach, once per worker. Otherwise each full
    collection, set off by the containers every batch allocates (a list and a Row per record),
    walks all of it again: measured, ~45% of a decode-map-encode pass."""
    if not _frozen:
        gc.freeze()
        _frozen.append(True)


_frozen: list = []


def arrow_stage_function(plan: StagePlan, carried: list[StructField] = ()) -> Callable[[Iterator[pa.RecordBatch]],
                                                                                    Iterator[pa.RecordBatch]]:
    """The function given to ``mapInArrow`` for a stage; the rows of other stages that it
    carries (``carried`` struct columns, kindling/spark/spine.py) pass through it unchanged."""

    def run(batches):
        from pyspark import TaskContext

        freeze_loaded_objects()
        ctx = TaskContext.get()
        partition = ctx.partitionId() if ctx is not None else 0
        stage = StageRun(plan, partition)
        yield from _passing_carried(stage, batches, carried) if carried else stage.run_arrow(batches)
        report_metrics(plan.metrics)

    return run


def _passing_carried(stage: "StageRun", batches: Iterable[pa.RecordBatch],
                     carried: list[StructField]) -> Iterator[pa.RecordBatch]:
    """Runs ``stage`` over the rows without a value in the ``carried`` columns; each other row
    comes out as it came in, in the carried columns after the stage's own (null for it)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = to_arrow_schema(StructType(stage.plan.schema().fields + list(carried)))
    names = [f.name for f in carried]
    own_count = len(schema) - len(names)
    fields = list(schema)
    passed: list[pa.RecordBatch] = []

    def own_rows():
        for batch in batches:
            is_carried = batch.column(names[0]).is_valid()
            for name in names[1:]:
                is_carried = pc.or_(is_carried, batch.column(name).is_valid())
            if pc.any(is_carried).as_py():
                rows = batch.filter(is_carried)
                passed.append(pa.RecordBatch.from_arrays(
                    [pa.nulls(rows.num_rows, f.type) for f in fields[:own_count]] + [rows.column(n) for n in names],
                    schema=schema))
                batch = batch.filter(pc.invert(is_carried))
            if batch.num_rows:
                yield batch.select([n for n in batch.schema.names if n not in names])

    for out in stage.run_arrow(own_rows()):
        yield from passed
        passed.clear()
        yield pa.RecordBatch.from_arrays(out.columns + [pa.nulls(out.num_rows, f.type) for f in fields[own_count:]],
                                         schema=schema)
    yield from passed
