"""A fused stage: one Python pass running a tree of chained operators and encoding what
leaves it ("exits") as Arrow columns.

A stage's elements come from Arrow batches (``mapInArrow`` over a source or a union) or
from a keyed operator's outputs (inside transformWithState). Either way they are pushed
through the same chain. Output columns: ``__exit`` (which exit a row belongs to),
each exit's value columns prefixed ``x<i>__``, and the element's ``__ts``/``__wm``/``__ch``
(timestamp, watermark stamp, channel).

Control rows travel beside elements in STREAMING mode (``__wm`` says which): the end of a
bounded input (``END_MARK``), the end of a source split (``SPLIT_END_MARK``, ``LAST_SPLIT_END_MARK``:
only a source's stage reads them), and ``CONTROL_MARK`` rows whose payload (``__ch``, or
``__elements`` on a keyed exit) is a channel report ``("report", {channel: (level, finished,
had_elements, idleness_ms)})`` or a watermark hand-off ``("watermark", w)``; their ``__ts`` is
the event time they give Spark's watermark. A keyed exit sends each control row to every
shuffle partition (one control key per partition, sorted before every element's key), so
that each partition of a keyed operator learns every channel's progress before its elements
(see ``kindling/runtime/channels.py``).
"""
from __future__ import annotations

import functools
import gc
import itertools
import pickle
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, Callable, Iterable, Iterator

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.types import BinaryType, IntegerType, LongType, StringType, StructField, StructType

from kindling.common.typeinfo import RowTypeInfo
from kindling.common.types import Row
from kindling.runtime.co_functions import BROADCAST
from kindling.runtime.chain import ChainNode, Record, build_chain, build_list_chain, fan_out, is_function_object
from kindling.runtime.channels import ReadLog
from kindling.runtime.errors import UserFunctionError, task_failure, user_error_of, user_function_failure
from kindling.common.formatting import flink_string
from kindling.runtime.key_groups import assign_key_to_parallel_operator, compute_default_max_parallelism
from kindling.runtime.partitioners import InstanceChooser
from kindling.runtime.task_info import MAX_WATERMARK, MIN_WATERMARK, TaskInfo
from kindling.runtime.watermarks import Generators, wall_clock_ms
from kindling.spark.codec import ValueTypeError, codec_for
from kindling.spark.metrics import report_metrics

EXIT = "__exit"
TS = "__ts"
WM = "__wm"
CHANNEL = "__ch"
POS = "__pos"  # a source row's place in its split (kindling.spark.sources.describe_position)
KEY = "__key"
PART = "__part"  # an exchanged stream's row: the key of the Spark partition (the parallel instance) it goes to
SUBTASK = "__sub"  # one-step jobs: the subtask of a keyed exit's key (kindling/spark/one_step.py)
READ_MS = "__read"  # one-step jobs: an exchanged row's processing time (when its source handed it)
END_MARK = 2**52  # __ts and __wm of the control row that ends a bounded input
CONTROL_MARK = END_MARK - 1  # __wm of a channel report or watermark hand-off row
# __wm of a source's row saying that the split named in __ch was read to its end; LAST_: and no
# split of the source starts after it, so a bounded source's split ends at MAX_WATERMARK
SPLIT_END_MARK = END_MARK - 2
LAST_SPLIT_END_MARK = END_MARK - 3
MARKS = (END_MARK, CONTROL_MARK, SPLIT_END_MARK, LAST_SPLIT_END_MARK)
END_KEY = b""  # the key of end-of-input control rows (never a pickle)
CONTROL_KEY_PREFIX = b"\x00"  # control keys sort before pickled keys (b"\x80...")
PART_SEPARATOR = "\x00"  # in a source row's __ch: the split's name, then what names the part read (never in a path)
PRODUCED = "produced"  # a ``produced`` exit's column: how many records the stage produced to Kafka
WRITTEN_FILE, WRITTEN_COUNT = "__written_file", "__written_count"  # a ``written`` exit's row: a part file, its count
ELEMENTS = "__elements"  # a keyed exit's row: pickled (channel, seq, [(value, timestamp, stamp), ...]) of one key
KEYED_FLUSH_ELEMENTS = 100_000  # a keyed exit holds at most this many elements before it emits rows
TIME_FIELDS = [StructField(TS, LongType()), StructField(WM, LongType()), StructField(CHANNEL, BinaryType())]


@dataclass(eq=False)
class ExitPlan:
    """Where elements leave a stage and how they are encoded.

    ``layout``: ``stream`` (the codec of ``type_info``, for another stage), ``keyed`` (same,
    plus a ``__key`` column from ``key_selector``), ``string`` (Flink's toString),
    ``encoded`` (bytes from ``encoder``), ``pickled``, ``columns`` (the columns of the row type
    ``sink_spec.columns_type`` of a columnar file writer), ``produced`` (the stage sends the elements
    to the KafkaSink ``sink_spec`` itself; a row per flush counts them), ``written`` (the stage writes
    the elements into in-progress part files of the FileSink ``sink_spec``; a row per part file) or
    ``none`` (rows are only counted).
    """

    index: int
    layout: str
    name: str
    type_info: Any = None
    key_selector: Any = None
    key_type: Any = None
    encoder: Any = None
    declared_by: str | None = None  # the operator that declared ``type_info``
    assigner: str | None = None  # uid of the timestamp assigner on the way to this exit in the stage
    idleness_ms: int | None = None  # that assigner's ``with_idleness``
    print_identifier: str | None = None  # ``string`` layout: print()'s sink identifier
    print_parallelism: int = 1  # ``string`` layout: the print sink's parallelism (> 1: ``n> `` prefixes)
    # a one-step job's ``keyed`` layout: rows carry the key's subtask, elements their place; an
    # exchange (``distribution``): rows carry their processing time (``__read``)
    one_step: bool = False
    parallelism: int = 1  # ``keyed`` layout: the keyed operator's parallelism
    max_parallelism: int = 128  # ``keyed`` layout: the keyed operator's max parallelism (key groups)
    distribution: Any = None  # ``stream`` layout into an exchange: how elements spread (kindling/runtime/partitioners.py)
    sink_spec: Any = None  # ``produced`` layout: the KafkaSinkSpec; ``columns``, ``written``: the FileSinkSpec

    def line_prefix(self, subtask: int) -> str:
        """What Flink's print sink writes before an element printed by ``subtask`` (0-based):
        ``n> `` (``id:n> `` with an identifier) when the sink is parallel, else ``id> `` or nothing."""
        ident = self.print_identifier
        if self.print_parallelism > 1:
            number = subtask % self.print_parallelism + 1
            return f"{ident}:{number}> " if ident else f"{number}> "
        return f"{ident}> " if ident else ""

    def value_fields(self) -> list[StructField]:
        if self.layout == "keyed":
            fields = [StructField(KEY, BinaryType()), StructField(ELEMENTS, BinaryType())]
            return fields + [StructField(SUBTASK, IntegerType())] if self.one_step else fields
        if self.layout == "stream":
            fields = list(codec_for(self.type_info).fields)
            if self.distribution is None:
                return fields
            read = [StructField(READ_MS, LongType())] if self.one_step else []
            return fields + [StructField(PART, BinaryType())] + read
        if self.layout == "columns":
            return list(codec_for(self.sink_spec.columns_type).fields)
        if self.layout == "string":
            return [StructField("f0", StringType())]
        if self.layout in ("encoded", "pickled"):
            return [StructField("f0", BinaryType())]
        if self.layout == "produced":
            return [StructField(PRODUCED, LongType())]
        if self.layout == "written":
            return [StructField(WRITTEN_FILE, StringType()), StructField(WRITTEN_COUNT, LongType())]
        return []

    @property
    def carries_control(self) -> bool:
        """Whether end-of-input control rows leave through this exit (not to sinks)."""
        return self.layout in ("stream", "keyed")

    def prefixed(self, name: str) -> str:
        return f"x{self.index}__{name}"


def stage_schema(exits: list[ExitPlan]) -> StructType:
    fields = [StructField(EXIT, IntegerType())]
    for ex in exits:
        fields.extend(StructField(ex.prefixed(f.name), f.dataType, True) for f in ex.value_fields())
    return StructType(fields + TIME_FIELDS)


class _Cursor:
    """What a stage's buffers need to know of the element being pushed besides its
    timestamp and stamp: the channel it came in on, the task's split, the subtask, and (a
    one-step job's source task) when the source handed it."""

    __slots__ = ("channel", "split", "subtask", "read_ms")

    def __init__(self, split: str, subtask: int = 0):
        self.channel: bytes | None = None
        self.split = split
        self.subtask = subtask  # the Flink subtask (0-based) whose output is being pushed
        self.read_ms: int | None = None  # processing time of the source's current batch (None: the clock's)


def _processing_time(record: Record, cursor: _Cursor) -> int:
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


class _ExitBuffer:
    """Collects one exit's elements of the current batch and encodes them as Arrow arrays."""

    def __init__(self, plan: ExitPlan, record: Record, cursor: _Cursor, timed: bool):
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
        if plan.one_step and plan.distribution is not None:  # the time downstream places the element at
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
        self.values.clear()
        self.read_ms.clear()
        self.ts.clear()
        self.wm.clear()
        self.ch.clear()
        self.subtasks.clear()
        return n, arrays, ts, wm, ch

    def encode(self) -> list[pa.Array]:
        plan = self.plan
        values = self.values
        try:
            if plan.layout == "stream":
                return self.codec.encode(values)
            if plan.layout == "columns":
                return self.encode_columns(values)
            if plan.type_info is not None:
                self.codec.encode(values)  # values must fit the declared type
            if plan.layout == "string":
                t = plan.type_info
                if self.subtasks:
                    prefix = plan.line_prefix
                    lines = [prefix(sub) + flink_string(v, t) for v, sub in zip(values, self.subtasks)]
                else:
                    prefix = plan.line_prefix(0)
                    lines = [prefix + flink_string(v, t) for v in values]
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


class _WritingExitBuffer(_ExitBuffer):
    """A ``written`` exit: writes what it collected into the task's in-progress part files at each
    flush (kindling/spark/files.py) and hands on a row per part file when the task ends."""

    def __init__(self, plan: ExitPlan, record: Record, cursor: _Cursor, timed: bool):
        from kindling.spark.files import TaskPartFiles

        super().__init__(plan, record, cursor, timed)
        self.files = TaskPartFiles(plan.sink_spec, plan.type_info)
        self.final = False

    def ready(self, final: bool) -> bool:
        self.final = final
        return bool(self.values) or (final and self.files.opened)

    def take(self) -> tuple[int, list[pa.Array], list | None, list | None, list | None]:
        values = self.values
        try:
            if values and self.plan.sink_spec.columns_type is not None:
                self.files.add_columns(self.encode_columns(values))
            elif values:
                if self.plan.type_info is not None:
                    self.codec.encode(values)  # values must fit the declared type
                self.files.add_values(values)
        except ValueTypeError as exc:
            raise self.type_failure(exc) from None
        values.clear()
        self.ts.clear()
        self.wm.clear()
        self.ch.clear()
        written = self.files.close() if self.final else []
        return len(written), [pa.array([w[0] for w in written], pa.string()),
                              pa.array([w[1] for w in written], pa.int64())], None, None, None


class _ProducingExitBuffer(_ExitBuffer):
    """A ``produced`` exit: sends each element to Kafka as it is pushed; at the task's end it waits
    until all are delivered and hands on one row counting them."""

    def __init__(self, plan: ExitPlan, record: Record, cursor: _Cursor, timed: bool):
        from kindling.spark.kafka import StageProducer

        super().__init__(plan, record, cursor, timed)
        self.producer = StageProducer(plan.sink_spec)
        self.push = self.producer.pusher(record if timed else None)
        self.extend = self.producer.send_all

    def ready(self, final: bool) -> bool:
        return final and self.producer.opened

    def take(self) -> tuple[int, list[pa.Array], list | None, list | None, list | None]:
        return 1, [pa.array([self.producer.finish()], pa.int64())], None, None, None


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


class _KeyedExitBuffer:
    """Collects the elements going to a keyed operator, grouped by channel and key: one row
    per key and channel holds all of those elements (pickled), so that the shuffle and
    transformWithState handle a row per key, not per element."""

    def __init__(self, plan: ExitPlan, record: Record, cursor: _Cursor, partition: int = 0,
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


def key_subtask(key: Any, parallelism: int, max_parallelism: int | None = None, key_type: Any = None) -> int:
    """The subtask (0-based) PyFlink gives ``key`` in a keyed operator with ``parallelism`` and
    ``max_parallelism`` key groups (None: Flink's default for the parallelism)."""
    if parallelism <= 1:
        return 0
    try:
        return assign_key_to_parallel_operator(key, parallelism, max_parallelism, key_type=key_type)
    except Exception:  # a value the declared key_type cannot hash (it fails elsewhere with a clear error)
        return assign_key_to_parallel_operator(key, parallelism, max_parallelism)


def _check_key_type(keys: list, plan: ExitPlan) -> None:
    if plan.key_type is not None:
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


# -- control keys ------------------------------------------------------------------------

def _mix_k1(k1: int) -> int:
    k1 = (k1 * 0xCC9E2D51) & 0xFFFFFFFF
    k1 = ((k1 << 15) | (k1 >> 17)) & 0xFFFFFFFF
    return (k1 * 0x1B873593) & 0xFFFFFFFF


def _mix_h1(h1: int, k1: int) -> int:
    h1 ^= k1
    h1 = ((h1 << 13) | (h1 >> 19)) & 0xFFFFFFFF
    return (h1 * 5 + 0xE6546B64) & 0xFFFFFFFF


def spark_hash(data: bytes, seed: int = 42) -> int:
    """Spark's ``hash()`` of a binary value (Murmur3_x86_32.hashUnsafeBytes, whose trailing
    bytes are mixed one by one as signed ints), which places a groupBy key in partition
    ``pmod(hash(key), numPartitions)``."""
    h1 = seed
    aligned = len(data) - len(data) % 4
    for i in range(0, aligned, 4):
        h1 = _mix_h1(h1, _mix_k1(int.from_bytes(data[i:i + 4], "little")))
    for b in data[aligned:]:
        h1 = _mix_h1(h1, _mix_k1((b - 256 if b > 127 else b) & 0xFFFFFFFF))
    h1 ^= len(data)
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & 0xFFFFFFFF
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & 0xFFFFFFFF
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 >= 1 << 31 else h1


_INVERSE = {c: pow(c, -1, 1 << 32) for c in (5, 0xCC9E2D51, 0x1B873593, 0x85EBCA6B, 0xC2B2AE35)}  # mod 2**32


def _rotate_right(value: int, distance: int) -> int:
    return ((value >> distance) | (value << (32 - distance))) & 0xFFFFFFFF


def _unmix_final(h1: int) -> int:
    """The inverse of murmur3's final mix (fmix32)."""
    h1 ^= h1 >> 16
    h1 = (h1 * _INVERSE[0xC2B2AE35]) & 0xFFFFFFFF
    h1 ^= (h1 >> 13) ^ (h1 >> 26)
    h1 = (h1 * _INVERSE[0x85EBCA6B]) & 0xFFFFFFFF
    return h1 ^ (h1 >> 16)


@functools.lru_cache(maxsize=1 << 16)
def placed_key(blob: bytes, subtask: int) -> bytes:
    """``blob`` (a pickled key) padded to whole 4-byte blocks and followed by the block that makes
    Spark's hash of it equal ``subtask``: grouped by it, the key lands in Spark partition ``subtask``
    (modulo the partition count), where Flink's subtask of the key runs. ``pickle.loads`` ignores the
    bytes after a pickle, so the key reads back as it was."""
    padded = blob + bytes(-len(blob) % 4)
    h1 = 42
    for i in range(0, len(padded), 4):
        h1 = _mix_h1(h1, _mix_k1(int.from_bytes(padded[i:i + 4], "little")))
    wanted = _unmix_final(subtask & 0xFFFFFFFF) ^ (len(padded) + 4)
    # undo _mix_h1(h1, k1) == wanted, then _mix_k1(block) == k1
    k1 = _rotate_right(((wanted - 0xE6546B64) * _INVERSE[5]) & 0xFFFFFFFF, 13) ^ h1
    block = (_rotate_right((k1 * _INVERSE[0x1B873593]) & 0xFFFFFFFF, 15) * _INVERSE[0xCC9E2D51]) & 0xFFFFFFFF
    return padded + block.to_bytes(4, "little")


_partition_keys: dict[int, list[bytes]] = {}


def partition_keys(partitions: int) -> list[bytes]:
    """One binary key per partition of a Spark hash partitioning into ``partitions``, the i-th landing
    in partition i: an exchange sends a row to instance i with the i-th (``__part``); a keyed
    operator's control keys (``CONTROL_KEY_PREFIX`` + a suffix, sorted before every pickled key),
    sent with a row each, reach every partition of the operator."""
    keys = _partition_keys.get(partitions)
    if keys is None:
        found: dict[int, bytes] = {}
        suffix = 0
        while len(found) < partitions:
            key = CONTROL_KEY_PREFIX + suffix.to_bytes(4, "big")
            found.setdefault(spark_hash(key) % partitions, key)
            suffix += 1
        keys = _partition_keys[partitions] = [found[i] for i in range(partitions)]
    return keys


def is_control_key(key: bytes) -> bool:
    return key[:1] == CONTROL_KEY_PREFIX


@dataclass(eq=False)
class StagePlan:
    """Everything a stage needs in a Spark task; pickled with the task."""

    name: str
    roots: list[ChainNode] = field(default_factory=list)  # consumers of the stage input (main output)
    side_roots: dict[str, list[ChainNode]] = field(default_factory=dict)  # keyed roots: consumers of side outputs
    root_exits: list[int] = field(default_factory=list)  # exits fed directly by the stage input
    side_root_exits: dict[str, list[int]] = field(default_factory=dict)
    exits: list[ExitPlan] = field(default_factory=list)
    timed_exits: set[int] = field(default_factory=set)
    input_type: Any = None
    job_parameters: dict = field(default_factory=dict)
    parallelism: int = 1  # the stage's operators' (all of them: a stage is a Flink chain)
    max_parallelism: int | None = None  # a keyed stage's key groups (None: Flink's default for the parallelism)
    # -- event time (STREAMING mode) --
    uid: str = ""
    channels: bool = False  # report channels and pass control rows on (STREAMING mode)
    reads_source: bool = False  # the input is a source: a task reads (a part of) one split
    source: Any = None  # that source's spec, which names a failing row's position
    shuffle_partitions: int = 1  # of the keyed operators this stage feeds
    key_type: Any = None  # a keyed stage: the key_type of its key_by (which subtask Flink gives a key)
    watermark_interval_ms: int = 200
    per_element_watermarks: bool = False
    bundle_time_ms: int = 1000  # python.fn-execution.bundle.time: a bundle's time (one-step jobs)
    bundle_size: int = 100_000  # python.fn-execution.bundle.size: a bundle's elements (one-step jobs)
    metrics: Any = None  # the job's accumulator of user metrics (kindling.spark.metrics)

    def schema(self) -> StructType:
        return stage_schema(self.exits)


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
        self.cursor = _Cursor(f"p{partition}", subtask)
        self.info = TaskInfo(plan.name, subtask, plan.parallelism, plan.max_parallelism or
                             compute_default_max_parallelism(plan.parallelism), job_parameters=plan.job_parameters)
        cursor = self.cursor
        # async I/O emits an element after later ones: it keeps the element's channel and subtask
        self.record.save_context = lambda: (cursor.channel, cursor.subtask)
        self.record.restore_context = lambda saved: (setattr(cursor, "channel", saved[0]),
                                                     setattr(cursor, "subtask", saved[1]))
        self.buffers = [_KeyedExitBuffer(ex, self.record, cursor, partition, plan.shuffle_partitions, plan.uid)
                        if ex.layout == "keyed"
                        else _exit_buffer(ex)(ex, self.record, cursor, ex.index in plan.timed_exits) for ex in plan.exits]
        for buf in self.buffers:
            if buf.plan.distribution is not None:
                buf.chooser = InstanceChooser(buf.plan.distribution, subtask, f"{plan.uid}#{buf.plan.index}")
        self.pushers = {b.plan.index: b.push for b in self.buffers}
        self.extenders = {b.plan.index: b.extend for b in self.buffers}
        # A one-step job's source task: time is the source's, when it handed each batch (as in
        # PyFlink, where Python functions hand their outputs on in bundles: docs/semantics.md)
        self.reads_in_time = plan.reads_source and any(ex.one_step for ex in plan.exits)
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
        if any(ex.one_step for ex in plan.exits):  # a one-step job: the source's time (an exchanged row's __read)
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
        from kindling.spark.sources import describe_position

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


def _exit_buffer(plan: ExitPlan) -> type:
    return {"produced": _ProducingExitBuffer, "written": _WritingExitBuffer}.get(plan.layout, _ExitBuffer)


def _arrow_schema(plan: StagePlan) -> pa.Schema:
    schema = plan.__dict__.get("_arrow_schema")
    if schema is None:
        from kindling.spark.codec import arrow_type

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
