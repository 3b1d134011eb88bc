"""Semi and anti joins of micro-batches computed by Spark's own (JVM) operators.

kindling/table/planner/physical.py lets Spark compute a semi join (IN, EXISTS) or an anti join (NOT
EXISTS, NOT IN of non-nullable values) of two append-only tables on equal keys as it does an inner
join (kindling/spark/table/join.py: :func:`~kindling.spark.table.join.split_joins` takes it out of the
streaming query, its :class:`~kindling.graph.specs.RegularJoinSpec` with ``existence``); the sinks of
its two sides' rows hand each micro-batch to one :class:`SemiJoinWriter`.

Flink's join of inserts: a semi join emits ``+I`` of a left row once it has a partner (never
retracted: partners never go); an anti join emits ``+I`` of a left row without a partner and ``-D``
of it when its first partner comes. Per micro-batch the changes are those of one arrival Flink could
see: the batch's right rows, then its left rows (:meth:`SemiJoinWriter.write_batch`). A null key
matches nothing: a semi join never emits such a row, an anti join emits it and never retracts it;
neither stores it.

State per key (a :class:`~kindling.spark.table.group_state.GroupStateStore` under the checkpoint
directory, read and written for the batch's keys; a replayed batch reads the version before its batch
id): the left rows still waiting for a partner (semi) or still emitted without one (anti), in arrival
order (``__l``), and what decides whether a later left row has a partner: the right rows' columns the
condition reads (``__r``), or, when the condition is the keys' equality alone, how many right rows the
key has (``__n``).

Spark jobs per micro-batch: one, then those of the operators and sinks after the join. The one job
groups the batch's rows by key (:func:`_by_key`), looks up each key's state in the partition where its
group is (:meth:`~kindling.spark.table.group_state.GroupStateStore.beside`: no shuffle of its own),
takes both the key's changes and its new state from that row by array functions (the condition
evaluated on a left and a right row inside them: no join of arriving rows and partners), writes the
state (a shuffle to a partition per SQLite shard) and keeps the changes, which the sinks' jobs then
read (:meth:`~kindling.spark.table.join.JoinWriter._stored_and_emitted`): three stages.
"""
from __future__ import annotations

from typing import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from kindling.spark.codec import ROW_KIND
from kindling.graph.specs import RegularJoinSpec, SinkSpec
from kindling.spark.sinks import SinkWriter
from kindling.spark.table.group_state import GroupStateStore
from kindling.spark.table.columns import column
from kindling.spark.table.join import (_DELETE, _INSERT, _POS, _ROW, _SEQ, JoinSideSinkSpec, JoinSideWriter,
                                       JoinSinkSpec, JoinWriter, _keep, _keys, _or_empty, _order, _present, _rows,
                                       _values)
from kindling.spark.table.translate import input_refs


def join_side_writer(spec: JoinSideSinkSpec, compiler: type, writer_for: Callable[[SinkSpec], SinkWriter]
                     ) -> SinkWriter:
    """The writer of one side's rows of a join Spark computes on micro-batches: a semi or anti join's
    (:class:`SemiJoinSideWriter`) or the others' (:class:`~kindling.spark.table.join.JoinSideWriter`)."""
    if spec.join.join.existence is not None:
        return SemiJoinSideWriter(spec, compiler, writer_for)
    return JoinSideWriter(spec, compiler, writer_for)


class SemiJoinSideWriter(JoinSideWriter):
    """The writer of one side's rows of a semi or anti join: hands them to the join's
    :class:`SemiJoinWriter`."""

    @staticmethod
    def joining(spec: JoinSinkSpec, compiler: type, writer_for: Callable[[SinkSpec], SinkWriter]) -> "SemiJoinWriter":
        return SemiJoinWriter(spec, compiler, writer_for)


class SemiJoinWriter(JoinWriter):
    """Decides which left rows of a micro-batch and which stored ones have partners, and writes the
    semi or anti join's changes through the operators and sinks after the join."""

    def write_batch(self, left: DataFrame, right: DataFrame, batch_id: int) -> int:
        """One micro-batch's changes; the number of rows the sinks after the join wrote."""
        join = self.spec.join
        if self.state_dir is None:
            raise RuntimeError("a join in a streaming query needs the job's checkpoint directory")
        width = len(left.columns)
        keys = _keys(join)
        kept: list[DataFrame] = []
        try:
            every_left = _keep(kept, _rows(left, join.left_keys, join.widened, 0))
            right_rows = _rows(right, join.right_keys, join.widened, width).where(_present(keys))
            read = [] if join.keys_only else \
                [f"__c{i}" for i in sorted({ref.index for ref in input_refs([join.condition]) if ref.index >= width})]
            batch = _by_key(every_left.where(_present(keys)), right_rows, keys, read)
            store = GroupStateStore(self.state_dir, self.state_type(lambda: _state_schema(batch, keys, read)))
            rows = _keep(kept, _arrived(store.beside(batch, keys, batch_id), join, width))
            changes = _changes(rows, keys, _values(every_left), join.existence == "SEMI")
            if join.existence == "ANTI":  # a null key has no partner: emitted, never stored
                changes = changes.unionByName(every_left.where(~_present(keys)).select(
                    *_values(every_left), F.lit(_INSERT).cast("byte").alias(ROW_KIND), *keys,
                    _order(F.lit(1), F.col(_SEQ)).alias(_SEQ), _order(F.lit(0), F.lit(0)).alias(_POS)))
            return self._stored_and_emitted(self._output(changes, join, width),
                                            store.writing(_state(rows, keys, read), keys, batch_id), batch_id, kept)
        finally:
            for frame in kept:
                frame.unpersist()


def _by_key(left: DataFrame, right: DataFrame, keys: list[str], read: list[str]) -> DataFrame:
    """The batch's rows with keys (``left``, ``right``: :func:`~kindling.spark.table.join._rows`) a row
    per key: its left rows in arrival order (``__nl``: an array of ``__seq`` and ``__row``, the row's
    columns), and its right rows: in arrival order with their columns ``read`` (``__nr``), or without
    ``read`` (the keys decide) how many there are (``__nn``) and the first one's arrival (``__ns``)."""
    lefts = left.select(*keys, F.struct(_SEQ, F.struct(*_values(left)).alias(_ROW)).alias("__nl"))
    if read:
        rights = right.select(*keys, F.struct(_SEQ, F.struct(*read).alias(_ROW)).alias("__nr"))
        found = [F.sort_array(F.collect_list("__nr")).alias("__nr")]
    else:
        rights = right.select(*keys, F.col(_SEQ).alias("__ns"))
        found = [F.count("__ns").alias("__nn"), F.min("__ns").alias("__ns")]
    # collect_list and count leave out the nulls of the other side's rows
    both = lefts.unionByName(rights, allowMissingColumns=True)
    return both.groupBy(*keys).agg(F.sort_array(F.collect_list("__nl")).alias("__nl"), *found)


def _arrived(rows: DataFrame, join: RegularJoinSpec, width: int) -> DataFrame:
    """Each key's row (:func:`_by_key` with its state beside it) with its arrivals decided, as Flink's join
    sees them when the batch's right rows come first: a stored left row is met by the first of the
    batch's right rows it has the condition with (``__w``: each stored left row ``__row``, its position
    ``j`` and that partner's ``__seq``, ``by``, null: none), and a left row of the batch has a partner
    among the stored right rows or the batch's (``__a``: each ``__seq``, ``__row`` and ``ok``)."""
    def condition(left_row: Column, right_row: Column) -> Column:
        return column(join.condition, lambda ref: (left_row if ref.index < width else right_row)[f"__c{ref.index}"])

    if join.keys_only:  # a right row of the key is a partner: the batch's first, or any stored
        first = lambda _: F.when(F.col("__nn") > 0, F.col("__ns"))  # noqa: E731
        partnered = lambda _: (F.coalesce(F.col("__n"), F.lit(0)) + F.col("__nn")) > 0  # noqa: E731
    else:
        new, stored = F.col("__nr"), _or_empty(rows, "__r")
        first = lambda row: F.get(F.filter(new, lambda r: condition(row, r[_ROW])), 0)[_SEQ]  # noqa: E731
        partnered = lambda row: (F.size(F.filter(stored, lambda r: condition(row, r))) > 0) | (  # noqa: E731
            F.size(F.filter(new, lambda r: condition(row, r[_ROW]))) > 0)
    met = F.transform(_or_empty(rows, "__l"), lambda row, j: F.struct(
        row.alias(_ROW), j.alias("j"), first(row).alias("by")))
    arriving = F.transform(F.col("__nl"), lambda entry: F.struct(
        entry[_SEQ].alias(_SEQ), entry[_ROW].alias(_ROW), partnered(entry[_ROW]).alias("ok")))
    return rows.select("*", met.alias("__w"), arriving.alias("__a"))


def _changes(rows: DataFrame, keys: list[str], values: list[str], semi: bool) -> DataFrame:
    """The changes of each key's arrivals (:func:`_arrived`): a stored left row met, ``+I`` (semi) or
    ``-D`` (anti), ordered by its partner's arrival then its position; a left row of the batch with a
    partner (semi) or without (anti) ``+I``, ordered by its arrival."""
    def change(kind: int, row: Column, seq: Column, pos: Column) -> Column:
        return F.struct(F.lit(kind).cast("byte").alias(ROW_KIND), seq.alias(_SEQ), pos.alias(_POS), row.alias(_ROW))

    met = F.transform(F.filter("__w", lambda x: x["by"].isNotNull()), lambda x: change(
        _INSERT if semi else _DELETE, x[_ROW], _order(F.lit(0), x["by"]), _order(F.lit(0), x["j"])))
    shown = F.transform(F.filter("__a", lambda x: x["ok"] if semi else ~x["ok"]), lambda x: change(
        _INSERT, x[_ROW], _order(F.lit(1), x[_SEQ]), _order(F.lit(0), F.lit(0))))
    out = rows.select(*keys, F.explode(F.concat(met, shown)).alias("__x"))
    return out.select(*[F.col(f"__x.{_ROW}.{c}").alias(c) for c in values], F.col(f"__x.{ROW_KIND}").alias(ROW_KIND),
                      *keys, F.col(f"__x.{_SEQ}").alias(_SEQ), F.col(f"__x.{_POS}").alias(_POS))


def _state(rows: DataFrame, keys: list[str], read: list[str]) -> DataFrame:
    """Each key's state after the batch (``rows``: :func:`_arrived`): its left rows still waiting, the
    stored ones then the batch's (``__l``), and its right rows, stored then the batch's (``__r``), or
    (without ``read``) how many (``__n``). Null: none."""
    still = F.transform(F.filter("__w", lambda x: x["by"].isNull()), lambda x: x[_ROW])
    alone = F.transform(F.filter("__a", lambda x: ~x["ok"]), lambda x: x[_ROW])
    if read:
        right = _some(F.concat(_or_empty(rows, "__r"), F.transform("__nr", lambda entry: entry[_ROW]))).alias("__r")
    else:
        right = (F.coalesce(F.col("__n"), F.lit(0)) + F.col("__nn")).alias("__n")
    return rows.select(*keys, _some(F.concat(still, alone)).alias("__l"), right)


def _state_schema(batch: DataFrame, keys: list[str], read: list[str]) -> StructType:
    """The columns of :func:`_state` of the batch's rows by key (:func:`_by_key`)."""
    right = [F.transform("__nr", lambda entry: entry[_ROW]).alias("__r")] if read else \
        [F.col("__nn").cast("long").alias("__n")]
    return batch.select(*keys, F.transform("__nl", lambda entry: entry[_ROW]).alias("__l"), *right).schema


def _some(array: Column) -> Column:
    """``array``, null where empty."""
    return F.when(F.size(array) > 0, array)
