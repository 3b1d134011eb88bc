"""The operators after a join or a group aggregation Spark computes on micro-batches
(kindling/spark/table/join.py, aggregation.py): the Calcs that read its changes computed as Spark
columns of the changes' frame, not as a Python pass.

The writer of such a join or aggregation runs what follows it as a Spark batch job over each
micro-batch's changes (a temporary view, ``ChangesSourceSpec``). A projection or filter the
planner found Spark computes as Flink (its ``Project``'s or ``Condition``'s ``in_spark``,
kindling/table/planner/lowering.py), and a renaming of the rows' fields (``Retyped``), directly
after the changes are columns of the changes' frame (:func:`plan_emission`): the rest of the job
reads that frame, and a blackhole right after them writes it without compiling a job (its rows in
no order: nothing sees it). A projection or filter keeps each row's partition and order, so a
print sink's subtasks and the order of its changes are those of the Python pass."""
from __future__ import annotations

import dataclasses
from typing import Callable

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kindling.graph.specs import ChangesSourceSpec, DiscardSinkSpec
from kindling.graph.transformation import ChainedTransformation, SinkTransformation, SourceTransformation, \
    Transformation, upstream_graph
from kindling.spark.codec import ROW_KIND, codec_for
from kindling.spark.table.columns import column, inputs_named

__all__ = ["Emission", "plan_emission"]

Step = Callable[[DataFrame], DataFrame]


@dataclasses.dataclass
class Emission:
    """How a micro-batch's changes reach the sinks after a join or aggregation: ``compiled``, the sinks
    of the job to compile, reading the ``views`` (view name -> the Calcs over the changes); ``direct``,
    the blackholes that write their Calcs over the changes themselves (sink id -> the Calcs)."""

    views: dict[str, Step]
    direct: dict[int, Step]
    compiled: list[SinkTransformation]

    def frames(self, changes: DataFrame) -> dict[str, DataFrame]:
        """Each view's frame over the batch's ``changes``."""
        return {view: step(changes) for view, step in self.views.items()}


def plan_emission(sinks: list[SinkTransformation], view: str) -> Emission:
    """The sinks ``sinks`` (of a job reading the changes' view ``view``) with the Calcs right after
    the changes taken into Spark columns: each path from the changes to a sink loses its leading
    Calcs Spark computes, and reads a view of them (``<view>_<node id>``) instead."""
    steps: dict[str, Step] = {view: _identity}
    copies: dict[int, Transformation] = {}

    def copied(node: Transformation) -> Transformation:
        if node.id not in copies:
            folded = None if isinstance(node, SourceTransformation) else _folded(node)
            if isinstance(node, SourceTransformation):
                copies[node.id] = node
            elif folded is not None:
                name = f"{view}_{node.id}"
                steps[name] = _chain(folded)
                copies[node.id] = SourceTransformation(name=node.name, type_info=node.type_info,
                                                       parallelism=node.parallelism, uid=node.uid, id=node.id,
                                                       source=ChangesSourceSpec(view=name))
            else:
                copies[node.id] = dataclasses.replace(node, inputs=[copied(i) for i in node.inputs])
        return copies[node.id]

    direct: dict[int, Step] = {}
    compiled: list[SinkTransformation] = []
    for sink in sinks:
        copy = copied(sink)
        reads = copy.inputs[0]
        if isinstance(sink.sink, DiscardSinkSpec) and isinstance(reads, SourceTransformation) \
                and reads.source.view != view:
            direct[sink.id] = steps[reads.source.view]
        else:
            compiled.append(copy)
    read = {n.source.view for n in upstream_graph(compiled) if isinstance(n, SourceTransformation)}
    return Emission({name: step for name, step in steps.items() if name in read}, direct, compiled)


def _identity(frame: DataFrame) -> DataFrame:
    return frame


def _chain(steps: list[Step]) -> Step:
    def applied(frame: DataFrame) -> DataFrame:
        for step in steps:
            frame = step(frame)
        return frame
    return applied


def _folded(node: Transformation) -> list[Step] | None:
    """The Calcs from the changes to ``node`` as steps over the changes' frame, when every node on the
    way is one Spark computes (None otherwise)."""
    steps: list[Step] = []
    while isinstance(node, ChainedTransformation):
        step = calc_step(node)
        if step is None:
            return None
        steps.append(step)
        node = node.inputs[0]
    if not isinstance(node, SourceTransformation) or not isinstance(node.source, ChangesSourceSpec):
        return None
    return steps[::-1]


def calc_step(node: ChainedTransformation) -> Step | None:
    """The chained ``node`` as an operation on a frame of its input's codec columns (None: it is not a
    Calc Spark computes): a projection, a filter, or a renaming of the fields."""
    from kindling.runtime.table.rows import Condition, Project, Retyped

    function, out = node.function, codec_for(node.type_info).fields
    kind = [F.col(ROW_KIND)] if any(f.name == ROW_KIND for f in out) else []
    values = [f for f in out if f.name != ROW_KIND]
    if node.operation == "map" and type(function) is Retyped:
        return lambda frame: _as_inputs(frame).toDF(*[f.name for f in values], *[ROW_KIND for _ in kind])
    if node.operation == "map" and type(function) is Project and function.in_spark:
        fields = [column(inputs_named(r, "__c")).cast(f.dataType).alias(f.name)
                  for r, f in zip(function.resolved, values)]
        return lambda frame: _as_inputs(frame).select(*fields, *kind)
    if node.operation == "filter" and type(function) is Condition and function.in_spark:
        condition = F.coalesce(column(inputs_named(function.resolved, "__c")), F.lit(False))
        return lambda frame: _as_inputs(frame).where(condition).toDF(*frame.columns)
    return None


def _as_inputs(frame: DataFrame) -> DataFrame:
    """``frame`` (a codec's columns) with its value columns named as a resolved expression's inputs
    (``__c<index>``), then its RowKind column if any."""
    values = [c for c in frame.columns if c != ROW_KIND]
    return frame.select(*[F.col(f"`{c}`").alias(f"__c{i}") for i, c in enumerate(values)],
                        *[F.col(ROW_KIND) for c in frame.columns if c == ROW_KIND])
