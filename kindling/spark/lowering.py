"""Rewrites the nodes Spark has no operator for into the few the compiler knows.

``broadcast()`` partitioning becomes a flat map emitting each element once per parallel instance;
``partition_custom`` one that runs the partitioner (Spark keeps the element in its partition).
``cache()`` is a stage whose input Spark keeps, in BATCH mode.

A two-input node (``connect(...).process(...)``) becomes: each input tagged with its side by a
chained map, and the co-function run as a one-input function over both
(:mod:`kindling.runtime.co_functions`): in the fused pass of a union of the two, or, keyed, as
a keyed operator reading two key-bys, each applying its side's key selector in its input's
stage; a broadcast input's selector sends its elements to every parallel instance
(:mod:`kindling.spark.broadcast`). Watermarks need nothing more: the operator receives every
channel of both inputs, and its watermark is the minimum over channels.

The user's graph is not changed: nodes downstream of a rewritten one are copied (keeping
their ids, which name operators and their state).
"""
from __future__ import annotations

import dataclasses

from kindling.graph.transformation import (
    CacheTransformation,
    ChainedTransformation,
    KeyByTransformation,
    KeyedTransformation,
    PartitionTransformation,
    Transformation,
    TwoInputTransformation,
    UnionTransformation,
    upstream_graph,
)
from kindling.runtime.co_functions import (BroadcastProcessAdapter, CoProcessAdapter, Copies, CustomPartition,
                                           KeyedCoProcessAdapter, RoundRobinKey, SideKeySelector, Tagged)


def lower(sinks: list[Transformation], parallelism: int, batch: bool) -> list[Transformation]:
    """The sinks of an equivalent graph made only of the nodes the compiler knows
    (``parallelism``: the job's default; ``batch``: one Spark batch job in BATCH mode)."""
    done: dict[int, Transformation] = {}
    for node in upstream_graph(sinks):
        inputs = [done[i.id] for i in node.inputs]
        if isinstance(node, TwoInputTransformation):
            done[node.id] = _two_inputs(node, inputs, parallelism)
        elif isinstance(node, PartitionTransformation) and node.strategy in ("BROADCAST", "CUSTOM"):
            function = (Copies(parallelism) if node.strategy == "BROADCAST"
                        else CustomPartition(node.partitioner, node.key_selector, parallelism))
            done[node.id] = ChainedTransformation(name=node.name, inputs=inputs, type_info=node.type_info, id=node.id,
                                                  operation="flat_map", function=function)
        elif isinstance(node, CacheTransformation):
            done[node.id] = _cache(node, inputs[0], batch)
        elif any(new is not old for new, old in zip(inputs, node.inputs)):
            done[node.id] = dataclasses.replace(node, inputs=inputs)
        else:
            done[node.id] = node
    return [done[s.id] for s in sinks]


def _cache(node: CacheTransformation, stream: Transformation, batch: bool) -> Transformation:
    """In BATCH mode a stage of its own whose input the compiler keeps in Spark's cache (in
    ``node.handle``); otherwise nothing: the stream is computed as usual."""
    if not batch:
        return stream
    stage = UnionTransformation(name=node.name, inputs=[stream], type_info=node.type_info, id=node.id)
    stage.cache = node.handle
    return stage


def _internal_id(node: Transformation, part: int) -> int:
    """Ids of the nodes a rewrite adds: negative, so that they never meet the API's, and the
    same every time the job is compiled."""
    return -(node.id * 8 + part)


def _two_inputs(node: TwoInputTransformation, inputs: list[Transformation], parallelism: int) -> Transformation:
    keyed = node.keyed
    broadcast = bool(node.broadcast_states)
    first, second = inputs
    streams = [first.inputs[0] if keyed else first, second.inputs[0] if keyed and not broadcast else second]
    tagged = [ChainedTransformation(name=node.name, inputs=[s], operation="map", function=Tagged(side),
                                    parallelism=node.parallelism, id=_internal_id(node, side + 1))
              for side, s in enumerate(streams)]
    if not keyed and not broadcast:
        union = UnionTransformation(name=node.name, inputs=tagged, id=_internal_id(node, 3))
        return ChainedTransformation(name=node.name, inputs=[union], type_info=node.type_info,
                                     parallelism=node.parallelism, uid=node.uid, id=node.id,
                                     description=node.description, operation="process",
                                     function=CoProcessAdapter(node.function))
    if broadcast:
        # A non-keyed stream is spread over the instances in turn; broadcast elements reach all.
        main_key = first.key_selector if keyed else RoundRobinKey(node.parallelism or parallelism)
        selector, key_type = SideKeySelector(main_key), first.key_type if keyed else None
        function = BroadcastProcessAdapter(node.function, node.broadcast_states)
    else:
        selector = SideKeySelector(first.key_selector, second.key_selector)
        key_type, function = first.key_type or second.key_type, KeyedCoProcessAdapter(node.function)
    # Each input is keyed in its own stage; the keyed operator reads both key-bys as one stream.
    key_bys = [KeyByTransformation(name="KeyBy", inputs=[t], key_type=key_type, id=_internal_id(node, side + 3),
                                   key_selector=selector) for side, t in enumerate(tagged)]
    return KeyedTransformation(name=node.name, inputs=key_bys, type_info=node.type_info,
                               parallelism=node.parallelism, uid=node.uid, id=node.id, description=node.description,
                               operation="process", function=function,
                               has_side_output=node.has_side_output or broadcast)
