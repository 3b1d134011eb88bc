"""``CompletableFuture``: a future result handed out by ``JobClient``."""
import concurrent.futures
from typing import Any, Callable, Optional

__all__ = ['CompletableFuture']


class CompletableFuture(object):
    """A result that will be available later, wrapping a ``concurrent.futures.Future``;
    ``py_class`` optionally converts the raw result.

    Example: ``client.get_job_status().result()``.
    """

    def __init__(self, future: Optional[concurrent.futures.Future] = None,
                 py_class: Optional[Callable[[Any], Any]] = None) -> None:
        self._future = future if future is not None else concurrent.futures.Future()
        self._py_class = py_class

    @staticmethod
    def completed(value: Any) -> 'CompletableFuture':
        future = concurrent.futures.Future()
        future.set_result(value)
        return CompletableFuture(future)

    def cancel(self) -> bool:
        return self._future.cancel()

    def cancelled(self) -> bool:
        return self._future.cancelled()

    def done(self) -> bool:
        return self._future.done()

    def result(self, timeout: Optional[float] = None) -> Any:
        value = self._future.result(timeout)
        return value if self._py_class is None else self._py_class(value)

    def exception(self, timeout: Optional[float] = None) -> Optional[BaseException]:
        return self._future.exception(timeout)

    def complete(self, value: Any) -> bool:
        """Sets the result if the future is not done yet; returns whether it did."""
        if self._future.done():
            return False
        self._future.set_result(value)
        return True

    def complete_exceptionally(self, error: BaseException) -> bool:
        if self._future.done():
            return False
        self._future.set_exception(error)
        return True

    def __str__(self) -> str:
        return 'CompletableFuture(%s)' % ('done' if self.done() else 'pending')
