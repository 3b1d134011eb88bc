"""The logical job graph: each DataStream call adds one transformation, as plain data.

Nothing here imports Spark; ``kindling.spark`` compiles a graph into Spark plans.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

_ids = itertools.count(1)


@dataclass(eq=False)
class Transformation:
    """A node of the job graph: an operation, its inputs and the type of what it emits."""

    name: str
    inputs: list["Transformation"] = field(default_factory=list)
    type_info: Any = None
    parallelism: int | None = None
    uid: str | None = None
    id: int = field(default_factory=lambda: next(_ids))

    kind = "transformation"

    def describe(self) -> dict:
        """Kind-specific facts for the execution plan."""
        return {}


@dataclass(eq=False)
class SourceTransformation(Transformation):
    """Reads a source; ``source`` is a spec from ``kindling.graph.specs``."""

    source: Any = None
    kind = "source"

    def describe(self) -> dict:
        return {"source": type(self.source).__name__, "bounded": self.source.bounded}


@dataclass(eq=False)
class ChainedTransformation(Transformation):
    """A stateless one-input operation, fused with its neighbours into one Python pass.

    ``operation`` is one of ``map``, ``flat_map``, ``filter``, ``process``, ``timestamps``
    (assigns timestamps and watermarks) or ``sink_function``; ``function`` is the user's.
    """

    operation: str = "map"
    function: Any = None
    kind = "chained"

    def describe(self) -> dict:
        return {"operation": self.operation}


@dataclass(eq=False)
class KeyByTransformation(Transformation):
    """Partitions its input by key; consumed by keyed operations."""

    key_selector: Any = None
    key_type: Any = None
    kind = "key_by"


@dataclass(eq=False)
class KeyedTransformation(Transformation):
    """A keyed stateful operation over a KeyByTransformation, as the user asked for it.

    ``operation`` is ``process`` (``function`` is a KeyedProcessFunction), ``map``,
    ``flat_map``, ``filter`` or ``reduce`` (``function`` is the user's), one of the rolling
    aggregations ``sum``, ``min``, ``max``, ``min_by``, ``max_by`` (of the field ``position``),
    or ``window`` (``window`` is a :class:`~kindling.graph.specs.WindowSpec`).
    ``has_side_output``: the job reads a side output of it (``get_side_output``), which decides
    where a yielded ``(OutputTag, value)`` pair goes, as in PyFlink. The Spark compiler
    chooses the runtime operator (``kindling.spark.operators``).
    """

    operation: str = "process"
    function: Any = None
    position: Any = None
    window: Any = None
    has_side_output: bool = False
    kind = "keyed"


@dataclass(eq=False)
class UnionTransformation(Transformation):
    """Merges streams of the same type."""

    kind = "union"


@dataclass(eq=False)
class PartitionTransformation(Transformation):
    """How its input is spread over the next operator's parallel instances (``shuffle``,
    ``rescale``, ``rebalance``, ``forward``): recorded for the plan; on Spark a pass-through,
    since Spark repartitions by its own rules between stages."""

    strategy: str = "REBALANCE"
    kind = "partition"

    def describe(self) -> dict:
        return {"strategy": self.strategy}


@dataclass(eq=False)
class SideOutputTransformation(Transformation):
    """Selects the elements its input emitted to an OutputTag."""

    tag_id: str = ""
    kind = "side_output"

    def describe(self) -> dict:
        return {"tag": self.tag_id}


@dataclass(eq=False)
class SinkTransformation(Transformation):
    """Writes its input to a sink; ``sink`` is a spec from ``kindling.graph.specs``."""

    sink: Any = None
    kind = "sink"

    def describe(self) -> dict:
        return {"sink": type(self.sink).__name__}


def upstream_graph(sinks: list[Transformation]) -> list[Transformation]:
    """All transformations the sinks depend on, inputs before their consumers."""
    order: list[Transformation] = []
    seen: set[int] = set()

    def visit(node: Transformation) -> None:
        if node.id in seen:
            return
        seen.add(node.id)
        for parent in node.inputs:
            visit(parent)
        order.append(node)

    for sink in sinks:
        visit(sink)
    return order
