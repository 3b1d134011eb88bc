"""What an operator instance knows about the task it runs in."""
from __future__ import annotations

from dataclasses import dataclass, field

from kindling.common.time import MAX_WATERMARK, MIN_WATERMARK  # noqa: F401 (re-exported)


@dataclass(frozen=True)
class TaskInfo:
    """Name, parallelism and job parameters of one parallel operator instance."""

    task_name: str
    index_of_subtask: int = 0
    number_of_parallel_subtasks: int = 1
    max_number_of_parallel_subtasks: int = 128
    attempt_number: int = 0
    job_parameters: dict = field(default_factory=dict)
