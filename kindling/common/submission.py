"""Configuration handed to a job from outside its program: ``kindling run``'s options
(``-D key=value``, ``--master``, ``-pyfs`` ...) travel in the ``KINDLING_CONF`` environment
variable as JSON, so that the job's own ``get_execution_environment()`` sees them, as a
PyFlink job sees ``flink run``'s options. The job's own settings win over them. The jobs
``kindling run -d`` starts in the background are recorded for ``kindling list`` / ``cancel``."""
from __future__ import annotations

import json
import os
import sys
import threading

ENVIRONMENT_VARIABLE = "KINDLING_CONF"


def submitted_configuration() -> dict[str, str]:
    """The keys ``kindling run`` passed to this process (empty outside it)."""
    text = os.environ.get(ENVIRONMENT_VARIABLE, "")
    if not text:
        return {}
    try:
        values = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{ENVIRONMENT_VARIABLE} must be a JSON object of configuration keys "
                         f"(kindling run sets it): {exc}") from None
    if not isinstance(values, dict):
        raise ValueError(f"{ENVIRONMENT_VARIABLE} must be a JSON object of configuration keys, got {text!r}")
    return {str(k): str(v) for k, v in values.items()}


class JobRegistry:
    """The jobs ``kindling run -d`` started on this machine, for ``kindling list`` / ``cancel``:
    one JSON record per job (pid, job, master, log, Spark application id, status) in the
    directory ``KINDLING_STATE_DIR`` names, else ``$XDG_STATE_HOME/kindling/jobs``
    (``~/.local/state/kindling/jobs``). The background process records its own end."""

    RECORD_VARIABLE = "KINDLING_JOB_RECORD"

    def __init__(self, directory: str | None = None) -> None:
        state = os.environ.get("KINDLING_STATE_DIR") or os.path.join(
            os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state"), "kindling")
        self.directory = directory or os.path.join(state, "jobs")

    def new_record(self, job: str, master: str, log: str) -> str:
        """Records a job about to start (its pid follows, ``started``); the record's path."""
        import tempfile
        import time

        os.makedirs(self.directory, exist_ok=True)
        handle, path = tempfile.mkstemp(suffix=".json", dir=self.directory)
        os.close(handle)
        self._write(path, {"pid": None, "start_ticks": None, "job": job, "master": master, "log": log,
                           "started": time.strftime("%Y-%m-%d %H:%M:%S"), "application": None, "status": "RUNNING"})
        return path

    def started(self, path: str, pid: int) -> None:
        self._update(path, pid=pid, start_ticks=_start_ticks(pid))

    def jobs(self) -> list[dict]:
        """Every recorded job, oldest first; one whose process is gone without recording its end
        (killed) is ``ENDED``."""
        found = []
        for name in sorted(os.listdir(self.directory)) if os.path.isdir(self.directory) else []:
            job = self._read(os.path.join(self.directory, name))
            if job is None or job["pid"] is None:  # not ours, or starting
                continue
            if job["status"] == "RUNNING" and not _alive(job["pid"], job.get("start_ticks")):
                job["status"] = "ENDED"
            found.append(job)
        return sorted(found, key=lambda j: (j["started"], j["pid"]))

    def find(self, job_id: str) -> dict | None:
        return next((job for job in self.jobs() if str(job["pid"]) == str(job_id)), None)

    def cancel(self, job: dict, timeout: float) -> None:
        """SIGTERM to the job's process group (its driver and the Spark JVM it started), then
        SIGKILL after ``timeout`` seconds; recorded as ``CANCELED``."""
        import signal
        import time

        self._update(job["path"], status="CANCELED")
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 10.0)):
            try:
                os.killpg(job["pid"], sig)
            except ProcessLookupError:
                return
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                if not _alive(job["pid"], job.get("start_ticks")):
                    return
                time.sleep(0.2)

    def run_detached(self, path: str, run) -> int:
        """Runs ``run`` (the background job of ``kindling run -d``) and records how it ended; a
        SIGTERM (``kindling cancel``) ends it as an interrupt, so the job's clean-up runs."""
        import signal

        def cancelled(*_):
            raise KeyboardInterrupt("cancelled by kindling cancel")

        signal.signal(signal.SIGTERM, cancelled)
        threading.Thread(target=self._note_application, args=(path,), daemon=True).start()
        status, code = "FAILED", 1
        try:
            code = run() or 0
            status = "FINISHED" if code == 0 else "FAILED"
            return code
        except KeyboardInterrupt:
            status, code = "CANCELED", 130
            raise
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
            status = "FINISHED" if code == 0 else "FAILED"
            raise
        finally:
            self._update(path, status=status, exit_code=code)

    def _note_application(self, path: str) -> None:
        """Records the Spark application id once the job's SparkContext exists."""
        import time

        while True:
            time.sleep(0.5)
            context = getattr(sys.modules.get("pyspark"), "SparkContext", None)
            active = getattr(context, "_active_spark_context", None)
            if active is not None:
                self._update(path, application=active.applicationId)
                return

    def _update(self, path: str, **values) -> None:
        with _record_lock:  # the job's thread noting its application, and its end
            self._update_unlocked(path, values)

    def _update_unlocked(self, path: str, values: dict) -> None:
        job = self._read(path)
        if job is not None:
            job.pop("path")
            if job["status"] == "CANCELED" and "status" in values:
                values["status"] = "CANCELED"  # a cancelled job fails or ends: it stays cancelled
            self._write(path, {**job, **values})

    @staticmethod
    def _read(path: str) -> dict | None:
        try:
            with open(path, encoding="utf-8") as f:
                job = json.load(f)
        except (OSError, ValueError):
            return None  # a record being written, or not one of ours
        if not isinstance(job, dict) or "pid" not in job:
            return None
        job["path"] = path
        return job

    @staticmethod
    def _write(path: str, job: dict) -> None:
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "w", encoding="utf-8") as f:
            json.dump(job, f)
        os.replace(temporary, path)


_record_lock = threading.Lock()


def _start_ticks(pid: int) -> str | None:
    """When the process started (Linux ``/proc``), so that a reused pid is not taken for the job."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _alive(pid: int, start_ticks: str | None) -> bool:
    if not os.path.isdir("/proc"):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return fields[0] not in ("Z", "X") and (start_ticks is None or fields[19] == start_ticks)
    except (OSError, IndexError):
        return False
