"""``JobClient``: the handle of a job started with ``execute_async``."""
from abc import ABC, abstractmethod
from typing import Optional

from kindling.common.completable_future import CompletableFuture
from kindling.common.job_id import JobID
from kindling.common.unsupported import FAULT_TOLERANCE, unsupported

__all__ = ['JobClient']


class JobClient(ABC):
    """Controls a running job: status, cancellation and its final result (savepoints are not
    supported yet).

    Example: ``client = env.execute_async(); client.get_job_execution_result().result()``.
    """

    @abstractmethod
    def get_job_id(self) -> JobID:
        ...

    @abstractmethod
    def get_job_status(self) -> CompletableFuture:
        ...

    @abstractmethod
    def cancel(self) -> CompletableFuture:
        ...

    @unsupported(FAULT_TOLERANCE)
    def stop_with_savepoint(self, advance_to_end_of_event_time: bool,
                            savepoint_directory: Optional[str] = None) -> CompletableFuture:
        ...

    @unsupported(FAULT_TOLERANCE)
    def trigger_savepoint(self, savepoint_directory: Optional[str] = None) -> CompletableFuture:
        ...

    def get_accumulators(self) -> CompletableFuture:
        return CompletableFuture.completed({})

    @abstractmethod
    def get_job_execution_result(self) -> CompletableFuture:
        ...
