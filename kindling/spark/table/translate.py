"""A table's plan nodes Spark computes (a :class:`~kindling.graph.specs.RelationalSourceSpec`'s
``plan``: Calcs over a scan, kindling/table/planner/nodes.py) as DataFrame operations on the scan's
frame. Nodes are read as data, by their class name and fields; their resolved expressions become
Spark Columns (kindling/spark/table/columns.py), evaluated in the JVM.

Control rows (a non-null watermark column: kindling/spark/stage.py) travel through every
operation: projections keep the control columns, filters always pass them."""
from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from kindling.graph.specs import RelationalSourceSpec
from kindling.spark.table.columns import column

__all__ = ["relational_frame", "scan_frame"]


def scan_frame(spark, spec: RelationalSourceSpec) -> DataFrame:
    """The frame Spark's own reader makes of the files of the plan's scan (``spec.native``)."""
    from kindling.spark.table.scans import csv_frame

    leaf = spec.plan
    while leaf.inputs:
        leaf = leaf.inputs[0]
    return csv_frame(spark, leaf.options, spec.base_type, leaf.out.schema.get_field_data_types())


def relational_frame(spec: RelationalSourceSpec, base: DataFrame, control: list[str]) -> DataFrame:
    """The frame of ``spec``'s plan over ``base`` (the scan's frame), its columns named ``spec.names``
    then the ``control`` columns."""
    return _frame(spec.plan, base, control).toDF(*spec.names, *control)


def _frame(node, base: DataFrame, control: list[str]) -> DataFrame:
    kind = type(node).__name__
    if kind in ("Scan", "Values"):  # the scan's columns (its codec's, first), named as the plan names them
        names = node.out.names
        return base.select(*[F.col(f"`{c}`") for c in base.columns[:len(names)]], *control).toDF(*names, *control)
    frame = _frame(node.input, base, control)
    if kind == "WatermarkAssigner":  # one whose watermark no node reads (physical.py): not run
        return frame
    if kind == "Project":
        return frame.select(*[_column(r).alias(n) for r, n in zip(node.resolved, node.names)], *control)
    if kind == "Filter":
        condition = _column(node.resolved)
        if control:  # control rows always pass (docs/table.md)
            condition = F.coalesce(condition, F.lit(False)) | F.col(control[0]).isNotNull()
        return frame.where(condition)
    raise TypeError(f"Spark does not compute the plan node {kind}: kindling/table/planner/physical.py left it to "
                    "the Python operator")


def _column(resolved) -> Column:
    """A resolved expression's Spark Column, of the Spark type of its SQL type."""
    return column(resolved).cast(resolved.type.type_info().to_spark_type())
