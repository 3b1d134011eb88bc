"""Errors raised inside operators, carrying the operator's name to the driver."""
from __future__ import annotations

import base64
import pickle
import traceback

MARKER_BEGIN = "<<kindling-error:"
MARKER_END = ":kindling-error>>"


class UserFunctionError(RuntimeError):
    """A user function failed; names the operator and keeps the user's traceback."""

    def __init__(self, operator_name: str, user_traceback: str, cause: BaseException | None = None):
        super().__init__(f"operator '{operator_name}' failed:\n{user_traceback}")
        self.operator_name = operator_name
        self.user_traceback = user_traceback
        self.cause = cause

    def encode(self) -> str:
        """This error as text that survives Spark's JVM exception wrapping."""
        try:
            cause = pickle.dumps(self.cause)
        except Exception:
            cause = pickle.dumps(None)
        payload = pickle.dumps((self.operator_name, self.user_traceback, cause))
        return MARKER_BEGIN + base64.b64encode(payload).decode("ascii") + MARKER_END

    @staticmethod
    def decode(text: str) -> "UserFunctionError | None":
        """Finds an encoded error in an exception message from Spark."""
        start = text.find(MARKER_BEGIN)
        if start < 0:
            return None
        end = text.find(MARKER_END, start)
        if end < 0:
            return None
        try:
            name, tb, cause = pickle.loads(base64.b64decode(text[start + len(MARKER_BEGIN):end]))
            cause = pickle.loads(cause)
        except Exception:
            return None
        return UserFunctionError(name, tb, cause)


def user_function_failure(operator_name: str, exc: BaseException) -> RuntimeError:
    """Wraps an exception raised by user code so that the driver can report it. In a Spark task
    the task is failing: the worker's user functions are closed first (see ``lifecycle``)."""
    from kindling.runtime.lifecycle import task_failing

    task_failing()
    if isinstance(exc, UserFunctionError):
        return RuntimeError(exc.encode())
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return RuntimeError(UserFunctionError(operator_name, tb, exc).encode())
