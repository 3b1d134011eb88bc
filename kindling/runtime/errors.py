"""Errors raised inside operators, carrying the operator's name to the driver."""
from __future__ import annotations

import base64
import pickle
import traceback

MARKER_BEGIN = "<<kindling-error:"
MARKER_END = ":kindling-error>>"


_NO_ELEMENT = object()


class UserFunctionError(RuntimeError):
    """A user function failed; names the operator, the element it was given (when one was) and
    keeps the user's traceback."""

    def __init__(self, operator_name: str, user_traceback: str, cause: BaseException | None = None,
                 element: str | None = None, position: str | None = None):
        on = f" on the element {element}" if element is not None else ""
        at = f" read at {position}" if position is not None else ""
        super().__init__(f"operator '{operator_name}' failed{on}{at}:\n{user_traceback}")
        self.operator_name = operator_name
        self.user_traceback = user_traceback
        self.cause = cause
        self.element = element
        self.position = position  # where the element is in its source: file and line, Kafka offset, ...

    def encode(self) -> str:
        """This error as text that survives Spark's JVM exception wrapping."""
        try:
            cause = pickle.dumps(self.cause)
        except Exception:
            cause = pickle.dumps(None)
        payload = pickle.dumps((self.operator_name, self.user_traceback, cause, self.element, self.position))
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
            name, tb, cause, element, position = pickle.loads(base64.b64decode(text[start + len(MARKER_BEGIN):end]))
            cause = pickle.loads(cause)
        except Exception:
            return None
        return UserFunctionError(name, tb, cause, element, position)


def user_function_failure(operator_name: str, exc: BaseException, element: object = _NO_ELEMENT) -> RuntimeError:
    """Wraps an exception raised by user code (given ``element``, when it was processing one) so
    that the driver can report it. In a Spark task the task is failing: the worker's user
    functions are closed first (see ``lifecycle``)."""
    from kindling.runtime.lifecycle import task_failing

    task_failing()
    if isinstance(exc, UserFunctionError):
        return RuntimeError(exc.encode())
    if element is _NO_ELEMENT:
        element = getattr(exc, "kindling_element", _NO_ELEMENT)
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    failure = RuntimeError(UserFunctionError(operator_name, tb, exc, _describe(element)).encode())
    failure.kindling_element = element  # the stage finds the element's source row by it
    return failure


def failed_on(exc: BaseException, element: object) -> None:
    """Notes on ``exc`` the element it was raised on, for :func:`user_function_failure` further up."""
    try:
        exc.kindling_element = element
    except AttributeError:  # an exception type without attributes
        pass


def _describe(element: object) -> str | None:
    if element is _NO_ELEMENT:
        return None
    try:
        text = repr(element)
    except Exception:
        text = f"<a {type(element).__name__} without a printable form>"
    return text if len(text) <= 300 else text[:300] + "..."
