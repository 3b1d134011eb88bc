"""The SparkSession a job runs on: an active one as it is, else an embedded local one.

Everything an embedded session puts on disk (Spark's log, warehouse, spill and temporary
checkpoints) lives in one directory of this process, unique per run and removed at exit, so
that two runs on one machine, from the same or different Python environments, never share a
file. Spark's Python workers run this process's own interpreter.
"""
from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from typing import Callable, Iterator

from kindling.common.configuration import Configuration

_lock = threading.Lock()

DEFAULTS = {
    "spark.sql.streaming.stateStore.providerClass":
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.streaming.noDataMicroBatches.enabled": "true",
    "spark.python.worker.reuse": "true",
    "spark.python.authenticate.socketTimeout": "120s",  # Python <-> JVM connections on a busy machine
    "spark.sql.adaptive.enabled": "false",
}


class JavaNotFoundError(RuntimeError):
    """Spark needs a Java runtime and none was found."""


def check_java() -> None:
    java_home = os.environ.get("JAVA_HOME")
    java = os.path.join(java_home, "bin", "java") if java_home else shutil.which("java")
    if not java or not os.path.exists(java):
        raise JavaNotFoundError(
            "Kindling runs on Spark, which needs Java 17 or 21: install it "
            "(Debian/Ubuntu: apt-get install -y openjdk-17-jre-headless) or set JAVA_HOME")
    try:
        subprocess.run([java, "-version"], capture_output=True, check=True, timeout=30)
    except Exception as exc:
        raise JavaNotFoundError(f"Java at {java} does not run ({exc}); install Java 17: "
                                "apt-get install -y openjdk-17-jre-headless") from None


def _not_a_callback_failure(record: logging.LogRecord) -> bool:
    """py4j logs a failing ``foreachBatch`` call with its whole trace; the job reports it."""
    return not record.getMessage().startswith("There was an exception while executing the Python Proxy")


def _quiet_library_loggers() -> None:
    """py4j and PySpark log at INFO (gateway and callback-server chatter): whatever the root
    logger is configured to (PyFlink's examples send it to stdout at INFO), only their
    warnings and errors are shown, on stderr."""
    for name in ("py4j", "pyspark"):
        logger = logging.getLogger(name)
        if not any(getattr(h, "kindling", False) for h in logger.handlers):
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("%(name)s %(levelname)s: %(message)s"))
            handler.addFilter(_not_a_callback_failure)
            handler.kindling = True
            logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = False


_quiet_library_loggers()


# --- timing (KINDLING_TIMING=1 prints the phases of a run on stderr) --------------------------

def _process_start() -> float:
    """When this process started (Linux), else when this module was imported."""
    try:
        with open("/proc/self/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/stat") as f:
            boot = next(int(line.split()[1]) for line in f if line.startswith("btime"))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return time.time()


_TIMING = os.environ.get("KINDLING_TIMING", "") not in ("", "0")
_process_started = _process_start() if _TIMING else 0.0


def timing_enabled() -> bool:
    return _TIMING


def timing(phase: str) -> None:
    """Prints ``phase`` with the seconds since the process started when KINDLING_TIMING is set."""
    if _TIMING:
        print(f"[kindling] timing {time.time() - _process_started:8.3f} s  {phase}", file=sys.stderr, flush=True)


timing("kindling imported")


# --- this run's own directory ----------------------------------------------------------------

_scratch: str | None = None
_scratch_lock = threading.Lock()
_log_path: str | None = None
_exit_hooks: list[Callable[[], None]] = []
_failures = 0


def scratch_dir() -> str:
    """This process's own temporary directory (unique name, private, removed at exit)."""
    global _scratch
    with _scratch_lock:
        if _scratch is None:
            _scratch = tempfile.mkdtemp(prefix=f"kindling-{os.getpid()}-")
            atexit.register(_at_exit, os.getpid())
    return _scratch


def on_exit(hook: Callable[[], None]) -> None:
    """Runs ``hook`` at interpreter exit before this run's directory is removed (jobs still
    running are stopped there)."""
    _exit_hooks.append(hook)


def job_failed() -> str | None:
    """Records that a job failed, so that Spark's log is kept at exit; returns its path."""
    global _failures
    _failures += 1
    return _log_path


def _at_exit(owner: int) -> None:
    """Stops what still runs, then removes this run's directory; Spark's log stays if a job
    failed (and is named on stderr)."""
    if os.getpid() != owner or _scratch is None:  # a forked child exiting normally
        return
    for hook in _exit_hooks:
        try:
            hook()
        except Exception:
            traceback.print_exc()
    if not (_failures and _log_path and os.path.dirname(_log_path) == _scratch):
        shutil.rmtree(_scratch, ignore_errors=True)
        return
    for entry in os.listdir(_scratch):
        path = os.path.join(_scratch, entry)
        if path == _log_path:
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(path)
    print(f"[kindling] a job failed: Spark's log is kept at {_log_path}", file=sys.stderr, flush=True)


# --- the session -----------------------------------------------------------------------------


def _worker_python_path() -> str:
    """Paths Spark's Python workers need: the kindling package and the job's own modules
    (every directory on the driver's ``sys.path`` outside the Python installation)."""
    import kindling

    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(kindling.__file__)))
    paths = [package_parent, os.getcwd()]
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    if main_file:
        paths.insert(0, os.path.dirname(os.path.abspath(main_file)))
    installed = {os.path.abspath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    for entry in sys.path:
        path = os.path.abspath(entry or os.getcwd())
        if os.path.isdir(path) and not any(path == p or path.startswith(p + os.sep) for p in installed):
            paths.append(path)
    seen: list[str] = []
    for p in paths + os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if p and p not in seen:
            seen.append(p)
    return os.pathsep.join(seen)


def worker_python(conf: dict, master: str) -> str:
    """The Python Spark's workers run: ``spark.pyspark.python`` when configured, else in local
    mode this very interpreter, so that workers import the same Kindling, PySpark and user
    modules as the driver. A PYSPARK_PYTHON inherited from another environment is not used
    in local mode (it is reported); on a cluster it names the workers' Python."""
    if conf.get("spark.pyspark.python"):
        return conf["spark.pyspark.python"]
    inherited = os.environ.get("PYSPARK_PYTHON", "")
    if not master.startswith("local"):
        return inherited or sys.executable
    if inherited and os.path.abspath(shutil.which(inherited) or inherited) != os.path.abspath(sys.executable):
        print(f"[kindling] PYSPARK_PYTHON={inherited} is not used: in local mode Spark's Python workers run "
              f"this job's interpreter {sys.executable} (set spark.pyspark.python to choose another)",
              file=sys.stderr, flush=True)
    return sys.executable


_WORKER_LAUNCHER = """#!/bin/sh
# Spark's Python workers of one Kindling run: {python}, importing the installed, compiled
# PySpark ahead of the source zip Spark puts first on their path (zip imports are compiled
# again by every worker, which doubles their start-up).
PYTHONPATH={lib}"${{PYTHONPATH:+:$PYTHONPATH}}"
export PYTHONPATH
exec {python} "$@"
"""


def _worker_launcher(python: str, directory: str) -> str:
    """A launcher for ``python`` in this run's own ``directory``, or ``python`` itself when
    PySpark is not installed as a plain package directory."""
    import py4j
    import pyspark

    packages = [os.path.dirname(os.path.abspath(m.__file__)) for m in (pyspark, py4j)]
    path = os.path.join(directory, "python")
    if os.path.exists(path) or not all(os.path.isdir(p) for p in packages):
        return path if os.path.exists(path) else python  # a session started again / PySpark zipped
    lib = os.path.join(directory, "lib")
    os.makedirs(lib, exist_ok=True)
    for package in packages:
        os.symlink(package, os.path.join(lib, os.path.basename(package)))
    with open(path, "w") as f:
        f.write(_WORKER_LAUNCHER.format(python=shlex.quote(python), lib=shlex.quote(lib)))
    os.chmod(path, 0o700)
    return path


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """Sets environment variables while Spark starts (the JVM and PySpark read them then),
    and restores them after, so that they do not leak into the job's own child processes."""
    previous = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in previous.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def get_spark(configuration: Configuration | None = None, parallelism: int | None = None):
    """The active SparkSession, or a new embedded one configured for Kindling."""
    from pyspark.sql import SparkSession

    with _lock:
        active = SparkSession.getActiveSession() or SparkSession._instantiatedSession
        if active is not None:
            return active
        check_java()
        conf = (configuration or Configuration()).to_dict()
        master = conf.get("spark.master") or os.environ.get("KINDLING_SPARK_MASTER") or "local[*]"
        python = worker_python(conf, master)
        scratch = scratch_dir()
        if master.startswith("local") and python == sys.executable:
            python = _worker_launcher(python, os.path.join(scratch, "worker"))
        environment = {"PYTHONPATH": _worker_python_path(), "PYSPARK_PYTHON": python,
                       "PYSPARK_DRIVER_PYTHON": sys.executable}
        if master.startswith("local") and "SPARK_LOCAL_IP" not in os.environ:
            environment["SPARK_LOCAL_IP"] = "127.0.0.1"
        settings = _settings(conf, master, parallelism, scratch)
        settings["spark.executorEnv.PYTHONPATH"] = environment["PYTHONPATH"]
        builder = SparkSession.builder.master(master).appName(conf.get("pipeline.name", "kindling"))
        for key, value in settings.items():
            builder = builder.config(key, value)
        with _environment(environment):
            log_target = conf.get("kindling.spark-log", "")
            if log_target != "console":
                _launch_quiet_jvm(settings, master, log_target or os.path.join(scratch, "spark.log"))
            timing("JVM started")
            active = builder.getOrCreate()
        active.sparkContext.setLogLevel(conf.get("kindling.log-level", "ERROR"))
        timing("SparkSession ready")
        if settings.get("spark.ui.enabled", "true").lower() == "true" and conf.get("kindling.progress", "true") != "false":
            url = active.sparkContext.uiWebUrl
            if url:
                print(f"[kindling] Spark UI: {url}", file=sys.stderr)
        return active


def _settings(conf: dict, master: str, parallelism: int | None, scratch: str) -> dict[str, str]:
    """Kindling's Spark defaults with this run's own directories (warehouse, spill, the JVM's
    temporary files, Derby's), then the user's ``spark.*`` keys."""
    settings = dict(DEFAULTS)
    settings["spark.sql.shuffle.partitions"] = str(parallelism or _local_cores(master))
    settings["spark.sql.warehouse.dir"] = os.path.join(scratch, "warehouse")
    if master.startswith("local") and not os.environ.get("SPARK_LOCAL_DIRS"):
        settings["spark.local.dir"] = os.path.join(scratch, "spark")
    settings.update({k: v for k, v in conf.items() if k.startswith("spark.")})
    if master.startswith("local"):
        java_tmp = os.path.join(scratch, "java")
        os.makedirs(java_tmp, exist_ok=True)
        own = f"-Djava.io.tmpdir={java_tmp} -Dderby.system.home={os.path.join(scratch, 'derby')}"
        settings["spark.driver.extraJavaOptions"] = " ".join(
            o for o in (own, settings.get("spark.driver.extraJavaOptions")) if o)
    return settings


def _launch_quiet_jvm(settings: dict, master: str, log_path: str) -> None:
    """Starts Spark's JVM with its console output (startup warnings, worker prints) sent to
    a log file, so the user's console shows the job's own output. The log is removed at exit
    unless a job failed (or the user named it with ``kindling.spark-log``)."""
    global _log_path
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None:
        return
    spark_conf = SparkConf().setMaster(master)
    for key, value in settings.items():
        spark_conf.set(key, value)
    with open(log_path, "ab") as log:
        SparkContext._gateway = launch_gateway(spark_conf, popen_kwargs={"stdout": log, "stderr": log})
    SparkContext._jvm = SparkContext._gateway.jvm
    _log_path = log_path


def _local_cores(master: str) -> int:
    if master.startswith("local[") and master[6:-1].isdigit():
        return int(master[6:-1])
    return os.cpu_count() or 1
