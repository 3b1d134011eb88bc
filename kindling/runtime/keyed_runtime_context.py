"""The RuntimeContext of keyed operators: task facts plus keyed state of the current key."""
from __future__ import annotations

from kindling.runtime.keyed_state import KeyedStateRegistry
from kindling.runtime.runtime_context import TaskRuntimeContext
from kindling.runtime.task_info import TaskInfo


class KeyedRuntimeContext(TaskRuntimeContext):
    """RuntimeContext handed to a keyed function's ``open``; the states it returns always show
    the key currently being processed (also when obtained in ``open``)."""

    def __init__(self, task_info: TaskInfo, registry: KeyedStateRegistry):
        super().__init__(task_info)
        self.state_registry = registry

    def get_state(self, state_descriptor):
        return self.state_registry.get(state_descriptor, 'value')

    def get_list_state(self, state_descriptor):
        return self.state_registry.get(state_descriptor, 'list')

    def get_map_state(self, state_descriptor):
        return self.state_registry.get(state_descriptor, 'map')

    def get_reducing_state(self, state_descriptor):
        return self.state_registry.get(state_descriptor, 'reducing')

    def get_aggregating_state(self, state_descriptor):
        return self.state_registry.get(state_descriptor, 'aggregating')
