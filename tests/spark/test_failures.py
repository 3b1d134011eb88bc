"""The error a user sees when a streaming job fails: their function's, whichever way Spark
reports the failure (the micro-batch's own error, the query's, a JVM cause)."""
from __future__ import annotations

import pytest

from kindling.runtime.errors import UserFunctionError
from kindling.spark.runner import JobExecutionError, translate_failure


def _encoded(name: str = "exploding map") -> str:
    try:
        raise ValueError("boom at 7")
    except ValueError as exc:
        return UserFunctionError(name, "Traceback ...\nValueError: boom at 7\n", exc).encode()


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
    error = translate_failure(stopped, RuntimeError(f"Job aborted: {_encoded()}"))
    assert isinstance(error, UserFunctionError) and error.operator_name == "exploding map"
    assert isinstance(error.cause, ValueError)


def test_a_user_error_in_a_jvm_cause_is_found():
    origin = _JavaThrowable("StreamingQueryException: stopped",
                            _JavaThrowable(f"org.apache.spark.api.python.PythonException: {_encoded('source')}"))
    error = translate_failure(_Captured("[STREAM_FAILED] stopped", origin))
    assert isinstance(error, UserFunctionError) and error.operator_name == "source"


def test_without_a_user_error_the_batch_error_is_reported_shortly():
    error = translate_failure(_Captured("Query stopped"), RuntimeError("disk full\n\tat org.apache..."))
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
    assert "at org.apache" not in str(info.value)
