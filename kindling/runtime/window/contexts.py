"""The contexts a window operator hands to user code: to triggers (time, timers, window-scoped
state, merging), to process window functions (window, times, window and global state) and
to assigners (processing time, keyed state)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kindling.datastream.functions import ProcessAllWindowFunction, ProcessWindowFunction
from kindling.datastream.state import (
    AggregatingStateDescriptor, ListStateDescriptor, MapStateDescriptor, ReducingStateDescriptor,
    StateDescriptor, ValueStateDescriptor,
)
from kindling.datastream.window import Trigger, WindowAssigner
from kindling.runtime.keyed_operator import OutputContext

if TYPE_CHECKING:
    from kindling.runtime.window.window_operator import WindowOperator


def state_kind(descriptor) -> str:
    """The kind of state (``value``, ``list``, ...) a descriptor declares."""
    if isinstance(descriptor, ValueStateDescriptor):
        return 'value'
    if isinstance(descriptor, ListStateDescriptor):
        return 'list'
    if isinstance(descriptor, MapStateDescriptor):
        return 'map'
    if isinstance(descriptor, ReducingStateDescriptor):
        return 'reducing'
    if isinstance(descriptor, AggregatingStateDescriptor):
        return 'aggregating'
    raise TypeError("expected a StateDescriptor (ValueStateDescriptor, ListStateDescriptor, "
                    "MapStateDescriptor, ReducingStateDescriptor or AggregatingStateDescriptor), "
                    "got %r" % (descriptor,))


class Scope:
    """Stands for a KeyState for KeyedStateRegistry.bind: the states of one window."""
    __slots__ = ('states',)

    def __init__(self):
        self.states = None


class TriggerContext(Trigger.OnMergeContext):
    """The context of a trigger's calls for ``window`` (and ``merged_windows`` in on_merge)."""

    __slots__ = ('_op', 'window', 'merged_windows')

    def __init__(self, op: 'WindowOperator'):
        self._op = op
        self.window = None
        self.merged_windows = None

    def get_current_processing_time(self) -> int:
        return self._op._pt

    def get_current_watermark(self) -> int:
        return self._op._wm

    def register_processing_time_timer(self, time: int) -> None:
        self._op._register_timer(False, self.window, time)

    def register_event_time_timer(self, time: int) -> None:
        self._op._register_timer(True, self.window, time)

    def delete_processing_time_timer(self, time: int) -> None:
        self._op._delete_timer(False, self.window, time)

    def delete_event_time_timer(self, time: int) -> None:
        self._op._delete_timer(True, self.window, time)

    def get_partitioned_state(self, state_descriptor: StateDescriptor):
        op = self._op
        op._bind_window(self.window)
        return op._wreg.get(state_descriptor, state_kind(state_descriptor))

    def merge_partitioned_state(self, state_descriptor: StateDescriptor) -> None:
        if self.merged_windows:
            self._op._merge_window_state(state_descriptor, self.window, self.merged_windows)


class _WindowStateStore:
    """``ProcessWindowFunction.Context.window_state()``: states of the key and the window."""

    def __init__(self, op: 'WindowOperator'):
        self._op = op
        self.window = None

    def _get(self, descriptor, kind):
        op = self._op
        if op._merging:
            raise TypeError("Per-window state is not allowed when using merging windows.")
        op._bind_window(self.window)
        return op._wreg.get(descriptor, kind)

    def get_state(self, state_descriptor):
        return self._get(state_descriptor, 'value')

    def get_list_state(self, state_descriptor):
        return self._get(state_descriptor, 'list')

    def get_map_state(self, state_descriptor):
        return self._get(state_descriptor, 'map')

    def get_reducing_state(self, state_descriptor):
        return self._get(state_descriptor, 'reducing')

    def get_aggregating_state(self, state_descriptor):
        return self._get(state_descriptor, 'aggregating')


class ProcessContext(OutputContext, ProcessWindowFunction.Context, ProcessAllWindowFunction.Context):
    """The context of ``ProcessWindowFunction.process``/``clear`` for one window."""

    def __init__(self, op: 'WindowOperator'):
        self._op = op
        self._window = None
        self._ts = None
        self._store = _WindowStateStore(op)

    def window(self):
        return self._window

    def current_processing_time(self) -> int:
        return self._op._pt

    def current_watermark(self) -> int:
        return self._op._wm

    def window_state(self):
        self._store.window = self._window
        return self._store

    def global_state(self):
        return self._op._runtime_context


class AssignerContext(WindowAssigner.WindowAssignerContext):
    """What an assigner may read: processing time and the key's state (count windows)."""

    def __init__(self, op: 'WindowOperator'):
        self._op = op

    def get_current_processing_time(self) -> int:
        return self._op._pt

    def get_runtime_context(self):
        return self._op._runtime_context
