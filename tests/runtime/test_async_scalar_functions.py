"""Async scalar functions without Spark: a projection or filter calling them awaits the calls of a
batch of rows concurrently, at most ``max_concurrent_operations`` at a time, each row with its own
values and the results in the rows' order; failures are retried with a fixed delay, a call that
outlives the timeout fails the job naming its input. tests/table/test_async_scalar_function.py runs
them on Spark; tests/conformance/programs/table_async_scalar_function.py compares with PyFlink."""
from __future__ import annotations

import asyncio

import pytest

from kindling.common import Row
from kindling.runtime.table.async_functions import AsyncOptions, async_results
from kindling.runtime.table.evaluate import compile_expression
from kindling.runtime.table.rows import Condition, Project
from kindling.runtime.task_info import TaskInfo
from kindling.runtime.runtime_context import TaskRuntimeContext
from kindling.table import AsyncScalarFunction, DataTypes
from kindling.table.expressions import col
from kindling.table.planner.expressions import resolve
from kindling.table.udf import UserDefinedAsyncScalarFunctionWrapper, udf

NAMES, TYPES = ['id', 'v'], [DataTypes.BIGINT(), DataTypes.DOUBLE()]


class Tracking(AsyncScalarFunction):
    """Sleeps longer for earlier rows, so that later calls finish first; counts the calls in flight."""

    def __init__(self):
        self.in_flight = self.most_in_flight = 0
        self.opened = self.closed = None

    def open(self, function_context):
        self.opened = (function_context.get_job_parameter("suffix", "-"),
                       function_context.get_index_of_this_subtask())

    async def eval(self, i):
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        await asyncio.sleep(0.001 * (30 - i))
        self.in_flight -= 1
        return f"{i}{self.opened[0]}"

    def close(self):
        self.closed = True


def test_a_batch_of_calls_runs_concurrently_up_to_the_limit_in_the_rows_order():
    function = Tracking()
    wrapped = udf(function, result_type=DataTypes.STRING())
    assert isinstance(wrapped, UserDefinedAsyncScalarFunctionWrapper)
    project = Project(['s'], [resolve(wrapped(col('id')), NAMES, TYPES)], 100, AsyncOptions(max_concurrent_operations=4))
    project.open(TaskRuntimeContext(TaskInfo("Calc", 1, 2, job_parameters={"suffix": "!"})))
    assert function.opened == ("!", 1)
    rows = project.map_batch([Row(i, 0.0) for i in range(20)])
    assert [r[0] for r in rows] == [f"{i}!" for i in range(20)]
    assert function.most_in_flight == 4
    project.close()
    assert function.closed


def test_an_async_def_filters_a_batch_and_is_never_called_outside_one():
    @udf(result_type=DataTypes.BOOLEAN())
    async def even(i):
        await asyncio.sleep(0)
        return i % 2 == 0

    condition = Condition(resolve(even(col('id')), NAMES, TYPES), 10)
    assert condition.batch_size == 10
    assert condition.filter_batch([Row(i, 0.0) for i in range(5)]) == [True, False, True, False, True]
    # the planner moves calls elsewhere (an aggregate's argument, a join condition) into a projection or a filter
    with pytest.raises(ValueError, match=r"internal error: a call of the async function even \(UdfCall\) outside"):
        compile_expression(resolve(even(col('id')), NAMES, TYPES))


def test_failures_are_retried_with_a_fixed_delay_then_fail():
    calls = []

    @udf(result_type=DataTypes.BIGINT())
    async def flaky(i):
        calls.append(i)
        if len(calls) % 3:
            raise ValueError("try again")
        return i

    assert async_results(flaky, [[7]], AsyncOptions(retry_delay_ms=1)) == [7]
    assert calls == [7, 7, 7]

    @udf(result_type=DataTypes.BIGINT())
    async def broken(i):
        calls.append(i)
        raise ValueError("always broken")

    calls.clear()
    with pytest.raises(ValueError, match="always broken"):
        async_results(broken, [[1]], AsyncOptions(max_attempts=2, retry_delay_ms=1))
    assert calls == [1, 1, 1]  # the first attempt and max-attempts retries, as PyFlink 2.3
    calls.clear()
    with pytest.raises(ValueError, match="always broken"):
        async_results(broken, [[1]], AsyncOptions(retries=False))
    assert calls == [1]


def test_a_call_past_the_timeout_fails_naming_its_input():
    @udf(result_type=DataTypes.BIGINT())
    async def stuck(i):
        await asyncio.sleep(60)

    with pytest.raises(TimeoutError, match=r"Async function call has timed out for input: \[5\]"):
        async_results(stuck, [[5]], AsyncOptions(timeout_ms=50))


def test_a_pandas_async_function_is_refused_as_in_pyflink():
    async def f(s):
        return s

    with pytest.raises(ValueError, match="Async scalar functions do not support pandas func_type"):
        udf(f, result_type=DataTypes.BIGINT(), func_type='pandas')
