"""A stage's exit buffers: each collects what leaves the stage through one exit during a batch
and encodes it as Arrow columns (kindling/spark/stage_plan.py, ``ExitPlan``, says how)."""
from __future__ import annotations

import functools
import pickle
from typing import Any, Callable, Iterable

import pyarrow as pa

from kindling.common.formatting import flink_strings
from kindling.common.typeinfo import RowTypeInfo
from kindling.common.types import Row
from kindling.runtime.chain import Record, is_function_object
from kindling.runtime.channels import ReadLog
from kindling.runtime.co_functions import BROADCAST
from kindling.runtime.errors import user_function_failure
from kindling.runtime.partitioners import InstanceChooser
from kindling.runtime.watermarks import wall_clock_ms
from kindling.spark.codec import ValueTypeError, codec_for
from kindling.spark.key_placement import key_subtask, partition_keys, placed_key
from kindling.spark.rows import KEYED_FLUSH_ELEMENTS, LAST_SPLIT_END_MARK, MARKS
from kindling.spark.stage_plan import CollectedExit, ConnectorExit, ExitPlan, StreamExit


class Cursor:
    """What a stage's buffers need to know of the element being pushed besides its
    timestamp and stamp: the channel it came in on, the task's split, the subtask, and (a
    one-step job's source task) when the source handed it."""

    __slots__ = ("channel", "split", "subtask", "read_ms")

    def __init__(self, split: str, subtask: int = 0):
        self.channel: bytes | None = None
        self.split = split
        self.subtask = subtask  # the Flink subtask (0-based) whose output is being pushed
        self.read_ms: int | None = None  # processing time of the source's current batch (None: the clock's)


def _processing_time(record: Record, cursor: Cursor) -> int:
    """When the element being pushed was made (by a keyed operator) or read (by the source)."""
    if record.processing_time is not None:
        return record.processing_time
    return wall_clock_ms() if cursor.read_ms is None else cursor.read_ms


def _element_stamps(stamps: list) -> list:
    """Elements' watermark stamps, none equal to a control row's mark: a row is a control row by its
    ``__wm`` alone (and its ``__ch`` is then unpickled), so a watermark made from data (an event time
    near 2**52 ms, the year 144,683) equal to a mark is handed on 1 to 4 ms lower."""
    if any(mark in stamps for mark in MARKS):
        return [LAST_SPLIT_END_MARK - 1 if s in MARKS else s for s in stamps]
    return list(stamps)


class ExitBuffer:
    """Collects one exit's elements of the current batch and encodes them as Arrow arrays."""

    def __init__(self, plan: ExitPlan, record: Record, cursor: Cursor, timed: bool):
        self.plan = plan
        self.values: list = []
        self.ts: list = []
        self.wm: list = []
        self.ch: list = []
        self.fixed_channel: bytes | None = None  # set when an assigner in the stage feeds this exit
        self.timed = timed
        self.chooser: InstanceChooser | None = None  # an exit into an exchange: picks each element's instances
        values, ts, wm, ch = self.values, self.ts, self.wm, self.ch
        if timed:
            def push(value):
                values.append(value)
                ts.append(record.timestamp)
                wm.append(record.watermark)
                fixed = self.fixed_channel
                ch.append(cursor.channel if fixed is None else fixed)

            def extend(vs: list) -> None:  # elements without timestamps
                values.extend(vs)
                n = len(vs)
                ts.extend([None] * n)
                wm.extend([None] * n)
                ch.extend([None] * n)
        else:
            push = values.append
            extend = values.extend
        self.read_ms: list[int] = []
        if isinstance(plan, StreamExit) and plan.one_step and plan.distribution is not None:
            # the time downstream places the element at
            read_ms = self.read_ms
            push_timed, extend_timed = push, extend

            def push(value):
                read_ms.append(_processing_time(record, cursor))
                push_timed(value)

            def extend(vs: list) -> None:
                read_ms.extend([_processing_time(record, cursor)] * len(vs))
                extend_timed(vs)
        self.subtasks: list[int] = []
        if plan.layout == "string" and plan.print_parallelism > 1:  # each line names its subtask
            subtasks = self.subtasks
            push_value, extend_values = push, extend

            def push(value):
                subtasks.append(cursor.subtask)
                push_value(value)

            def extend(vs: list) -> None:
                subtasks.extend([cursor.subtask] * len(vs))
                extend_values(vs)
        self.push: Callable[[Any], None] = push
        self.extend: Callable[[list], None] = extend

    @functools.cached_property
    def codec(self):
        """The codec of the exit's type (looked up once: a keyed stage encodes once per key)."""
        return codec_for(self.plan.type_info)

    def ready(self, final: bool) -> bool:
        return bool(self.values)

    def take(self) -> tuple[int, list[pa.Array], list | None, list | None, list | None]:
        """Row count, value columns, timestamps, stamps and channels (None: all null) of what
        was collected; into an exchange, a row per instance an element goes to, with its ``__part``."""
        n = len(self.values)
        ts, wm, ch = (list(self.ts), _element_stamps(self.wm), list(self.ch)) if self.timed else (None, None, None)
        targets = None
        read_ms = self.read_ms
        if self.chooser is not None:
            targets, rows = self.chooser.spread(n, self.values)
            if len(rows) != n:  # broadcast: a copy per instance
                self.values[:] = [self.values[i] for i in rows]
                if read_ms:
                    read_ms = [read_ms[i] for i in rows]
                n = len(rows)
                if self.timed:
                    ts, wm, ch = ([column[i] for i in rows] for column in (ts, wm, ch))
        arrays = self.encode()
        if targets is not None:
            keys = partition_keys(self.plan.distribution.consumers)
            arrays.append(pa.array([keys[t] for t in targets], pa.binary()))
            if self.plan.one_step:
                arrays.append(pa.array(read_ms, pa.int64()))
        self.clear()
        return n, arrays, ts, wm, ch

    def clear(self) -> None:
        for collected in (self.values, self.read_ms, self.ts, self.wm, self.ch, self.subtasks):
            collected.clear()

    def encode(self) -> list[pa.Array]:
        plan = self.plan
        values = self.values
        try:
            if plan.layout == "stream":
                return self.codec.encode(values)
            if plan.layout == "columns":
                return self.encode_columns(values)
            self.check_type()
            if plan.layout == "string":
                t = plan.type_info
                if self.subtasks:
                    prefix = plan.line_prefix
                    lines = [prefix(sub) + text for text, sub in zip(flink_strings(values, t), self.subtasks)]
                else:
                    prefix = plan.line_prefix(0)
                    lines = [prefix + text for text in flink_strings(values, t)] if prefix else flink_strings(values, t)
                return [pa.array(lines, pa.string())]
            if plan.layout == "encoded":
                enc = plan.encoder.encode
                t = plan.type_info
                return [pa.array([enc(v, t) for v in values], pa.binary())]
            if plan.layout == "pickled":
                return [pa.array([pickle.dumps(v, protocol=5) for v in values], pa.binary())]
            return []
        except ValueTypeError as exc:
            raise self.type_failure(exc) from None

    def check_type(self) -> None:
        """The values must fit the stream's declared type (when it has one)."""
        if self.plan.type_info is not None:
            self.codec.encode(self.values)

    def type_failure(self, exc: ValueTypeError) -> Exception:
        """A value that does not fit the stream's declared type, as the declaring operator's failure."""
        name = self.plan.declared_by or self.plan.name
        return user_function_failure(name, TypeError(f"{exc}, the output_type declared by operator '{name}'"))

    def encode_columns(self, values: list) -> list[pa.Array]:
        """A ``columns`` exit: the values as the writer's columns, checked against the stream's
        declared type when that has other columns."""
        columns = codec_for(self.plan.sink_spec.columns_type)
        if self.plan.type_info is not None and self.codec.arrow_schema != columns.arrow_schema:
            self.codec.encode(values)
        try:
            return columns.encode(values)
        except ValueTypeError as exc:
            raise user_function_failure(self.plan.name, TypeError(f"{exc}, the row type of sink '{self.plan.name}'")) \
                from None


#: elements per row of a ``collected`` exit: a row stays far below Arrow's 2 GB for a binary array
COLLECTED_PER_ROW = 10_000


class CollectedExitBuffer(ExitBuffer):
    """A ``collected`` exit: a row per (at most) ``COLLECTED_PER_ROW`` elements, holding them
    pickled as one list, which the driver loads in one call (kindling/spark/sinks.py, CollectWriter)."""

    def take(self) -> tuple[int, list[pa.Array], list | None, list | None, list | None]:
        values = self.values
        try:
            self.check_type()
        except ValueTypeError as exc:
            raise self.type_failure(exc) from None
        lists = [pickle.dumps(values[i:i + COLLECTED_PER_ROW], protocol=5)
                 for i in range(0, len(values), COLLECTED_PER_ROW)]
        self.clear()
        return len(lists), [pa.array(lists, pa.binary())], None, None, None


class _PickledKey:
    """A key Python cannot hash (a list, a dict): grouped by its pickled form, as PyFlink
    groups keys by their serialized bytes."""

    __slots__ = ("key", "blob")

    def __init__(self, key: Any, blob: bytes):
        self.key = key
        self.blob = blob

    def __hash__(self) -> int:
        return hash(self.blob)

    def __eq__(self, other) -> bool:
        return isinstance(other, _PickledKey) and other.blob == self.blob


def _name_fields(names: list, values: Iterable) -> None:
    """Rows crossing to a keyed operator get their type's field names (f0, f1, ... when none
    were declared), as Flink's serializer gives them: PyFlink prints them Row(f0=1, f1='a')."""
    for value in values:
        if type(value) is Row and value._fields is None:
            value._fields = names


class KeyedExitBuffer:
    """Collects the elements going to a keyed operator, grouped by channel and key: one row
    per key and channel holds all of those elements (pickled), so that the shuffle and
    transformWithState handle a row per key, not per element."""

    def __init__(self, plan: ExitPlan, record: Record, cursor: Cursor, partition: int = 0,
                 shuffle_partitions: int = 1, stage_uid: str = ""):
        self.plan = plan
        self.shuffle_partitions = shuffle_partitions  # of the keyed operator: each gets broadcast runs
        self.timed = True
        self.groups: dict[Any, list] = {}
        self.fixed_channel: bytes | None = None
        self.flushes = 0
        self.record = record
        self.cursor = cursor
        self.final = False
        selector = plan.key_selector
        get_key = selector.get_key if is_function_object(selector, "get_key") else selector
        groups = self.groups
        name = plan.name
        one_step = plan.one_step
        # one-step jobs: each element's place and the channels' watermarks (kindling/spark/one_step.py)
        self.read_log = ReadLog((stage_uid, plan.index, partition), partition) if one_step else None
        place = self.read_log.place if one_step else None

        def push(value):
            try:
                key = get_key(value)
            except Exception as exc:
                raise user_function_failure(name, exc) from None
            fixed = self.fixed_channel
            group_id = (cursor.channel if fixed is None else fixed, key)
            try:
                group = groups.get(group_id)
            except TypeError:  # an unhashable key such as a list: PyFlink takes it
                group_id = (group_id[0], _PickledKey(key, _pickle_key(key, plan)))
                group = groups.get(group_id)
            if group is None:
                group = groups[group_id] = []
            if one_step:  # the stamp's place holds the element's place; the log keeps the stamp
                group.append((value, record.timestamp, place(group_id[0], record.watermark, record.processing_time,
                                                             cursor.read_ms)))
            else:
                group.append((value, record.timestamp, record.watermark))

        def extend(values: list) -> None:
            for value in values:
                push(value)

        self.push = push
        self.extend = extend

    def ready(self, final: bool) -> bool:
        self.final = final
        if not self.groups:
            return final and self.read_log is not None  # a one-step task ends its channels even without elements
        return final or sum(len(g) for g in self.groups.values()) >= KEYED_FLUSH_ELEMENTS

    def take(self) -> tuple[int, list[pa.Array], list | None, list | None, list | None]:
        plan = self.plan
        groups = list(self.groups.items())
        self.groups.clear()
        seq = self.flushes
        self.flushes += 1
        if plan.type_info is not None:
            try:
                codec_for(plan.type_info).encode([e[0] for _, group in groups for e in group])
            except ValueTypeError as exc:
                name = plan.declared_by or plan.name
                raise user_function_failure(name, TypeError(
                    f"{exc}, the output_type declared by operator '{name}'")) from None
            if isinstance(plan.type_info, RowTypeInfo):
                _name_fields(plan.type_info.get_field_names(), (e[0] for _, group in groups for e in group))
        broadcast = [g for g in groups if g[0][1] is BROADCAST]
        if broadcast:
            groups = [g for g in groups if g[0][1] is not BROADCAST]
        keys = [k for (_, k), _ in groups]
        plain_keys = [k.key if isinstance(k, _PickledKey) else k for k in keys]
        _check_key_type(plain_keys, plan)
        blobs = [k.blob if isinstance(k, _PickledKey) else _pickle_key(k, plan) for k in keys]  # fails first: clearer
        subtasks = [key_subtask(k, plan.parallelism, plan.max_parallelism, plan.key_type) for k in plain_keys]
        if not plan.one_step:  # grouped by key: the key's Spark partition is its subtask's
            blobs = [placed_key(blob, subtask) for blob, subtask in zip(blobs, subtasks)]
        key_blobs = pa.array(blobs, pa.binary())
        runs = [(ch.decode() if ch is not None else None, seq, group) for (ch, _), group in groups]
        try:
            elements = pa.array([pickle.dumps(run, protocol=5) for run in runs], pa.binary())
        except Exception:
            import cloudpickle

            elements = pa.array([cloudpickle.dumps(run, protocol=5) for run in runs], pa.binary())
        if broadcast:  # every parallel instance gets each broadcast run, at a control key
            payloads = [pickle.dumps(("broadcast", (ch.decode() if ch is not None else None, seq, group)),
                                     protocol=5) for (ch, _), group in broadcast]
            if plan.one_step:  # a row for each parallel instance (its subtask), under one control key
                targets = partition_keys(1) * plan.parallelism
                subtasks += list(range(plan.parallelism)) * len(payloads)
            else:  # a row for each shuffle partition of the keyed operator
                targets = partition_keys(self.shuffle_partitions)
            key_blobs = pa.concat_arrays([key_blobs, pa.array([k for _ in payloads for k in targets], pa.binary())])
            elements = pa.concat_arrays([elements, pa.array([p for p in payloads for _ in targets], pa.binary())])
        if self.read_log is not None:  # every parallel instance gets the task's log, under one control key
            ended = self.record.processing_time
            log = self.read_log.take(self.final, self.fixed_channel, self.cursor.read_ms if ended is None else ended)
            if log != ([], []):
                payload = pickle.dumps(("timeline", log), protocol=5)
                key_blobs = pa.concat_arrays([key_blobs, pa.array(partition_keys(1) * plan.parallelism, pa.binary())])
                elements = pa.concat_arrays([elements, pa.array([payload] * plan.parallelism, pa.binary())])
                subtasks += list(range(plan.parallelism))
        columns = [key_blobs, elements]
        if plan.one_step:
            columns.append(pa.array(subtasks, pa.int32()))
        return len(key_blobs), columns, None, None, None


def _check_key_type(keys: list, plan: ExitPlan) -> None:
    if plan.key_type is not None and type(plan.key_type).__name__ != "TableKeyType":  # a Table key is typed already
        try:
            codec_for(plan.key_type).encode(keys)
        except ValueTypeError as exc:
            raise user_function_failure(plan.name, TypeError(
                f"key {exc}, the key_type of the key selector '{plan.name}'")) from None


def _pickle_key(key: Any, plan: ExitPlan) -> bytes:
    try:
        return pickle.dumps(key, protocol=5)
    except Exception as exc:
        raise user_function_failure(plan.name, TypeError(
            f"the key selector '{plan.name}' returned a key that cannot be pickled: {exc}; "
            "keys must be picklable values such as str, int, tuples or lists of them")) from None


def exit_buffer_class(plan: ExitPlan) -> type:
    """The buffer of an exit: a connector's own (``plan.buffer``, kindling/spark/connectors.py), the
    collected exit's, or the plain one."""
    if isinstance(plan, ConnectorExit):
        return plan.buffer
    return CollectedExitBuffer if isinstance(plan, CollectedExit) else ExitBuffer
