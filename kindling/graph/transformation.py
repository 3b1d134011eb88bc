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
    """A node of the job graph: an operation, its inputs and the type of what it emits; ``description``
    says more than the name (``set_description``; a Table operator's: its plan node, as explain
    prints it). ``parallelism`` and ``max_parallelism``: as set (None: the job's, see
    kindling/graph/parallelism.py). ``chaining`` (``ALWAYS``, ``HEAD`` after ``start_new_chain``,
    ``NEVER`` after ``disable_chaining``) and ``slot_sharing_group`` decide only how the execution
    plan chains it, as Flink's (kindling/graph/plan.py)."""

    name: str
    inputs: list["Transformation"] = field(default_factory=list)
    type_info: Any = None
    parallelism: int | None = None
    max_parallelism: int | None = None
    uid: str | None = None
    id: int = field(default_factory=lambda: next(_ids))
    description: str = ""
    chaining: str = "ALWAYS"
    slot_sharing_group: str | None = None

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
    (assigns timestamps and watermarks), ``async`` (AsyncDataStream) or ``sink_function``;
    ``function`` is the user's.
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
    """A keyed stateful operation over a KeyByTransformation (or several, whose elements it
    reads as one keyed stream: the inputs of a keyed co-function), as the user asked for it.

    ``operation`` is ``process`` (``function`` is a KeyedProcessFunction), ``map``,
    ``flat_map``, ``filter`` or ``reduce`` (``function`` is the user's), one of the rolling
    aggregations ``sum``, ``min``, ``max``, ``min_by``, ``max_by`` (of the field ``position``),
    or ``window`` (``window`` is a :class:`~kindling.graph.specs.WindowSpec`).
    ``has_side_output``: the job reads a side output of it (``get_side_output``), which decides
    where a yielded ``(OutputTag, value)`` pair goes, as in PyFlink. The Spark compiler
    chooses the runtime operator (``kindling.spark.operators``). ``relational``: a
    :class:`~kindling.graph.specs.GroupAggregateSpec` when the operation is a group aggregation
    that Spark's own operators compute instead of ``function`` (the planner's choice:
    kindling/table/planner/physical.py; computed by kindling/spark/table/aggregation.py).
    """

    operation: str = "process"
    function: Any = None
    position: Any = None
    window: Any = None
    has_side_output: bool = False
    relational: Any = None
    kind = "keyed"


@dataclass(eq=False)
class TwoInputTransformation(Transformation):
    """A co-function over two connected streams (``inputs``: the first and the second).

    ``function`` is a CoProcessFunction, or a KeyedCoProcessFunction when both inputs are
    KeyByTransformations (``keyed``): then the state and timers of a key are shared by both
    inputs. Co-map and co-flat-map are co-process functions built by the API, as in PyFlink.
    With ``broadcast_states`` (MapStateDescriptors) the second input is broadcast to every
    parallel instance and ``function`` is a (Keyed)BroadcastProcessFunction, keyed when the
    first input is. ``relational``: a :class:`~kindling.graph.specs.RegularJoinSpec` when the
    function is a regular join that Spark's own operators compute instead on micro-batches (the
    planner's choice: kindling/table/planner/physical.py; computed by kindling/spark/table/join.py).
    """

    function: Any = None
    has_side_output: bool = False
    broadcast_states: tuple = ()
    relational: Any = None
    kind = "two_input"

    @property
    def keyed(self) -> bool:
        first, second = self.inputs
        return isinstance(first, KeyByTransformation) and (
            bool(self.broadcast_states) or isinstance(second, KeyByTransformation))


@dataclass(eq=False)
class UnionTransformation(Transformation):
    """Merges streams of the same type."""

    kind = "union"


@dataclass(eq=False)
class PartitionTransformation(Transformation):
    """How its input is spread over the next operator's parallel instances: ``FORWARD`` (each element
    stays in its instance), ``REBALANCE``, ``RESCALE``, ``SHUFFLE``, ``BROADCAST`` (to every instance)
    or ``CUSTOM`` (``partitioner`` picks the instance of ``key_selector``'s key); see
    kindling/runtime/partitioners.py. Spark's compiler reads it as an exchange into its consumer's
    parallelism (kindling/spark/lowering.py)."""

    strategy: str = "REBALANCE"
    partitioner: Any = None
    key_selector: Any = None
    kind = "partition"

    def describe(self) -> dict:
        return {"strategy": self.strategy}


@dataclass(eq=False)
class CacheTransformation(Transformation):
    """Its input's elements, kept after the first BATCH job that computes them for later jobs
    (``DataStream.cache()``); ``handle`` holds what the compiler cached, shared by copies of the node."""

    handle: dict = field(default_factory=dict)
    kind = "cache"


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
