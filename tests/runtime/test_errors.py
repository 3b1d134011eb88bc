"""The error payload a task sends the driver (kindling/runtime/errors.py): decoded only when its MAC
verifies under the job's secret; anything else that looks like one (forged, a wrong MAC, another
job's) is text, and nothing in it is unpickled."""
from __future__ import annotations

import base64
import json
import os

import pytest

from kindling.runtime import lifecycle
from kindling.runtime.errors import (MARKER_BEGIN, MARKER_END, UserFunctionError, task_failure, user_error_of,
                                     user_function_failure)

SECRET = os.urandom(32)


def _error(cause: BaseException | None = None) -> UserFunctionError:
    return UserFunctionError("parse", "Traceback ...\nValueError: bad\n", cause or ValueError("bad"), "'x'",
                             "file a.txt, line 2")


def _canary_pickle(path: str) -> str:
    """base64 of a pickle that calls ``os.mkdir(path)`` when loaded."""
    return base64.b64encode(b"cos\nmkdir\n(S'%s'\ntR." % path.encode()).decode()


def test_a_genuine_payload_decodes_with_its_cause():
    text = f"Job aborted: PythonException: RuntimeError: {_error().encode(SECRET)}\n\tat org.apache..."
    error = UserFunctionError.decode(text, SECRET)
    assert (error.operator_name, error.element, error.position) == ("parse", "'x'", "file a.txt, line 2")
    assert "ValueError: bad" in error.user_traceback and "read at file a.txt, line 2" in str(error)
    assert isinstance(error.cause, ValueError) and error.__cause__ is error.cause and str(error.cause) == "bad"


def test_forged_payloads_are_text(tmp_path):
    canary = str(tmp_path / "canary")
    pickled = _canary_pickle(canary)
    unauthenticated = f"{MARKER_BEGIN}{pickled}{MARKER_END}"  # the layout before payloads had a MAC
    body = base64.b64encode(json.dumps({"operator": "x", "traceback": "", "element": None, "position": None,
                                        "cause": pickled}).encode()).decode()
    made_up_mac = f"{MARKER_BEGIN}{body}:{'0' * 64}{MARKER_END}"
    genuine = _error().encode(SECRET)
    other_job = _error().encode(os.urandom(32))
    other_body = UserFunctionError("parse", "tb", None, "'y'").encode(SECRET).split(":")[1]
    spliced = f"{MARKER_BEGIN}{other_body}:{genuine.split(':')[2]}{MARKER_END}"  # another payload's MAC
    for text in (unauthenticated, made_up_mac, other_job, spliced, genuine[:-1]):
        assert UserFunctionError.decode(text, SECRET) is None
    assert not os.path.exists(canary)


def test_the_genuine_payload_is_found_behind_forged_ones():
    genuine = _error().encode(SECRET)
    forged = f"{MARKER_BEGIN}{_canary_pickle('/nonexistent/x')}:{'0' * 64}{MARKER_END}"
    dangling = MARKER_BEGIN + "AAAA"  # a marker that never ends, quoted before the real one
    error = UserFunctionError.decode(f"{forged} {dangling} {genuine} {forged}", SECRET)
    assert error is not None and error.operator_name == "parse"


def test_a_cause_that_does_not_pickle_leaves_the_rest():
    class Unpicklable(Exception):
        def __reduce__(self):
            raise TypeError("no")

    error = UserFunctionError.decode(_error(Unpicklable("x")).encode(SECRET), SECRET)
    assert error.operator_name == "parse" and error.cause is None and error.__cause__ is None


def test_a_failure_in_a_task_carries_its_error_encoded_under_the_jobs_secret(monkeypatch):
    monkeypatch.setattr(lifecycle, "error_secret", lambda: SECRET)
    failure = user_function_failure("parse", ValueError("bad"), "x")
    assert user_error_of(failure).operator_name == "parse"
    decoded = UserFunctionError.decode(str(failure), SECRET)
    assert decoded.element == "'x'" and isinstance(decoded.__cause__, ValueError)


def test_outside_a_task_a_failure_says_its_error_in_words():
    failure = task_failure(_error())
    assert str(failure).startswith("operator 'parse' failed on the element 'x' read at file a.txt, line 2:")
    assert user_error_of(failure) is not None and user_error_of(RuntimeError(str(failure))) is None


def test_a_workers_close_errors_come_as_json_and_nothing_else():
    errors = lifecycle._close_errors(json.dumps([["map", "Traceback ...\nKeyError: 'k'\n"]]).encode())
    assert [(e.operator_name, e.user_traceback) for e in errors] == [("map", "Traceback ...\nKeyError: 'k'\n")]
    import pickle

    for answer in (pickle.dumps([("map", "tb")]), b'{"map": 1}', b'[["map", 1]]'):
        with pytest.raises(ValueError):
            lifecycle._close_errors(answer)
