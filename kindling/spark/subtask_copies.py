"""Each parallel instance's own copy of a keyed operator and its stage plan, in a worker."""
from __future__ import annotations

from typing import Any

import cloudpickle

from kindling.runtime.lifecycle import job_of


class SubtaskCopies:
    """A keyed operator and its stage plan, pickled once on the driver; in a worker, one
    unpickled copy per parallel instance (one Spark task may run the groups of several
    subtasks, and each instance opens its own functions)."""

    def __init__(self, operator: Any, plan: Any):
        self.blob = cloudpickle.dumps((operator, plan))

    def of(self, uid: str, subtask: int) -> tuple[Any, Any]:
        found = _copies.get((uid, subtask))
        if found is None:
            for other in [k for k in _copies if job_of(k[0]) != job_of(uid)]:
                del _copies[other]  # an ended job's: this worker moved on
            found = _copies[(uid, subtask)] = cloudpickle.loads(self.blob)
        return found


_copies: dict[tuple[str, int], tuple[Any, Any]] = {}  # (operator uid, subtask) -> its copies
