"""Flink's stream partitioners: which parallel instances of the next operator get an element.

``REBALANCE``: round robin over all instances, each producer instance from a starting point of its
own (Flink picks it at random; here the producer's own index, so that producers start apart and
runs repeat). ``RESCALE``: round robin over the instances a producer instance is
connected to pointwise (Flink's ``EdgeManagerBuildUtil.connectPointwise``), from the first.
``SHUFFLE``: uniformly at random. ``BROADCAST``: every instance. ``CUSTOM``: the instance the
user's partitioner picks for the key (``partition_custom``). ``FORWARD``: the producer's own.

Round robins go on from where the producer instance's previous task stopped, in the same Python
worker: a stream read in small micro-batches still spreads.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from kindling.runtime.errors import user_function_failure


@dataclass(frozen=True)
class Distribution:
    """How a stream goes from ``producers`` parallel instances to ``consumers``; ``partitioner``
    and ``key_selector`` are ``partition_custom``'s; ``name`` names the operation in errors."""

    strategy: str
    consumers: int
    producers: int = 1
    partitioner: Any = None
    key_selector: Any = None
    name: str = ""


def rescale_targets(producer: int, producers: int, consumers: int) -> range:
    """The consumer instances producer instance ``producer`` is connected to by a pointwise edge."""
    if producers == consumers:
        return range(producer, producer + 1)
    if producers > consumers:  # several producers feed each consumer
        for consumer in range(consumers):
            if consumer * producers // consumers <= producer < (consumer + 1) * producers // consumers:
                return range(consumer, consumer + 1)
    first = (producer * consumers + producers - 1) // producers
    return range(first, ((producer + 1) * consumers + producers - 1) // producers)


_next_channel: dict[tuple, int] = {}  # (job-unique owner, producer instance) -> a round robin's next position


class InstanceChooser:
    """Picks the consumer instances of one producer instance's elements (see the module docstring);
    ``owner`` names the exit across tasks (its round robin goes on where the last task stopped)."""

    def __init__(self, distribution: Distribution, producer: int, owner: str):
        self.distribution = distribution
        self.producer = producer
        self.key = (owner, producer)
        strategy = distribution.strategy
        if strategy == "RESCALE":
            self.channels = rescale_targets(producer % distribution.producers, distribution.producers,
                                            distribution.consumers)
        elif strategy == "REBALANCE":
            self.channels = range(distribution.consumers)
        if strategy in ("RESCALE", "REBALANCE") and self.key not in _next_channel:
            job = owner.split("/", 1)[0]
            for old in [k for k in _next_channel if k[0].split("/", 1)[0] != job]:
                del _next_channel[old]  # another job's: this worker moved on
            _next_channel[self.key] = producer % len(self.channels) if strategy == "REBALANCE" else 0
        if strategy == "CUSTOM":
            self.custom = CustomPartitioner(distribution.partitioner, distribution.key_selector,
                                            distribution.consumers, distribution.name)
        self.random = random.Random() if strategy == "SHUFFLE" else None

    def spread(self, count: int, values: list) -> tuple[list[int], list[int]]:
        """For the ``count`` elements ``values``: the consumer instance of each copy, and the index in
        ``values`` of the element each copy is of (BROADCAST makes a copy per instance)."""
        d = self.distribution
        strategy = d.strategy
        if strategy == "BROADCAST":
            return list(range(d.consumers)) * count, [i for i in range(count) for _ in range(d.consumers)]
        rows = list(range(count))
        if strategy == "FORWARD":
            return [self.producer % d.consumers] * count, rows
        if strategy == "SHUFFLE":
            return [self.random.randrange(d.consumers) for _ in rows], rows
        if strategy == "CUSTOM":
            return [self.custom(v) for v in values], rows
        channels, start = self.channels, _next_channel[self.key]
        width = len(channels)
        _next_channel[self.key] = (start + count) % width
        return [channels[(start + i) % width] for i in rows], rows


def first_task_shares(distribution: Distribution, count: int) -> list[np.ndarray] | None:
    """The indexes of the elements each consumer instance gets (in order) when a lone producer
    instance hands on ``count`` elements, as :class:`InstanceChooser` spreads them in a job's first
    task; None where the producer is not alone, or for ``partition_custom`` (its partitioner runs in
    the tasks)."""
    d = distribution
    if d.producers != 1 or d.strategy not in ("REBALANCE", "RESCALE", "SHUFFLE", "BROADCAST"):
        return None
    everything = np.arange(count, dtype=np.int64)
    if d.strategy == "BROADCAST":
        return [everything] * d.consumers
    if d.strategy == "SHUFFLE":
        targets = np.random.default_rng().integers(0, d.consumers, count)
        return [np.flatnonzero(targets == instance) for instance in range(d.consumers)]
    # a round robin from instance 0 (a lone producer's rescale reaches every consumer)
    return [everything[instance::d.consumers] for instance in range(d.consumers)]


class CustomPartitioner:
    """``partition_custom``: the instance ``partitioner.partition(key, consumers)`` picks for an
    element's key; a failure or an index out of range fails the job, as in Flink."""

    def __init__(self, partitioner: Any, key_selector: Any, consumers: int, name: str):
        self.partition = getattr(partitioner, "partition", partitioner)
        self.get_key = getattr(key_selector, "get_key", key_selector)
        self.consumers = consumers
        self.name = name

    def __call__(self, value: Any) -> int:
        try:
            index = self.partition(self.get_key(value), self.consumers)
        except Exception as exc:
            raise user_function_failure(self.name, exc, value) from None
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < self.consumers:
            raise user_function_failure(self.name, ValueError(
                f"the partitioner of partition_custom chose partition {index!r}; it must be an int in "
                f"[0, {self.consumers})"), value)
        return index

    def checked(self, value: Any) -> list:
        """``value`` alone, once its instance is checked: before a key-by, whose key decides the instance."""
        self(value)
        return [value]
