"""A table's plan nodes Spark computes (a :class:`~kindling.graph.specs.RelationalSourceSpec`'s
``plan``, kindling/table/planner/nodes.py) as DataFrame operations on its scans' frames. Nodes are
read as data, by their class name and fields, and the spec's ``operators`` give what a node needs
beyond them (a join's resolved condition, an aggregation's spec); resolved expressions become Spark
Columns (kindling/spark/table/columns.py), evaluated in the JVM.

Every node's frame has its columns named as the node names them, then the RowKind column of a
node whose rows are changes, then the control columns. Control rows (a non-null watermark column:
kindling/spark/stage.py, micro-batches only, where the planner gives Spark Calcs over one scan)
travel through every operation: projections keep the control columns, filters always pass them."""
from __future__ import annotations

from typing import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from kindling.graph.specs import RelationalSourceSpec
from kindling.spark.codec import ROW_KIND
from kindling.spark.stage import TS
from kindling.spark.table.columns import column

__all__ = ["relational_frame"]

_JOINS = {(False, False): "inner", (True, False): "left", (False, True): "right", (True, True): "full"}


def relational_frame(spec: RelationalSourceSpec, bases: list[DataFrame], control: list[str],
                     parallelism: int) -> DataFrame:
    """The frame of ``spec``'s plan over ``bases`` (the frames of its sources), its columns named
    ``spec.names``, then the RowKind column of changes, then the ``control`` columns; operations
    that spread rows by key spread them over ``parallelism`` partitions, as Flink's parallel instances."""
    frame = _Translation(spec, bases, control, parallelism).frame(spec.plan)
    kind = [ROW_KIND] if spec.plan.out.updating else []
    return frame.toDF(*spec.names, *kind, *control)


class _Translation:
    """The frames of one spec's nodes, each built once (a node read twice is one frame)."""

    def __init__(self, spec: RelationalSourceSpec, bases: list[DataFrame], control: list[str], parallelism: int):
        self.bases = {id(leaf): base for leaf, base in zip(spec.leaves, bases)}
        self.operators = {id(node): operator for node, operator in spec.operators}
        self.control, self.parallelism = control, parallelism
        self.frames: dict[int, DataFrame] = {}

    def frame(self, node) -> DataFrame:
        built = self.frames.get(id(node))
        if built is None:
            kind = type(node).__name__
            make: Callable[..., DataFrame] | None = getattr(self, "_" + kind, None)
            if make is None:
                raise TypeError(f"Spark does not compute the plan node {kind}: kindling/table/planner/physical.py "
                                "left it to the Python operator")
            built = self.frames[id(node)] = make(node)
        return built

    def _kind(self, node) -> list[str]:
        """The RowKind column of a node whose rows are changes."""
        return [ROW_KIND] if node.out.updating else []

    def _Scan(self, node) -> DataFrame:  # the scan's columns (its codec's, first), named as the plan names them
        base, names = self.bases[id(node)], node.out.names
        width = len(names) + len(self._kind(node))
        return base.select(*[F.col(f"`{c}`") for c in base.columns[:width]], *self.control).toDF(
            *names, *self._kind(node), *self.control)

    _Values = _Scan

    def _WatermarkAssigner(self, node) -> DataFrame:  # a bounded input: the event time is a column
        return self.frame(node.input)

    def _Project(self, node) -> DataFrame:
        return self.frame(node.input).select(*[_column(r).alias(n) for r, n in zip(node.resolved, node.names)],
                                             *self._kind(node), *self.control)

    def _Filter(self, node) -> DataFrame:
        condition = _column(node.resolved)
        if self.control:  # control rows always pass (docs/table.md)
            condition = F.coalesce(condition, F.lit(False)) | F.col(self.control[0]).isNotNull()
        return self.frame(node.input).where(condition)

    def _Join(self, node) -> DataFrame:
        joined = self.frame(node.left).join(self.frame(node.right), _column(self.operators[id(node)]),
                                            _JOINS[(node.left_outer, node.right_outer)])
        return joined.select(*[F.col(f"`{n}`") for n in node.out.names])

    def _Aggregate(self, node) -> DataFrame:
        from kindling.spark.table.aggregation import bounded_changes, in_order

        spec, output_type = self.operators[id(node)]
        rows = self.frame(node.input)
        if spec.window is not None:
            rows = rows.withColumn(TS, _epoch_millis(_time_field(node)))
        elif not node.out.updating:  # each group's final row: in no order
            return bounded_changes(rows, spec, output_type).select(*[F.col(f"`{n}`") for n in node.out.names])
        return in_order(bounded_changes(rows, spec, output_type), spec, output_type, self.parallelism)

    _WindowAggregate = _GroupWindowAggregate = _Aggregate


def _time_field(node) -> str:
    """The event-time column a window aggregation's windows are of."""
    return node.windows.time_field if type(node).__name__ == "WindowAggregate" else node.window.time_field


def _epoch_millis(name: str) -> Column:
    """The epoch milliseconds of a time column (a TIMESTAMP's as Python holds it: kindling/common/typeinfo.py)."""
    return F.unix_millis(F.col(f"`{name}`"))


def _column(resolved) -> Column:
    """A resolved expression's Spark Column, of the Spark type of its SQL type."""
    return column(resolved).cast(resolved.type.type_info().to_spark_type())
