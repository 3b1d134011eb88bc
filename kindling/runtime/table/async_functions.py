"""Async scalar functions (``AsyncScalarFunction``, or a ``udf`` of an ``async def``) as PyFlink 2.3
runs them: the calls of a batch of rows run concurrently on the function's event loop thread, at
most ``max_concurrent_operations`` at a time, each given ``timeout_ms`` from its first attempt over
all its retries and retried after ``retry_delay_ms`` on any exception (``FIXED_DELAY``: at most
``max_attempts`` retries); the results keep the rows' order. The attempts, timeout and retries are
the DataStream API's (kindling/runtime/async_wait.py). Unlike PyFlink 2.3, whose calls can read a
later row's values (its input row object is reused while calls are in flight), each call gets its
own row's values.

Example::

    async_results(lookup, [["a"], ["b"]], AsyncOptions())   # [lookup("a"), lookup("b")], concurrently
"""
from __future__ import annotations

import queue
from dataclasses import dataclass
from typing import Any, Callable, List

from kindling.common.time import Time
from kindling.datastream.async_retry_strategies import NO_RETRY_STRATEGY, FixedDelayRetryStrategy
from kindling.datastream.functions import AsyncFunction, AsyncFunctionDescriptor
from kindling.runtime.async_wait import AsyncRunner
from kindling.runtime.task_info import TaskInfo

__all__ = ["AsyncOptions", "async_results"]


@dataclass(frozen=True)
class AsyncOptions:
    """Flink's ``table.exec.async-scalar.*`` options (its defaults)."""

    max_concurrent_operations: int = 10
    timeout_ms: int = 180_000
    retries: bool = True  # retry-strategy FIXED_DELAY (NO_RETRY: False)
    max_attempts: int = 3
    retry_delay_ms: int = 100


class _Calls(AsyncFunction):
    """The function's coroutine for one row's arguments, as the DataStream API's async function of them."""

    def __init__(self, call: Callable[..., Any]):
        self.call = call

    async def async_invoke(self, arguments: list) -> list:
        return [await self.call(*arguments)]


def async_results(function: Any, argument_rows: List[list], options: AsyncOptions) -> List[Any]:
    """The values of the async scalar function ``function`` (udf's wrapper) for each row's
    arguments, in the rows' order; the first exception (after retries) or timeout fails the batch."""
    runner = _runner(function, options)
    results: List[Any] = [None] * len(argument_rows)
    completions: "queue.SimpleQueue[tuple]" = queue.SimpleQueue()
    started = finished = 0
    while finished < len(argument_rows):
        while started < len(argument_rows) and started - finished < options.max_concurrent_operations:
            runner.submit(argument_rows[started], lambda out, error, i=started: completions.put((i, out, error)))
            started += 1
        i, out, error = completions.get()
        finished += 1
        if error is not None:
            raise error
        results[i] = out[0]
    return results


def _runner(function: Any, options: AsyncOptions) -> AsyncRunner:
    """The function's event loop thread for ``options``, started on its first batch in this worker
    (and again when a later batch's options differ)."""
    started = function.__dict__.get("_async_runner")  # (its options, the runner)
    if started is not None and started[0] == options:
        return started[1]
    if started is not None:
        started[1].close()
    strategy = (FixedDelayRetryStrategy(options.max_attempts, options.retry_delay_ms, None, lambda error: True)
                if options.retries else NO_RETRY_STRATEGY)
    descriptor = AsyncFunctionDescriptor(_Calls(function._callable()), Time.milliseconds(options.timeout_ms),
                                         options.max_concurrent_operations, strategy,
                                         AsyncFunctionDescriptor.OutputMode.ORDERED)
    runner = AsyncRunner(descriptor).start(TaskInfo(function._name))
    function._async_runner = (options, runner)
    return runner
