"""``JobClient``: the handle of a job started with ``execute_async``."""
from abc import ABC, abstractmethod
from typing import Optional

from kindling.common.completable_future import CompletableFuture
from kindling.common.job_id import JobID

__all__ = ['JobClient']


class JobClient(ABC):
    """Controls a running job: status, cancellation, savepoints and its final result.

    Example: ``client = env.execute_async(); path = client.stop_with_savepoint(False, "/sp").result()``;
    a job started with ``execution.savepoint.path`` set to ``path`` goes on from there.
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

    @abstractmethod
    def stop_with_savepoint(self, advance_to_end_of_event_time: bool,
                            savepoint_directory: Optional[str] = None) -> CompletableFuture:
        """Takes a savepoint after the last committed micro-batch and stops the job, which then
        finishes; the future completes with the savepoint's path."""

    @abstractmethod
    def trigger_savepoint(self, savepoint_directory: Optional[str] = None) -> CompletableFuture:
        """Takes a savepoint of the running job; the future completes with its path."""

    def get_accumulators(self) -> CompletableFuture:
        return CompletableFuture.completed({})

    @abstractmethod
    def get_job_execution_result(self) -> CompletableFuture:
        ...
