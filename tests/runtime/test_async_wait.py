"""The async wait operation (AsyncDataStream) in a chain, without Spark: ordering, capacity,
watermark segments, timeout, retries and failures. Completion orders are forced with asyncio
events, never with timing; timeouts of a few seconds only guard against hangs."""
from __future__ import annotations

import asyncio
import functools
import itertools

import pytest

from kindling.common import Time
from kindling.datastream import AsyncFunction, AsyncRetryStrategy, async_retry_predicates
from kindling.datastream.async_retry_strategies import NO_RETRY_STRATEGY
from kindling.datastream.functions import AsyncFunctionDescriptor
from kindling.runtime import lifecycle
from kindling.runtime.chain import ChainNode, Record, build_chain
from kindling.runtime.errors import UserFunctionError, user_error_of
from kindling.runtime.task_info import TaskInfo

from async_functions import Flaky, Gate  # same folder: pytest puts it on sys.path

ORDERED = AsyncFunctionDescriptor.OutputMode.ORDERED
UNORDERED = AsyncFunctionDescriptor.OutputMode.UNORDERED
GUARD_S = 20  # only against hangs

_jobs = itertools.count()


class Run:
    """One task's chain holding an async wait operation; ``out`` has (value, timestamp, stamp)."""

    def __init__(self, function, mode=UNORDERED, timeout=Time.seconds(GUARD_S), capacity=100,
                 strategy=NO_RETRY_STRATEGY):
        self.job = f"async-test-{next(_jobs)}"
        self.record = Record()
        self.out = []
        record = self.record

        self.contexts = []

        def sink(value):
            self.out.append((value, record.timestamp, record.watermark))
            self.contexts.append(record.save_context())

        descriptor = AsyncFunctionDescriptor(function, timeout, capacity, strategy, mode)
        node = ChainNode(uid=f"{self.job}/1", name="async wait operator", operation="async",
                         function=descriptor, exits=[0])
        self.push = build_chain(node, {0: sink}, record, TaskInfo("async wait operator"), {})

    def element(self, value, timestamp=None, watermark=None):
        self.record.timestamp, self.record.watermark = timestamp, watermark
        self.push(value)

    def finish(self):
        self.record.finish(True)
        return [v for v, _, _ in self.out]

    def close(self):
        return lifecycle.close_job(self.job)


def failure(exc_info) -> UserFunctionError:
    return user_error_of(exc_info.value)


class ReverseCompletion(AsyncFunction):
    """Element i completes only after element i + 1 did: completion order is the reverse of input."""

    def __init__(self, n):
        self.n = n

    def open(self, runtime_context):
        self.done = {}

    def _event(self, i):
        return self.done.setdefault(i, asyncio.Event())

    async def async_invoke(self, value):
        if value + 1 < self.n:
            await asyncio.wait_for(self._event(value + 1).wait(), GUARD_S)
        self._event(value).set()
        return [value * 10]


def test_ordered_wait_emits_in_input_order_whatever_the_completion_order():
    run = Run(ReverseCompletion(6), ORDERED)
    for i in range(6):
        run.element(i, timestamp=100 + i, watermark=0)
    assert run.finish() == [0, 10, 20, 30, 40, 50]
    assert [ts for _, ts, _ in run.out] == [100, 101, 102, 103, 104, 105]  # timestamps kept
    run.close()


def test_unordered_wait_emits_as_results_complete():
    run = Run(ReverseCompletion(6), UNORDERED)
    for i in range(6):
        run.element(i, timestamp=100 + i, watermark=0)
    assert run.finish() == [50, 40, 30, 20, 10, 0]
    assert [(v // 10 + 100, 0) for v, _, _ in run.out] == [(ts, wm) for _, ts, wm in run.out]
    run.close()


def test_unordered_wait_never_emits_an_element_past_an_earlier_watermark():
    # 0..2 arrive under stamp 0 and 3..5 under stamp 10; 3..5 complete first but wait for 0..2
    run = Run(ReverseCompletion(6), UNORDERED)
    for i in range(6):
        run.element(i, timestamp=i, watermark=0 if i < 3 else 10)
    assert run.finish() == [20, 10, 0, 50, 40, 30]
    assert [wm for _, _, wm in run.out] == [0, 0, 0, 10, 10, 10]
    run.close()


def test_capacity_elements_are_in_flight_at_once_and_never_more():
    gate = Gate(width=3)
    run = Run(gate, UNORDERED, capacity=3)
    for i in range(9):
        run.element(i)
    assert sorted(v for v, _ in run.finish()) == list(range(9))
    assert gate.most == 3
    run.close()


class Slow(AsyncFunction):
    async def async_invoke(self, value):
        if value == "slow":
            await asyncio.sleep(3600)
        return [value]


class TimeoutDefault(AsyncFunction):
    async def async_invoke(self, value):
        await asyncio.sleep(3600)
        return [value]

    def timeout(self, value):
        return [f"default for {value}"]


def test_timeout_gives_the_outputs_of_timeout():
    run = Run(TimeoutDefault(), ORDERED, timeout=Time.milliseconds(1))
    run.element("a")
    run.element("b")
    assert run.finish() == ["default for a", "default for b"]
    run.close()


def test_timeout_fails_the_job_by_default_as_pyflink():
    run = Run(Slow(), ORDERED, timeout=Time.milliseconds(1))
    run.element("fast")
    with pytest.raises(RuntimeError) as info:
        run.element("slow")
        run.finish()
    error = failure(info)
    assert isinstance(error.cause, TimeoutError)
    assert "Async function call has timed out for input: slow" in error.user_traceback
    run.close()


def test_retry_on_an_exception_until_it_succeeds():
    strategy = AsyncRetryStrategy.fixed_delay(
        max_attempts=2, backoff_time_millis=1, result_predicate=None,
        exception_predicate=functools.partial(async_retry_predicates.exception_type_predicate,
                                              expected_error_type=ConnectionError))
    run = Run(Flaky(), ORDERED, strategy=strategy)
    for v in "abc":
        run.element(v)
    assert run.finish() == [("a", 3), ("b", 3), ("c", 3)]
    run.close()


def test_retries_exhausted_fail_the_job_with_the_last_exception():
    # as in PyFlink, max_attempts counts retries: can_retry(1) holds for max_attempts=1, so a
    # second attempt runs, and its exception fails the job
    strategy = AsyncRetryStrategy.fixed_delay(1, 1, None, async_retry_predicates.has_exception_predicate)
    run = Run(Flaky(), ORDERED, strategy=strategy)
    with pytest.raises(RuntimeError) as info:
        run.element("a")
        run.finish()
    assert str(failure(info).cause) == "attempt 2 for a"
    run.close()


class EmptyThenAnswer(AsyncFunction):
    def open(self, runtime_context):
        self.calls = 0

    async def async_invoke(self, value):
        self.calls += 1
        return [] if self.calls < 4 else [value]


def test_retry_on_a_result_predicate_with_exponential_backoff():
    strategy = AsyncRetryStrategy.exponential_backoff(5, 1, 4, 2.0, async_retry_predicates.empty_result_predicate,
                                                      None)
    function = EmptyThenAnswer()
    run = Run(function, UNORDERED, strategy=strategy)
    run.element("x")
    assert run.finish() == ["x"]
    assert function.calls == 4
    run.close()


def test_an_exception_fails_the_job_with_the_original_exception():
    class Broken(AsyncFunction):
        async def async_invoke(self, value):
            raise KeyError(value)

    run = Run(Broken())
    with pytest.raises(RuntimeError) as info:
        run.element("k")
        run.finish()
    error = failure(info)
    assert isinstance(error.cause, KeyError)
    assert error.operator_name == "async wait operator"
    run.close()


@pytest.mark.parametrize("result, message", [(None, "cannot be none"), (5, "should be of list type")])
def test_a_result_that_is_not_a_list_fails_the_job(result, message):
    class Wrong(AsyncFunction):
        async def async_invoke(self, value):
            return result

    run = Run(Wrong())
    with pytest.raises(RuntimeError) as info:
        run.element(1)
        run.finish()
    assert message in failure(info).user_traceback
    run.close()


def test_open_and_close_once_and_the_loop_stops():
    calls = []

    class Tracked(AsyncFunction):
        def open(self, runtime_context):
            calls.append(("open", runtime_context.get_task_name()))

        def close(self):
            calls.append(("close",))

        async def async_invoke(self, value):
            return [value]

    run = Run(Tracked())
    run.element(1)
    assert run.finish() == [1]
    runner = lifecycle._jobs[run.job][(f"{run.job}/1", 0)].value
    assert run.close() == []
    assert calls == [("open", "async wait operator"), ("close",)]
    assert runner.loop.is_closed()


def test_retry_strategies_as_pyflink():
    fixed = AsyncRetryStrategy.fixed_delay(3, 100, None, None)
    assert [fixed.can_retry(n) for n in (1, 3, 4)] == [True, True, False]
    assert fixed.get_backoff_time_millis(2) == 100
    backoff = AsyncRetryStrategy.exponential_backoff(10, 100, 1000, 3.0, None, None)
    assert [backoff.get_backoff_time_millis(n) for n in (1, 2, 3, 4, 1)] == [100, 300, 900, 1000, 100]
    assert AsyncRetryStrategy.no_restart().can_retry(1) is False
    with pytest.raises(ValueError, match="max_attempts should be greater than zero"):
        AsyncRetryStrategy.fixed_delay(0, 100, None, None)



def test_outputs_carry_their_inputs_context_and_the_record_is_restored():
    # The stage binds the context to the element's input channel: an output emitted while a
    # later element is pushed, or at the end, is seen downstream with its own input's channel.
    run = Run(ReverseCompletion(3), UNORDERED)
    channel = {"now": None}
    run.record.save_context = lambda: channel["now"]
    run.record.restore_context = lambda saved: channel.__setitem__("now", saved)
    for i, ch in enumerate("abc"):
        channel["now"] = ch
        run.element(i, timestamp=i, watermark=0)
        assert channel["now"] == ch and run.record.timestamp == i  # put back after any emission
    assert run.finish() == [20, 10, 0]
    assert run.contexts == ["c", "b", "a"]
    run.close()
