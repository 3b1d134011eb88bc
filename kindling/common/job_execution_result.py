"""``JobExecutionResult``: what a finished job reports."""
from typing import Any, Dict, Optional

from kindling.common.job_id import JobID

__all__ = ['JobExecutionResult']


class JobExecutionResult(object):
    """The result of a finished job: its id, net runtime in milliseconds and accumulator values.

    Example: ``result = env.execute(); result.get_net_runtime()``.
    """

    def __init__(self, job_id: JobID, net_runtime_ms: int = 0,
                 accumulators: Optional[Dict[str, Any]] = None) -> None:
        self._job_id = job_id
        self._net_runtime_ms = int(net_runtime_ms)
        self._accumulators = dict(accumulators or {})

    def get_job_id(self) -> JobID:
        return self._job_id

    def get_net_runtime(self) -> int:
        return self._net_runtime_ms

    def get_accumulator_result(self, accumulator_name: str) -> Any:
        return self._accumulators.get(accumulator_name)

    def get_all_accumulator_results(self) -> Dict[str, Any]:
        return dict(self._accumulators)

    def is_job_execution_result(self) -> bool:
        return True

    def get_job_execution_result(self) -> 'JobExecutionResult':
        return self

    def __repr__(self) -> str:
        return 'Program execution finished\nJob with JobID %s has finished.\nJob Runtime: %d ms\n' % (
            self._job_id, self._net_runtime_ms) + ''.join(
            'Accumulator %s: %r\n' % (k, v) for k, v in sorted(self._accumulators.items()))
