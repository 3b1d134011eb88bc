"""The embedded session's set-up, without starting Spark: worker Python, logging, the run's
own directory."""
from __future__ import annotations

import os
import subprocess
import sys

from kindling.spark.session import _environment, _worker_launcher, worker_python


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **env))


def test_library_chatter_stays_off_stdout_whatever_the_root_logger_says():
    done = run_python("""
import logging, sys
import kindling.spark.session
logging.basicConfig(stream=sys.stdout, level=logging.INFO)
for name in ("py4j.clientserver", "py4j.java_gateway", "pyspark.sql"):
    logging.getLogger(name).info("Callback Server Starting")
logging.getLogger("py4j.clientserver").error("There was an exception while executing the Python Proxy on ...")
logging.getLogger("py4j.clientserver").error("the gateway is gone")
print("result")
""")
    assert done.stdout == "result\n"
    assert done.stderr.strip() == "py4j.clientserver ERROR: the gateway is gone"


def test_workers_run_this_interpreter_not_an_inherited_pyspark_python(monkeypatch, capsys):
    monkeypatch.setenv("PYSPARK_PYTHON", "/other/environment/bin/python")
    assert worker_python({}, "local[2]") == sys.executable
    assert "PYSPARK_PYTHON=/other/environment/bin/python is not used" in capsys.readouterr().err
    assert worker_python({"spark.pyspark.python": "/chosen/python"}, "local[2]") == "/chosen/python"
    assert worker_python({}, "spark://cluster:7077") == "/other/environment/bin/python"
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    assert worker_python({}, "local[2]") == sys.executable
    assert capsys.readouterr().err == ""


def test_the_launcher_runs_this_interpreter_with_the_installed_pyspark(tmp_path):
    launcher = _worker_launcher(sys.executable, str(tmp_path / "worker"))
    assert _worker_launcher(sys.executable, str(tmp_path / "worker")) == launcher  # a second session reuses it
    zipped = os.path.join(os.path.dirname(__import__("pyspark").__file__), "python", "lib", "pyspark.zip")
    done = subprocess.run([launcher, "-c", "import sys, pyspark; print(sys.executable, pyspark.__file__)"],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=zipped))
    python, pyspark_file = done.stdout.split()
    assert python == sys.executable and ".zip" not in pyspark_file


def test_the_launcher_leaves_sparks_zips_off_the_workers_path(tmp_path):
    launcher = _worker_launcher(sys.executable, str(tmp_path / "worker"))
    path = os.pathsep.join(["/spark/python/lib/pyspark.zip", "/spark/python/lib/py4j-0.10.9.9-src.zip",
                            "/job dir", "/deps/files.zip"])
    done = subprocess.run([launcher, "-c", "import os; print(os.environ['PYTHONPATH'])"],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=path))
    entries = done.stdout.strip().split(os.pathsep)
    assert entries[0] == str(tmp_path / "worker" / "lib") and entries[1:] == ["/job dir", "/deps/files.zip"]


def test_environment_for_spark_start_is_restored(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/mine")
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    with _environment({"PYTHONPATH": "/for/spark", "PYSPARK_PYTHON": "/launcher"}):
        assert os.environ["PYTHONPATH"] == "/for/spark"
    assert os.environ["PYTHONPATH"] == "/mine" and "PYSPARK_PYTHON" not in os.environ


def test_the_run_directory_is_removed_at_exit_and_only_the_log_of_a_failed_run_kept(tmp_path):
    code = """
import os, kindling.spark.session as s
d = s.scratch_dir()
os.makedirs(os.path.join(d, "spark", "blockmgr"))
s._log_path = os.path.join(d, "spark.log")
open(s._log_path, "w").close()
{fail}
print(d)
"""
    done = run_python(code.format(fail=""), TMPDIR=str(tmp_path))
    assert not os.path.exists(done.stdout.strip()) and os.listdir(tmp_path) == []
    done = run_python(code.format(fail="s.job_failed()"), TMPDIR=str(tmp_path))
    directory = done.stdout.strip()
    assert os.listdir(directory) == ["spark.log"]
    assert f"Spark's log is kept at {directory}/spark.log" in done.stderr
