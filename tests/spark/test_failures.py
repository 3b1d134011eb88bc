"""The error a user sees when a streaming job fails: their function's, whichever way Spark
reports the failure (the micro-batch's own error, the query's, a JVM cause)."""
from __future__ import annotations

import os

import pytest

from kindling.runtime.errors import UserFunctionError, task_failure
from kindling.spark.runner import JobExecutionError, translate_failure

SECRET = os.urandom(32)  # the job's


def _error(name: str = "exploding map") -> UserFunctionError:
    try:
        raise ValueError("boom at 7")
    except ValueError as exc:
        return UserFunctionError(name, "Traceback ...\nValueError: boom at 7\n", exc)


def _encoded(name: str = "exploding map", secret: bytes = SECRET) -> str:
    return _error(name).encode(secret)


class _JavaThrowable:
    def __init__(self, text: str, cause=None):
        self.text, self.cause = text, cause

    def toString(self) -> str:
        return self.text

    def getCause(self):
        return self.cause


class _Captured(Exception):
    def __init__(self, text: str, origin=None):
        super().__init__(text)
        self._origin = origin


def test_the_batch_error_wins_over_a_query_that_only_says_it_stopped():
    stopped = _Captured("[STREAM_FAILED] Query stopped")
    error = translate_failure(stopped, RuntimeError(f"Job aborted: {_encoded()}"), SECRET)
    assert isinstance(error, UserFunctionError) and error.operator_name == "exploding map"
    assert isinstance(error.cause, ValueError) and isinstance(error.__cause__, ValueError)


def test_a_user_error_in_a_jvm_cause_is_found():
    origin = _JavaThrowable("StreamingQueryException: stopped",
                            _JavaThrowable(f"org.apache.spark.api.python.PythonException: {_encoded('source')}"))
    error = translate_failure(_Captured("[STREAM_FAILED] stopped", origin), None, SECRET)
    assert isinstance(error, UserFunctionError) and error.operator_name == "source"


def test_a_user_error_raised_in_the_driver_is_found_in_the_chain():
    try:
        try:
            raise task_failure(_error("sink"))
        except RuntimeError as failure:
            raise _Captured("[STREAM_FAILED] stopped") from failure
    except _Captured as stopped:
        error = translate_failure(stopped, None, SECRET)
    assert isinstance(error, UserFunctionError) and error.operator_name == "sink"


def test_an_error_encoded_under_another_secret_is_text():
    error = translate_failure(_Captured(f"Job aborted: {_encoded('map', os.urandom(32))}"), None, SECRET)
    assert isinstance(error, JobExecutionError) and "kindling-error" in str(error)


def test_a_python_workers_error_is_named_by_what_it_raised():
    worker = ("[PYTHON_EXCEPTION] An exception was thrown from the Python worker: Traceback (most recent call last):\n"
              '  File "files.py", line 1, in read\n    raise ParseError(...)\n'
              "kindling.spark.files.ParseError: cannot read CSV record in file a.csv, line 2\n")
    reported = f"Job aborted\nCaused by: org.apache.spark.api.python.PythonException: {worker}"
    error = translate_failure(_Captured(reported), None, SECRET)
    assert str(error).startswith("job failed in Spark: kindling.spark.files.ParseError: cannot read CSV record in "
                                 "file a.csv, line 2\n")


def test_without_a_user_error_the_batch_error_is_reported_shortly():
    error = translate_failure(_Captured("Query stopped"), RuntimeError("disk full\n\tat org.apache..."), SECRET)
    assert isinstance(error, JobExecutionError) and str(error).startswith("job failed in Spark: disk full")


@pytest.mark.parametrize("keyed", [False, True])
def test_an_operator_error_reaches_the_collecting_user(env, keyed):
    from kindling.common import Types
    from kindling.datastream import RuntimeExecutionMode

    env.get_configuration().set_boolean("kindling.bounded.one-step", False)  # the micro-batch path
    env.set_runtime_mode(RuntimeExecutionMode.STREAMING)
    env.set_parallelism(2)

    def explode(x):
        if x == 7:
            raise ValueError("boom at 7")
        return x

    ds = env.from_collection(list(range(20)), Types.INT())
    if keyed:
        ds = ds.key_by(lambda x: x % 3)
    ds = ds.map(explode, output_type=Types.INT()).name("exploding map")
    with pytest.raises(UserFunctionError) as info:
        with ds.execute_and_collect() as results:
            list(results)
    assert info.value.operator_name == "exploding map" and "boom at 7" in str(info.value)
    assert isinstance(info.value.__cause__, ValueError)  # tracebacks and except chains show the user's exception
    assert "at org.apache" not in str(info.value)
