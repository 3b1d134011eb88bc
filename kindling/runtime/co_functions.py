"""Two-input functions run as one-input functions over the union of both inputs.

The Spark compiler merges the two inputs of a co-function into one stream of ``(side, value)``
pairs (side 0: the first input, 1: the second) and runs these adapters where a one-input
function runs: ``CoProcessFunction`` in the fused Python pass, ``KeyedCoProcessFunction`` in
the keyed operator, where both inputs of a key share its state and timers.
"""
from __future__ import annotations

import itertools
from typing import Any, Iterable

from kindling.datastream.functions import BaseBroadcastProcessFunction, KeyedProcessFunction, ProcessFunction
from kindling.datastream.state import BroadcastState
from kindling.runtime.keyed_operator import append_results


class Tagged:
    """Marks the elements of one input of a co-function: ``value -> (side, value)``."""

    def __init__(self, side: int):
        self.side = side

    def __call__(self, value: Any) -> tuple:
        return (self.side, value)


class _Broadcast:
    def __reduce__(self):
        return "BROADCAST"  # one marker per process, also after pickling

    def __repr__(self) -> str:
        return "BROADCAST"


#: the "key" of a broadcast element: the keyed exit sends it to every parallel instance
BROADCAST = _Broadcast()


class SideKeySelector:
    """The key of a tagged element, by its input's key selector; a side without one is a
    broadcast input (:data:`BROADCAST`)."""

    def __init__(self, first: Any, second: Any = None):
        self.selectors = tuple(_broadcast_key if s is None else getattr(s, "get_key", s) for s in (first, second))

    def __call__(self, tagged: tuple) -> Any:
        side, value = tagged
        return self.selectors[side](value)


def _broadcast_key(value: Any) -> Any:
    return BROADCAST


class Copies:
    """``broadcast()`` partitioning: an element once for each parallel instance of the next operator."""

    def __init__(self, parallelism: int):
        self.parallelism = parallelism

    def __call__(self, value: Any) -> list:
        return [value] * self.parallelism


class RoundRobinKey:
    """Spreads a non-keyed stream over the parallel instances of the next operator, in turn."""

    def __init__(self, parallelism: int):
        self.parallelism = parallelism
        self._next = itertools.count()

    def __call__(self, value: Any) -> int:
        return next(self._next) % self.parallelism


class _TwoInputs:
    """Dispatches a tagged element to ``process_element1`` or ``process_element2``."""

    def __init__(self, function: Any):
        self.function = function
        self._process = None

    def open(self, runtime_context) -> None:
        self.function.open(runtime_context)
        self._process = (self.function.process_element1, self.function.process_element2)

    def close(self) -> None:
        self.function.close()

    def process_element(self, tagged: tuple, ctx) -> Any:
        side, value = tagged
        return self._process[side](value, ctx)


class CoProcessAdapter(_TwoInputs, ProcessFunction):
    """A CoProcessFunction as a ProcessFunction over tagged elements."""


class KeyedCoProcessAdapter(_TwoInputs, KeyedProcessFunction):
    """A KeyedCoProcessFunction as a KeyedProcessFunction over tagged elements; timers fire
    the co-function's ``on_timer``."""

    def on_timer(self, timestamp: int, ctx) -> Any:
        return self.function.on_timer(timestamp, ctx)

    def take_late_records_dropped(self) -> int:
        """The late rows the co-function dropped since the last call, when it counts them."""
        take = getattr(self.function, "take_late_records_dropped", None)
        return take() if take is not None else 0


class _BroadcastStates(BroadcastState):
    """One broadcast state (a map) of a parallel instance; ``writable`` only while a broadcast
    element is processed."""

    def __init__(self, values: dict, writable: bool):
        self._values = values
        self._writable = writable

    def _check_writable(self) -> None:
        if not self._writable:
            raise RuntimeError("the broadcast state is read-only in process_element and on_timer: "
                               "change it in process_broadcast_element")

    def get(self, key):
        return self._values.get(key)

    def contains(self, key) -> bool:
        return key in self._values

    def items(self):
        return list(self._values.items())

    def keys(self):
        return list(self._values.keys())

    def values(self):
        return list(self._values.values())

    def is_empty(self) -> bool:
        return not self._values

    def clear(self) -> None:
        self._check_writable()
        self._values.clear()

    def put(self, key, value) -> None:
        self._check_writable()
        self._values[key] = value

    def put_all(self, dict_value: dict) -> None:
        self._check_writable()
        self._values.update(dict_value)

    def remove(self, key) -> None:
        self._check_writable()
        self._values.pop(key, None)


class _ReadOnlyContext(BaseBroadcastProcessFunction.ReadOnlyContext):
    """The keyed operator's context of an element or timer, with read-only broadcast state."""

    def __init__(self, adapter: "BroadcastProcessAdapter", ctx: Any):
        self._adapter = adapter
        self._ctx = ctx

    def __getattr__(self, name: str) -> Any:  # timer_service, get_current_key, output, time_domain, ...
        return getattr(self._ctx, name)

    def timestamp(self) -> int:
        return self._ctx.timestamp()

    def current_processing_time(self) -> int:
        return self._ctx.timer_service().current_processing_time()

    def current_watermark(self) -> int:
        return self._ctx.timer_service().current_watermark()

    def get_broadcast_state(self, state_descriptor) -> BroadcastState:
        return _BroadcastStates(self._adapter.state_of(state_descriptor), writable=False)


class _BroadcastContext(BaseBroadcastProcessFunction.Context):
    """The context of a broadcast element: its timestamp, writable broadcast state, side outputs."""

    def __init__(self, adapter: "BroadcastProcessAdapter", watermark: int, processing_time: int):
        self._adapter = adapter
        self._watermark = watermark
        self._processing_time = processing_time
        self._ts = None
        self._out: list = []

    def timestamp(self) -> int:
        return self._ts

    def current_processing_time(self) -> int:
        return self._processing_time

    def current_watermark(self) -> int:
        return self._watermark

    def get_broadcast_state(self, state_descriptor) -> BroadcastState:
        return _BroadcastStates(self._adapter.state_of(state_descriptor), writable=True)

    def output(self, output_tag, value) -> None:
        self._out.append((output_tag.tag_id, value, self._ts))


class BroadcastProcessAdapter(KeyedProcessFunction):
    """A (Keyed)BroadcastProcessFunction in a keyed operator. The elements of the main input
    (tagged side 0) run as a keyed process function whose context reads the broadcast state;
    the broadcast input reaches every parallel instance, where :meth:`process_broadcast`
    applies it to this instance's broadcast states (``states``: descriptor name -> dict)."""

    def __init__(self, function: Any, descriptors: Iterable[Any]):
        self.function = function
        self.names = [d.get_name() for d in descriptors]
        self.states: dict[str, dict] = {name: {} for name in self.names}
        self.version = 0  # broadcast elements applied so far: the same in every instance
        self.has_side_output = True

    def state_of(self, descriptor) -> dict:
        name = descriptor.get_name()
        if name not in self.states:
            raise ValueError(f"no broadcast state {name!r}: the broadcast stream declares {self.names}; "
                             f"pass its MapStateDescriptor to broadcast(...)")
        return self.states[name]

    def open(self, runtime_context) -> None:
        self.function.open(runtime_context)

    def close(self) -> None:
        self.function.close()

    def process_element(self, tagged: tuple, ctx) -> Any:
        return self.function.process_element(tagged[1], _ReadOnlyContext(self, ctx))

    def on_timer(self, timestamp: int, ctx) -> Any:
        on_timer = getattr(self.function, "on_timer", None)
        return on_timer(timestamp, _ReadOnlyContext(self, ctx)) if on_timer is not None else None

    def process_broadcast(self, elements: Iterable[tuple], watermark: int, processing_time: int) -> list:
        """Applies tagged broadcast elements ``((1, value), timestamp)`` in order; their outputs
        as ``(tag, value, timestamp)``."""
        ctx = _BroadcastContext(self, watermark, processing_time)
        for tagged, ts in elements:
            ctx._ts = ts
            res = self.function.process_broadcast_element(tagged[1], ctx)
            if res is not None:
                append_results(res, ts, ctx._out.append, True, "process_broadcast_element")
            self.version += 1
        return ctx._out
