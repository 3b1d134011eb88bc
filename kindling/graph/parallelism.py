"""How many parallel instances each operator runs, and how elements travel from an operator to
the next, as Flink decides them (docs/architecture.md, "Parallelism").

An operator runs at its ``set_parallelism``, else at the job's default; a collection source at 1
(Flink reads it with one reader); a key-by and a side output at their input's (they are part of
it); a timestamp assigner at its input's unless set (Flink's TimestampsAndWatermarks operator
takes its input's); a union at its first input's (Flink's UnionTransformation); ``execute_and_collect``'s
sink at its input's (Flink's runs at 1 and reads every instance; the driver gathers Spark's partitions
without an exchange).

Between an operator and its input, elements go FORWARD (each stays in its parallel instance:
Flink chains the two operators, Kindling runs them in one Python pass) when the parallelisms
match and no partitioning was asked for; else as the partitioning method nearest the consumer
says (``rebalance().shuffle()`` shuffles), or REBALANCE when none was (Flink's default when the
parallelism changes). FORWARD between different parallelisms is refused, as Flink refuses it.
The execution plan (kindling/graph/plan.py) and Spark's compiler (kindling/spark/lowering.py)
both read these rules from here.
"""
from __future__ import annotations

from kindling.graph.specs import CollectionSourceSpec, CollectSinkSpec
from kindling.graph.transformation import (
    ChainedTransformation,
    KeyByTransformation,
    PartitionTransformation,
    SideOutputTransformation,
    SinkTransformation,
    SourceTransformation,
    Transformation,
    UnionTransformation,
)

FORWARD, REBALANCE, RESCALE, SHUFFLE, BROADCAST, CUSTOM = \
    "FORWARD", "REBALANCE", "RESCALE", "SHUFFLE", "BROADCAST", "CUSTOM"


def non_parallel(node: Transformation) -> bool:
    """Whether Flink runs ``node`` with one instance, refusing any other: a collection source."""
    return isinstance(node, SourceTransformation) and isinstance(node.source, CollectionSourceSpec)


def parallelism_of(node: Transformation, default: int) -> int:
    """How many parallel instances ``node`` runs in a job whose default parallelism is ``default``."""
    if non_parallel(node):
        return 1
    if node.parallelism:
        return node.parallelism
    collect = isinstance(node, SinkTransformation) and isinstance(node.sink, CollectSinkSpec)
    if collect or isinstance(node, (KeyByTransformation, SideOutputTransformation, PartitionTransformation,
                         UnionTransformation)) or (
            isinstance(node, ChainedTransformation) and node.operation == "timestamps"):
        return parallelism_of(node.inputs[0], default) if node.inputs else default
    return default


def nearest_partitioning(parent: Transformation) -> tuple[Transformation, PartitionTransformation | None]:
    """The operator a consumer of ``parent`` reads, and the partitioning method on the way (the one
    nearest the consumer; None when the consumer reads ``parent`` directly)."""
    nearest = parent if isinstance(parent, PartitionTransformation) else None
    while isinstance(parent, PartitionTransformation):
        parent = parent.inputs[0]
    return parent, nearest


def ship_strategy(producer_parallelism: int, consumer_parallelism: int, partitioning: str | None,
                  consumer_name: str = "", producer_name: str = "") -> str:
    """Flink's strategy from a producer to a consumer (as its execution plan names it): the
    ``partitioning`` asked for, else FORWARD when the parallelisms match, else REBALANCE. Raises
    for FORWARD between different parallelisms, as Flink does."""
    same = producer_parallelism == consumer_parallelism
    if partitioning is None:
        return FORWARD if same else REBALANCE
    if partitioning == FORWARD and not same:
        raise ValueError(
            f"Forward partitioning does not allow change of parallelism. Upstream operation: {producer_name} "
            f"parallelism: {producer_parallelism}, downstream operation: {consumer_name} parallelism: "
            f"{consumer_parallelism} You must use another partitioning strategy, such as broadcast, rebalance, "
            "shuffle or global.")
    return partitioning


def stays_in_instance(strategy: str, producer_parallelism: int, consumer_parallelism: int) -> bool:
    """Whether each element stays in its parallel instance (the consumer runs in the producer's
    Python pass): FORWARD, and RESCALE between equal parallelisms (pointwise: instance i to i)."""
    return strategy == FORWARD or (strategy == RESCALE and producer_parallelism == consumer_parallelism)
