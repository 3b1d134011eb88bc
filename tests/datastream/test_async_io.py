"""AsyncDataStream end to end on Spark, parallelism 2: many calls in flight per task, order,
timestamps and watermarks kept, timeout, retries and failures; and PyFlink's output for the
same program (async_io_program.py).

Concurrency is shown by counting calls in flight, never by timing: ``Gate`` makes each call
wait until ``capacity`` calls of its parallel instance are in flight together.
"""
from __future__ import annotations

import asyncio
import functools
import os
import sys

import pytest

from kindling.common import Duration, Time, Types, WatermarkStrategy
from kindling.common.watermark_strategy import TimestampAssigner
from kindling.datastream import (AsyncDataStream, AsyncFunction, AsyncRetryStrategy, KeyedProcessFunction,
                                 ProcessFunction, ProcessWindowFunction, RuntimeExecutionMode, async_retry_predicates)
from kindling.datastream.connectors.number_seq import NumberSequenceSource
from kindling.datastream.window import TumblingEventTimeWindows
from kindling.runtime.errors import UserFunctionError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(HERE), "runtime")]
import async_io_program  # noqa: E402
from async_functions import Flaky, Gate  # noqa: E402


def numbers(env, end=39, parallelism=2):
    env.set_parallelism(parallelism)
    return env.from_source(NumberSequenceSource(0, end), WatermarkStrategy.no_watermarks(), "numbers")


def test_capacity_calls_are_in_flight_at_once_in_each_task_and_never_more(env):
    gate = Gate(4, patience_s=10, go_on=True)  # a task's last group may not fill: it goes on
    out = AsyncDataStream.unordered_wait(numbers(env), gate, Time.seconds(60), capacity=4,
                                         output_type=Types.TUPLE([Types.LONG(), Types.INT()]))
    out = list(out.execute_and_collect())
    assert sorted(v for v, _ in out) == list(range(40))
    assert max(most for _, most in out) == 4


class LaterFirst(AsyncFunction):
    """Later elements of a split answer sooner: completion order differs from input order."""

    async def async_invoke(self, value):
        await asyncio.sleep((20 - value % 20) * 0.005)
        return [value]


@pytest.mark.parametrize("mode", ["STREAMING", "BATCH", "micro-batches"])
def test_ordered_wait_keeps_each_splits_order(env, mode):
    if mode == "micro-batches":  # a bounded job through Spark's streaming query, not in one step
        env.get_configuration().set_boolean("kindling.bounded.one-step", False)
    else:
        env.set_runtime_mode(RuntimeExecutionMode[mode])
    out = list(AsyncDataStream.ordered_wait(numbers(env), LaterFirst(), Time.seconds(60), capacity=10,
                                            output_type=Types.LONG()).execute_and_collect())
    assert [v for v in out if v < 20] == list(range(20))
    assert [v for v in out if v >= 20] == list(range(20, 40))


class Stamp(ProcessFunction):
    def process_element(self, value, ctx):
        yield value, ctx.timestamp()


class Count(ProcessWindowFunction):
    def process(self, key, context, elements):
        yield key, context.window().start, len(list(elements))


class BySplitSpeed(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return (value % 20) * (10 if value < 20 else 250)  # the second split's event time runs 25x faster


def timed_numbers(env):
    env.get_configuration().set_boolean("kindling.watermark.per-element", True)
    strategy = (WatermarkStrategy.for_monotonous_timestamps().with_idleness(Duration.of_seconds(1))
                .with_timestamp_assigner(BySplitSpeed()))
    return numbers(env).assign_timestamps_and_watermarks(strategy)


@pytest.mark.parametrize("wait", [AsyncDataStream.ordered_wait, AsyncDataStream.unordered_wait])
def test_timestamps_are_kept_and_no_element_passes_a_watermark(env, wait):
    # Unordered results complete out of order; an element emitted after a later watermark stamp
    # would be late for the event-time windows behind: all 40 must be counted.
    outputs = wait(timed_numbers(env), LaterFirst(), Time.seconds(60), capacity=10, output_type=Types.LONG())
    stamped = sorted(outputs.process(Stamp(), Types.TUPLE([Types.LONG(), Types.LONG()])).execute_and_collect())
    assert stamped == [(v, BySplitSpeed().extract_timestamp(v, None)) for v in range(40)]

    outputs = wait(timed_numbers(env), LaterFirst(), Time.seconds(60), capacity=10, output_type=Types.LONG())
    counts = sorted(outputs.key_by(lambda v: v % 2, key_type=Types.LONG())
                    .window(TumblingEventTimeWindows.of(Time.seconds(1))).process(Count()).execute_and_collect())
    assert sum(c for _, _, c in counts) == 40
    assert counts == [(k, start, 12 if start == 0 else 2) for k in (0, 1) for start in range(0, 5000, 1000)]


def test_after_a_union_each_input_keeps_its_channel(env):
    # The union's two inputs are channels of their own: an output emitted after a later element
    # of the other input must still count for its own channel, or the fast input's watermark
    # would make the slow input's elements late.
    env.get_configuration().set_boolean("kindling.watermark.per-element", True)
    env.get_configuration().set_boolean("kindling.bounded.one-step", False)  # watermarks advance while read
    env.set_parallelism(1)
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(BySplitSpeed())
    slow = env.from_source(NumberSequenceSource(0, 19), WatermarkStrategy.no_watermarks(), "slow")
    fast = env.from_source(NumberSequenceSource(20, 39), WatermarkStrategy.no_watermarks(), "fast")
    merged = slow.assign_timestamps_and_watermarks(strategy).union(fast.assign_timestamps_and_watermarks(strategy))
    outputs = AsyncDataStream.unordered_wait(merged, LaterFirst(), Time.seconds(60), capacity=40,
                                             output_type=Types.LONG())
    counts = sorted(outputs.key_by(lambda v: v % 2, key_type=Types.LONG())
                    .window(TumblingEventTimeWindows.of(Time.seconds(1))).process(Count()).execute_and_collect())
    assert counts == [(k, start, 12 if start == 0 else 2) for k in (0, 1) for start in range(0, 5000, 1000)]


class PassOn(KeyedProcessFunction):
    def process_element(self, value, ctx):
        yield value


def test_after_a_keyed_operator(env):
    keyed = numbers(env, 19).key_by(lambda v: v % 3, key_type=Types.LONG()).process(PassOn(), Types.LONG())
    out = AsyncDataStream.ordered_wait(keyed, LaterFirst(), Time.seconds(60), output_type=Types.LONG())
    assert sorted(out.execute_and_collect()) == list(range(20))


class NeverAnswers(AsyncFunction):
    async def async_invoke(self, value):
        if value % 10 == 3:
            await asyncio.sleep(3600)
        return [str(value)]


class NeverAnswersWithDefault(NeverAnswers):
    def timeout(self, value):
        return [f"{value} timed out"]


def test_timeout_gives_timeouts_outputs(env):
    out = AsyncDataStream.ordered_wait(numbers(env, 19), NeverAnswersWithDefault(), Time.milliseconds(300),
                                       output_type=Types.STRING()).execute_and_collect()
    assert sorted(out, key=lambda s: int(s.split()[0])) == [
        f"{v} timed out" if v % 10 == 3 else str(v) for v in range(20)]


def test_timeout_fails_the_job_by_default(env):
    stream = AsyncDataStream.unordered_wait(numbers(env, 19), NeverAnswers(), Time.milliseconds(300),
                                            output_type=Types.STRING())
    # 3 and 13 never answer; which times out first depends on the two splits' timing
    with pytest.raises(UserFunctionError, match=r"Async function call has timed out for input: 1?3\b") as info:
        list(stream.execute_and_collect())
    assert info.value.operator_name == "async wait operator"


def test_retries_until_an_attempt_succeeds(env):
    strategy = AsyncRetryStrategy.fixed_delay(
        2, 10, None, functools.partial(async_retry_predicates.exception_type_predicate,
                                       expected_error_type=ConnectionError))
    out = AsyncDataStream.unordered_wait_with_retry(numbers(env, 19), Flaky(), Time.seconds(60), strategy,
                                                    output_type=Types.TUPLE([Types.LONG(), Types.INT()]))
    assert sorted(out.execute_and_collect()) == [(v, 3) for v in range(20)]


def test_an_exception_fails_the_job_with_it(env):
    out = AsyncDataStream.ordered_wait(numbers(env, 19), Flaky(), Time.seconds(60),
                                       output_type=Types.TUPLE([Types.LONG(), Types.INT()]))
    with pytest.raises(UserFunctionError, match="ConnectionError: attempt 1 for") as info:
        list(out.execute_and_collect())
    assert isinstance(info.value.cause, ConnectionError)


def test_async_invoke_must_be_a_coroutine_function(env):
    class NotAsync(AsyncFunction):
        def async_invoke(self, value):
            return [value]

    with pytest.raises(TypeError, match="should be declared as 'async def'"):
        AsyncDataStream.unordered_wait(numbers(env), NotAsync(), Time.seconds(1))
    strategy = AsyncRetryStrategy.fixed_delay(2, 10, None, async_retry_predicates.has_exception_predicate)
    with pytest.raises(ValueError, match="Timeout should be configured"):
        AsyncDataStream.unordered_wait_with_retry(numbers(env), LaterFirst(), Time.seconds(0), strategy)


# PyFlink 2.3 (apache-flink 2.3.0, local) printing async_io_program.py
PYFLINK_OUTPUT = [
    "ordered 0-9: ['0:0:attempt 1', '1:1:attempt 1', '2:4:attempt 1', '3:9:attempt 3', '4:16:attempt 1', '5:25:attempt 2', '6:36:attempt 1', '7:timed out', '8:64:attempt 1', '9:81:attempt 1']",
    "ordered 10-19: ['10:100:attempt 1', '11:121:attempt 1', '12:144:attempt 1', '13:169:attempt 1', '14:196:attempt 1', '15:225:attempt 1', '16:256:attempt 1', '17:289:attempt 1', '18:324:attempt 1', '19:361:attempt 1']",
    "unordered 0-9: ['0:0:attempt 1', '1:1:attempt 1', '2:4:attempt 1', '3:9:attempt 3', '4:16:attempt 1', '5:25:attempt 2', '6:36:attempt 1', '7:timed out', '8:64:attempt 1', '9:81:attempt 1']",
    "unordered 10-19: ['10:100:attempt 1', '11:121:attempt 1', '12:144:attempt 1', '13:169:attempt 1', '14:196:attempt 1', '15:225:attempt 1', '16:256:attempt 1', '17:289:attempt 1', '18:324:attempt 1', '19:361:attempt 1']",
]


def test_same_output_as_pyflink(env):
    assert async_io_program.run("kindling", env) == PYFLINK_OUTPUT


def test_pyflinks_remote_model_inference_example(env):
    # PyFlink 2.3 prints the same 100 lines for remote_model_inference_driver.py: every request
    # that timed out on its first attempt was retried, none hit the 10 s timeout.
    import json

    import remote_model_inference_driver as driver

    path = driver.example_path()
    if path is None:
        pytest.skip("the example is part of apache-flink, which is not installed here")
    expected = sorted(json.dumps({"user_id": i, "comments": f"comment {i}", "analysis_result": "positive"})
                      for i in range(driver.ROWS))
    assert driver.run("kindling", path, env) == expected
