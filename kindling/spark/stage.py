"""A fused stage: one Python pass running a tree of chained operators and encoding what
leaves it ("exits") as Arrow columns.

A stage's elements come from Arrow batches (``mapInArrow`` over a source or a union) or
from a keyed operator's outputs (inside transformWithState). Either way they are pushed
through the same chain. Output columns: ``__exit`` (which exit a row belongs to),
each exit's value columns prefixed ``x<i>__``, and the element's ``__ts``/``__wm``.
"""
from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

import pyarrow as pa
from pyspark.sql.types import BinaryType, IntegerType, LongType, StringType, StructField, StructType

from kindling.runtime.chain import ChainNode, Record, build_chain, build_list_chain, fan_out, is_function_object
from kindling.runtime.errors import user_function_failure
from kindling.runtime.formatting import flink_string
from kindling.runtime.task_info import TaskInfo
from kindling.spark.codec import ValueTypeError, codec_for

EXIT = "__exit"
TS = "__ts"
WM = "__wm"
KEY = "__key"
END_MARK = 2**52  # __ts and __wm of the control row that ends a bounded input
END_KEY = b""  # the key of end-of-input control rows (never a pickle)
ELEMENTS = "__elements"  # a keyed exit's row: one key's elements, pickled [(value, timestamp, stamp), ...]
KEYED_FLUSH_ELEMENTS = 100_000  # a keyed exit holds at most this many elements before it emits rows
TIME_FIELDS = [StructField(TS, LongType()), StructField(WM, LongType())]


@dataclass(eq=False)
class ExitPlan:
    """Where elements leave a stage and how they are encoded.

    ``layout``: ``stream`` (the codec of ``type_info``, for another stage), ``keyed`` (same,
    plus a ``__key`` column from ``key_selector``), ``string`` (Flink's toString),
    ``encoded`` (bytes from ``encoder``), ``pickled``, or ``none`` (rows are only counted).
    """

    index: int
    layout: str
    name: str
    type_info: Any = None
    key_selector: Any = None
    key_type: Any = None
    encoder: Any = None
    declared_by: str | None = None  # the operator that declared ``type_info``

    def value_fields(self) -> list[StructField]:
        if self.layout == "keyed":
            return [StructField(KEY, BinaryType()), StructField(ELEMENTS, BinaryType())]
        if self.layout == "stream":
            return list(codec_for(self.type_info).fields)
        if self.layout == "string":
            return [StructField("f0", StringType())]
        if self.layout in ("encoded", "pickled"):
            return [StructField("f0", BinaryType())]
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


class _ExitBuffer:
    """Collects one exit's elements of the current batch and encodes them as Arrow arrays."""

    def __init__(self, plan: ExitPlan, record: Record, timed: bool):
        self.plan = plan
        self.values: list = []
        self.ts: list = []
        self.wm: list = []
        self.timed = timed
        values, ts, wm = self.values, self.ts, self.wm
        if timed:
            def push(value):
                values.append(value)
                ts.append(record.timestamp)
                wm.append(record.watermark)

            def extend(vs: list) -> None:  # elements without timestamps
                values.extend(vs)
                ts.extend([None] * len(vs))
                wm.extend([None] * len(vs))
        else:
            push = values.append
            extend = values.extend
        self.push: Callable[[Any], None] = push
        self.extend: Callable[[list], None] = extend

    def ready(self, final: bool) -> bool:
        return bool(self.values)

    def take(self) -> tuple[int, list[pa.Array], list | None, list | None]:
        """Row count, value columns, timestamps and stamps (None: all null) of what was collected."""
        n = len(self.values)
        arrays = self.encode()
        ts, wm = (list(self.ts), list(self.wm)) if self.timed else (None, None)
        self.values.clear()
        self.ts.clear()
        self.wm.clear()
        return n, arrays, ts, wm

    def encode(self) -> list[pa.Array]:
        plan = self.plan
        values = self.values
        try:
            if plan.layout == "stream":
                return codec_for(plan.type_info).encode(values)
            if plan.type_info is not None:
                codec_for(plan.type_info).encode(values)  # values must fit the declared type
            if plan.layout == "string":
                t = plan.type_info
                return [pa.array([flink_string(v, t) for v in values], pa.string())]
            if plan.layout == "encoded":
                enc = plan.encoder.encode
                t = plan.type_info
                return [pa.array([enc(v, t) for v in values], pa.binary())]
            if plan.layout == "pickled":
                return [pa.array([pickle.dumps(v, protocol=5) for v in values], pa.binary())]
            return []
        except ValueTypeError as exc:
            name = plan.declared_by or plan.name
            raise user_function_failure(name, TypeError(f"{exc}, the output_type declared by operator '{name}'")) from None


class _KeyedExitBuffer:
    """Collects the elements going to a keyed operator, grouped by key: one row per key holds
    all of that key's elements (pickled), so that the shuffle and transformWithState handle a
    row per key, not per element. Rows carry the largest timestamp of their elements, which
    drives Spark's watermark."""

    def __init__(self, plan: ExitPlan, record: Record):
        self.plan = plan
        self.timed = True
        self.groups: dict[Any, list] = {}
        self.count = 0
        selector = plan.key_selector
        get_key = selector.get_key if is_function_object(selector, "get_key") else selector
        groups = self.groups
        name = plan.name

        def push(value):
            try:
                key = get_key(value)
                group = groups.get(key)
            except Exception as exc:  # the selector failed, or the key is unhashable
                raise user_function_failure(name, exc) from None
            if group is None:
                group = groups[key] = []
            group.append((value, record.timestamp, record.watermark))

        def extend(values: list) -> None:
            for value in values:
                push(value)

        self.push = push
        self.extend = extend

    def ready(self, final: bool) -> bool:
        if not self.groups:
            return False
        return final or sum(len(g) for g in self.groups.values()) >= KEYED_FLUSH_ELEMENTS

    def take(self) -> tuple[int, list[pa.Array], list | None, list | None]:
        plan = self.plan
        groups = list(self.groups.items())
        self.groups.clear()
        if plan.type_info is not None:
            try:
                codec_for(plan.type_info).encode([e[0] for _, group in groups for e in group])
            except ValueTypeError as exc:
                name = plan.declared_by or plan.name
                raise user_function_failure(name, TypeError(
                    f"{exc}, the output_type declared by operator '{name}'")) from None
        keys = _encode_keys([k for k, _ in groups], plan)
        try:
            elements = pa.array([pickle.dumps(group, protocol=5) for _, group in groups], pa.binary())
        except Exception:
            import cloudpickle

            elements = pa.array([cloudpickle.dumps(group, protocol=5) for _, group in groups], pa.binary())
        ts = [max((e[1] for e in group if e[1] is not None), default=None) for _, group in groups]
        return len(groups), [keys, elements], ts, [None] * len(groups)


def _encode_keys(keys: list, plan: ExitPlan) -> pa.Array:
    if plan.key_type is not None:
        try:
            codec_for(plan.key_type).encode(keys)
        except ValueTypeError as exc:
            raise user_function_failure(plan.name, TypeError(f"key {exc}, the key_type of operator '{plan.name}'")) from None
    try:
        return pa.array([pickle.dumps(k, protocol=5) for k in keys], pa.binary())
    except Exception as exc:
        raise user_function_failure(plan.name, TypeError(
            f"the key selector of operator '{plan.name}' returned a key that cannot be pickled: {exc}; "
            "keys must be picklable values such as str, int or tuples of them")) from None


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
    parallelism: int = 1

    def schema(self) -> StructType:
        return stage_schema(self.exits)


class StageRun:
    """One task's instance of a stage: the wired chain and the exit buffers."""

    def __init__(self, plan: StagePlan, partition: int, watermark_generators: dict | None = None):
        self.plan = plan
        self.record = Record()
        info = TaskInfo(plan.name, partition, plan.parallelism, job_parameters=plan.job_parameters)
        self.buffers = [_KeyedExitBuffer(ex, self.record) if ex.layout == "keyed"
                        else _ExitBuffer(ex, self.record, ex.index in plan.timed_exits) for ex in plan.exits]
        pushers = {b.plan.index: b.push for b in self.buffers}
        extenders = {b.plan.index: b.extend for b in self.buffers}
        generators = {} if watermark_generators is None else watermark_generators
        record = self.record

        def wire_lists(roots: list[ChainNode], exits: list[int]) -> Callable[[list], None]:
            return fan_out([build_list_chain(r, pushers, extenders, record, info, generators) for r in roots]
                           + [extenders[e] for e in exits])

        def wire(roots: list[ChainNode], exits: list[int]) -> Callable[[Any], None]:
            return fan_out([build_chain(r, pushers, record, info, generators) for r in roots]
                           + [pushers[e] for e in exits])

        self.push = wire(plan.roots, plan.root_exits)
        self.push_list = wire_lists(plan.roots, plan.root_exits)
        self.side_push = {
            tag: wire(plan.side_roots.get(tag, []), plan.side_root_exits.get(tag, []))
            for tag in set(plan.side_roots) | set(plan.side_root_exits)
        }

    def push_output(self, tag: str | None, value: Any, timestamp: int | None, watermark: int | None) -> None:
        """Pushes one output of a keyed operator (main or side output) into the chain."""
        record = self.record
        record.timestamp = timestamp
        record.watermark = watermark
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
        push = self.push
        ended = False
        for batch in batches:
            values = codec.decode([batch.column(i) for i in range(n_value_cols)])
            if batch.num_columns == n_value_cols:  # a BATCH-mode source: no time columns
                self.push_list(values)
                yield from self.flush(final=False)
                continue
            names = batch.schema.names
            ts_col = batch.column(TS) if TS in names else pa.nulls(batch.num_rows, pa.int64())  # sources: no __ts
            wm_col = batch.column(WM)
            if ts_col.null_count == len(ts_col) and wm_col.null_count == len(wm_col):
                record.timestamp = None
                record.watermark = None
                self.push_list(values)
            else:
                for v, t, w in zip(values, ts_col.to_pylist(), wm_col.to_pylist()):
                    if w == END_MARK:
                        ended = True
                        continue
                    record.timestamp = t
                    record.watermark = w
                    push(v)
            yield from self.flush(final=False)
        yield from self.flush()
        if ended:
            yield from self.end_of_input()

    def flush(self, final: bool = True) -> Iterator[pa.RecordBatch]:
        """Encodes and clears what the exits collected, one Arrow batch per exit. Unless
        ``final``, keyed exits keep collecting (up to a bound) to group more per key."""
        schema = None
        for buf in self.buffers:
            if not buf.ready(final):
                continue
            if schema is None:
                schema = _arrow_schema(self.plan)
            n, arrays, ts, wm = buf.take()
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
                else:
                    columns.append(pa.nulls(n, f.type))
            yield pa.RecordBatch.from_arrays(columns, schema=schema)

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


def _arrow_schema(plan: StagePlan) -> pa.Schema:
    schema = plan.__dict__.get("_arrow_schema")
    if schema is None:
        from kindling.spark.codec import arrow_type

        schema = pa.schema([pa.field(f.name, arrow_type(f.dataType), True) for f in plan.schema()])
        plan.__dict__["_arrow_schema"] = schema
    return schema


def arrow_stage_function(plan: StagePlan) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The function given to ``mapInArrow`` for a stage."""

    def run(batches):
        from pyspark import TaskContext

        ctx = TaskContext.get()
        partition = ctx.partitionId() if ctx is not None else 0
        yield from StageRun(plan, partition).run_arrow(batches)

    return run
