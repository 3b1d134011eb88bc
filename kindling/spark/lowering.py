"""Rewrites the nodes Spark has no operator for into the few the compiler knows.

Exchanges (kindling/graph/parallelism.py): where Flink sends elements to the next operator other
than FORWARD (a partitioning method, or a change of parallelism), the consumer reads a union whose
inputs are PartitionTransformations at the consumer's parallelism: a stage root whose Spark frame
is repartitioned into exactly that many partitions, each element to the instance Flink's
partitioner picks (kindling/runtime/partitioners.py). A user's union whose inputs do not all run
at its parallelism becomes one the same way. Before a key-by, whose key decides the instance,
partitioning methods spread nothing: ``broadcast()`` becomes a flat map emitting each element once
per instance, ``partition_custom`` one that runs (and checks) the partitioner.
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
from collections import defaultdict

from kindling.graph.parallelism import (BROADCAST, CUSTOM, nearest_partitioning, parallelism_of,
                                        ship_strategy, stays_in_instance)
from kindling.graph.transformation import (
    CacheTransformation,
    ChainedTransformation,
    KeyByTransformation,
    KeyedTransformation,
    PartitionTransformation,
    SideOutputTransformation,
    SourceTransformation,
    Transformation,
    TwoInputTransformation,
    UnionTransformation,
    upstream_graph,
)
from kindling.runtime.co_functions import (BroadcastProcessAdapter, CoProcessAdapter, Copies,
                                           KeyedCoProcessAdapter, RoundRobinKey, SideKeySelector, Tagged)
from kindling.runtime.partitioners import CustomPartitioner


def lower(sinks: list[Transformation], parallelism: int, batch: bool) -> list[Transformation]:
    """The sinks of an equivalent graph made only of the nodes the compiler knows
    (``parallelism``: the job's default; ``batch``: one Spark batch job in BATCH mode)."""
    done: dict[int, Transformation] = {}
    for node in upstream_graph(sinks):
        inputs = [done[i.id] for i in node.inputs]
        if isinstance(node, TwoInputTransformation):
            done[node.id] = _two_inputs(node, inputs, parallelism)
        elif isinstance(node, CacheTransformation):
            done[node.id] = _cache(node, inputs[0], batch)
        else:
            done[node.id] = _with_inputs(node, inputs)
    return _Exchanges(parallelism).place([done[s.id] for s in sinks])


def _with_inputs(node: Transformation, inputs: list[Transformation], **changes) -> Transformation:
    """``node`` reading ``inputs`` (a copy keeping its id, unless nothing changes)."""
    if all(new is old for new, old in zip(inputs, node.inputs)) and not changes:
        return node
    copy = dataclasses.replace(node, inputs=inputs, **changes)
    if hasattr(node, "cache"):  # a BATCH cache stage (set on the instance, not a field)
        copy.cache = node.cache
    return copy


class _Exchanges:
    """Places the exchanges of a job whose default parallelism is ``default`` (see the module docstring)."""

    def __init__(self, default: int):
        self.default = default
        self.done: dict[int, Transformation] = {}
        self.consumers: dict[int, list[Transformation]] = defaultdict(list)

    def place(self, sinks: list[Transformation]) -> list[Transformation]:
        graph = upstream_graph(sinks)
        for node in graph:
            for parent in node.inputs:
                self.consumers[parent.id].append(node)
        for node in graph:
            if not isinstance(node, PartitionTransformation):  # its consumers read through it
                self.done[node.id] = self._place(node)
        return [self.done[s.id] for s in sinks]

    def parallelism(self, node: Transformation) -> int:
        return parallelism_of(node, self.default)

    def _place(self, node: Transformation) -> Transformation:
        if isinstance(node, SourceTransformation):
            return node
        if isinstance(node, KeyByTransformation):
            return self._key_by(node)
        if isinstance(node, KeyedTransformation):
            return _with_inputs(node, [self._key_by_for(k, node) for k in node.inputs])
        if isinstance(node, UnionTransformation):
            return self._union(node)
        if isinstance(node, SideOutputTransformation):  # a part of its operator
            return _with_inputs(node, [self.done[node.inputs[0].id]])
        producer, partitioning = nearest_partitioning(node.inputs[0])
        consumers = self.parallelism(node)
        strategy = self._strategy(producer, partitioning, consumers, node)
        if stays_in_instance(strategy, self.parallelism(producer), consumers):
            return _with_inputs(node, [self.done[producer.id]])
        exchange = UnionTransformation(name=node.name, type_info=producer.type_info, parallelism=consumers,
                                       id=_exchange_id(node, 0),
                                       inputs=[self._partition(producer, partitioning, strategy, consumers, node, 1)])
        return _with_inputs(node, [exchange])

    def _strategy(self, producer: Transformation, partitioning: PartitionTransformation | None, consumers: int,
                  consumer: Transformation) -> str:
        return ship_strategy(self.parallelism(producer), consumers, partitioning.strategy if partitioning else None,
                             consumer.name, producer.name)

    def _partition(self, producer: Transformation, partitioning: PartitionTransformation | None, strategy: str,
                   consumers: int, consumer: Transformation, index: int) -> PartitionTransformation:
        return PartitionTransformation(
            name=partitioning.name if partitioning is not None else strategy.title(), inputs=[self.done[producer.id]],
            type_info=producer.type_info, parallelism=consumers, id=_exchange_id(consumer, index), strategy=strategy,
            partitioner=getattr(partitioning, "partitioner", None), key_selector=getattr(partitioning, "key_selector", None))

    def _union(self, union: UnionTransformation) -> Transformation:
        """A union at the parallelism its readers run at; inputs running at another parallelism, or
        partitioned, are exchanged into it (and then the others too: forward, each to its own instance)."""
        readers = {self.parallelism(c) for c in self.consumers[union.id]
                   if not isinstance(c, (KeyByTransformation, PartitionTransformation))}
        parallelism = readers.pop() if len(readers) == 1 else self.parallelism(union)
        edges = []
        for parent in union.inputs:
            producer, partitioning = nearest_partitioning(parent)
            edges.append((producer, partitioning, self._strategy(producer, partitioning, parallelism, union)))
        if all(stays_in_instance(strategy, self.parallelism(producer), parallelism)
               for producer, _, strategy in edges):
            return _with_inputs(union, [self.done[producer.id] for producer, *_ in edges], parallelism=parallelism)
        inputs = [self._partition(producer, partitioning, strategy, parallelism, union, i + 1)
                  for i, (producer, partitioning, strategy) in enumerate(edges)]
        return _with_inputs(union, inputs, parallelism=parallelism)

    def _key_by(self, key_by: KeyByTransformation) -> Transformation:
        """A key-by's input: partitioning before it spreads nothing (the key decides); ``broadcast()``
        still copies each element once per instance, ``partition_custom`` still runs its partitioner."""
        producer, partitioning = nearest_partitioning(key_by.inputs[0])
        stream = self.done[producer.id]
        strategy = partitioning.strategy if partitioning is not None else None
        if strategy in (BROADCAST, CUSTOM):
            instances = self.parallelism(producer)
            function = (Copies(instances) if strategy == BROADCAST else CustomPartitioner(
                partitioning.partitioner, partitioning.key_selector, instances, partitioning.name).checked)
            stream = ChainedTransformation(name=partitioning.name, inputs=[stream], type_info=partitioning.type_info,
                                           parallelism=instances, id=partitioning.id, operation="flat_map",
                                           function=function)
        return _with_inputs(key_by, [stream])

    def _key_by_for(self, key_by: KeyByTransformation, keyed: KeyedTransformation) -> Transformation:
        """The key-by ``keyed`` reads: its own copy when another keyed operator reading the same key-by
        runs at another parallelism or max parallelism (the keyed exit places keys for one of them)."""
        done = self.done[key_by.id]
        readers = [c for c in self.consumers[key_by.id] if isinstance(c, KeyedTransformation)]
        first = readers[0]
        if keyed is first or (self.parallelism(keyed), keyed.max_parallelism) == \
                (self.parallelism(first), first.max_parallelism):
            return done
        return dataclasses.replace(done, id=_exchange_id(keyed, 0))


def _cache(node: CacheTransformation, stream: Transformation, batch: bool) -> Transformation:
    """In BATCH mode a stage of its own whose input the compiler keeps in Spark's cache (in
    ``node.handle``); otherwise nothing: the stream is computed as usual."""
    if not batch:
        return stream
    stage = UnionTransformation(name=node.name, inputs=[stream], type_info=node.type_info, id=node.id)
    stage.cache = node.handle
    return stage


def _exchange_id(consumer: Transformation, index: int) -> int:
    """Ids of the exchange nodes placed before ``consumer`` (``index`` < 64): negative and apart from
    :func:`_internal_id`'s, and the same every time the job is compiled."""
    return -(2**40 + (abs(consumer.id) * 2 + (consumer.id < 0)) * 64 + index)


def _internal_id(node: Transformation, part: int) -> int:
    """Ids of the nodes a rewrite adds: negative, so that they never meet the API's, and the
    same every time the job is compiled."""
    return -(node.id * 8 + part)


def _two_inputs(node: TwoInputTransformation, inputs: list[Transformation], parallelism: int) -> Transformation:
    keyed = node.keyed
    broadcast = bool(node.broadcast_states)
    first, second = inputs
    streams = [first.inputs[0] if keyed else first, second.inputs[0] if keyed and not broadcast else second]
    # tagged where each input runs; the exchanges before the co-function follow (see _Exchanges)
    tagged = [ChainedTransformation(name=node.name, inputs=[s], operation="map", function=Tagged(side),
                                    parallelism=parallelism_of(s, parallelism), id=_internal_id(node, side + 1))
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
