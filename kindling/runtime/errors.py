"""Errors raised inside operators, carrying the operator's name to the driver.

A Spark task's exception reaches the driver only as text, and that text also holds whatever the
failure quoted: records, a user's message, Spark's own. So a failing user function's error
travels as a payload the driver can tell from anything data wrote: plain JSON (operator,
traceback, element, position; the cause pickled by this code), authenticated by an HMAC under
the job's secret, which the driver makes for each job and ships to the job's tasks only
(``kindling.runtime.lifecycle``). The driver decodes nothing whose MAC does not verify under its
job's secret (docs/security.md).
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import pickle
import re
import traceback

MARKER_BEGIN = "<<kindling-error:"
MARKER_END = ":kindling-error>>"
_PAYLOAD = re.compile(re.escape(MARKER_BEGIN) + r"([A-Za-z0-9+/]*={0,2}):([0-9a-f]{64})" + re.escape(MARKER_END))


_NO_ELEMENT = object()


class UserFunctionError(RuntimeError):
    """A user function failed; names the operator, the element it was given (when one was) and
    keeps the user's traceback; the user's exception is its ``cause`` (and ``__cause__``)."""

    def __init__(self, operator_name: str, user_traceback: str, cause: BaseException | None = None,
                 element: str | None = None, position: str | None = None):
        on = f" on the element {element}" if element is not None else ""
        at = f" read at {position}" if position is not None else ""
        super().__init__(f"operator '{operator_name}' failed{on}{at}:\n{user_traceback}")
        self.operator_name = operator_name
        self.user_traceback = user_traceback
        self.cause = cause
        self.__cause__ = cause
        self.element = element
        self.position = position  # where the element is in its source: file and line, Kafka offset, ...

    def encode(self, secret: bytes) -> str:
        """This error as text that survives Spark's JVM exception wrapping, authenticated by ``secret``."""
        try:
            cause = base64.b64encode(pickle.dumps(self.cause)).decode("ascii") if self.cause is not None else None
        except Exception:  # an exception that does not pickle: its type and message are in the traceback
            cause = None
        payload = json.dumps({"operator": self.operator_name, "traceback": self.user_traceback,
                              "element": self.element, "position": self.position, "cause": cause})
        body = base64.b64encode(payload.encode("utf-8")).decode("ascii")
        return f"{MARKER_BEGIN}{body}:{_mac(secret, body)}{MARKER_END}"

    @staticmethod
    def decode(text: str, secret: bytes) -> "UserFunctionError | None":
        """The first error in ``text`` (an exception message from Spark) that :meth:`encode` wrote
        under ``secret``; whatever else looks like one is text that data or Spark wrote, never read."""
        for match in _PAYLOAD.finditer(text):
            body, mac = match.groups()
            if hmac.compare_digest(mac, _mac(secret, body)):
                return _from_payload(json.loads(base64.b64decode(body)))
        return None


def _mac(secret: bytes, body: str) -> str:
    return hmac.new(secret, body.encode("ascii"), hashlib.sha256).hexdigest()


def _from_payload(payload: dict) -> UserFunctionError:
    """The error of an authenticated payload: its cause unpickled (pickled by :meth:`encode` in
    a task of the same job), or None when the driver cannot rebuild it."""
    cause = None
    if payload["cause"] is not None:
        try:
            cause = pickle.loads(base64.b64decode(payload["cause"]))
        except Exception:  # its class is not importable here, or does not unpickle
            pass
    return UserFunctionError(payload["operator"], payload["traceback"], cause, payload["element"], payload["position"])


def user_function_failure(operator_name: str, exc: BaseException, element: object = _NO_ELEMENT) -> RuntimeError:
    """Wraps an exception raised by user code (given ``element``, when it was processing one) so
    that the driver can report it. In a Spark task the task is failing: the worker's user
    functions are closed first (see ``lifecycle``)."""
    from kindling.runtime.lifecycle import task_failing

    task_failing()
    error = exc if isinstance(exc, UserFunctionError) else user_error_of(exc)
    if error is not None:
        return task_failure(error)
    if element is _NO_ELEMENT:
        element = getattr(exc, "kindling_element", _NO_ELEMENT)
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    failure = task_failure(UserFunctionError(operator_name, tb, exc, _describe(element)))
    failure.kindling_element = element  # the stage finds the element's source row by it
    return failure


def task_failure(error: UserFunctionError) -> RuntimeError:
    """The exception a task raises for ``error``: in a Spark task its message is ``error`` encoded
    under the job's secret, for the driver; elsewhere (the test harnesses) ``error``'s own message.
    Either way it carries ``error`` for this process (:func:`user_error_of`)."""
    from kindling.runtime.lifecycle import error_secret

    secret = error_secret()
    failure = RuntimeError(error.encode(secret) if secret is not None else str(error))
    failure.kindling_user_error = error
    return failure


def user_error_of(exc: BaseException) -> UserFunctionError | None:
    """The error a :func:`user_function_failure` raised in this process carries (None for any other exception)."""
    error = getattr(exc, "kindling_user_error", None)
    return error if isinstance(error, UserFunctionError) else None


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
