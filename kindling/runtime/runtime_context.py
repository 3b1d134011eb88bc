"""The RuntimeContext handed to user functions' ``open``."""
from __future__ import annotations

from kindling.datastream.functions import RuntimeContext
from kindling.runtime.task_info import TaskInfo


class TaskRuntimeContext(RuntimeContext):
    """RuntimeContext of a non-keyed operator: task facts and job parameters, no keyed state."""

    def __init__(self, task_info: TaskInfo):
        self.task_info = task_info

    def get_task_name(self) -> str:
        return self.task_info.task_name

    def get_number_of_parallel_subtasks(self) -> int:
        return self.task_info.number_of_parallel_subtasks

    def get_max_number_of_parallel_subtasks(self) -> int:
        return self.task_info.max_number_of_parallel_subtasks

    def get_index_of_this_subtask(self) -> int:
        return self.task_info.index_of_subtask

    def get_attempt_number(self) -> int:
        return self.task_info.attempt_number

    def get_task_name_with_subtasks(self) -> str:
        info = self.task_info
        return f"{info.task_name} ({info.index_of_subtask + 1}/{info.number_of_parallel_subtasks})"

    def get_job_parameter(self, key: str, default_value: str = None):
        return self.task_info.job_parameters.get(key, default_value)
