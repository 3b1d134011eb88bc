"""Broadcast state on Spark (``connect(stream.broadcast(descriptor)).process(...)``).

Spark has no broadcast operator; the keyed operator's control keys serve as one (one per
shuffle partition, processed before every other key of the partition in a micro-batch,
``kindling.spark.key_placement.partition_keys``). The broadcast input's keyed exit sends each of its
runs to every control key (``kindling.runtime.co_functions.BROADCAST``); a control key applies
them, in an order that is the same in every partition, to its partition's broadcast states,
kept in its Spark state (so they are part of the checkpoint) and in the operator, where the
partition's other keys then read them. Every parallel instance thus sees every broadcast
element, in the same order, before the elements of the main input of the same micro-batch.

A micro-batch without input (Spark's no-data batches fire timers) runs no control key: the
operator then reads the newest states the control keys published through the driver
(:class:`BroadcastHandOff`), unless it already holds them.
"""
from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from typing import Any, Iterator

import pyarrow as pa
from pyspark.sql.types import BinaryType, StructField, StructType

from kindling.runtime.task_info import MIN_WATERMARK
from kindling.spark.metrics import MaxParam
from kindling.spark.rows import ELEMENTS, KEY, is_control_key

STATE_SCHEMA = StructType([StructField("states", BinaryType())])


class BroadcastHandOff:
    """The driver's copy of one operator's newest broadcast states, for no-data micro-batches:
    the control keys report new versions (an accumulator); after each micro-batch the newest
    goes to a file that the operator reads when no control key ran."""

    def __init__(self, spark, scratch: str):
        self.directory = tempfile.mkdtemp(prefix="broadcast-", dir=scratch)
        self.path = os.path.join(self.directory, "states")
        self.reports = spark.sparkContext.accumulator(None, MaxParam())  # (version, states): the newest
        self.written = -1

    def after_batch(self) -> None:
        newest = self.reports.value
        if newest is not None and newest[0] > self.written:
            temporary = self.path + ".tmp"
            with open(temporary, "wb") as f:
                pickle.dump(newest, f, protocol=5)
            os.replace(temporary, self.path)
            self.written = newest[0]

    def close(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)

    def __getstate__(self):  # shipped to the workers without the driver's bookkeeping
        return {"path": self.path, "reports": self.reports}

    def __setstate__(self, state):
        self.__dict__.update(state)


class BroadcastStates:
    """One partition's broadcast states in a transformWithState processor."""

    def __init__(self, handle: Any, adapter: Any, handoff: BroadcastHandOff):
        self.state = handle.getValueState("kindling_broadcast", STATE_SCHEMA)
        self.adapter = adapter
        self.handoff = handoff
        self.current = False  # whether the adapter holds the newest states in this micro-batch

    def apply(self, runs: list, watermark: int, processing_time: int) -> list:
        """At the control key: restores the partition's states, applies the batch's broadcast
        runs (``(channel, flush, [(value, timestamp, watermark), ...])``), stores them; returns
        the outputs of ``process_broadcast_element``."""
        adapter = self.adapter
        if self.state.exists():
            adapter.version, adapter.states = pickle.loads(self.state.get()[0])
        else:
            adapter.version, adapter.states = 0, {name: {} for name in adapter.names}
        self.current = True
        if not runs:
            return []
        runs.sort(key=lambda run: (run[0] or "", run[1]))
        elements = [(value, ts) for _, _, group in runs for value, ts, _ in group]
        outputs = adapter.process_broadcast(elements, watermark, processing_time)
        blob = pickle.dumps((adapter.version, adapter.states), protocol=5)
        self.state.update((blob,))
        self.handoff.reports.add((adapter.version, blob))
        return outputs

    def ensure_current(self) -> None:
        """Before another key runs: in a micro-batch where no control key ran, the newest
        states the driver has (the operator may hold them already)."""
        if self.current:
            return
        self.current = True
        try:
            with open(self.handoff.path, "rb") as f:
                version, blob = pickle.load(f)
        except FileNotFoundError:
            return  # no broadcast element yet
        if version > self.adapter.version:
            self.adapter.version, self.adapter.states = pickle.loads(blob)


def batch_groups(table: pa.Table) -> tuple[dict[bytes, list], list, list]:
    """A BATCH or one-step group's rows: each key's elements ``(value, timestamp, place)`` (key
    blob -> list, in order of arrival), and what its control key holds: the broadcast runs and
    the read logs (one-step jobs: kindling/runtime/channels.py, ``ReadLog``)."""
    keys: dict[bytes, list] = {}
    runs, logs = [], []
    for key_blob, blob in zip(table.column(KEY).to_pylist(), table.column(ELEMENTS).to_pylist()):
        if is_control_key(key_blob):
            kind, body = pickle.loads(blob)
            (runs if kind == "broadcast" else logs).append(body)
        else:
            keys.setdefault(key_blob, []).extend(pickle.loads(blob)[2])
    return keys, runs, logs


def apply_broadcast_first(adapter: Any, runs: list, processing_time: int) -> list:
    """BATCH and one-step jobs: a parallel instance applies every broadcast element of the
    whole input before any other element (as Flink's BATCH execution does), in an order every
    instance shares: by the producing partition, then arrival (elements there carry their
    place ``(processing time, arrival, partition)``); returns the outputs of ``process_broadcast_element``."""
    adapter.version, adapter.states = 0, {name: {} for name in adapter.names}  # a retried task starts over
    elements = sorted((e for _, _, group in runs for e in group), key=lambda e: (e[2][2], e[2][1]))
    return adapter.process_broadcast([(value, ts) for value, ts, _ in elements], MIN_WATERMARK, processing_time)


def control_payloads(rows: Iterator) -> tuple[list, list]:
    """Splits a control key's rows into its control payloads and its broadcast runs."""
    payloads, runs = [], []
    for row in rows:
        kind, body = pickle.loads(row[1])
        (runs if kind == "broadcast" else payloads).append((kind, body))
    return payloads, [body for _, body in runs]
