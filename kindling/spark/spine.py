"""Stages with several consumers, computed once (docs/architecture.md, "Stages with several
consumers").

Spark computes a plan node once per path through the plan that reads it, and a streaming
query can neither cache nor reuse an exchange. So every stage's frame must have one reader.
When a stage's frame would have several (a sink and a keyed operator, two keyed operators,
a union and a sink, ...), one of its readers that is a keyed operator or a union *carries* it:
that stage reads every row of the frame, runs its own rows and passes the others through
unchanged, packed in a struct column (``__carry_<stage>``; a keyed carrier groups them under a
*carry key*); the other readers read them out of the carrier's frame. Stages so end up on one spine and each runs once. BATCH jobs and one-step jobs (plain
Spark batch jobs) persist such a frame instead.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from pyspark.sql import Column
from pyspark.sql import functions as F

SINKS = "sinks"  # the reader of every sink exit: the job's final frame
CARRY_KEY_PREFIX = b"\x01"  # after control keys (b"\x00...") and before pickled keys (b"\x80...")


@dataclass(frozen=True)
class Host:
    """Where a stage's rows are in Spark: the frame of stage ``root``, inside the struct
    columns ``path`` (empty: the stage's own frame)."""

    root: int
    path: tuple[str, ...] = ()

    def col(self, name: str) -> Column:
        return F.col(".".join(f"`{part.replace('`', '``')}`" for part in (*self.path, name)))

    def carried_by(self, carrier: int, column: str) -> "Host":
        return Host(carrier, (column, *self.path))


def carry_column(root_id: int) -> str:
    return f"__carry_{'m' if root_id < 0 else ''}{abs(root_id)}"


def carry_key() -> Column:
    """The grouping key of carried rows: one per input partition, so that they spread."""
    return F.concat(F.lit(CARRY_KEY_PREFIX), F.spark_partition_id().cast("string").cast("binary"))


def is_carry_key(key: bytes) -> bool:
    return key[:1] == CARRY_KEY_PREFIX


def plan_spine(roots: list[int], readers: dict[int, set], can_carry: Callable[[int], bool],
               depends_on: Callable[[int, int], bool]) -> tuple[dict[int, list[Host]], dict[int, list[int]]]:
    """Where each stage's rows are, and which frames each carrier carries.

    ``roots``: stage roots in topological order; ``readers``: each root's readers (other roots,
    or ``SINKS``); ``can_carry(r)``: whether root ``r`` can carry frames (a keyed operator or a
    union in a streaming query); ``depends_on(a, b)``: whether root ``a`` reads ``b``'s output, directly or not.
    A frame is carried by its first reader that can carry and that no other reader feeds (so
    that the others, reading the carrier's frame, make no cycle); a frame without one keeps
    its readers, and is computed once per reader. Each stage's hosts: its own frame, then each
    frame that carries it in turn (a carrier reads from the host before its own; any other
    reader from the last)."""
    position = {r: i for i, r in enumerate(roots)}
    hosts = {r: [Host(r)] for r in roots}
    frame_readers = {r: set(readers.get(r, ())) for r in roots}
    carried: dict[int, list[int]] = {}
    for root in roots:
        found = frame_readers[root]
        if len(found) < 2:
            continue
        stages = sorted((r for r in found if r != SINKS), key=position.__getitem__)
        carrier = next((c for c in stages if can_carry(c)
                        and not any(depends_on(c, other) for other in stages if other != c)), None)
        if carrier is None:
            continue
        carried.setdefault(carrier, []).append(root)
        column = carry_column(root)
        for chain in hosts.values():
            if chain[-1].root == root:
                chain.append(chain[-1].carried_by(carrier, column))
        frame_readers[carrier] |= found - {carrier}
        frame_readers[root] = {carrier}
    return hosts, carried


def host_for(chain: list[Host], reader: int | str) -> Host:
    """Where ``reader`` reads a stage whose hosts are ``chain`` (see :func:`plan_spine`)."""
    for before, host in zip(chain, chain[1:]):
        if host.root == reader:
            return before
    return chain[-1]


def any_of(conditions: Iterable[Column]) -> Column:
    result = None
    for condition in conditions:
        result = condition if result is None else result | condition
    return result
