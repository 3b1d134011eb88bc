"""Async scalar functions on Spark, in SQL and the Table API, at parallelism 2: each row's call gets
that row's values (PyFlink 2.3 can hand a call a later row's: its input row is reused), functions are
opened with the job parameters and their task, and PyFlink's own example
(``examples/table/async/async_scalar_function.py``) prints the shape PyFlink's does.
tests/runtime/test_async_scalar_functions.py covers concurrency, retries and timeouts;
tests/conformance/programs/table_async_scalar_function.py compares with PyFlink."""
from __future__ import annotations

import asyncio
import os
import re
import sys

import pytest

from kindling.table import AsyncScalarFunction, DataTypes
from kindling.table.expressions import col
from kindling.table.udf import udf

from table_support import collected, first_call_fails, quiet_t_env

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "datastream"))
from remote_model_inference_driver import example_path  # noqa: E402


class Tagged(AsyncScalarFunction):
    def open(self, function_context):
        self.tag = (f"{function_context.get_job_parameter('suffix', '-')}"
                    f"{function_context.get_index_of_this_subtask()}/{function_context.get_number_of_parallel_subtasks()}")

    async def eval(self, k, v):
        await asyncio.sleep(0.001 * ((v * 7) % 5))  # later rows finish first
        return f"{k}:{v}"


@udf(result_type=DataTypes.BIGINT())
async def twice(v):
    await asyncio.sleep(0.001 * (v % 3))
    return v * 2


def test_each_row_gets_its_own_call_in_sql_and_the_table_api():
    t_env = quiet_t_env()
    t_env.get_config().set("pipeline.global-job-parameters", "suffix:S")
    t_env.create_temporary_function("tagged", udf(Tagged(), result_type=DataTypes.STRING()))
    t_env.create_temporary_function("twice", twice)
    t_env.create_temporary_view("src", t_env.from_elements([(f"k{i}", i) for i in range(40)], ["k", "v"]))
    assert collected(t_env, "SELECT k, tagged(k, v) FROM src WHERE twice(v) > 70") == [
        (f"k{i}", f"k{i}:{i}") for i in range(36, 40)]
    src = t_env.from_path("src")
    rows = src.where(twice(col('v')) < 8).select(col('k'), twice(col('v'))).execute().collect()
    with rows:
        assert sorted(tuple(r) for r in rows) == [(f"k{i}", 2 * i) for i in range(4)]


def test_a_function_is_opened_with_the_job_parameters_and_its_task():
    t_env = quiet_t_env()
    t_env.get_config().set("pipeline.global-job-parameters", "suffix:S")

    t_env.create_temporary_function("tag", udf(_TagOnly(), result_type=DataTypes.STRING()))
    t_env.create_temporary_view("src", t_env.from_elements([(i,) for i in range(8)], ["v"]))
    tags = {r[0] for r in collected(t_env, "SELECT tag(v) FROM src")}
    assert tags <= {"S0/2", "S1/2"} and tags


def test_the_retry_options_reach_the_calls():
    # FIXED_DELAY (the default) retries the failed call; NO_RETRY fails the job
    t_env = quiet_t_env()
    t_env.create_temporary_view("src", t_env.from_elements([(i,) for i in range(4)], ["v"]))
    t_env.create_temporary_function("first_fails", first_call_fails())
    assert collected(t_env, "SELECT first_fails(v) FROM src") == [(i,) for i in range(4)]
    t_env.get_config().set("table.exec.async-scalar.retry-strategy", "NO_RETRY")
    t_env.create_temporary_function("first_fails", first_call_fails())
    with pytest.raises(Exception, match="the first call fails"):
        collected(t_env, "SELECT first_fails(v) FROM src")
    t_env.get_config().set("table.exec.async-scalar.retry-strategy", "SOMETIMES")
    with pytest.raises(ValueError, match="retry-strategy must be FIXED_DELAY or NO_RETRY"):
        collected(t_env, "SELECT first_fails(v) FROM src")


class _TagOnly(Tagged):
    async def eval(self, v):
        return self.tag


@pytest.mark.slow
def test_pyflinks_async_example_prints_pyflinks_shape(capsys):
    path = example_path(os.path.join("examples", "table", "async", "async_scalar_function.py"))
    if path is None or not os.path.exists(path):
        pytest.skip("the example is part of apache-flink 2.3, which is not installed here")
    with open(path) as f:
        source = re.sub(r"\bpyflink\b", "kindling", f.read())
    namespace = {"__name__": "example"}
    exec(compile(source, path, "exec"), namespace)
    namespace["async_scalar_function_example"]()
    out = capsys.readouterr().out
    lookups = re.findall(r"^\| \+I \|\s+(\w) \|\s+db_value_for_(\w) \|$", out, re.M)
    products = re.findall(r"^\| \+I \|\s+(\w) \|\s+Product (\w): \$(\d+) \|$", out, re.M)
    assert len(lookups) == 10 and all(a == b for a, b in lookups)
    assert len(products) == 10 and all(a == b and 10 <= int(p) <= 1000 for a, b, p in products)
    assert out.count("10 rows in set") == 2
