"""The lifecycle of user functions in Spark's Python workers: ``open()`` once per parallel
instance of an operator per job, ``close()`` once when the job ends, as Flink does.

Spark unpickles a task's functions for every task (every micro-batch) and reuses its Python
worker processes across tasks and jobs. A worker therefore keeps the opened instance of each
``(operator uid, subtask index)`` it has run, per job (an operator uid is ``"<job id>/<node
id>"``), in this module's registry. Instances of a job are closed:

- when the job ends, by the driver (:func:`end_job`): in local mode every worker that opened
  an instance serves a Unix socket in a directory of the driver's (``kindling.lifecycle.dir``,
  a Spark task local property); the driver asks each worker to close the job's instances and
  collects the errors of ``close()``, so that ``execute()`` returns after every ``close()``;
- otherwise (on a cluster, or a worker the driver could not reach) when the worker runs a
  task of a later job, whose local property ``kindling.lifecycle.ended`` lists the jobs the
  driver knew had ended; errors of ``close()`` then go to the worker's stderr.

Spark's workers leave through ``os._exit``, which runs no exit hooks: a worker whose task fails
because a user function raised closes its instances first (:func:`task_failing`); one that
Spark kills (still running a task when another task of the stage failed, or idle for a
minute) ends without ``close()``. The Spark task context is read only through
:func:`_task_property`; without Spark (the test harness) instances stay open until
:func:`close_job`.

The same local properties carry the job's error secret (``kindling.error.secret``), which
authenticates the errors its tasks send the driver (``kindling.runtime.errors``): local
properties reach the job's tasks and the user code in them, never the data.
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
import socket
import sys
import tempfile
import threading
import traceback
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

from kindling.metrics.metricbase import untrack
from kindling.runtime.errors import UserFunctionError, user_error_of

ENDED_PROPERTY = "kindling.lifecycle.ended"  # comma-separated ids of the jobs that ended
DIR_PROPERTY = "kindling.lifecycle.dir"  # where workers serve their close requests (local mode)
# the job's error secret (hex); "secret" in its name keeps its value out of Spark's event logs (spark.redaction.regex)
SECRET_PROPERTY = "kindling.error.secret"
CLOSE_TIMEOUT_S = 120.0  # how long the driver waits for one worker's close() calls


@dataclass(eq=False)
class _Instance:
    name: str
    value: Any
    close: Callable[[Any], None]


_lock = threading.RLock()
_jobs: dict[str, dict[tuple[str, int], _Instance]] = {}  # job id -> (uid, subtask) -> opened instance
_closing = False  # instances are being closed: a close() error is not a task failure


def job_of(uid: str) -> str:
    """The job id an operator uid (``"<job id>/<node id>"``) belongs to."""
    return uid.split("/", 1)[0]


def opened(uid: str, subtask: int, name: str, open_instance: Callable[[], Any],
           close_instance: Callable[[Any], None]) -> Any:
    """The opened instance of operator ``uid``'s parallel instance ``subtask`` in this process:
    the first call opens it (``open_instance()`` returns it), later calls of the same job
    return it; ``close_instance(instance)`` runs when the job ends."""
    _on_task()
    job = job_of(uid)
    key = (uid, subtask)
    with _lock:
        instances = _jobs.get(job)
        found = instances.get(key) if instances else None
    if found is not None:
        return found.value
    value = open_instance()
    with _lock:
        _jobs.setdefault(job, {})[key] = _Instance(name, value, close_instance)
    return value


def open_count(job: str | None = None) -> int:
    """How many instances are open in this process (of ``job``, or of every job)."""
    with _lock:
        if job is not None:
            return len(_jobs.get(job, {}))
        return sum(len(v) for v in _jobs.values())


def close_job(job: str) -> list[UserFunctionError]:
    """Closes this process's instances of ``job``; returns the errors their ``close()`` raised."""
    global _closing
    with _lock:
        instances = _jobs.pop(job, {})
    errors: list[UserFunctionError] = []
    closing, _closing = _closing, True  # an operator's close() error is no task failure
    try:
        for (_, subtask), instance in instances.items():
            try:
                instance.close(instance.value)
            except Exception as exc:
                errors.append(_as_user_error(instance.name, exc))
            finally:
                untrack(instance.name, subtask)  # an ended job's gauges stop reporting in this worker
    finally:
        _closing = closing
    return errors


def close_function(function: Any) -> None:
    """Calls a user function's ``close()``, if it has one."""
    close = getattr(function, "close", None)
    if close is not None and not isinstance(function, type):
        close()


def _as_user_error(name: str, exc: BaseException) -> UserFunctionError:
    if isinstance(exc, UserFunctionError):
        return exc
    wrapped = user_error_of(exc)  # already wrapped by the operator (user_function_failure)
    if wrapped is not None:
        return wrapped
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return UserFunctionError(name, tb, exc)


def report(job: str, errors: list[UserFunctionError]) -> None:
    """Prints close() errors of a job that has already ended, naming each operator."""
    for error in errors:
        print(f"[kindling] job {job}: close() of operator '{error.operator_name}' failed:\n{error.user_traceback}",
              file=sys.stderr, flush=True)


# -- worker side: what a task tells this process -------------------------------------------

_seen_ended: str | None = None
_served_dir: str | None = None
_served_pid: int | None = None


def _no_task() -> Any:
    return None


#: the context of the Spark task running in this process (None outside a task): ``kindling.spark``
#: sets it when imported, which every Spark task of a job does; the runtime itself knows no Spark
current_task: Callable[[], Any] = _no_task


def _task_property(name: str) -> str | None:
    """A local property of the Spark task running in this process (None outside Spark)."""
    ctx = current_task()
    return ctx.getLocalProperty(name) if ctx is not None else None


def error_secret() -> bytes | None:
    """The secret of the job whose Spark task runs in this process (None outside a task)."""
    secret = _task_property(SECRET_PROPERTY)
    return bytes.fromhex(secret) if secret else None


def _on_task() -> None:
    """Closes the instances of jobs the driver says have ended, and serves the driver's close
    requests (local mode); cheap when nothing changed since the last call."""
    global _seen_ended
    ended = _task_property(ENDED_PROPERTY)
    if ended and ended != _seen_ended:
        _seen_ended = ended
        for job in ended.split(","):
            errors = close_job(job)
            if errors:
                report(job, errors)
    directory = _task_property(DIR_PROPERTY)
    if directory and (_served_dir != directory or _served_pid != os.getpid()):
        _serve(directory)


def task_failing() -> None:
    """A user function failed in a Spark task: the task fails and Spark's worker process exits
    without running any exit hook, so every instance opened in this process is closed now
    (as Flink closes the functions of a failed task); errors of ``close()`` go to stderr."""
    global _closing
    if _closing or threading.current_thread() is not threading.main_thread() or current_task() is None:
        return
    _closing = True
    try:
        for job in list(_jobs):
            errors = close_job(job)
            if errors:
                report(job, errors)
    finally:
        _closing = False


def _serve(directory: str) -> None:
    """Starts the thread answering the driver's close requests on ``<directory>/<pid>.sock``."""
    global _served_dir, _served_pid
    with _lock:
        pid = os.getpid()
        if _served_dir == directory and _served_pid == pid:
            return
        _served_dir, _served_pid = directory, pid  # tried once per process and directory
        path = os.path.join(directory, f"{pid}.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            if os.path.exists(path):
                os.unlink(path)  # a worker that died with the same pid
            listener.bind(path)
            listener.listen(8)
        except OSError:  # later jobs' tasks close this worker's instances instead
            listener.close()
            return
    threading.Thread(target=_answer, args=(listener,), name="kindling-lifecycle", daemon=True).start()


def _answer(listener: socket.socket) -> None:
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            try:
                job = _read_all(conn).decode()
                errors = close_job(job)
                conn.sendall(json.dumps([[e.operator_name, e.user_traceback] for e in errors]).encode())
            except Exception:
                traceback.print_exc()


def _read_all(conn: socket.socket) -> bytes:
    chunks = []
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


# -- driver side ---------------------------------------------------------------------------

_ended: deque[str] = deque(maxlen=64)  # the jobs of this driver that ended, newest last
_closed: set[str] = set()
_directory: str | None = None


def _socket_directory(base: str | None) -> str:
    global _directory
    with _lock:
        if _directory is None:
            _directory = tempfile.mkdtemp(prefix="life-", dir=base)  # mode 0700
            atexit.register(shutil.rmtree, _directory, True)
        return _directory


def start_job(spark: Any, secret: bytes, directory: str | None = None) -> None:
    """Tells the tasks the current thread starts (Spark local properties, inherited by a
    streaming query's thread) the job's error ``secret``, which jobs ended, and, in local mode,
    where to serve close requests. Call in the thread that runs the job, before it starts."""
    sc = spark.sparkContext
    sc.setLocalProperty(SECRET_PROPERTY, secret.hex())
    sc.setLocalProperty(ENDED_PROPERTY, ",".join(_ended) or None)
    local = sc.master.startswith("local")
    sc.setLocalProperty(DIR_PROPERTY, _socket_directory(directory) if local else None)


def end_job(job: str) -> list[UserFunctionError]:
    """Closes every instance of ``job`` the driver can reach (each worker's socket, local mode)
    and returns the errors their ``close()`` raised; later jobs' tasks close the rest. A second
    call for the same job does nothing."""
    with _lock:
        if job in _closed:
            return []
        _closed.add(job)
        _ended.append(job)
        directory = _directory
    errors = close_job(job)  # instances opened in the driver's own process, if any
    if directory is None or not os.path.isdir(directory):  # none yet, or removed as the driver exits
        return errors
    for entry in sorted(os.listdir(directory)):
        if not entry.endswith(".sock"):
            continue
        path = os.path.join(directory, entry)
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.settimeout(CLOSE_TIMEOUT_S)
                conn.connect(path)
                conn.sendall(job.encode())
                conn.shutdown(socket.SHUT_WR)
                answer = _close_errors(_read_all(conn))
        except (ConnectionRefusedError, FileNotFoundError):
            try:
                os.unlink(path)  # the worker has exited
            except OSError:
                pass
            continue
        except (OSError, ValueError) as exc:
            print(f"[kindling] job {job}: could not close the functions of Python worker {entry[:-5]}: {exc}",
                  file=sys.stderr, flush=True)
            continue
        errors.extend(answer)
    return errors


def _close_errors(answer: bytes) -> list[UserFunctionError]:
    """A worker's answer to a close request: ``[[operator name, traceback text], ...]`` in JSON."""
    pairs = json.loads(answer)
    if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 and all(isinstance(t, str) for t in p)
                                              for p in pairs):
        raise ValueError(f"not a list of [operator, traceback] pairs: {answer[:200]!r}")
    return [UserFunctionError(name, tb) for name, tb in pairs]


def finish_job(job: str) -> None:
    """:func:`end_job` for a job that finished: the first ``close()`` error is raised (the job
    fails, as in Flink), the others are printed."""
    errors = end_job(job)
    if errors:
        report(job, errors[1:])
        raise errors[0]


def abort_job(job: str) -> None:
    """:func:`end_job` for a job that failed or was cancelled: ``close()`` errors are printed."""
    report(job, end_job(job))
