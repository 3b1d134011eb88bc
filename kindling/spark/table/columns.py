"""A resolved expression (kindling/table/planner/expressions.py) as a Spark Column over a DataFrame
whose columns are named as the expression's InputRefs name them: built-in calls by their Spark
implementations (kindling/spark/table/functions.py). Only expressions the planner keeps in Spark
(``python_only`` None) translate; anything else fails naming the node."""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

from pyspark.sql import Column
from pyspark.sql import functions as F

from kindling.spark.table.functions import SPARK, aggregate_column

__all__ = ["column", "inputs_named"]


def column(node: Any, inputs: Callable[[Any], Column] | None = None) -> Column:
    """The Spark Column computing ``node``; ``inputs``: each InputRef's Column (a field of a lambda's
    variable, say), instead of the frame's column of its name."""
    kind = type(node).__name__
    if kind == "InputRef":
        return F.col(f"`{node.name}`") if inputs is None else inputs(node)
    if kind == "Literal":
        return F.lit(node.value)
    if kind == "Call":
        return SPARK[node.function](node, *[column(o, inputs) for o in node.operands])
    if kind == "AggregateCall" and isinstance(node.function, str) and node.filter is None:
        return aggregate_column(node.function, node.distinct, column(node.operands[0], inputs))
    if kind == "ClosureCall" and node.spark is not None:
        return node.spark(*[column(o, inputs) for o in node.operands])
    raise ValueError(f"{node} is computed in Python, not as a Spark column")


def inputs_named(resolved: Any, prefix: str) -> Any:
    """A resolved expression reading each input column as ``<prefix><index>`` (``__k0``: the first group
    key of an aggregation's frame, ``__c3``: a join's fourth joined column)."""
    if type(resolved).__name__ == "InputRef":
        return dataclasses.replace(resolved, name=f"{prefix}{resolved.index}")
    operands = getattr(resolved, "operands", None)
    return dataclasses.replace(resolved, operands=tuple(inputs_named(o, prefix) for o in operands)) \
        if operands else resolved
