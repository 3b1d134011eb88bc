"""Regular joins of micro-batches computed by Spark's own (JVM) operators.

kindling/table/planner/physical.py decides which joins Spark computes on micro-batches (an inner
join of two append-only tables on equal keys, a condition Spark computes as Flink does, only
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
key. The stored rows live in a :class:`~kindling.spark.table.aggregation.GroupStateStore` under the
checkpoint directory, one entry per key (both sides' rows of the key, in arrival order), looked up
and written for the batch's keys only; a replayed batch reads the version before its batch id, so
the pairs are exactly once with the query's checkpoint. A key's entry is rewritten whole when a
batch adds rows to it: a key with very many rows costs as many per batch that touches it.
"""
from __future__ import annotations

import dataclasses
import weakref
from collections import defaultdict
from typing import Any, Callable

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from kindling.graph.specs import ChangesSourceSpec, GroupAggregateSpec, RegularJoinSpec, SinkSpec
from kindling.graph.transformation import SinkTransformation, Transformation, \
    TwoInputTransformation, upstream_graph
from kindling.spark.codec import codec_for
from kindling.spark.run_mode import RunMode
from kindling.spark.savepoints import stateful_uids
from kindling.spark.sinks import SinkWriter
from kindling.spark.table.aggregation import (AggregationWriter, GroupStateStore, inputs_named, reading_changes,
                                              stateless_after)
from kindling.spark.table.columns import column

STATE_DIR = "kindling-joins"  # under the checkpoint directory: a GroupStateStore per join
_SEQ, _POS, _ROW = "__seq", "__pos", "__row"
_SIDES = ("__l", "__r")  # the state's columns of each side's rows


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
    layout = "columns"

    def __getstate__(self) -> dict:
        return {"columns_type": self.columns_type, "side": self.side}  # all a stage's exit needs


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
        self.join = _WRITERS.get(spec.join)
        if self.join is None:
            self.join = _WRITERS[spec.join] = JoinWriter(spec.join, compiler, writer_for)

    def write(self, df: DataFrame, batch_id: int) -> int:
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

    def write_batch(self, left: DataFrame, right: DataFrame, batch_id: int) -> int:
        """Joins one micro-batch; the number of rows the sinks after the join wrote."""
        join = self.spec.join
        width = len(left.columns)
        if self.state_dir is None:
            raise RuntimeError("a join in a streaming query needs the job's checkpoint directory")
        kept: list[DataFrame] = []
        try:
            new_left = _keep(kept, _rows(left, join.left_keys, join.widened, 0))
            new_right = _keep(kept, _rows(right, join.right_keys, join.widened, width))
            keys = _keys(join)
            touched = new_left.select(*keys).union(new_right.select(*keys))
            store = GroupStateStore(self.state_dir, _appended(new_left, new_right, None, keys).schema)
            previous = _keep(kept, store.read(touched, batch_id))
            condition = column(inputs_named(join.condition, "__c"))
            stored_left, stored_right = (_stored_rows(previous, keys, side) for side in _SIDES)
            # the batch's left rows first: each joins the right rows stored before the batch
            pairs = _pairs(new_left, _as_partners(stored_right, keys, 0, _POS), keys, condition, 0)
            # then its right rows: each joins the left rows stored and those of the batch
            partners = _as_partners(stored_left, keys, 0, _POS).unionByName(_as_partners(new_left, keys, 1, _SEQ))
            pairs = pairs.unionByName(_pairs(new_right, partners, keys, condition, 1))
            self.state_rows_written = store.write(_appended(new_left, new_right, previous, keys), keys, batch_id)
            return self._emit(self._output(pairs, join, width + len(right.columns)), batch_id)
        finally:
            for frame in kept:
                frame.unpersist()

    def _output(self, pairs: DataFrame, join: RegularJoinSpec, width: int) -> DataFrame:
        """The pairs as the join's output columns, with the placement keys (the left keys as the left
        side's columns: ``__k<i>``) and their order (``__seq``, ``__pos``)."""
        fields = [f for f in codec_for(self.spec.output_type).fields]
        if len(fields) != width:
            raise RuntimeError(f"the join's output has {len(fields)} columns, its inputs {width}")
        return pairs.select(*[F.col(f"__c{i}").cast(f.dataType).alias(f.name) for i, f in enumerate(fields)],
                            *[F.col(f"__c{p}").alias(f"__k{i}") for i, p in enumerate(join.left_keys)], _SEQ, _POS)


def _keep(kept: list, frame: DataFrame) -> DataFrame:
    """``frame`` computed once for its several readers (and its arrival order fixed)."""
    frame = frame.persist(StorageLevel.MEMORY_AND_DISK)
    kept.append(frame)
    return frame


def _keys(join: RegularJoinSpec) -> list[str]:
    return [f"__k{i}" for i in range(len(join.left_keys))]


def _rows(df: DataFrame, key_positions: list[int], widened: bool, offset: int) -> DataFrame:
    """One side's rows of the batch whose keys are all non-null (a null key equals nothing): their
    keys ``__k<i>`` (integers as BIGINT when ``widened``), their columns ``__c<offset + j>`` and
    their arrival order ``__seq``."""
    names = df.columns
    keys = [F.col(f"`{names[p]}`") for p in key_positions]
    keys = [k.cast("bigint") if widened else k for k in keys]
    rows = df.select(*[k.alias(f"__k{i}") for i, k in enumerate(keys)],
                     *[F.col(f"`{n}`").alias(f"__c{offset + j}") for j, n in enumerate(names)],
                     F.monotonically_increasing_id().alias(_SEQ))
    present = None
    for i in range(len(keys)):
        present = F.col(f"__k{i}").isNotNull() if present is None else present & F.col(f"__k{i}").isNotNull()
    return rows.where(present)


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


def _as_partners(rows: DataFrame, keys: list[str], origin: int, order: str) -> DataFrame:
    """``rows`` as partners of arriving rows: their keys as ``__t<i>``, their arrival (``origin``
    0: stored, 1: of the batch; then the column ``order``) as ``__partner``, their columns."""
    return rows.select(*[F.col(k).alias(f"__t{i}") for i, k in enumerate(keys)],
                       _order(F.lit(origin), F.col(order)).alias("__partner"), *_values(rows))


def _pairs(arriving: DataFrame, partners: DataFrame, keys: list[str], condition: Column, side: int) -> DataFrame:
    """The pairs of an arriving row of ``side`` and a partner of its key (:func:`_as_partners`) for
    which the condition (over the columns ``__c<i>``) holds: their columns, the arriving row's order
    ``(side, __seq)`` (``__seq``) and the partner's (``__pos``)."""
    joined = arriving.join(partners, _same_keys(arriving, partners, keys)).where(condition)
    return joined.select(*_values(arriving), *_values(partners), _order(F.lit(side), F.col(_SEQ)).alias(_SEQ),
                         F.col("__partner").alias(_POS))


def _appended(left: DataFrame, right: DataFrame, previous: DataFrame | None, keys: list[str]) -> DataFrame:
    """The state after the batch of the keys of its rows ``left`` and ``right``: per key each side's
    stored rows (``previous``, None: none) then the batch's, in arrival order (``__l``, ``__r``)."""
    sides = []
    for rows, side in zip((left, right), _SIDES):
        ordered = F.sort_array(F.collect_list(F.struct(F.col(_SEQ), F.struct(*_values(rows)).alias(_ROW))))
        sides.append(rows.groupBy(*keys).agg(ordered.alias(side))
                     .select(*keys, F.transform(side, lambda entry: entry[_ROW]).alias(side)))
    batch = sides[0].join(sides[1], keys, "full_outer")
    if previous is None:
        return batch
    old = previous.select(*[F.col(k).alias(f"__t{i}") for i, k in enumerate(keys)],
                          *[F.col(side).alias(f"{side}_old") for side in _SIDES])
    joined = batch.join(old, _same_keys(batch, old, keys), "left")
    return joined.select(*keys, *[_concatenated(F.col(f"{side}_old"), F.col(side)).alias(side) for side in _SIDES])


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
