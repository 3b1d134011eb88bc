"""The SparkSession a job runs on: an active one as it is, else an embedded local one."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading

from kindling.common.configuration import Configuration

_lock = threading.Lock()
_ui_reported = False

DEFAULTS = {
    "spark.sql.streaming.stateStore.providerClass":
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.streaming.noDataMicroBatches.enabled": "true",
    "spark.python.worker.reuse": "true",
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


_WORKER_WRAPPER = """#!/bin/sh
# Python for Spark's workers. transformWithState's driver-side worker prints its protocol
# steps on stdout, which is the user's console in local mode: send that to /dev/null.
case "$*" in *transform_with_state_driver_worker*) exec "{python}" "$@" >/dev/null ;; esac
exec "{python}" "$@"
"""


def _worker_python() -> str:
    """This interpreter, wrapped so that Spark's workers do not print on the user's console."""
    import tempfile

    directory = os.path.join(tempfile.gettempdir(), f"kindling-{os.getuid()}")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "python-worker")
    content = _WORKER_WRAPPER.format(python=sys.executable)
    try:
        with open(path) as f:
            current = f.read()
    except OSError:
        current = None
    if current != content:
        tmp = f"{path}.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(content)
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
    return path


def get_spark(configuration: Configuration | None = None, parallelism: int | None = None):
    """The active SparkSession, or a new embedded one configured for Kindling."""
    global _ui_reported
    from pyspark.sql import SparkSession

    with _lock:
        active = SparkSession.getActiveSession() or SparkSession._instantiatedSession
        if active is None:
            check_java()
            conf = (configuration or Configuration()).to_dict()
            master = conf.get("spark.master") or os.environ.get("KINDLING_SPARK_MASTER") or "local[*]"
            os.environ["PYTHONPATH"] = _worker_python_path()
            os.environ.setdefault("PYSPARK_PYTHON", _worker_python())
            os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
            if master.startswith("local"):
                os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
            builder = SparkSession.builder.master(master).appName(conf.get("pipeline.name", "kindling"))
            settings = dict(DEFAULTS)
            settings["spark.sql.shuffle.partitions"] = str(parallelism or _local_cores(master))
            settings["spark.executorEnv.PYTHONPATH"] = os.environ["PYTHONPATH"]
            settings.update({k: v for k, v in conf.items() if k.startswith("spark.")})
            for key, value in settings.items():
                builder = builder.config(key, value)
            log_target = conf.get("kindling.spark-log", "")
            if log_target != "console":
                _launch_quiet_jvm(settings, master, log_target or None)
            active = builder.getOrCreate()
            active.sparkContext.setLogLevel(conf.get("kindling.log-level", "ERROR"))
        if not _ui_reported:
            _ui_reported = True
            url = active.sparkContext.uiWebUrl
            if url and (configuration is None or configuration.get_boolean("kindling.progress", True)):
                print(f"[kindling] Spark UI: {url}", file=sys.stderr)
        return active


def _launch_quiet_jvm(settings: dict, master: str, log_path: str | None) -> None:
    """Starts Spark's JVM with its console output (startup warnings, worker prints) sent to
    a log file, so the user's console shows the job's own output."""
    import tempfile

    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None:
        return
    if log_path is None:
        directory = os.path.join(tempfile.gettempdir(), f"kindling-{os.getuid()}")
        os.makedirs(directory, exist_ok=True)
        log_path = os.path.join(directory, f"spark-{os.getpid()}.log")
    spark_conf = SparkConf().setMaster(master)
    for key, value in settings.items():
        spark_conf.set(key, value)
    log = open(log_path, "ab")
    SparkContext._gateway = launch_gateway(spark_conf, popen_kwargs={"stdout": log, "stderr": log})
    SparkContext._jvm = SparkContext._gateway.jvm
    print(f"[kindling] Spark's log: {log_path}", file=sys.stderr)


def _local_cores(master: str) -> int:
    if master.startswith("local[") and master[6:-1].isdigit():
        return int(master[6:-1])
    return os.cpu_count() or 1
