"""Retry strategies for async I/O, as in ``pyflink.datastream.async_retry_strategies``.

As in PyFlink, ``max_attempts`` counts retries after the first attempt: ``can_retry(n)`` is
asked after attempt ``n`` (from 1) and holds while ``n <= max_attempts``. Retries stop at the
operator's timeout, which then calls ``AsyncFunction.timeout``.
"""
from __future__ import annotations

from typing import Callable, Generic, List, Optional, TypeVar

from kindling.datastream.functions import AsyncRetryPredicate, AsyncRetryStrategy

__all__ = ["RetryPredicate", "NoRetryStrategy", "FixedDelayRetryStrategy", "ExponentialBackoffDelayRetryStrategy"]

OUT = TypeVar("OUT")


class RetryPredicate(AsyncRetryPredicate, Generic[OUT]):
    """The two optional predicates of a strategy."""

    def __init__(self, result_predicate: Optional[Callable[[List[OUT]], bool]],
                 exception_predicate: Optional[Callable[[Exception], bool]]):
        self._result_predicate = result_predicate
        self._exception_predicate = exception_predicate

    def result_predicate(self) -> Optional[Callable[[List[OUT]], bool]]:
        return self._result_predicate

    def exception_predicate(self) -> Optional[Callable[[Exception], bool]]:
        return self._exception_predicate


class NoRetryStrategy(AsyncRetryStrategy, Generic[OUT]):
    """Never retries."""

    def can_retry(self, current_attempts: int) -> bool:
        return False

    def get_backoff_time_millis(self, current_attempts: int) -> int:
        return -1

    def get_retry_predicate(self) -> AsyncRetryPredicate[OUT]:
        return RetryPredicate(None, None)


class _PredicateStrategy(AsyncRetryStrategy, Generic[OUT]):
    """A strategy with at most ``max_attempts`` retries decided by two optional predicates."""

    def __init__(self, max_attempts: int, result_predicate: Optional[Callable[[List[OUT]], bool]],
                 exception_predicate: Optional[Callable[[Exception], bool]]):
        _check_positive("max_attempts", max_attempts)
        self._max_attempts = max_attempts
        self._result_predicate = result_predicate
        self._exception_predicate = exception_predicate

    def can_retry(self, current_attempts: int) -> bool:
        return current_attempts <= self._max_attempts

    def get_retry_predicate(self) -> AsyncRetryPredicate[OUT]:
        return RetryPredicate(self._result_predicate, self._exception_predicate)


class FixedDelayRetryStrategy(_PredicateStrategy[OUT]):
    """Retries after the same delay each time."""

    def __init__(self, max_attempts: int, backoff_time_millis: int,
                 result_predicate: Optional[Callable[[List[OUT]], bool]],
                 exception_predicate: Optional[Callable[[Exception], bool]]):
        super().__init__(max_attempts, result_predicate, exception_predicate)
        _check_positive("backoff_time_millis", backoff_time_millis)
        self._backoff_time_millis = backoff_time_millis

    def get_backoff_time_millis(self, current_attempts: int) -> int:
        return self._backoff_time_millis


class ExponentialBackoffDelayRetryStrategy(_PredicateStrategy[OUT]):
    """Retries after a delay that starts at ``initial_delay`` and grows by ``multiplier`` up to
    ``max_retry_delay``. As in PyFlink the last delay is kept on the strategy, which all
    elements of an operator instance share."""

    def __init__(self, max_attempts: int, initial_delay: int, max_retry_delay: int, multiplier: float,
                 result_predicate: Optional[Callable[[List[OUT]], bool]],
                 exception_predicate: Optional[Callable[[Exception], bool]]):
        super().__init__(max_attempts, result_predicate, exception_predicate)
        _check_positive("initial_delay", initial_delay)
        _check_positive("max_retry_delay", max_retry_delay)
        _check_positive("multiplier", multiplier)
        self._initial_delay = initial_delay
        self._max_retry_delay = max_retry_delay
        self._multiplier = multiplier
        self._last_retry_delay = initial_delay

    def get_backoff_time_millis(self, current_attempts: int) -> int:
        if current_attempts <= 1:
            self._last_retry_delay = self._initial_delay
        else:
            self._last_retry_delay = int(min(self._last_retry_delay * self._multiplier, self._max_retry_delay))
        return self._last_retry_delay


def _check_positive(name: str, value: float) -> None:
    if not value > 0:
        raise ValueError(f"{name} should be greater than zero, got {value!r}")


NO_RETRY_STRATEGY: AsyncRetryStrategy = NoRetryStrategy()
