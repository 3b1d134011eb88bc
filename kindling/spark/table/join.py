"""Regular joins of micro-batches computed by Spark's own (JVM) operators.

kindling/table/planner/physical.py decides which joins Spark computes on micro-batches (an inner or
outer join of two append-only tables on equal keys, a condition Spark computes as Flink does, only
stateless nodes after it) and the lowering gives such a join's two-input node a
:class:`~kindling.graph.specs.RegularJoinSpec`. :func:`split_joins` takes the join and what follows
it out of the streaming query, as kindling/spark/table/aggregation.py does for an aggregation: the
query then has a sink of each side's rows (:class:`JoinSideSinkSpec`), and the two sinks' writers
hand the batch's rows to one :class:`JoinWriter`, which joins them with DataFrame operations and
runs the operators after the join on the joined rows (a Spark batch job reading them).

Per micro-batch, Flink's answer for an arrival where the batch's left rows come before its right
rows: each new left row joins the right rows stored of its key, each new right row the stored and
the new left rows of its key (each pair once, ``+I``, when the whole condition holds for it: a null
key joins nothing), each instance's in the order of the arriving rows, a row's pairs in the order
its partners arrived. Then each side's rows of the batch are appended to its stored rows of their
key. The stored rows live in a :class:`~kindling.spark.table.group_state.GroupStateStore` under the
checkpoint directory, one entry per key (both sides' rows of the key, in arrival order), looked up
and written for the batch's keys only; a replayed batch reads the version before its batch id, so
the pairs are exactly once with the query's checkpoint. A key's entry is rewritten whole when a
batch adds rows to it: a key with very many rows costs as many per batch that touches it.

An inner join (the planner's ``RegularJoinSpec.streamed``, unless ``kindling.table.spark-stream-join``
is false) is Spark's own stream-stream join inside the streaming query instead: the compiler joins the
two sides' frames (:func:`streamed_pairs`), the query's rows are the pairs, and the writer of the right
side's sink writes them through the operators and sinks after the join (:meth:`JoinWriter.write_pairs`);
the join's rows live in the query's state store, exactly once with its checkpoint. Where a sink sees
the pairs' order (one the writer reaches through a job compiled per batch: a print, collect or file
sink), each row carries its arrival through the join, and the writer puts each batch's pairs in the
order the per-batch join gives them (:func:`_pair_order`).

Spark jobs per micro-batch: one, then those of the operators and sinks after the join (a print or
collect sink runs one per partition). The one job groups the batch's rows by key, looks up each
key's stored rows in the partition where its group is (:func:`_with_stored`: no shuffle of its own),
takes both the pairs and the new state from that frame, writes the state (a shuffle to a partition
per SQLite shard), and keeps the pairs, which the sinks' jobs then read
(:meth:`JoinWriter._stored_and_emitted`): three stages. A batch without rows costs the same jobs,
with empty tasks.

An outer join (:meth:`JoinWriter._outer_batch`) takes the batch's rows of the side that is not outer
first (:func:`_first_side`) and also emits the changes of padded rows; each stored row keeps whether
it has a partner (``__m``), and a null-keyed row is padded and never stored. It runs in as many jobs
as an inner join: from the same frame of each key's stored and new rows it takes the key's candidate
pairs (its arriving rows with their partners), keeps those for which the condition holds
(:func:`_outer_pairs`), and computes the key's changes and new state from them by array functions
(:func:`_outer_changes`, :func:`_outer_state`); arriving rows and partners are never joined by a
DataFrame join, whose broadcasts cost a job each.
"""
from __future__ import annotations

import dataclasses
import weakref
from collections import defaultdict
from typing import Any, Callable, Iterator

import pyarrow as pa
from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StructType
from pyspark.sql.window import Window

from kindling.graph.specs import ChangesSourceSpec, DiscardSinkSpec, GroupAggregateSpec, RegularJoinSpec, SinkSpec
from kindling.graph.transformation import SinkTransformation, Transformation, \
    TwoInputTransformation, upstream_graph
from kindling.spark.codec import ROW_KIND, codec_for
from kindling.spark.run_mode import RunMode
from kindling.spark.savepoints import stateful_uids
from kindling.spark.sinks import SinkWriter
from kindling.spark.table.aggregation import (AggregationWriter, _as_they_are, inputs_named, reading_changes,
                                              stateless_after)
from kindling.spark.table.columns import column
from kindling.spark.table.downstream import plan_emission
from kindling.spark.table.group_state import GroupStateStore

STATE_DIR = "kindling-joins"  # under the checkpoint directory: a GroupStateStore per join
_SEQ, _POS, _ROW = "__seq", "__pos", "__row"
_WRITTEN = "__written"  # the state's groups written (a row per shard), beside a batch's changes
_SIDES = ("__l", "__r")  # the state's columns of each side's rows
_INSERT, _DELETE = 0, 3  # RowKind's byte values


@dataclasses.dataclass(eq=False)
class JoinSinkSpec:
    """A join Spark computes on micro-batches (lives on the driver): ``join``, its output rows of
    ``output_type`` fed to ``downstream``, the sinks of the operators after it, which read
    ``source``. The attributes :class:`~kindling.spark.table.aggregation.AggregationWriter` writes
    through (``aggregate``: the join keys' placement of the output, ``key_type``: their TableKeyType)."""

    join: RegularJoinSpec = None
    output_type: Any = None
    name: str = ""
    description: str = ""  # the join's plan node, as explain prints it
    state_key: str = ""
    parallelism: int = 1
    downstream: list = dataclasses.field(default_factory=list)
    source: ChangesSourceSpec = None
    job_parameters: dict = dataclasses.field(default_factory=dict)
    job_id: str = "job"
    key_type: Any = None
    max_parallelism: int | None = None
    aggregate: GroupAggregateSpec = None


@dataclasses.dataclass(eq=False)
class JoinSideSinkSpec(SinkSpec):
    """What the streaming query hands a join: the rows of one ``side`` (0 left, 1 right), of
    ``columns_type``."""

    join: JoinSinkSpec = None
    side: int = 0
    columns_type: Any = None
    pairs: bool = False  # its rows are the join's pairs, joined in the streaming query (:func:`streamed_pairs`)
    layout = "columns"

    def __getstate__(self) -> dict:
        return {"columns_type": self.columns_type, "side": self.side}  # all a stage's exit needs

    @property
    def streamed(self) -> bool:
        """Whether the planner chose Spark's stream-stream join in the query for the join (:func:`streamed_pairs`)."""
        return self.join.join.streamed


def streamed_pairs(spec: JoinSinkSpec, left: DataFrame, right: DataFrame) -> DataFrame:
    """The pairs of the inner join ``spec`` of the streaming frames ``left`` and ``right`` (each side's
    rows, their columns in order) by Spark's stream-stream join (StreamingSymmetricHashJoinExec), as
    the join's output columns: in each partition it joins the batch's left rows with the right rows
    stored before the batch, then the batch's right rows with the stored and the batch's left rows,
    and stores both sides' rows in the query's state store; each pair once (a null key joins
    nothing, a pair is kept when the whole condition holds). Where a sink sees their order
    (:func:`_sees_order`), each side's row carries its arrival into the state (``__<side>t``: the
    batch's timestamp, which Spark keeps in its offset log for a replay; ``__<side>id``: the row's
    ``monotonically_increasing_id`` as the per-batch join takes it, :func:`_row_ids`), and the pairs
    the per-batch join's order columns (:func:`_pair_order`)."""
    join = spec.join
    width = len(left.columns)
    sides = [_keyed(left, join.left_keys, join.widened, 0, "__lk"), _keyed(right, join.right_keys, join.widened, width,
                                                                             "__rk")]
    ordered = _sees_order(spec)
    if ordered:
        ids = F.arrow_udf(_row_ids, LongType()).asNondeterministic()  # over an iterator of batches: its type hints
        sides = [rows.select("*", ids(F.spark_partition_id()).alias(f"{side}id"),
                             F.unix_micros(F.current_timestamp()).alias(f"{side}t"))
                 for rows, side in zip(sides, ("__l", "__r"))]
    on = None
    for i in range(len(join.left_keys)):
        equal = F.col(f"__lk{i}") == F.col(f"__rk{i}")
        on = equal if on is None else on & equal
    if not join.keys_only:
        on = on & column(inputs_named(join.condition, "__c"))
    fields, kind = _output_fields(spec.output_type, width + len(right.columns))
    pairs = sides[0].join(sides[1], on, "inner")
    return pairs.select(*[F.col(f"__c{i}").cast(f.dataType).alias(f.name) for i, f in enumerate(fields)],
                        *([F.lit(_INSERT).cast("byte").alias(ROW_KIND)] if kind else []),
                        *(_pair_order(join) if ordered else []))


def _sees_order(spec: JoinSinkSpec) -> bool:
    """Whether a sink after the join sees the order of its pairs: one its writer reaches through a job
    compiled per batch (:meth:`~kindling.spark.table.aggregation.AggregationWriter._emit` places and
    sorts the pairs for it), not a blackhole of the pairs or of Calcs Spark computes of them."""
    others = [s for s in spec.downstream if not (isinstance(s.sink, DiscardSinkSpec) and _as_they_are(s.inputs[0]))]
    return bool(others) and bool(plan_emission(others, spec.source.view).compiled)


def _row_ids(partition: Iterator[pa.Array]) -> Iterator[pa.Array]:
    """``monotonically_increasing_id`` of each row of a partition (the partition's index, 33 bits up,
    plus the row's place in it; ``partition``: the index on each row, a batch at a time), which
    Spark refuses in a streaming query."""
    import numpy as np

    next_id = None  # known from the partition's first row
    for indexes in partition:
        if next_id is None and len(indexes):
            next_id = indexes[0].as_py() << 33
        start = next_id or 0
        yield pa.array(np.arange(start, start + len(indexes), dtype=np.int64))
        next_id = None if next_id is None else next_id + len(indexes)


def _pair_order(join: RegularJoinSpec) -> list[Column]:
    """The per-batch join's placement and order columns (:meth:`JoinWriter._output`) of the pairs of
    :func:`streamed_pairs`: the arriving row is the right one when its batch is the left one's or a
    later one (``__seq``: side 1 and its id), else the left one (side 0); its partner (``__pos``)
    one of the batch (1, when both rows' batches are one) or a stored one (0), then in arrival order
    (batch, id), as the per-batch join's stored rows of a key are."""
    right_arrives = F.col("__rt") >= F.col("__lt")

    def of(arriving: bool, name: str) -> Column:  # the column ``name`` of the arriving row (else its partner)
        return F.when(right_arrives, F.col(f"__{'r' if arriving else 'l'}{name}")).otherwise(
            F.col(f"__{'l' if arriving else 'r'}{name}"))
    partner = F.struct((F.col("__rt") == F.col("__lt")).cast("int").alias("o"), of(False, "t").alias("t"),
                       of(False, "id").alias("n"))
    return [*[F.col(f"__c{p}").alias(f"__k{i}") for i, p in enumerate(join.left_keys)],
            _order(right_arrives, of(True, "id")).alias(_SEQ), partner.alias(_POS)]


def split_joins(sinks: list[Transformation], mode: RunMode, parallelism: int, job_parameters: dict, job_id: str,
                max_parallelism: int = -1) -> list[Transformation]:
    """The job's sinks with every join Spark computes on micro-batches (and the stateless operators
    and sinks after it) replaced by two sinks of its inputs' rows that do that work."""
    if mode is not RunMode.MICRO_BATCH:
        return sinks  # the planner chose for micro-batches: any other mode keeps the Python operator
    nodes = upstream_graph(sinks)
    consumers: dict[int, list[Transformation]] = defaultdict(list)
    for node in nodes:
        for parent in node.inputs:
            consumers[parent.id].append(node)
    replaced: dict[int, list[SinkTransformation]] = {}
    # names each join's state as savepoints name an operator's: stable across runs of the job
    uids = stateful_uids(nodes, lambda node: isinstance(node, TwoInputTransformation) and node.relational is not None)
    for node in nodes:
        if node.id not in uids:
            continue
        state_key = uids[node.id][0]
        taken = stateless_after(node, consumers)
        if taken is None:
            continue
        source = ChangesSourceSpec(view=f"kindling_joined_{job_id}_{node.id}")
        downstream = reading_changes(node, taken, source)
        left, right = (keyed.inputs[0] for keyed in node.inputs)
        join = node.relational
        spec = JoinSinkSpec(join=join, output_type=node.type_info, name=node.name, description=node.description,
                            state_key=state_key,
                            parallelism=node.parallelism or parallelism, downstream=downstream, source=source,
                            job_parameters=job_parameters, job_id=job_id, key_type=node.inputs[0].key_type,
                            max_parallelism=node.max_parallelism or (max_parallelism if max_parallelism > 0 else None),
                            aggregate=GroupAggregateSpec(keys=[f"k{i}" for i in range(len(join.left_keys))]))
        name = downstream[0].name if len(downstream) == 1 else node.name
        stand_ins = [SinkTransformation(name=name, inputs=[rows], parallelism=node.parallelism,
                                        sink=JoinSideSinkSpec(join=spec, side=side, columns_type=rows.type_info))
                     for side, rows in enumerate((left, right))]
        for sink in downstream:
            replaced[sink.id] = stand_ins
    out, seen = [], set()
    for sink in sinks:
        for kept in replaced.get(sink.id, [sink]):
            if kept.id not in seen:
                seen.add(kept.id)
                out.append(kept)
    return out


_WRITERS: "weakref.WeakKeyDictionary[JoinSinkSpec, JoinWriter]" = weakref.WeakKeyDictionary()


class JoinSideWriter(SinkWriter):
    """The writer of one side's rows: hands them to the join's :class:`JoinWriter`, which joins a
    micro-batch once it has both sides' rows."""

    def __init__(self, spec: JoinSideSinkSpec, compiler: type, writer_for: Callable[[SinkSpec], SinkWriter]):
        self.side = spec.side
        self.pairs = spec.pairs
        self.join = _WRITERS.get(spec.join)
        if self.join is None:
            self.join = _WRITERS[spec.join] = self.joining(spec.join, compiler, writer_for)

    @staticmethod
    def joining(spec: JoinSinkSpec, compiler: type, writer_for: Callable[[SinkSpec], SinkWriter]) -> "JoinWriter":
        """The one writer of the join, which both sides' writers share."""
        return JoinWriter(spec, compiler, writer_for)

    def write(self, df: DataFrame, batch_id: int) -> int:
        if self.pairs:
            return self.join.write_pairs(df, batch_id)
        return self.join.write_side(self.side, df, batch_id)

    def bind(self, checkpoint_dir: str) -> None:
        if self.side == 1:
            self.join.bind(checkpoint_dir)

    def end_of_input(self) -> None:
        if self.side == 1:
            self.join.end_of_input()

    def finish(self) -> None:
        if self.side == 1:
            self.join.finish()


class JoinWriter(AggregationWriter):
    """Joins a micro-batch's rows of both sides with each other and with the stored rows of their
    keys, and writes the pairs through the operators and sinks after the join."""

    STATE_DIR = STATE_DIR

    def __init__(self, spec: JoinSinkSpec, compiler: type, writer_for: Callable[[SinkSpec], SinkWriter]):
        super().__init__(spec, compiler, writer_for)
        self.pending: dict[int, dict[int, DataFrame]] = {}  # batch id -> side -> that side's rows
        self._state_type: StructType | None = None

    def state_type(self, planned: Callable[[], StructType]) -> StructType:
        """The columns of the join's state: the same every batch (the sides' columns never change), so
        the frame giving them (``planned``) is planned on the driver for the first batch only."""
        if self._state_type is None:
            self._state_type = planned()
        return self._state_type

    def write(self, df: DataFrame, batch_id: int) -> int:
        raise TypeError("a join's rows come one side at a time: write_side")

    def write_side(self, side: int, df: DataFrame, batch_id: int) -> int:
        """Takes one side's rows of a batch; joins the batch when both sides' are in (the pairs written)."""
        sides = self.pending.setdefault(batch_id, {})
        sides[side] = df
        if len(sides) < 2:
            return 0
        del self.pending[batch_id]
        return self.write_batch(sides[0], sides[1], batch_id)

    def write_pairs(self, pairs: DataFrame, batch_id: int) -> int:
        """Writes a micro-batch's pairs, joined in the streaming query (:func:`streamed_pairs`), through
        the operators and sinks after the join (placed and sorted by their order columns where a sink
        sees the order): computed once (each computing of them runs the query's join)."""
        readers = len(self.spec.downstream)
        if readers > 1:
            pairs = pairs.persist(StorageLevel.MEMORY_AND_DISK)
        try:
            return self._emit(pairs, batch_id)
        finally:
            if readers > 1:
                pairs.unpersist()

    def write_batch(self, left: DataFrame, right: DataFrame, batch_id: int) -> int:
        """Joins one micro-batch; the number of rows the sinks after the join wrote."""
        join = self.spec.join
        width = len(left.columns)
        if self.state_dir is None:
            raise RuntimeError("a join in a streaming query needs the job's checkpoint directory")
        kept: list[DataFrame] = []
        try:
            keys = _keys(join)
            if join.left_outer or join.right_outer:
                return self._outer_batch(left, right, batch_id, kept)
            new_left = _keep(kept, _rows(left, join.left_keys, join.widened, 0).where(_present(keys)))
            new_right = _keep(kept, _rows(right, join.right_keys, join.widened, width).where(_present(keys)))
            store = GroupStateStore(self.state_dir, self.state_type(lambda: _state_schema(new_left, new_right, keys)))
            # per key of the batch: its stored rows and the batch's, whence both its pairs and its new state
            rows = _keep(kept, _with_stored(_batch_rows(new_left, new_right, keys), store, keys, batch_id))
            condition = column(inputs_named(join.condition, "__c"))
            left_values, right_values = _values(new_left), _values(new_right)
            # the batch's left rows first: each joins the right rows stored before the batch
            pairs = _pairs_in(rows, "__nl", "__r", None, keys, condition, 0, left_values, right_values)
            # then its right rows: each joins the left rows stored and those of the batch
            for stored, new in (("__l", None), (None, "__nl")):
                pairs = pairs.unionByName(_pairs_in(rows, "__nr", stored, new, keys, condition, 1, right_values,
                                                    left_values))
            state = rows.select(*keys, *[_concatenated(F.col(side), _batch_side(F.col(new))).alias(side)
                                         for side, new in zip(_SIDES, ("__nl", "__nr"))])
            written = store.writing(state, keys, batch_id)
            return self._stored_and_emitted(self._output(pairs, join, width + len(right.columns)), written, batch_id,
                                            kept)
        finally:
            for frame in kept:
                frame.unpersist()

    def _outer_batch(self, left: DataFrame, right: DataFrame, batch_id: int, kept: list[DataFrame]) -> int:
        """An outer join's changes of one micro-batch, as Flink's join emits them when the batch's rows
        arrive one side's after the other's (:func:`_first_side`): a row without a partner ``+I``
        padded with nulls; a padded row's first partner ``-D`` of the padded row, then ``+I`` of the
        pair; later partners ``+I`` of pairs. Each stored row keeps whether it has had a partner
        (``__m``). One row per key of the batch holds its stored and new rows and their pairs
        (:func:`_outer_pairs`), whence its changes and its new state; the state is written and the
        changes computed in one Spark job (:meth:`_stored_and_emitted`)."""
        join = self.spec.join
        width = len(left.columns)
        keys = _keys(join)
        every = [_keep(kept, _rows(left, join.left_keys, join.widened, 0)),
                 _keep(kept, _rows(right, join.right_keys, join.widened, width))]
        new = [rows.where(_present(keys)) for rows in every]  # a null key joins nothing: padded, never stored
        store = GroupStateStore(self.state_dir, self.state_type(lambda: _outer_state_schema(new[0], new[1], keys)))
        types = {f.name: f.dataType for rows in every for f in rows.schema.fields if f.name.startswith("__c")}
        sides = (_values(every[0]), _values(every[1]))
        condition = column(inputs_named(join.condition, "__c"))
        first = _first_side(join)
        rows = _with_stored(_batch_rows(new[0], new[1], keys), store, keys, batch_id)
        rows = _keep(kept, _outer_pairs(rows, keys, sides, types, condition, first))
        outer = (join.left_outer, join.right_outer)
        changes = _outer_changes(rows, sides, types, first, outer)
        for side in (0, 1):
            if outer[side]:  # a null-keyed row: padded
                step = 0 if side == first else 1
                changes = changes.unionByName(every[side].where(~_present(keys)).select(
                    *[(F.col(c) if c in sides[side] else F.lit(None).cast(t)).alias(c) for c, t in types.items()],
                    F.lit(_INSERT).cast("byte").alias(ROW_KIND), _order(F.lit(step), F.col(_SEQ)).alias(_SEQ),
                    _position(F.lit(0), F.lit(0), 1).alias(_POS)))
        written = store.writing(_outer_state(rows, keys, sides, first), keys, batch_id)
        return self._stored_and_emitted(self._output(changes, join, width + len(right.columns), width), written,
                                        batch_id, kept)

    def _stored_and_emitted(self, changes: DataFrame, written: DataFrame, batch_id: int, kept: list[DataFrame]) -> int:
        """Stores the batch's state and computes its ``changes`` in one Spark job (``written``:
        :meth:`GroupStateStore.writing`), then writes the changes, kept, through the operators and
        sinks after the join. Their jobs read the kept rows: no join of theirs (nor broadcast of a
        join's side) runs again."""
        both = _keep(kept, changes.withColumn(_WRITTEN, F.lit(None).cast("long")).unionByName(
            written.select(F.col("n").alias(_WRITTEN)), allowMissingColumns=True))
        # one job computes every partition of ``both`` (kept whole), whichever rows it then takes
        counts = both.where(F.col(_WRITTEN).isNotNull()).select(_WRITTEN)
        self.state_rows_written = sum(row[0] for row in counts.collect())
        return self._emit(both.where(F.col(_WRITTEN).isNull()).drop(_WRITTEN), batch_id)

    def _output(self, pairs: DataFrame, join: RegularJoinSpec, width: int, right_offset: int | None = None
                ) -> DataFrame:
        """The pairs as the join's output columns (``width`` of them), with their RowKind (``__kind``)
        when the output is a changelog (an outer or anti join's), the placement keys (the key columns
        of the left side: ``__k<i>``) and their order (``__seq``, ``__pos``); in an outer join (with
        ``right_offset``, where the right side's columns start) a row padded on the left is placed by
        its right key columns."""
        fields, kind = _output_fields(self.spec.output_type, width)
        kind = [F.col(ROW_KIND)] if kind else []
        placed = [F.col(f"__c{p}") for p in join.left_keys]
        if right_offset is not None:
            placed = [F.coalesce(k, F.col(f"__c{right_offset + p}")) for k, p in zip(placed, join.right_keys)]
        return pairs.select(*[F.col(f"__c{i}").cast(f.dataType).alias(f.name) for i, f in enumerate(fields)], *kind,
                            *[k.alias(f"__k{i}") for i, k in enumerate(placed)], _SEQ, _POS)


def _keep(kept: list, frame: DataFrame) -> DataFrame:
    """``frame`` computed once for its several readers (and its arrival order fixed)."""
    frame = frame.persist(StorageLevel.MEMORY_AND_DISK)
    kept.append(frame)
    return frame


def _keys(join: RegularJoinSpec) -> list[str]:
    return [f"__k{i}" for i in range(len(join.left_keys))]


def _output_fields(output_type: Any, width: int) -> tuple[list, bool]:
    """The join's output fields but its RowKind, and whether it has one; ``width``: its inputs' columns."""
    fields = codec_for(output_type).fields
    values = [f for f in fields if f.name != ROW_KIND]
    if len(values) != width:
        raise RuntimeError(f"the join's output has {len(values)} columns, its inputs {width}")
    return values, len(values) < len(fields)


def _keyed(df: DataFrame, key_positions: list[int], widened: bool, offset: int, prefix: str = "__k") -> DataFrame:
    """One side's rows: their keys ``<prefix><i>`` (integers as BIGINT when ``widened``) and their columns
    ``__c<offset + j>``."""
    names = df.columns
    keys = [F.col(f"`{names[p]}`") for p in key_positions]
    keys = [k.cast("bigint") if widened else k for k in keys]
    return df.select(*[k.alias(f"{prefix}{i}") for i, k in enumerate(keys)],
                     *[F.col(f"`{n}`").alias(f"__c{offset + j}") for j, n in enumerate(names)])


def _rows(df: DataFrame, key_positions: list[int], widened: bool, offset: int) -> DataFrame:
    """One side's rows of the batch (:func:`_keyed`) and their arrival order ``__seq``."""
    keyed = _keyed(df, key_positions, widened, offset)
    return keyed.select("*", F.monotonically_increasing_id().alias(_SEQ))


def _present(keys: list[str]) -> Column:
    """Whether a row's keys are all non-null (a null key equals nothing)."""
    present = None
    for k in keys:
        present = F.col(k).isNotNull() if present is None else present & F.col(k).isNotNull()
    return present


def _values(frame: DataFrame) -> list[str]:
    return [c for c in frame.columns if c.startswith("__c")]


def _stored_rows(previous: DataFrame, keys: list[str], side: str) -> DataFrame:
    """The stored rows of one ``side`` (``__l`` or ``__r``) of the keys of ``previous`` (the state),
    one per row, with their position in arrival order (``__pos``)."""
    exploded = previous.select(*keys, F.posexplode(side).alias(_POS, _ROW))
    return exploded.select(*keys, _POS, f"{_ROW}.*")


def _order(first: Column, then: Column) -> Column:
    """An arrival order: ``(first, then)``, compared in that order."""
    return F.struct(first.cast("int").alias("o"), then.cast("bigint").alias("n"))


def _as_partners(rows: DataFrame, keys: list[str], origin: int, order: str, matched: str | None = None) -> DataFrame:
    """``rows`` as partners of arriving rows: their keys as ``__t<i>``, their arrival (``origin``
    0: stored, 1: of the batch; then the column ``order``) as ``__partner``, their columns (and,
    with ``matched``, that column, whether the row had a partner before, as ``__pm``)."""
    had = [F.col(matched).alias("__pm")] if matched else []
    return rows.select(*[F.col(k).alias(f"__t{i}") for i, k in enumerate(keys)],
                       _order(F.lit(origin), F.col(order)).alias("__partner"), *_values(rows), *had)


def _state_schema(left: DataFrame, right: DataFrame, keys: list[str]) -> StructType:
    """The state's columns of a key of the batch's rows ``left`` and ``right``: its keys and each
    side's rows in arrival order (``__l``, ``__r``)."""
    batch = _batch_rows(left, right, keys)
    return batch.select(*keys, *[_batch_side(F.col(new)).alias(side) for side, new in zip(_SIDES, ("__nl", "__nr"))]
                        ).schema


def _batch_rows(left: DataFrame, right: DataFrame, keys: list[str]) -> DataFrame:
    """The batch's rows ``left`` and ``right`` by key: per key each side's rows in arrival order
    (``__nl``, ``__nr``: arrays of ``__seq`` and ``__row``, the row's columns; empty: none)."""
    entries = [rows.select(*keys, F.struct(_SEQ, F.struct(*_values(rows)).alias(_ROW)).alias(name))
               for rows, name in ((left, "__nl"), (right, "__nr"))]
    both = entries[0].unionByName(entries[1], allowMissingColumns=True)
    # collect_list leaves out the nulls of the other side's rows
    return both.groupBy(*keys).agg(*[F.sort_array(F.collect_list(name)).alias(name) for name in ("__nl", "__nr")])


def _with_stored(batch: DataFrame, store: GroupStateStore, keys: list[str], batch_id: int) -> DataFrame:
    """``batch`` (:func:`_batch_rows`, a row per key) with each key's stored rows of each side (``__l``,
    ``__r``; null: none) from ``store``, looked up where the batch's rows of the key are (no join)."""
    return store.beside(batch, keys, batch_id).select(*keys, "__nl", "__nr", *_SIDES)


def _batch_side(entries: Column) -> Column:
    """A side's rows of the batch (``__nl`` or ``__nr``) as the state keeps them; null: none."""
    return F.when(F.size(entries) > 0, F.transform(entries, lambda entry: entry[_ROW]))


def _pairs_in(rows: DataFrame, arriving: str, stored: str | None, new: str | None, keys: list[str],
              condition: Column, side: int, values: list[str], partner_values: list[str]) -> DataFrame:
    """The pairs, for which the condition holds, of each key's arriving rows of ``side`` (the
    column ``arriving`` of ``rows``, :func:`_with_stored`) and its partners: the stored rows of
    the column ``stored`` (by their position) or the batch's of the column ``new`` (by their
    ``__seq``): their columns, the arriving row's order ``(side, __seq)`` (``__seq``) and the
    partner's (``__pos``)."""
    one = rows.select(*keys, F.explode(arriving).alias("__a"), *[c for c in (stored, new) if c])
    if stored is not None:
        found = one.select(*keys, "__a", F.posexplode(stored).alias("__p", "__b"))
        partner, row = _order(F.lit(0), F.col("__p")), "__b"
    else:
        found = one.select(*keys, "__a", F.explode(new).alias("__b"))
        partner, row = _order(F.lit(1), F.col(f"__b.{_SEQ}")), f"__b.{_ROW}"
    flat = found.select(*[F.col(f"__a.{_ROW}.{c}").alias(c) for c in values],
                        *[F.col(f"{row}.{c}").alias(c) for c in partner_values],
                        _order(F.lit(side), F.col(f"__a.{_SEQ}")).alias(_SEQ), partner.alias(_POS))
    return flat.where(condition)


def _same_keys(left: DataFrame, right: DataFrame, keys: list[str]) -> Column:
    """Whether a row of ``left`` and one of ``right`` (its keys named ``__t<i>``) have equal keys."""
    on = None
    for i, k in enumerate(keys):
        equal = left[k] == right[f"__t{i}"]
        on = equal if on is None else on & equal
    return on


def _concatenated(old: Column, new: Column) -> Column:
    """Two arrays one after the other, either null (none)."""
    return F.when(old.isNull(), new).when(new.isNull(), old).otherwise(F.concat(old, new))


# -- outer joins --------------------------------------------------------------------------------------

def _first_side(join: RegularJoinSpec) -> int:
    """The side whose rows of a batch arrive first (0 left, 1 right) in the order the batch's changes
    follow. Flink's join sees the two inputs' rows interleaved in any order; taking the side that
    is not outer first (the right in a LEFT join, the left in a RIGHT one) means a row of the outer
    side meets its partners of the same batch on arrival: a padded row is retracted only when a
    partner comes in a later batch. A FULL join takes the left side first (one side pads either way)."""
    return 1 if join.left_outer and not join.right_outer else 0


_NEW = ("__nl", "__nr")  # a key's rows of the batch of each side (:func:`_batch_rows`)


def _outer_state_schema(left: DataFrame, right: DataFrame, keys: list[str]) -> StructType:
    """An outer join's state of a key: its keys and each side's rows in arrival order (``__l``,
    ``__r``), each row its columns and ``__m``, whether it has had a partner."""
    batch = _batch_rows(left, right, keys)
    return batch.select(*keys, *[F.transform(new, lambda entry: _entry(entry[_ROW], values, F.lit(False))).alias(side)
                                 for side, new, values in zip(_SIDES, _NEW, (_values(left), _values(right)))]).schema


def _entry(row: Column, values: list[str], matched: Column) -> Column:
    """A stored row of an outer join: the ``values`` of ``row`` and ``__m``."""
    return F.struct(*[row[c].alias(c) for c in values], matched.alias("__m"))


def _or_empty(rows: DataFrame, name: str) -> Column:
    """The array column ``name`` of ``rows``, empty where null."""
    return F.coalesce(F.col(name), F.array().cast(rows.schema[name].dataType))


def _outer_pairs(rows: DataFrame, keys: list[str], sides: tuple, types: dict, condition: Column,
                 first: int) -> DataFrame:
    """``rows`` (:func:`_with_stored`, a row per key) with the pairs among its rows for which the
    condition holds, per step of the arrival (``__p0``, ``__p1``, in order, each ``s``, ``i``, ``j``,
    ``f``): ``s`` 0 for the first side's new rows (``i``: their index among the batch's) with the
    second side's stored rows (``j``: their position), ``s`` 1 for the second side's new rows with
    the first side's stored rows then its new ones (``j``: their index in that order); ``f``:
    whether ``i`` is the partner's first arrival to pair with it. Also per step the arrivals that
    have a partner (``__a0``, ``__a1``: their ``i``) and whether each partner has one (``__m0``,
    ``__m1``, by ``j``; empty when the step has no arrivals)."""
    second = 1 - first
    arriving = (F.col(_NEW[first]), F.col(_NEW[second]))
    stored = (_or_empty(rows, _SIDES[first]), _or_empty(rows, _SIDES[second]))
    names = list(types)

    def candidate(step: int, entry: Column, i: Column, partner: Column, j: Column) -> Column:
        mine = sides[first if step == 0 else second]
        return F.struct(F.lit(step).alias("s"), i.alias("i"), j.alias("j"),
                        *[(entry[_ROW][c] if c in mine else partner[c]).alias(c) for c in names])

    def candidates(step: int) -> Column:
        if step == 0:  # with the second side's stored rows
            return F.flatten(F.transform(arriving[0], lambda entry, i: F.transform(
                stored[1], lambda row, j: candidate(0, entry, i, row, j))))
        count = F.size(stored[0])  # with the first side's stored rows, then its new ones
        return F.flatten(F.transform(arriving[1], lambda entry, i: F.concat(
            F.transform(stored[0], lambda row, j: candidate(1, entry, i, row, j)),
            F.transform(arriving[0], lambda new, j: candidate(1, entry, i, new[_ROW], count + j)))))

    kept = [*keys, *_NEW, *_SIDES]
    exploded = rows.select(*kept, F.posexplode_outer(F.concat(candidates(0), candidates(1))).alias("__n", "__x"))
    # the key's rows stay on one of its candidates only (the aggregation below takes them back)
    once = F.col("__n").isNull() | (F.col("__n") == 0)
    flat = exploded.select(*keys, *[F.when(once, F.col(c)).alias(c) for c in kept[len(keys):]],
                           *[F.col(f"__x.{c}").alias(f"__{c}") for c in "sij"],
                           *[F.col(f"__x.{c}").alias(c) for c in names])
    flat = flat.withColumn("__ok", F.col("__s").isNotNull() & F.coalesce(condition, F.lit(False)))
    # the partner's first arrival that pairs with it (null: none); the frame is partitioned by key already
    found = F.min(F.when(F.col("__ok"), F.col("__i"))).over(Window.partitionBy(*keys, "__s", "__j"))
    flat = flat.withColumn("__found", found).withColumn("__f", F.col("__i") == F.col("__found"))
    pair = F.struct(*[F.col(f"__{c}").alias(c) for c in "sijf"])
    partner = F.struct(F.col("__s").alias("s"), F.col("__j").alias("j"), F.col("__found").isNotNull().alias("m"))
    grouped = flat.groupBy(*keys).agg(
        F.sort_array(F.collect_list(F.when(F.col("__ok"), pair))).alias("__pairs"),
        # each partner once: with the step's first arrival
        F.sort_array(F.collect_list(F.when(F.col("__i") == 0, partner))).alias("__met"),
        *[F.first(c, ignorenulls=True).alias(c) for c in kept[len(keys):]])
    steps = [F.filter(F.col("__pairs"), lambda x: x["s"] == 0), F.filter(F.col("__pairs"), lambda x: x["s"] == 1)]
    met = [F.filter(F.col("__met"), lambda x: x["s"] == 0), F.filter(F.col("__met"), lambda x: x["s"] == 1)]
    return grouped.select(*kept, *[on.alias(f"__p{s}") for s, on in enumerate(steps)],
                          *[F.array_distinct(F.transform(on, lambda x: x["i"])).alias(f"__a{s}")
                            for s, on in enumerate(steps)],
                          *[F.transform(on, lambda x: x["m"]).alias(f"__m{s}") for s, on in enumerate(met)])


def _had_partner(step: int, j: Column) -> Column:
    """Whether the partner ``j`` of the arrivals of ``step`` pairs with one of them (:func:`_outer_pairs`)."""
    return F.coalesce(F.get(F.col(f"__m{step}"), j), F.lit(False))


def _position(order: Column, number: Column, after: int) -> Column:
    """A change's place among those of one arrival: its partner's arrival (``order`` 0 stored, 1 of
    the batch; then ``number``), a padded partner's retraction (``after`` 0) before its pair (1)."""
    return F.struct(order.cast("int").alias("o"), number.cast("bigint").alias("n"), F.lit(after).alias("d"))


def _outer_changes(rows: DataFrame, sides: tuple, types: dict, first: int, outer: tuple) -> DataFrame:
    """The changes of each key's arrivals (:func:`_outer_pairs`): the batch's rows of the first side
    each with the second side's stored rows, then those of the second side each with the first
    side's stored and new rows; per arrival, a padded partner's ``-D`` before the first pair with it,
    each pair ``+I``, or the arriving row ``+I`` padded if it has no partner and its side is outer."""
    second = 1 - first
    stored = (_or_empty(rows, _SIDES[first]), _or_empty(rows, _SIDES[second]))
    batch_first = F.col(_NEW[first])
    count = F.size(stored[0])
    names = list(types)

    def change(kind: int, step: int, arrival: Column, place: tuple, shown: dict) -> Column:
        return F.struct(F.lit(kind).cast("byte").alias("kind"), F.lit(step).alias("step"),
                        arrival.cast("bigint").alias("seq"), _position(*place).alias("pos"),
                        *[(shown[c] if c in shown else F.lit(None).cast(types[c])).alias(c) for c in names])

    def of_pair(step: int, side: int) -> Callable[[Column], Column]:
        """The changes of a pair ``x`` of ``step``: its arriving row of ``side`` and its partner."""
        other, entries = 1 - side, F.col(_NEW[side])

        def made(x: Column) -> Column:
            entry, j = entries[x["i"]], x["j"]
            if step == 0:  # a stored row of the second side
                partner = stored[1][j]
                values, had, place = {c: partner[c] for c in sides[other]}, partner["__m"], (F.lit(0), j)
            else:  # a stored row of the first side, or (from ``count`` on) one of the batch's
                new, old, entry_of = j >= count, F.get(stored[0], j), F.get(batch_first, j - count)
                values = {c: F.when(new, entry_of[_ROW][c]).otherwise(old[c]) for c in sides[other]}
                had = F.when(new, F.array_contains(F.col("__a0"), j - count)).otherwise(old["__m"])
                place = (new.cast("int"), F.when(new, entry_of[_SEQ]).otherwise(j))
            mine = {c: entry[_ROW][c] for c in sides[side]}
            changes = [change(_INSERT, step, entry[_SEQ], (*place, 1), {**mine, **values})]
            if outer[other]:  # a padded partner's first partner retracts its padding
                changes.insert(0, F.when(~had & x["f"], change(_DELETE, step, entry[_SEQ], (*place, 0), values)))
            return F.array(*changes)
        return made

    def padded(step: int, side: int) -> Callable[[Column, Column], Column]:
        """The arriving row ``entry`` (the ``i``-th of ``step``) padded, null if it has a partner."""
        return lambda entry, i: F.when(~F.array_contains(F.col(f"__a{step}"), i), change(
            _INSERT, step, entry[_SEQ], (F.lit(0), F.lit(0), 1), {c: entry[_ROW][c] for c in sides[side]}))

    per_step = []
    for step, side in ((0, first), (1, second)):
        per_step.append(F.flatten(F.transform(F.col(f"__p{step}"), of_pair(step, side))))
        if outer[side]:  # a row without partners: padded
            per_step.append(F.transform(F.col(_NEW[side]), padded(step, side)))
    made = F.filter(F.concat(*per_step), lambda c: c.isNotNull())
    out = rows.select(F.explode(made).alias("__x"))
    return out.select(*[F.col(f"__x.{c}").alias(c) for c in names], F.col("__x.kind").alias(ROW_KIND),
                      _order(F.col("__x.step"), F.col("__x.seq")).alias(_SEQ), F.col("__x.pos").alias(_POS))


def _outer_state(rows: DataFrame, keys: list[str], sides: tuple, first: int) -> DataFrame:
    """Each key's new state (:func:`_outer_state_schema`) from its rows and pairs (:func:`_outer_pairs`):
    the stored rows then the batch's of each side, each with whether it has had a partner."""
    second = 1 - first
    stored_first = _or_empty(rows, _SIDES[first])
    count = F.size(stored_first)
    state = [None, None]
    state[first] = F.concat(
        F.transform(stored_first, lambda row, j: _entry(row, sides[first], row["__m"] | _had_partner(1, j))),
        F.transform(F.col(_NEW[first]), lambda entry, i: _entry(
            entry[_ROW], sides[first], F.array_contains(F.col("__a0"), i) | _had_partner(1, count + i))))
    state[second] = F.concat(
        F.transform(_or_empty(rows, _SIDES[second]),
                    lambda row, j: _entry(row, sides[second], row["__m"] | _had_partner(0, j))),
        F.transform(F.col(_NEW[second]),
                    lambda entry, i: _entry(entry[_ROW], sides[second], F.array_contains(F.col("__a1"), i))))
    return rows.select(*keys, *[F.when(F.size(s) > 0, s).alias(name) for s, name in zip(state, _SIDES)])
