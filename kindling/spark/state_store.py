"""A key's Flink state in Spark state, at a cost that follows what a micro-batch touches.

The key's :class:`~kindling.runtime.key_state.KeyState` is one record in one Spark ValueState,
read once and written once per key per micro-batch. Its long lists (window contents, ListStates)
would make that record, and so every micro-batch's read and write, grow with everything the key
holds; instead, once a list holds ``SPILL_AT`` elements appended since its last spill, those
elements move into a *segment*: one row of a Spark ListState, appended without reading the
others. The record keeps the segments' names (a :class:`~kindling.runtime.spilled_list.SpilledList`).
The segments are read only when such a list is read (a window firing, ``ListState.get()``),
and rewritten only then or when a list that had segments is dropped (a purged window).
"""
from __future__ import annotations

import os
import pickle
from typing import Any, Callable, Iterator

from pyspark.sql.types import BinaryType, LongType, StructField, StructType

from kindling.runtime.key_state import KeyState
from kindling.runtime.spilled_list import RecordPickling, RecordRestoring, SpilledList

RECORD_SCHEMA = StructType([StructField("state", BinaryType()), StructField("timer", LongType())])
SEGMENT_SCHEMA = StructType([StructField("segment", LongType()), StructField("elements", BinaryType())])
SPILL_AT = 64  # elements a list holds in the record before they move into a segment

#: where a state's spillable lists are: ``states -> [(container, key), ...]`` with ``container[key]`` a list
Spillable = Callable[[dict], Iterator[tuple]]


def _new_segment() -> int:
    return int.from_bytes(os.urandom(8), "big") >> 1


class KeyStateStore:
    """Loads and saves the current key's KeyState through a transformWithState handle."""

    def __init__(self, handle: Any, spillable: Spillable | None = None):
        self.record = handle.getValueState("kindling", RECORD_SCHEMA)
        self.segments = handle.getListState("kindling_segments", SEGMENT_SCHEMA)
        self.spillable = spillable
        self._rows: dict | None = None  # this key's segment rows (name -> pickled elements), once read
        self._seen: set = set()  # segments the loaded record names

    def load(self) -> tuple[KeyState, int | None]:
        """The current key's state and the Spark timer stored with it."""
        self._rows = None
        self._seen = set()
        row = self.record.get()  # None when the key has no state: one round trip, not exists() + get()
        if row is None:
            return KeyState(), None
        blob, timer = row
        with RecordRestoring(self._read, self._seen):
            state = KeyState.from_bytes(blob)
        return state, timer

    def _segment_rows(self) -> dict:
        if self._rows is None:
            self._rows = {segment: blob for segment, blob in self.segments.get()}
        return self._rows

    def _read(self, segments: tuple) -> list:
        rows = self._segment_rows()
        out: list = []
        for segment in segments:
            out.extend(pickle.loads(rows[segment]))
        return out

    def save(self, state: KeyState, timer: int | None) -> None:
        """Writes ``state`` back with ``timer`` (the Spark timer now registered for the key)."""
        appended, live, stale = [], set(), set()
        if self.spillable is not None:
            for container, key in self.spillable(state.states):
                lst = container[key]
                if isinstance(lst, SpilledList):
                    stale.update(lst.loaded_segments)
                elif type(lst) is list and len(lst) >= SPILL_AT:
                    lst = container[key] = SpilledList(tail=lst)
                else:
                    continue
                if lst.tail_length() >= SPILL_AT:
                    segment = _new_segment()
                    appended.append((segment, pickle.dumps(lst.spill(segment), protocol=pickle.HIGHEST_PROTOCOL)))
                live.update(lst.segments)
        dead = (self._seen | stale) - live
        if dead:
            kept = [(s, b) for s, b in self._segment_rows().items() if s not in dead] + appended
            if kept:
                self.segments.put(kept)
            else:
                self.segments.clear()
        elif appended:
            self.segments.appendList(appended)
        with RecordPickling():
            blob = state.to_bytes()
        self.record.update((blob, timer))

    def clear(self) -> None:
        """The key holds nothing any more."""
        self.record.clear()
        if self._seen or self._rows:
            self.segments.clear()
        self._rows = None
        self._seen = set()


def spillable_lists(operator: Any) -> Spillable:
    """Where ``operator``'s long lists are: a window operator's element lists and the list
    states (without TTL) of the function it runs."""
    from kindling.runtime.window.window_operator import CONTENTS, CONTENTS_LIST

    window_lists = getattr(operator, "contents_kind", None) == CONTENTS_LIST

    def spillable(states: dict) -> Iterator[tuple]:
        if window_lists:
            contents = states.get(CONTENTS)
            if contents:
                for window in contents:
                    yield contents, window
        registry = getattr(operator, "state_registry", None)  # created when the operator opens
        if registry is not None:
            for name in registry.list_state_names():
                if name in states:
                    yield states, name

    return spillable
