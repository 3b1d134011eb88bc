"""Group aggregations computed by Spark's own (JVM) operators, with Flink's changelog.

kindling/table/planner/physical.py decides which aggregations Spark computes (group keys and
built-in ``COUNT``, ``SUM``, ``SUM0``, ``AVG``, ``MIN``, ``MAX`` over an append-only table, only
stateless nodes after it; windows only where no row can be late) and the lowering gives such an
aggregation's keyed node a :class:`~kindling.graph.specs.GroupAggregateSpec`.
:func:`split_aggregations` takes it and what follows out of the streaming query: the query's sink
is then the aggregation's *input*, and :class:`AggregationWriter` computes the changes of each
micro-batch with Spark DataFrame operations and runs the operators after the aggregation on them,
as a Spark batch job of the same operators reading the changes (a temporary view,
``ChangesSourceSpec``).

A deduplication by processing time (``GroupAggregateSpec.deduplicate``) is such an aggregation whose
one accumulator is the first or last row of a group in arrival order, with Flink's emission rule in
place of "when the result changed": keep-first ``+I`` once, keep-last ``-U``/``+U`` after every row.

A stream's DISTINCT aggregate is the plain aggregate of the values each group sees first
(:func:`first_values`): as Flink's map of a group's values seen, a value seen before changes
nothing. On micro-batches the values seen are entries of the aggregation's store, one per (group,
DISTINCT call, value), written when new.

Changes are Flink's: without mini-batches, after every input row of a group (``+I`` for a new
group, ``-U old`` / ``+U new`` when its result changed, nothing when it did not), computed with
window functions over the batch's rows in arrival order; with ``table.exec.mini-batch.enabled``
once per group and micro-batch. BATCH mode gives one ``+I`` per group. When only blackholes read
the changes as they are, a micro-batch counts them from its groups where their number follows from
them (:func:`change_count`), and a bounded input in one step with one hash aggregation
(:func:`one_step_change_count`).

Between micro-batches each group's accumulators and last result live in a :class:`GroupStateStore`
under the job's checkpoint directory: SQLite databases (``group_state.SHARDS``) keyed by group and batch id,
which a micro-batch's Spark tasks read by point lookups of the batch's groups and write with
those groups' new state only, so a batch costs what it touches, not what the aggregation has
seen. A replayed batch reads, for each group, the newest version before its batch id (kept until
the batch after it commits) and overwrites its own: the changes are exactly once with the
query's checkpoint. The alternatives were not flat: Spark's state store is reachable only from a
stateful operator inside the streaming query (``transformWithState``), which would move the
aggregation's arithmetic from the JVM into Python calls per group; and a Parquet layout of deltas
per batch must still scan every file a batch's keys fall into, which for keys spread over all
groups is all of them. SQLite needs the checkpoint directory on the local file system (or one
every executor mounts): with another the planner gives the aggregation to the Python operator
(kindling/table/planner/physical.py).
"""
from __future__ import annotations

import dataclasses
import os
from collections import defaultdict
from typing import Any, Callable

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, DecimalType, DoubleType

from kindling.common.typeinfo import ChangelogRowTypeInfo
from kindling.graph.specs import ChangesSourceSpec, DiscardSinkSpec, GroupAggregateSpec, SinkSpec
from kindling.graph.transformation import (ChainedTransformation, KeyedTransformation, SinkTransformation,
                                           SourceTransformation, Transformation, upstream_graph)
from kindling.spark.codec import ROW_KIND, codec_for
from kindling.spark.savepoints import operator_uids
from kindling.spark.run_mode import RunMode
from kindling.spark.sinks import SinkWriter
from kindling.spark.rows import TS
from kindling.spark.table.columns import column, inputs_named
from kindling.spark.table.downstream import Emission, plan_emission
from kindling.spark.table.group_state import GroupStateStore
from kindling.spark.table.key_subtasks import has_expression, printed_in_parallel, with_flink_subtask

STATE_DIR = "kindling-aggregations"  # under the checkpoint directory: a GroupStateStore per group aggregation
_STATELESS = ("map", "flat_map", "filter", "process")
_SEQ, _POS, _KIND, _RESULT, _BEFORE, _GLOBAL = "__seq", "__pos", "__kind", "__res", "__prev", "__global"
_WINDOW_START, _WINDOW_END = "__w_start", "__w_end"
_ROW, _KEPT = "__row", "__kept"  # a deduplication's input row (a struct of its columns) and the row it keeps
_PLACE = "__place"  # the Spark partition key of Flink's subtask of a row's group (key_subtasks.py)
_INSERT, _UPDATE_BEFORE, _UPDATE_AFTER = 0, 1, 2
_DISTINCT = "_distinct"  # the suffix of a DISTINCT aggregate's function (GroupAggregateSpec)
_CALL, _VALUE = "__d", "__v"  # a DISTINCT call and a value its group has seen (first_values)
_FOLDED = "__x"  # a DOUBLE value of an accumulated batch, added to its group's sum in arrival order (accumulated)
_BATCH_ROWS = "__n"  # a group's rows in the micro-batch (grouped)
_WRITTEN, _COUNTED = "__written", "__counted"  # a group's state is written; its number of changes (write)
_STORED_ROW = "__stored"  # a group's stored row among its rows (_with_previous)
_SEEN = "__seen"  # whether a group has seen a DISTINCT call's value in an earlier batch (first_values)


@dataclasses.dataclass(eq=False)
class AggregationSinkSpec(SinkSpec):
    """What the streaming query hands the aggregation: the input rows' columns (``columns_type``),
    and what to do with them (``aggregate`` into ``output_type`` rows, fed to ``downstream``, the
    sinks of the operators after the aggregation, which read ``source``); ``description``: the
    aggregation's plan node, as explain prints it."""

    aggregate: GroupAggregateSpec = None
    columns_type: Any = None
    output_type: Any = None
    name: str = ""
    description: str = ""
    state_key: str = ""
    mode: RunMode = RunMode.MICRO_BATCH
    parallelism: int = 1
    downstream: list = dataclasses.field(default_factory=list)
    source: ChangesSourceSpec = None
    job_parameters: dict = dataclasses.field(default_factory=dict)
    job_id: str = "job"
    key_type: Any = None  # the TableKeyType of the group keys: Flink's subtask of each group's changes
    max_parallelism: int | None = None  # the aggregation's max parallelism (None: Flink's default)
    layout = "columns"

    @property
    def writes_timestamps(self) -> bool:
        """A window aggregation reads each row's timestamp (``__ts``): the windows are of it."""
        return self.aggregate is not None and self.aggregate.window is not None

    def __getstate__(self) -> dict:
        return {"columns_type": self.columns_type}  # all a stage's exit needs (the rest lives on the driver)


def split_aggregations(sinks: list[Transformation], mode: RunMode, parallelism: int, job_parameters: dict,
                       job_id: str, max_parallelism: int = -1) -> list[Transformation]:
    """The job's sinks with every group aggregation Spark can compute (and the stateless operators
    and sinks after it) replaced by a sink of its input rows that does that work; ``max_parallelism``:
    the environment's (-1: each aggregation's own, else Flink's default)."""
    nodes = upstream_graph(sinks)
    consumers: dict[int, list[Transformation]] = defaultdict(list)
    for node in nodes:
        for parent in node.inputs:
            consumers[parent.id].append(node)
    replaced: dict[int, SinkTransformation] = {}  # a taken sink's id -> the sink that stands for it
    uids = operator_uids(nodes)  # names the state as savepoints name it: stable across runs of the job
    for node in nodes:
        taken = _aggregation_and_after(node, consumers)
        if taken is None or (node.relational.window is not None and mode is RunMode.MICRO_BATCH):
            # a table handed to the DataStream API may end up in a job of micro-batches although the
            # planner saw a bounded one: Spark's windows need the whole input in one batch
            continue
        source = ChangesSourceSpec(view=f"kindling_changes_{job_id}_{node.id}")
        downstream = reading_changes(node, taken, source)
        rows = node.inputs[0].inputs[0]
        spec = AggregationSinkSpec(aggregate=node.relational, columns_type=rows.type_info, output_type=node.type_info,
                                   name=node.name, description=node.description, state_key=uids[node.id][0],
                                   mode=mode,
                                   parallelism=node.parallelism or parallelism, downstream=downstream, source=source,
                                   job_parameters=job_parameters, job_id=job_id, key_type=node.inputs[0].key_type,
                                   max_parallelism=node.max_parallelism or (
                                       max_parallelism if max_parallelism > 0 else None))
        # named as the sink it stands for, when one (its count is that sink's records written)
        stand_in = SinkTransformation(name=downstream[0].name if len(downstream) == 1 else node.name,
                                      inputs=[rows], parallelism=node.parallelism, sink=spec)
        for sink in downstream:
            replaced[sink.id] = stand_in
    out, seen = [], set()
    for sink in sinks:
        sink = replaced.get(sink.id, sink)
        if sink.id not in seen:
            seen.add(sink.id)
            out.append(sink)
    return out


def reading_changes(node: Transformation, taken: list[Transformation], source: ChangesSourceSpec
                    ) -> list[SinkTransformation]:
    """The sinks of ``taken`` (the stateless nodes and sinks after ``node``) in a copy of them reading
    ``source`` (the changes Spark computes) in ``node``'s place."""
    copies: dict[int, Transformation] = {node.id: SourceTransformation(
        name=node.name, type_info=node.type_info, parallelism=node.parallelism, uid=node.uid, id=node.id,
        source=source)}
    for after in taken:
        copies[after.id] = dataclasses.replace(after, inputs=[copies[i.id] for i in after.inputs])
    return [copies[t.id] for t in taken if isinstance(t, SinkTransformation)]


def _aggregation_and_after(node: Transformation, consumers: dict) -> list[Transformation] | None:
    """The nodes after ``node`` (inputs first) when it is a group aggregation the planner gave Spark
    and only stateless operators and sinks follow it (a keyed DataStream operator reading a table's
    changes cannot be fed by Spark's aggregation); else None."""
    if not isinstance(node, KeyedTransformation) or node.relational is None:
        return None
    return stateless_after(node, consumers)


def stateless_after(node: Transformation, consumers: dict) -> list[Transformation] | None:
    """The nodes after ``node`` (inputs first) when only stateless operators and sinks follow it, else None."""
    order, frontier = [], [node]
    while frontier:
        current = frontier.pop()
        for after in consumers.get(current.id, ()):
            stateless = isinstance(after, ChainedTransformation) and after.operation in _STATELESS
            if not stateless and not isinstance(after, SinkTransformation):
                return None
            if after not in order:
                order.append(after)
                frontier.append(after)
    ids = {n.id for n in order}
    return [n for n in upstream_graph([n for n in order if isinstance(n, SinkTransformation)]) if n.id in ids]


def changes_frame(compiler: Any, node: Any) -> DataFrame:
    """The frame of a ChangesSourceSpec node (its translation, kindling/spark/connectors.py): the
    changes Spark computed, in the view the aggregation's writer made of them."""
    return compiler.spark.table(node.source.view)


class AggregationWriter(SinkWriter):
    """Computes a micro-batch's changes of one group aggregation and writes them through the
    operators and sinks after it."""

    STATE_DIR = STATE_DIR  # the directory of its state stores under the checkpoint directory

    def __init__(self, spec: AggregationSinkSpec, compiler: type, writer_for: Callable[[SinkSpec], SinkWriter]):
        self.spec = spec
        self.compiler = compiler  # kindling.spark.compiler.Compiler, which compiles the job after the aggregation
        self.writers = {sink.id: writer_for(sink.sink) for sink in spec.downstream}
        self.state_dir: str | None = None
        self.state_rows_written = 0  # groups whose state the last micro-batch wrote
        self._planned: Emission | None = None  # how the changes reach the sinks (_emission)

    def bind(self, checkpoint_dir: str) -> None:
        """Keeps the aggregation's state, and that of the sinks after it, under the job's
        checkpoint directory."""
        self.state_dir = os.path.join(checkpoint_dir, self.STATE_DIR, _safe(self.spec.state_key))
        for writer in self.writers.values():
            writer.bind(checkpoint_dir)

    def write(self, df: DataFrame, batch_id: int) -> int:
        spec, aggregate, output_type = self.spec, self.spec.aggregate, self.spec.output_type
        kept: list[DataFrame] = []  # read twice (state and changes): computed once
        try:
            if spec.mode is RunMode.ONE_STEP and aggregate.every_row_changes and self._counted_only():
                return len(spec.downstream) * one_step_change_count(df, aggregate)
            if spec.mode is not RunMode.MICRO_BATCH:
                return self._emit(bounded_changes(df, aggregate, output_type), batch_id)
            rows = _prepared(df, aggregate, ordered=True)
            keys = _key_columns(aggregate)
            # a group's DISTINCT values seen live in the same store, each (group, call, value) an entry
            rows, plain, distinct = first_values(rows, aggregate, lambda entries, wanted: GroupStateStore(
                self.state_dir, entries.select(*keys, _CALL, _VALUE).schema).beside(
                entries, [*keys, _CALL, _VALUE], batch_id, found=_SEEN, wanted=wanted))
            # only a blackhole reads the changes, and how many there are follows from the groups alone
            counted = not distinct and (plain.per_batch or plain.every_row_changes) and self._counted_only()
            schema = state_of(grouped(_with_stored(accumulated(rows, plain), None, plain, batch_id), plain,
                                      output_type), plain).schema
            store = GroupStateStore(self.state_dir, schema)
            if (not aggregate.per_batch and not counted) or distinct:
                # read twice: one arrival order, one look-up of the values seen
                rows = rows.persist(StorageLevel.MEMORY_AND_DISK)
                kept.append(rows)
            values_written = 0
            for j in distinct:  # the values new to their group (a replay reads the values seen before its batch)
                pairs = value_pairs(rows, aggregate, j)
                values_written += GroupStateStore(self.state_dir, pairs.schema).write(pairs, pairs.columns, batch_id)
            aggregate = plain
            # the batch's groups with their stored state, looked up where they were aggregated
            stored = _with_stored(accumulated(rows, aggregate), store, aggregate, batch_id)
            if not counted:  # read by the state's write and by the changes: computed once
                stored = stored.persist(StorageLevel.MEMORY_AND_DISK)
                kept.append(stored)
            groups = grouped(stored, aggregate, output_type)
            # a key's first row never changes: a deduplication keeping it writes new keys only
            where = [(F.col(_BEFORE).isNull()).alias(_WRITTEN)] if aggregate.deduplicate == "first" else []
            # a blackhole's count of the changes is summed by the state's write: one job
            count = [change_count(aggregate).alias(_COUNTED)] if counted else []
            state = groups.select(*state_of(groups, aggregate).columns, *where, *count)
            written = store.writing(state, keys, batch_id, where=_WRITTEN if where else None,
                                    counted=_COUNTED if counted else None).collect()
            self.state_rows_written = sum(row.n for row in written) + values_written
            if counted:
                return len(spec.downstream) * sum(row.counted for row in written)
            if aggregate.per_batch:
                return self._emit(per_batch_changes(groups, aggregate, output_type), batch_id)
            return self._emit(per_row_changes(rows, aggregate, output_type, stored), batch_id)
        finally:
            for frame in kept:
                frame.unpersist()

    def _counted_only(self) -> bool:
        """Whether every sink after the aggregation drops its changes as they are (a blackhole table):
        only how many there are counts."""
        return bool(self.spec.downstream) and all(
            isinstance(s.sink, DiscardSinkSpec) and _as_they_are(s.inputs[0]) for s in self.spec.downstream)

    def _emit(self, changes: DataFrame, batch_id: int) -> int:
        """Writes the changes through the operators and sinks after the aggregation."""
        spec = self.spec
        # a sink that drops the changes as they are (a blackhole table) only counts them
        dropped = [s for s in spec.downstream if isinstance(s.sink, DiscardSinkSpec) and _as_they_are(s.inputs[0])]
        written = sum(changes.count() for _ in dropped)
        others = [s for s in spec.downstream if s not in dropped]
        if not others:
            return written
        spark = changes.sparkSession
        emission = self._emission(others)
        # a blackhole after Calcs Spark computes sees no order: its rows need no placing
        as_they_come = changes.select([f.name for f in codec_for(spec.output_type).fields])
        written += sum(self.writers[sink_id].write(calcs(as_they_come), batch_id)
                       for sink_id, calcs in emission.direct.items())
        if not emission.compiled:
            return written
        key_type = spec.key_type if printed_in_parallel(spec.downstream, spec.parallelism) else None
        frames = emission.frames(
            in_order(changes, spec.aggregate, spec.output_type, spec.parallelism, key_type, spec.max_parallelism))
        for view, frame in frames.items():
            frame.createOrReplaceTempView(view)
        try:
            compiled = self.compiler(spark, emission.compiled, RunMode.BATCH, spec.parallelism, spec.job_parameters,
                                     spec.job_id).compile()
            return written + sum(self.writers[sink.node.id].write(sink.select(compiled.df), batch_id)
                                 for sink in compiled.sinks)
        finally:
            for view in frames:
                spark.catalog.dropTempView(view)

    def _emission(self, others: list[SinkTransformation]) -> Emission:
        """How the changes reach ``others`` (the sinks that do not only count them: the same every
        batch), planned for the first batch."""
        if self._planned is None:
            self._planned = plan_emission(others, self.spec.source.view)
        return self._planned

    def end_of_input(self) -> None:
        for writer in self.writers.values():
            writer.end_of_input()

    def finish(self) -> None:
        for writer in self.writers.values():
            writer.finish()


def _as_they_are(node: Transformation) -> bool:
    """Whether ``node`` gives the changes as they are: their source, or maps that only rename the
    rows' fields (the planner's, to a sink's column names) over it."""
    from kindling.runtime.table.rows import Retyped

    while isinstance(node, ChainedTransformation) and node.operation == "map" and isinstance(node.function, Retyped):
        node = node.inputs[0]
    return isinstance(node, SourceTransformation)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


def in_order(changes: DataFrame, spec: GroupAggregateSpec, output_type: Any, parallelism: int,
             key_type: Any = None, max_parallelism: int | None = None) -> DataFrame:
    """The changes spread over the aggregation's ``parallelism`` instances by key (each key in Flink's
    subtask of it where ``key_type``, a TableKeyType, has a Spark expression: only where a print
    sink shows the subtask, placing costs a projection per change), each instance's in
    the order they were made (in arrival order of the rows that made them), as the output type's
    columns; as they are when their order cannot be seen (``spec.ordered``)."""
    names = [f.name for f in codec_for(output_type).fields]
    if not spec.ordered:
        return changes.select(names)
    keys = [F.col(k) for k in _key_columns(spec)]
    order = [c for c in (_WINDOW_END, _SEQ, _POS) if c in changes.columns]
    if parallelism > 1 and spec.keys and has_expression(key_type):
        changes = with_flink_subtask(changes, _key_columns(spec), key_type, parallelism, _PLACE, max_parallelism)
        keys = [F.col(_PLACE)]
    spread = changes.repartition(parallelism, *keys)
    ordered = spread.sortWithinPartitions(*order) if order else spread
    return ordered.select(names)


# -- the aggregation, as DataFrame operations -----------------------------------------------------

def _prepared(df: DataFrame, spec: GroupAggregateSpec, ordered: bool) -> DataFrame:
    """The rows as key columns ``__k<i>``, argument columns ``__a<j>`` and (``ordered``) their
    arrival order ``__seq``."""
    columns = [F.col(f"`{k}`").alias(f"__k{i}") for i, k in enumerate(spec.keys)] or [F.lit(0).alias(_GLOBAL)]
    # a DECIMAL(p, s) summed as DECIMAL(38, s), Flink's type of its sum: an average's quotient is
    # then rounded once, to Flink's scale (Spark's DECIMAL(38, s) / BIGINT is of scale max(6, s))
    columns += [(F.col(f"`{argument}`").cast(DecimalType(38, spec.scales[j])) if j in spec.scales
                 else F.col(f"`{argument}`")).alias(f"__a{j}") for j, (_, argument, _) in enumerate(spec.calls) if argument]
    if spec.window is not None:
        columns.append(F.col(TS))
    if spec.deduplicate:
        columns.append(F.struct(*[F.col(f"`{c}`").alias(f"c{i}") for i, c in enumerate(spec.columns)]).alias(_ROW))
    if ordered or spec.deduplicate:
        columns.append(F.monotonically_increasing_id().alias(_SEQ))
    return df.select(columns)


def first_values(rows: DataFrame, spec: GroupAggregateSpec,
                 seen: Callable[[DataFrame, Column], DataFrame] | None = None
                 ) -> tuple[DataFrame, GroupAggregateSpec, list[int]]:
    """A stream's DISTINCT aggregates as aggregates of the values each group sees first (Flink keeps
    a group's values seen: a value seen before changes nothing): ``rows`` (from :func:`_prepared`,
    ordered) with each DISTINCT call's argument kept on the row of its group that brings it first in
    arrival order and only if ``seen`` does not have it from before, null on the other rows; the spec
    with those calls as plain ones; the calls' indexes. ``seen``, given the rows with each one's
    ``(call, value)`` (``__d``, ``__v``, as :func:`value_pairs`) and which rows to look up, gives them
    with ``__seen``: whether their group has that entry from an earlier batch."""
    distinct = [j for j, (function, argument, _) in enumerate(spec.calls) if function.endswith(_DISTINCT) and argument]
    if not distinct:
        return rows, spec, []
    keys = _key_columns(spec)
    for j in distinct:
        value = F.col(f"__a{j}")
        first = F.row_number().over(Window.partitionBy(*keys, f"__a{j}").orderBy(_SEQ)) == 1
        rows = rows.withColumn(f"__a{j}", F.when(value.isNotNull() & first, value))
        if seen is not None:  # looked up in the partitions of the window's rows: no shuffle, no join
            entries = rows.select("*", F.lit(j).alias(_CALL), F.col(f"__a{j}").alias(_VALUE))
            rows = seen(entries, F.col(_VALUE).isNotNull()).withColumn(
                f"__a{j}", F.when(~F.col(_SEEN), F.col(f"__a{j}"))).drop(_CALL, _VALUE, _SEEN)
    calls = [(function.removesuffix(_DISTINCT), argument, integral) for function, argument, integral in spec.calls]
    return rows, dataclasses.replace(spec, calls=calls), distinct


def value_pairs(rows: DataFrame, spec: GroupAggregateSpec, j: int) -> DataFrame:
    """The ``(group, call, value)`` of each row of ``rows`` with a value of DISTINCT call ``j``: the
    key columns, ``__d`` (``j``: each DISTINCT call keeps its own values) and ``__v``."""
    return rows.where(F.col(f"__a{j}").isNotNull()).select(
        *_key_columns(spec), F.lit(j).alias(_CALL), F.col(f"__a{j}").alias(_VALUE))


def _accumulators(spec: GroupAggregateSpec) -> list[tuple[str, str, Any]]:
    """``(name, merge, aggregate)`` of every accumulator: ``merge`` says how two partial values
    combine (``add``, ``add_nullable``, ``least``, ``greatest``; a deduplication's ``first`` or
    ``last``: the row kept)."""
    if spec.deduplicate == "first":
        return [(_KEPT, "first", F.min_by(F.col(_ROW), F.col(_SEQ)))]
    if spec.deduplicate == "last":
        return [(_KEPT, "last", F.max_by(F.col(_ROW), F.col(_SEQ)))]
    out = [("__rows", "add", F.count(F.lit(1)))]  # so that a group without aggregates (DISTINCT) has one
    for j, (function, name, _) in enumerate(spec.calls):
        argument = F.col(f"__a{j}") if name else F.lit(1)
        distinct = function.endswith(_DISTINCT)
        function = function.removesuffix(_DISTINCT)
        if function in ("sum", "sum0", "avg"):
            out.append((f"__s{j}", "add_nullable", (F.sum_distinct if distinct else F.sum)(argument)))
        if function in ("count", "sum", "sum0", "avg"):
            out.append((f"__c{j}", "add", (F.count_distinct if distinct else F.count)(argument)))
        if function in ("min", "max"):
            out.append((f"__m{j}", "least" if function == "min" else "greatest",
                        (F.min if function == "min" else F.max)(argument)))
    return out


def _merged(merge: str, new: Column, old: Column) -> Column:
    if merge == "add":
        return F.coalesce(old, F.lit(0)) + new
    if merge == "add_nullable":
        return F.when(old.isNull(), new).when(new.isNull(), old).otherwise(old + new)
    if merge in ("first", "last"):
        return F.coalesce(old, new) if merge == "first" else F.coalesce(new, old)
    return (F.least if merge == "least" else F.greatest)(old, new)  # both skip nulls


def _result(spec: GroupAggregateSpec, output_type: Any) -> Column:
    """The result row as a struct of the output type's columns, from the accumulator columns."""
    fields = []
    spark_fields = codec_for(output_type).fields
    for (kind, index), field in zip(spec.fields, spark_fields):
        if kind == "key":
            value = F.col(f"__k{index}")
        elif kind == "expression":
            value = column(inputs_named(index, "__k"))
        elif kind == "column":
            value = F.col(f"{_KEPT}.c{index}")
        elif kind == "number":
            value = F.lit(index)
        elif kind == "window":
            value = F.timestamp_millis({"start": F.col(_WINDOW_START), "end": F.col(_WINDOW_END),
                                        "rowtime": F.col(_WINDOW_END) - 1}[index])
        else:
            function, _, integral = spec.calls[index]
            function = function.removesuffix(_DISTINCT)
            total, count = F.col(f"__s{index}"), F.col(f"__c{index}")
            if function == "count":
                value = count
            elif function == "sum":
                value = total
            elif function == "sum0":
                value = F.coalesce(total, F.lit(0))
            elif function == "avg":
                value = F.when(count == 0, F.lit(None)).otherwise(
                    F.expr(f"__s{index} div __c{index}") if integral else total / count)
            else:
                value = F.col(f"__m{index}")
        fields.append(value.cast(field.dataType).alias(field.name))
    return F.struct(*fields)


def _key_columns(spec: GroupAggregateSpec) -> list[str]:
    """The group's columns: the keys, or one constant for a global aggregate."""
    return [f"__k{i}" for i in range(len(spec.keys))] or [_GLOBAL]


def _with_stored(batch: DataFrame, store: GroupStateStore | None, spec: GroupAggregateSpec, batch_id: int
                 ) -> DataFrame:
    """The batch's groups (:func:`accumulated`) with each group's stored accumulators (``__p_<name>``)
    and last result (``__prev``), null for a new group (all, without ``store``): looked up in the
    partitions where the groups were aggregated (:meth:`GroupStateStore.beside`)."""
    names = [name for name, _, _ in _accumulators(spec)]
    if store is None:
        return batch.select("*", *[F.lit(None).alias(f"__p_{n}") for n in names], F.lit(None).alias(_BEFORE))
    found = store.beside(batch, _key_columns(spec), batch_id)
    return found.select(*batch.columns, *[F.col(n).alias(f"__p_{n}") for n in names], F.col(_RESULT).alias(_BEFORE))


def _with_previous(frame: DataFrame, stored: DataFrame | None, spec: GroupAggregateSpec) -> DataFrame:
    """``frame`` (rows) with their group's stored accumulators (``__p_<name>``) and last result
    (``__prev``) from ``stored`` (:func:`_with_stored`), null for a new group (all, without ``stored``):
    each group's stored row joins its rows in the partitions of a window by group (the one the
    changes' window functions then use, no exchange of their own), not by a join."""
    names = [name for name, _, _ in _accumulators(spec)]
    if stored is None:
        return frame.select("*", *[F.lit(None).alias(f"__p_{n}") for n in names], F.lit(None).alias(_BEFORE))
    carried = [f"__p_{n}" for n in names] + [_BEFORE]
    both = frame.unionByName(stored.select(*_key_columns(spec), *carried, F.lit(True).alias(_STORED_ROW)),
                             allowMissingColumns=True)
    group = Window.partitionBy(*_key_columns(spec))
    spread = both.select(*frame.columns, *[F.first(c, ignorenulls=True).over(group).alias(c) for c in carried],
                         _STORED_ROW)
    return spread.where(F.col(_STORED_ROW).isNull()).drop(_STORED_ROW)


def _changes(result: Column, before: Column, spec: GroupAggregateSpec) -> Column:
    """The changes from ``before`` (null: the group is new) to ``result``, as an array of
    ``(kind, row)``: an aggregation's when the result changed, a deduplication's as Flink emits them
    (keep-first once, keep-last after every row)."""
    change = lambda kind, row: F.struct(F.lit(kind).alias(_KIND), row.alias(_RESULT))  # noqa: E731
    insert = F.array(change(_INSERT, result))
    none = F.filter(insert, lambda _: F.lit(False))
    if spec.deduplicate == "first":
        return F.when(before.isNull(), insert).otherwise(none)
    update = F.array(change(_UPDATE_BEFORE, before), change(_UPDATE_AFTER, result))
    if spec.deduplicate == "last":
        return F.when(before.isNull(), insert).otherwise(update)
    return F.when(before.isNull(), insert).when(result.eqNullSafe(before), none).otherwise(update)


def _exploded(frame: DataFrame, spec: GroupAggregateSpec, output_type: Any) -> DataFrame:
    """One row per change: the result's columns, the RowKind, the keys and the arrival order."""
    keys = _key_columns(spec)
    out = frame.select(*keys, _SEQ, F.posexplode("__changes").alias(_POS, "__change"))
    columns = [F.col(f"__change.{_RESULT}.`{f.name}`").alias(f.name) for f in codec_for(output_type).fields
               if f.name != ROW_KIND]
    return out.select(*columns, F.col(f"__change.{_KIND}").cast("byte").alias(ROW_KIND), *keys, _SEQ, _POS)


def accumulated(rows: DataFrame, spec: GroupAggregateSpec) -> DataFrame:
    """Per group of the batch's ``rows``: its keys, the batch's accumulators (``__r_<name>``), its
    number of rows (``__r___rows``, but a deduplication's) and the arrival of its first row. Without
    mini-batches a DOUBLE sum's accumulator is the batch's values in arrival order (an array of
    ``(__seq, __x)``), which :func:`grouped` adds onto the stored sum one by one, as Flink adds; with
    them, Flink's two-phase aggregation adds the batch's sum."""
    folded = {} if spec.per_batch else {name: j for j, name in _double_sums(rows, spec).items()}
    aggregates = [(F.array_sort(F.collect_list(F.struct(_SEQ, F.col(f"__a{folded[name]}").alias(_FOLDED))))
                   if name in folded else aggregate).alias(f"__r_{name}") for name, _, aggregate in _accumulators(spec)]
    return rows.groupBy(*_key_columns(spec)).agg(*aggregates, F.min(_SEQ).alias(_SEQ))


def grouped(batch: DataFrame, spec: GroupAggregateSpec, output_type: Any) -> DataFrame:
    """Per group of the batch (``batch``: :func:`accumulated` :func:`_with_stored`): its accumulators
    merged with the stored ones, its result (``__res``), its last result before the batch (``__prev``,
    null for a new group), the arrival of its first row in the batch and, but a deduplication's, its
    number of rows in the batch (``__n``)."""
    keys = _key_columns(spec)
    accumulators = _accumulators(spec)

    def merged(name: str, merge: str) -> Column:
        new, old = F.col(f"__r_{name}"), F.col(f"__p_{name}")
        if not isinstance(batch.schema[f"__r_{name}"].dataType, ArrayType):
            return _merged(merge, new, old)
        return F.aggregate(new, old.cast("double"), lambda acc, row: _merged(merge, row[_FOLDED], acc))

    counted = [F.col("__r___rows").alias(_BATCH_ROWS)] if "__r___rows" in batch.columns else []
    frame = batch.select(*keys, _SEQ, _BEFORE, *counted, *[merged(n, merge).alias(n) for n, merge, _ in accumulators])
    return frame.withColumn(_RESULT, _result(spec, output_type))


def change_count(spec: GroupAggregateSpec) -> Column:
    """How many changes Flink's aggregation makes of a group of a micro-batch, from its row of
    :func:`grouped` alone: with mini-batches its one change or none (:func:`per_batch_changes`); else, every
    row changing its group's result (``spec.every_row_changes``), ``-U``/``+U`` per row but a new
    group's first row, its ``+I``: ``2n`` of a stored group of ``n`` rows in the batch, ``2n - 1`` of
    a new one."""
    if spec.per_batch:
        return F.size(_changes(F.col(_RESULT), F.col(_BEFORE), spec))
    return F.col(_BATCH_ROWS) * 2 - F.when(F.col(_BEFORE).isNull(), 1).otherwise(0)


def state_of(groups: DataFrame, spec: GroupAggregateSpec) -> DataFrame:
    """The state the groups keep after the batch: their keys, accumulators and result."""
    return groups.select(*_key_columns(spec), *[n for n, _, _ in _accumulators(spec)], _RESULT)


def per_row_changes(rows: DataFrame, spec: GroupAggregateSpec, output_type: Any,
                    stored: DataFrame | None) -> DataFrame:
    """Flink's changes after every row: running accumulators per group in arrival order (window
    functions), merged with the stored ones. A DOUBLE sum is folded onto the stored sum row by row
    (its group's first row of the batch carries it), as Flink adds: ``(stored + a) + b`` differs from
    ``stored + (a + b)`` in the last bits."""
    keys = _key_columns(spec)
    group = Window.partitionBy(*keys)
    running = group.orderBy(_SEQ).rowsBetween(Window.unboundedPreceding, Window.currentRow)
    folded = _double_sums(rows, spec)
    frame = _with_previous(rows, stored, spec)
    first = F.col(_SEQ) == F.min(_SEQ).over(group)
    for j, name in folded.items():
        value = F.col(f"__a{j}")
        frame = frame.withColumn(f"__f{j}", F.when(first, _merged("add_nullable", value, F.col(f"__p_{name}")))
                                 .otherwise(value))
    folded_names = {name: j for j, name in folded.items()}
    accumulators = _accumulators(spec)
    frame = frame.select(*keys, _SEQ, _BEFORE, *[
        (F.sum(f"__f{folded_names[name]}").over(running) if name in folded_names
         else _merged(merge, aggregate.over(running), F.col(f"__p_{name}"))).alias(name)
        for name, merge, aggregate in accumulators])
    frame = frame.withColumn(_RESULT, _result(spec, output_type))
    before = F.coalesce(F.lag(_RESULT).over(group.orderBy(_SEQ)), F.col(_BEFORE))
    return _exploded(frame.withColumn("__changes", _changes(F.col(_RESULT), before, spec)), spec, output_type)


def _double_sums(rows: DataFrame, spec: GroupAggregateSpec) -> dict[int, str]:
    """The sum accumulators (``__s<j>`` by call ``j``) of DOUBLE arguments: Flink adds them in order."""
    doubles = {f.name for f in rows.schema.fields if isinstance(f.dataType, DoubleType)}
    return {j: f"__s{j}" for j, (function, argument, _) in enumerate(spec.calls)
            if argument and f"__a{j}" in doubles and function.removesuffix(_DISTINCT) in ("sum", "sum0", "avg")}


def one_step_change_count(df: DataFrame, spec: GroupAggregateSpec) -> int:
    """How many changes Flink's aggregation makes of a bounded input in one step when every row changes
    its group's result (``spec.every_row_changes``): ``+I`` for a group's first row, ``-U``/``+U`` for
    each other, so ``2n - 1`` of a group of ``n`` rows; one hash aggregation instead of the changes."""
    keys = _key_columns(spec)
    groups = _prepared(df, spec, ordered=False).groupBy(*keys).count()
    return groups.agg(F.sum(F.col("count") * 2 - 1)).first()[0] or 0


def per_batch_changes(groups: DataFrame, spec: GroupAggregateSpec, output_type: Any) -> DataFrame:
    """Flink's mini-batch changes: one per group and batch."""
    return _exploded(groups.withColumn("__changes", _changes(F.col(_RESULT), F.col(_BEFORE), spec)), spec, output_type)


def windows_of(window: tuple) -> Column:
    """The windows ``(start, end)`` of a row's timestamp (``__ts``), as Flink's assigners give them:
    ``window`` is :class:`GroupAggregateSpec`'s."""
    kind, size, slide, offset = window
    ts = F.col(TS)
    window = lambda start, end: F.struct(start.alias("start"), end.alias("end"))  # noqa: E731
    start = ts - (ts - offset + size) % size  # Java's remainder, as Flink's TimeWindow computes it
    if kind == "tumble":
        return F.array(window(start, start + size))
    if kind == "hop":  # from the last window's start back while a window still holds ts
        last = ts - (ts - offset + slide) % slide
        starts = F.when(last > ts - size, F.sequence(last, ts - size + 1, F.lit(-slide))).otherwise(
            F.array().cast("array<bigint>"))
        return F.transform(starts, lambda s: window(s, s + size))
    first_end = start + F.floor((ts - start) / slide).cast("long") * slide + slide  # cumulate: slide is the step
    return F.transform(F.sequence(first_end, start + size, F.lit(slide)), lambda end: window(start, end))


def window_results(df: DataFrame, spec: GroupAggregateSpec, output_type: Any) -> DataFrame:
    """A bounded input's window aggregation (BATCH, or STREAMING in one step: the watermark stays
    at its minimum until the input ends, so no row is late and every window fires at the end): one
    row per group and window, ordered by window end then the group's first row."""
    keys = _key_columns(spec)
    rows = _prepared(df, spec, ordered=spec.ordered).withColumn("__window", F.explode(windows_of(spec.window)))
    rows = rows.select("*", F.col("__window.start").alias(_WINDOW_START), F.col("__window.end").alias(_WINDOW_END))
    arrival = [_SEQ] if spec.ordered else []
    frame = rows.groupBy(*keys, _WINDOW_START, _WINDOW_END).agg(
        *[aggregate.alias(name) for name, _, aggregate in _accumulators(spec)], *[F.min(c).alias(c) for c in arrival])
    result = frame.select(*keys, _WINDOW_END, *arrival, _result(spec, output_type).alias(_RESULT))
    names = [f.name for f in codec_for(output_type).fields if f.name != ROW_KIND]
    kind = [F.lit(_INSERT).cast("byte").alias(ROW_KIND)] if isinstance(output_type, ChangelogRowTypeInfo) else []
    return result.select(*[F.col(f"{_RESULT}.`{n}`").alias(n) for n in names], *kind, *keys, _WINDOW_END, *arrival)


def bounded_changes(df: DataFrame, spec: GroupAggregateSpec, output_type: Any) -> DataFrame:
    """The aggregation of a bounded input read at once (BATCH, or STREAMING in one step): windows'
    rows, each group's final row (``output_type`` a plain row type: BATCH) or its changes after
    every row (a changelog type; per group with ``per_batch``, the input being one batch)."""
    if spec.window is not None:
        return window_results(df, spec, output_type)
    if not isinstance(output_type, ChangelogRowTypeInfo) and not spec.deduplicate:  # keep-first: inserts
        return final_rows(df, spec, output_type)
    rows, spec, _ = first_values(_prepared(df, spec, ordered=True), spec)
    if spec.per_batch:
        return per_batch_changes(grouped(_with_stored(accumulated(rows, spec), None, spec, 0), spec, output_type),
                                 spec, output_type)
    return per_row_changes(rows, spec, output_type, None)


def final_rows(df: DataFrame, spec: GroupAggregateSpec, output_type: Any) -> DataFrame:
    """BATCH mode: each group's final result, once; a global aggregate's one row even of no input
    (``COUNT(*)`` 0), as Flink's batch aggregate gives it."""
    keys = _key_columns(spec)
    rows = _prepared(df, spec, ordered=False)
    accumulators = _accumulators(spec)
    aggregates = [aggregate.alias(name) for name, _, aggregate in accumulators]
    frame = rows.groupBy(*keys).agg(*aggregates) if spec.keys else \
        rows.agg(*aggregates).select(F.lit(0).alias(_GLOBAL), "*")
    result = frame.select(*keys, _result(spec, output_type).alias(_RESULT))
    names = [f.name for f in codec_for(output_type).fields]
    return result.select(*[F.col(f"{_RESULT}.`{n}`").alias(n) for n in names if n != ROW_KIND], *keys)
