"""Test harness for non-keyed ProcessFunctions, without Spark."""
from __future__ import annotations

import itertools
from typing import Any, Optional

from kindling.runtime import lifecycle
from kindling.runtime.chain import ChainNode, Record, build_chain
from kindling.runtime.errors import user_error_of
from kindling.runtime.task_info import MIN_WATERMARK, TaskInfo
from kindling.testing.harness import OutputRecords

_uids = itertools.count()


class ProcessFunctionTestHarness(OutputRecords):
    """Drives a ProcessFunction through the same chain code that runs in Spark's Python pass.

    Example::

        with ProcessFunctionTestHarness(SplitNegatives()) as h:
            h.process_element(-1, timestamp=5)
            h.process_element(2)
            assert h.extract_output_values() == [2]
            assert h.get_side_output_values(NEGATIVE) == [-1]
    """

    def __init__(self, function: Any, *, name: str = "Process", parallelism: int = 1, subtask_index: int = 0, job_parameters: Optional[dict] = None,
                 processing_time: int = 0, unwrap_errors: bool = True):
        self.function = function
        self.name = name
        self.unwrap_errors = unwrap_errors
        self._records: list[tuple] = []
        self._record = Record()
        self._record.processing_time = processing_time
        self._watermark = MIN_WATERMARK
        self._task_info = TaskInfo(name, subtask_index, parallelism, job_parameters=dict(job_parameters or {}))
        self._push = None
        self._job = f"harness-{next(_uids)}"  # each harness is a job of its own, closed by close()

    def open(self) -> "ProcessFunctionTestHarness":
        if self._push is None:
            record = self._record
            records = self._records

            def main(value):
                records.append((None, value, record.timestamp))

            def side(tag_id, value):
                records.append((tag_id, value, record.timestamp))

            node = ChainNode(uid=f"{self._job}/0", name=self.name, operation="process",
                             function=self.function, exits=[0], side_fallback=side)

            self._push = build_chain(node, {0: main}, record, self._task_info, {})
        return self

    def close(self) -> None:
        """Closes the function (``close()`` once, as at the end of a job); its error is raised."""
        if self._push is None:
            lifecycle.close_function(self.function)
            return
        self._push = None
        errors = lifecycle.close_job(self._job)
        if errors:
            raise errors[0]

    def __enter__(self) -> "ProcessFunctionTestHarness":
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    def process_element(self, value: Any, timestamp: Optional[int] = None) -> None:
        """Processes one element with the given timestamp under the current watermark."""
        self.open()
        self._record.timestamp = timestamp
        self._record.watermark = self._watermark
        try:
            self._push(value)
        except RuntimeError as exc:
            cause = exc.__cause__ or exc.__context__
            if self.unwrap_errors and user_error_of(exc) is not None and cause is not None:
                raise cause from None
            raise

    def process_watermark(self, watermark: int) -> None:
        """Later elements see this watermark in ``ctx.timer_service().current_watermark()``."""
        self._watermark = max(self._watermark, watermark)

    def set_processing_time(self, time: int) -> None:
        self._record.processing_time = time

    @property
    def current_watermark(self) -> int:
        return self._watermark
