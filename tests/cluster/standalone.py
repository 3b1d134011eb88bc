"""A real Spark standalone cluster on 127.0.0.1 for system tests: one Master and some
Workers started from the pyspark distribution's own launcher classes, each in its own
temporary directory, on free ports, stopped (with their executors) at the end."""
from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from typing import Iterator


def free_port() -> int:
    with contextlib.closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_home() -> str:
    import pyspark

    return os.path.dirname(os.path.abspath(pyspark.__file__))


def _scala() -> str:
    """The Scala version of the distribution's jars (its launcher needs it to find them, as
    Spark's own scripts tell it)."""
    for name in os.listdir(os.path.join(spark_home(), "jars")):
        if name.startswith("spark-core_"):
            return name[len("spark-core_"):].split("-")[0]
    return "2.13"


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    return os.path.join(home, "bin", "java") if home else "java"


def _start(cls: str, args: list[str], directory: str, name: str) -> subprocess.Popen:
    """Starts a Spark daemon class in its own process group (its executors are its children)."""
    env = dict(os.environ, SPARK_HOME=spark_home(), SPARK_LOCAL_IP="127.0.0.1", SPARK_SCALA_VERSION=_scala(),
               SPARK_LOG_DIR=directory, SPARK_WORKER_DIR=os.path.join(directory, "work"))
    env.pop("PYTHONPATH", None)
    env.pop("PYSPARK_PYTHON", None)
    log = open(os.path.join(directory, f"{name}.log"), "wb")
    command = [_java(), "-Xmx256m", f"-Djava.io.tmpdir={directory}", "-Dspark.master.rest.enabled=false", "-cp",
               os.path.join(spark_home(), "jars", "*"), cls, *args]
    return subprocess.Popen(command, cwd=directory, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def _wait_for(url: str, predicate, timeout: float, what: str, logs: str) -> None:
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(url, timeout=5) as response:
                last = response.read().decode()
                if predicate(last):
                    return
        time.sleep(0.5)
    raise TimeoutError(f"{what} within {timeout} s; see the logs in {logs} (last answer: {last[:300]})")


@contextlib.contextmanager
def standalone_cluster(directory: str, workers: int = 2, cores: int = 1, memory: str = "1g",
                       timeout: float = 120) -> Iterator[str]:
    """Runs a standalone cluster and yields its master URL, ``spark://127.0.0.1:PORT``."""
    port, ui = free_port(), free_port()
    processes = [_start("org.apache.spark.deploy.master.Master",
                        ["--host", "127.0.0.1", "--port", str(port), "--webui-port", str(ui)],
                        _mkdir(directory, "master"), "master")]
    master = f"spark://127.0.0.1:{port}"
    try:
        status = f"http://127.0.0.1:{ui}/json/"
        _wait_for(status, lambda text: '"status"' in text, timeout, "the Master did not start", directory)
        for i in range(workers):
            work = _mkdir(directory, f"worker{i}")
            processes.append(_start(
                "org.apache.spark.deploy.worker.Worker",
                [master, "--host", "127.0.0.1", "--cores", str(cores), "--memory", memory,
                 "--webui-port", str(free_port()), "--work-dir", os.path.join(work, "work")],
                work, f"worker{i}"))
        _wait_for(status, lambda text: text.count('"state" : "ALIVE"') >= workers or
                  text.count('"state":"ALIVE"') >= workers, timeout,
                  f"{workers} workers did not register", directory)
        yield master
    finally:
        for process in reversed(processes):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)


def _mkdir(directory: str, name: str) -> str:
    path = os.path.join(directory, name)
    os.makedirs(path, exist_ok=True)
    return path


if __name__ == "__main__":  # manual use: python tests/cluster/standalone.py DIR
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # stop the cluster on kill too
    with standalone_cluster(sys.argv[1]) as url:
        print(url, flush=True)
        with contextlib.suppress(KeyboardInterrupt, SystemExit):
            signal.pause()
