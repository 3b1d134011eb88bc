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

Spark jobs per micro-batch: one, then those of the operators and sinks after the join. The one job reads
the batch's rows and the state of their keys, finds each left row's first partner by key
(:func:`_first_partners`), writes the new state and keeps the changes, which the sinks' jobs then read
(:meth:`~kindling.spark.table.join.JoinWriter._stored_and_emitted`).
"""
from __future__ import annotations

from typing import Any, Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from kindling.spark.codec import ROW_KIND
from kindling.graph.specs import SinkSpec
from kindling.spark.sinks import SinkWriter
from kindling.spark.table.aggregation import inputs_named
from kindling.spark.table.group_state import GroupStateStore
from kindling.spark.table.columns import column
from kindling.spark.table.join import (_DELETE, _INSERT, _POS, _ROW, _SEQ, JoinSideSinkSpec, JoinSideWriter,
                                       JoinSinkSpec, JoinWriter, _as_partners, _keep, _keys,
                                       _order, _present, _rows, _same_keys, _stored_rows, _values)
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
        semi = join.existence == "SEMI"
        kept: list[DataFrame] = []
        try:
            every_left = _keep(kept, _rows(left, join.left_keys, join.widened, 0))
            new_left = every_left.where(_present(keys))
            right_rows = _rows(right, join.right_keys, join.widened, width).where(_present(keys))
            if join.keys_only:  # whether a key has right rows decides: one partner per key
                condition = F.lit(True)
                new_right = _keep(kept, right_rows.groupBy(*keys).agg(F.min(_SEQ).alias(_SEQ),
                                                                      F.count("*").alias("__n")))
            else:
                condition = column(inputs_named(join.condition, "__c"))
                read = sorted({ref.index for ref in input_refs([join.condition]) if ref.index >= width})
                new_right = _keep(kept, right_rows.select(*keys, _SEQ, *[f"__c{i}" for i in read]))
            store = GroupStateStore(self.state_dir, self.state_type(
                lambda: self._state(new_left, new_right, None, keys).schema))
            previous = _keep(kept, store.read(new_left.select(*keys).union(new_right.select(*keys)), batch_id))
            waiting = _stored_rows(previous, keys, "__l")
            if join.keys_only:
                stored_right = previous.where(F.col("__n") > 0).select(*keys, F.lit(0).alias(_POS))
            else:
                stored_right = _stored_rows(previous, keys, "__r")
            # Flink's join sees the two inputs' rows interleaved in any order: the batch's right rows
            # first means a left row meets its partners of the same batch on arrival, so an anti join
            # never emits (and retracts) a row partnered in its own batch (as the outer join's
            # _first_side takes the side that is not outer first). The stored left rows they partner,
            # by the first partner:
            partners = _as_partners(new_right, keys, 1, _SEQ)
            waiting = _keep(kept, _first_partners(waiting, partners, keys, condition, _POS))
            # then its left rows: each has a partner among the stored right rows or the batch's
            partners = _as_partners(stored_right, keys, 0, _POS).unionByName(_as_partners(new_right, keys, 1, _SEQ))
            arrived = _keep(kept, _first_partners(new_left, partners, keys, condition, _SEQ))
            values = _values(every_left)
            met = waiting.where(F.col("__by").isNotNull())
            changes = _change(met, values, keys, _INSERT if semi else _DELETE, _order(F.lit(0), F.col("__by")["n"]),
                              _order(F.lit(0), F.col(_POS)))
            alone = arrived.where(F.col("__by").isNull())
            if semi:
                shown = arrived.where(F.col("__by").isNotNull())
            else:  # a null key has no partner: emitted, never stored
                shown = alone.select(*keys, _SEQ, *values).unionByName(
                    every_left.where(~_present(keys)).select(*keys, _SEQ, *values))
            changes = changes.unionByName(_change(shown, values, keys, _INSERT, _order(F.lit(1), F.col(_SEQ)),
                                                  _order(F.lit(0), F.lit(0))))
            still = waiting.where(F.col("__by").isNull())
            state = self._state(alone, new_right, (still, stored_right, previous), keys)
            return self._stored_and_emitted(self._output(changes, join, width), store.writing(state, keys, batch_id),
                                            batch_id, kept)
        finally:
            for frame in kept:
                frame.unpersist()

    def _state(self, waiting: DataFrame, new_right: DataFrame, stored: tuple | None, keys: list[str]) -> DataFrame:
        """The state after the batch of the keys of its rows: the left rows ``waiting`` of the batch
        after those of ``stored`` (``(left rows still waiting, right rows, the state read)``, None:
        none), the right rows (or their count, ``__n``) of ``stored`` and of the batch ``new_right``."""
        still, stored_right, previous = stored if stored is not None else (None, None, None)
        lefts = [(waiting, 1, _SEQ)] + ([(still, 0, _POS)] if stored is not None else [])
        state = _listed(lefts, keys, "__l")
        if self.spec.join.keys_only:
            counts = new_right.select(*keys, "__n")
            if previous is not None:
                counts = counts.unionByName(previous.select(*keys, "__n"))
            rights = counts.groupBy(*keys).agg(F.sum("__n").alias("__n"))
        else:
            rights = _listed([(new_right, 1, _SEQ)] + ([(stored_right, 0, _POS)] if stored is not None else []),
                             keys, "__r")
        return state.join(rights, keys, "full_outer")


def _first_partners(rows: DataFrame, partners: DataFrame, keys: list[str], condition: Column, order: str
                    ) -> DataFrame:
    """``rows`` (their keys, columns and ``order``, which tells them apart in a key) with their first
    partner's arrival among ``partners`` (:func:`_as_partners`) for which the condition holds, ``__by``
    (null: none). One aggregation of the rows joined by key: no second join to put it beside its row."""
    joined = rows.join(partners, _same_keys(rows, partners, keys), "left")
    found = F.when(F.col("__partner").isNotNull() & condition, F.col("__partner"))
    return joined.groupBy(*keys, order).agg(*[F.first(c).alias(c) for c in _values(rows)], F.min(found).alias("__by"))


def _change(rows: DataFrame, values: list[str], keys: list[str], kind: int, seq: Column, pos: Column) -> DataFrame:
    """A change of ``kind`` of each row of ``rows`` (its columns ``values``), ordered by ``seq`` then ``pos``."""
    return rows.select(*values, F.lit(kind).cast("byte").alias(ROW_KIND), *keys, seq.alias(_SEQ), pos.alias(_POS))


def _listed(entries: list[tuple[DataFrame, int, str]], keys: list[str], name: str) -> DataFrame:
    """Per key, the rows of ``entries`` (``(rows, origin, order)``: 0 stored, 1 of the batch, ordered by
    their column ``order``) as one array ``name`` of their columns, in that order."""
    frames = [rows.select(*keys, _order(F.lit(origin), F.col(order)).alias(_SEQ), F.struct(*_values(rows)).alias(_ROW))
              for rows, origin, order in entries]
    union = frames[0]
    for more in frames[1:]:
        union = union.unionByName(more)
    ordered = F.sort_array(F.collect_list(F.struct(F.col(_SEQ), F.col(_ROW))))
    return union.groupBy(*keys).agg(ordered.alias(name)).select(*keys, F.transform(name, lambda e: e[_ROW]).alias(name))
