"""An in-memory keyed state backend: key -> KeyState, for the test harness and BATCH mode.

With ``serialize=True`` every ``put`` pickles the KeyState (``KeyState.to_bytes``) and every
``get`` unpickles it, as Spark does between micro-batches: state that cannot be pickled, or
that relies on object identity across writes, fails here as it would on Spark.
"""
from __future__ import annotations

from typing import Dict, Iterator, List, Tuple

from kindling.runtime.key_state import KeyState


class MemoryKeyedStateBackend:
    """Holds the :class:`KeyState` of every key. ``get`` returns a KeyState to work on (a new
    one for an unknown key); ``put`` stores it back, or forgets the key when it is empty."""

    def __init__(self, serialize: bool = False):
        self.serialize = serialize
        self._data: Dict[object, object] = {}

    def get(self, key) -> KeyState:
        stored = self._data.get(key)
        if stored is None:
            return KeyState()
        if self.serialize:
            return KeyState.from_bytes(stored)
        return stored

    def put(self, key, state: KeyState) -> None:
        if state.is_empty():
            self._data.pop(key, None)
        elif self.serialize:
            self._data[key] = state.to_bytes()
        else:
            self._data[key] = state

    def remove(self, key) -> None:
        self._data.pop(key, None)

    def clear(self) -> None:
        self._data.clear()

    def __contains__(self, key) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def keys(self) -> List[object]:
        return list(self._data)

    def items(self) -> Iterator[Tuple[object, KeyState]]:
        """(key, KeyState) pairs; with ``serialize`` the KeyStates are copies."""
        for key in list(self._data):
            yield key, self.get(key)

    def num_keys_with_state(self) -> int:
        """Keys that hold at least one state value (timers alone do not count)."""
        return sum(1 for _, ks in self.items() if ks.states)
