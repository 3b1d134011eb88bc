"""Test harness for keyed functions and operators, without Spark.

It drives the very operator code that runs inside Spark (``kindling.runtime``), with an
in-memory state backend, a manual watermark and a manual processing-time clock, like Flink's
``KeyedOneInputStreamOperatorTestHarness``::

    from kindling.testing import KeyedProcessFunctionTestHarness

    class CountWithTimeout(KeyedProcessFunction):
        def open(self, ctx):
            self.count = ctx.get_state(ValueStateDescriptor("count", Types.LONG()))
        def process_element(self, value, ctx):
            self.count.update((self.count.value() or 0) + 1)
            ctx.timer_service().register_event_time_timer(ctx.timestamp() + 10)
        def on_timer(self, timestamp, ctx):
            yield ctx.get_current_key(), self.count.value()

    with KeyedProcessFunctionTestHarness(CountWithTimeout(), lambda v: v[0]) as h:
        h.process_element(("a", 1), timestamp=100)
        h.process_element(("a", 2), timestamp=105)
        assert h.num_event_time_timers() == 2
        h.process_watermark(110)
        assert h.extract_output_values() == [("a", 2)]
        assert h.state("a", "count") == 2

By default every key's state is pickled and unpickled around each call
(``serialize_state=True``), as Spark does between micro-batches, so state that would fail on
Spark fails here too; pass ``serialize_state=False`` for speed.

Exceptions raised by the function come out as themselves (with a note naming the operator);
``unwrap_errors=False`` leaves them wrapped as the Spark driver receives them.
"""
from __future__ import annotations

import heapq
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Union

from kindling.datastream.output_tag import OutputTag
from kindling.datastream.state import StateDescriptor
from kindling.runtime.errors import user_error_of
from kindling.runtime.keyed_operator import KeyedOperator, KeyedProcessOperator
from kindling.runtime.memory_backend import MemoryKeyedStateBackend
from kindling.runtime.task_info import MAX_WATERMARK, MIN_WATERMARK, TaskInfo

__all__ = ['StreamRecord', 'KeyedOperatorTestHarness', 'KeyedProcessFunctionTestHarness',
           'KeyedOneInputStreamOperatorTestHarness']


class StreamRecord(NamedTuple):
    """An output element and its timestamp (None when it has none)."""

    value: Any
    timestamp: Optional[int] = None


class OutputRecords:
    """Output inspection shared by the harnesses, over ``self._records`` of
    ``(tag_id, value, timestamp)`` (tag_id None: the main output)."""

    _records: list

    def get_output(self) -> List[StreamRecord]:
        """The main output so far, as StreamRecords in emission order."""
        return [StreamRecord(v, ts) for tag, v, ts in self._records if tag is None]

    def extract_output_values(self) -> List[Any]:
        """The values of the main output so far."""
        return [v for tag, v, ts in self._records if tag is None]

    def extract_output_timestamps(self) -> List[Optional[int]]:
        return [ts for tag, v, ts in self._records if tag is None]

    def get_side_output(self, tag: Union[OutputTag, str]) -> List[StreamRecord]:
        """The records emitted to a side output (an OutputTag or its id)."""
        tag_id = tag.tag_id if isinstance(tag, OutputTag) else tag
        return [StreamRecord(v, ts) for t, v, ts in self._records if t == tag_id]

    def get_side_output_values(self, tag: Union[OutputTag, str]) -> List[Any]:
        return [r.value for r in self.get_side_output(tag)]

    def clear_output(self) -> None:
        self._records.clear()


class KeyedOperatorTestHarness(OutputRecords):
    """Drives a keyed operator, or a KeyedProcessFunction (wrapped in a KeyedProcessOperator).

    :param operator_or_function: a :class:`KeyedOperator` or a KeyedProcessFunction.
    :param key_selector: a function of the element, or a KeySelector.
    :param key_type: accepted for symmetry with Flink; unused.
    :param name: the operator's name (for functions).
    :param parallelism, subtask_index, max_parallelism, job_parameters: what the
        RuntimeContext reports.
    :param serialize_state: pickle every key's state between calls, as on Spark.
    :param processing_time: the initial processing time.
    :param unwrap_errors: re-raise the user's exception rather than the wrapped one.
    """

    def __init__(self, operator_or_function, key_selector, key_type=None, *,
                 name: str = "KeyedProcess", parallelism: int = 1, subtask_index: int = 0,
                 max_parallelism: int = 128, job_parameters: Optional[Dict[str, str]] = None,
                 serialize_state: bool = True, processing_time: int = 0,
                 unwrap_errors: bool = True):
        if isinstance(operator_or_function, KeyedOperator):
            self.operator = operator_or_function
        else:
            self.operator = KeyedProcessOperator(operator_or_function, name)
        if not callable(key_selector) and not callable(getattr(key_selector, 'get_key', None)):
            raise TypeError("key_selector must be a function or a KeySelector")
        self._get_key = getattr(key_selector, 'get_key', key_selector)
        self.task_info = TaskInfo(getattr(self.operator, 'name', name), subtask_index, parallelism,
                                  max_parallelism, 0, dict(job_parameters or {}))
        self.backend = MemoryKeyedStateBackend(serialize=serialize_state)
        self.unwrap_errors = unwrap_errors
        self.current_watermark = MIN_WATERMARK
        self.current_processing_time = processing_time
        self._records: List[tuple] = []       # (tag_id, value, timestamp) in emission order
        self._watermarks: List[int] = []
        self._opened = False
        self._closed = False
        self._key_seq: Dict[Any, int] = {}

    # -- lifecycle ----------------------------------------------------------------------------

    def open(self) -> 'KeyedOperatorTestHarness':
        """Opens the operator (calls the function's ``open``). Called implicitly if needed."""
        if not self._opened:
            self._opened = True
            self._guard(self.operator.open, self.task_info)
        return self

    def close(self) -> None:
        """Closes the operator (calls the function's ``close``)."""
        if self._opened and not self._closed:
            self._closed = True
            self._guard(self.operator.close)

    def __enter__(self) -> 'KeyedOperatorTestHarness':
        return self.open()

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close()

    # -- input --------------------------------------------------------------------------------

    def process_element(self, value, timestamp: Optional[int] = None) -> None:
        """Processes one element (``value`` may also be a :class:`StreamRecord`)."""
        if not self._opened:
            self.open()
        if type(value) is StreamRecord:
            value, timestamp = value
        key = self._get_key(value)
        backend = self.backend
        ks = backend.get(key)
        wm = self.current_watermark
        if ks.fired_watermark < wm:
            # every key has seen the harness's watermarks already
            ks.fired_watermark = wm
        records = self._records
        try:
            records.extend(self.operator.process(key, ks, ((value, timestamp, None),), wm, wm,
                                                 self.current_processing_time))
        except RuntimeError as e:
            self._raise(e)
        backend.put(key, ks)
        if key not in self._key_seq:
            self._key_seq[key] = len(self._key_seq)

    def process_elements(self, values: Iterable, timestamp: Optional[int] = None) -> None:
        """Processes each element of ``values`` (values or StreamRecords)."""
        for v in values:
            self.process_element(v, timestamp)

    def process_watermark(self, watermark: int) -> None:
        """Advances the watermark and fires the due event-time timers of every key, in
        timestamp order (timers registered while firing fire too when due)."""
        if not self._opened:
            self.open()
        wm = max(self.current_watermark, watermark)
        self.current_watermark = wm
        self._fire_all(event=True, up_to=wm)
        self._watermarks.append(wm)

    def set_processing_time(self, time: int) -> None:
        """Sets the processing time and fires the due processing-time timers of every key, in
        timestamp order."""
        if not self._opened:
            self.open()
        self.current_processing_time = max(self.current_processing_time, time)
        self._fire_all(event=False, up_to=self.current_processing_time)

    def end_input(self) -> None:
        """Ends the (bounded) input: the watermark becomes MAX_WATERMARK and every event-time
        timer fires, then the operator's end-of-input runs for every key."""
        self.process_watermark(MAX_WATERMARK)
        op = self.operator
        for key in self.backend.keys():
            ks = self.backend.get(key)
            try:
                self._records.extend(op.end_of_input(key, ks, self.current_processing_time))
            except RuntimeError as e:
                self._raise(e)
            self.backend.put(key, ks)

    def _fire_all(self, event: bool, up_to: int) -> None:
        backend = self.backend
        op = self.operator
        seq = self._key_seq
        heap = []
        for key, ks in backend.items():
            t = ks.next_event_timer() if event else ks.next_processing_timer()
            if t is not None and t <= up_to:
                heap.append((t, seq.get(key, 0), key))
        heapq.heapify(heap)
        while heap:
            t, n, key = heapq.heappop(heap)
            ks = backend.get(key)
            try:
                if event:
                    outs = op.fire_timers(key, ks, self.current_watermark, self.current_processing_time, t, None)
                else:
                    outs = op.fire_timers(key, ks, self.current_watermark, self.current_processing_time, None, t)
                self._records.extend(outs)
            except RuntimeError as e:
                self._raise(e)
            backend.put(key, ks)
            nxt = ks.next_event_timer() if event else ks.next_processing_timer()
            if nxt is not None and nxt <= up_to:
                heapq.heappush(heap, (nxt, n, key))

    # -- errors -------------------------------------------------------------------------------

    def _guard(self, fn, *args):
        try:
            return fn(*args)
        except RuntimeError as e:
            self._raise(e)

    def _raise(self, e: RuntimeError):
        cause = e.__cause__
        if self.unwrap_errors and cause is not None and user_error_of(e) is not None:
            note = "(in Kindling operator '%s')" % getattr(self.operator, 'name', '?')
            if note not in getattr(cause, '__notes__', ()):
                cause.add_note(note)
            cause.__suppress_context__ = True
            raise cause
        raise e

    # -- output -------------------------------------------------------------------------------

    def get_raw_output(self) -> List[tuple]:
        """Every output as ``(tag_id, value, timestamp)`` (tag_id None: main output)."""
        return list(self._records)

    def get_emitted_watermarks(self) -> List[int]:
        """The watermarks processed so far (a keyed operator forwards them)."""
        return list(self._watermarks)

    def clear_output(self) -> None:
        self._records.clear()
        self._watermarks.clear()

    # -- state and timers ---------------------------------------------------------------------

    def keys(self) -> List[Any]:
        """Keys that hold state or timers."""
        return self.backend.keys()

    def state(self, key, descriptor_or_name: Union[StateDescriptor, str]):
        """What reading the state would return for ``key`` now (ValueState/ReducingState:
        the value or None; ListState: a list; MapState: a dict; AggregatingState: the
        result), without side effects. TTL is judged at the current processing time."""
        name = descriptor_or_name.name if isinstance(descriptor_or_name, StateDescriptor) \
            else descriptor_or_name
        registry = getattr(self.operator, 'state_registry', None)
        if registry is None:
            raise RuntimeError("the operator is not open or has no keyed state")
        registry.now = self.current_processing_time
        return registry.peek(self.backend.get(key), name)

    def num_keys_with_state(self) -> int:
        """Keys holding at least one state value (timers alone do not count)."""
        return self.backend.num_keys_with_state()

    def num_event_time_timers(self, key=None) -> int:
        if key is not None:
            return self.backend.get(key).num_event_timers()
        return sum(ks.num_event_timers() for _, ks in self.backend.items())

    def num_processing_time_timers(self, key=None) -> int:
        if key is not None:
            return self.backend.get(key).num_processing_timers()
        return sum(ks.num_processing_timers() for _, ks in self.backend.items())

    def event_time_timers(self, key) -> List[int]:
        """The pending event-time timers of ``key``, sorted."""
        return self.backend.get(key).event_timers()

    def processing_time_timers(self, key) -> List[int]:
        return self.backend.get(key).processing_timers()


KeyedProcessFunctionTestHarness = KeyedOperatorTestHarness
"""A harness for a KeyedProcessFunction: ``KeyedProcessFunctionTestHarness(fn, key_selector)``."""

KeyedOneInputStreamOperatorTestHarness = KeyedOperatorTestHarness
"""The name of Flink's equivalent: ``KeyedOneInputStreamOperatorTestHarness(op, key_selector)``."""
