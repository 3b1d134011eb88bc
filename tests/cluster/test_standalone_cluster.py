"""A job on a real Spark standalone cluster (a Master and two Workers of 1 core / 1 GB on
127.0.0.1, started from pyspark's own jars), submitted with ``kindling run``: the workers'
Python has no Kindling, so the package, the job's directory and its ``-pyfs`` helper module
reach the executors only by being shipped. Its output equals the local run's."""
from __future__ import annotations

import glob
import os
import subprocess
import sys

import pytest

from standalone import standalone_cluster

HERE = os.path.dirname(os.path.abspath(__file__))
JOB = os.path.join(HERE, "job", "windowed_job.py")
CLUSTER_JOBS = os.path.join(HERE, "job", "cluster_jobs.py")  # both modes and the rebalanced job, one driver
HELPERS = os.path.join(HERE, "lib")
READINGS = "30"


def kindling_run(*options: str, cwd: str, job: tuple[str, ...] = (JOB, READINGS)) -> list[str]:
    """Runs ``job`` (a program and its arguments) with ``python -m kindling run OPTIONS``; its printed
    lines."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KINDLING_CONF", "KINDLING_TIMING")}
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    command = [sys.executable, "-m", "kindling", "run", *options, "-pyfs", HELPERS,
               "-D", "kindling.progress=false", "-D", f"kindling.spark-log={os.path.join(cwd, 'driver.log')}",
               *job]
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stderr[-6000:]}"
    return result.stdout.splitlines()


def by_job(lines: list[str]) -> dict[str, list[str]]:
    """cluster_jobs.py's printed lines, sorted, under the name of the job that printed them."""
    jobs: dict[str, list[str]] = {}
    current = jobs.setdefault("", [])  # what came before the first job (nothing)
    for line in lines:
        if line.startswith("#### "):
            current = jobs.setdefault(line[len("#### "):], [])
        else:
            current.append(line)
    return {name: sorted(printed) for name, printed in jobs.items() if name or printed}


def expected_windows(n: int) -> list[str]:
    """(sensor, window start, count, sum) of every 10 s window, as the job prints them."""
    sys.path.insert(0, HELPERS)
    try:
        from sensor_windows import readings
    finally:
        sys.path.remove(HELPERS)
    windows: dict[tuple[str, int], list[int]] = {}
    for sensor, value, timestamp in readings(n):
        windows.setdefault((sensor, timestamp // 10_000 * 10_000), []).append(value)
    return sorted(f"({s},{start},{len(v)},{sum(v)})" for (s, start), v in windows.items())


@pytest.fixture(scope="module")
def worker_python(tmp_path_factory) -> str:
    """A Python environment for the workers with PySpark and its dependencies (this one's
    site-packages through a .pth file) but without Kindling, whose editable install this
    environment finds through a .pth file that a listed path does not run."""
    venv = tmp_path_factory.mktemp("workers") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    own_site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()
    import pyspark

    with open(os.path.join(own_site, "dependencies.pth"), "w") as f:
        f.write(os.path.dirname(os.path.dirname(os.path.abspath(pyspark.__file__))) + "\n")
    probe = subprocess.run([python, "-c", "import pyspark, pandas, pyarrow\nimport kindling"],
                           capture_output=True, text=True, cwd=str(venv), env={"PATH": os.environ["PATH"]})
    assert "No module named 'kindling'" in probe.stderr, probe.stderr
    return python


@pytest.mark.slow
def test_keyed_windowed_job_on_a_standalone_cluster_equals_the_local_run(tmp_path, worker_python):
    local = sorted(kindling_run("--master", "local[2]", cwd=str(tmp_path)))
    assert sorted(line.split("> ", 1)[1] for line in local) == expected_windows(int(READINGS)), local
    cluster_dir = tmp_path / "cluster"
    with standalone_cluster(str(cluster_dir), workers=2, cores=1, memory="1g") as master:
        options = ("--master", master, "-pyexec", worker_python, "-D", "spark.executor.memory=512m",
                   "-D", "spark.scheduler.minRegisteredResourcesRatio=1", "-D", "spark.locality.wait=0")
        jobs = by_job(kindling_run(*options, cwd=str(tmp_path), job=(CLUSTER_JOBS, READINGS, "200")))
    assert list(jobs) == ["one-step=true", "one-step=false", "rebalanced"], list(jobs)
    # one Spark batch job; streaming micro-batches
    assert [jobs["one-step=true"], jobs["one-step=false"]] == [local, local]
    rebalanced = jobs["rebalanced"]
    # a rebalance()d map at parallelism 2: each instance gets half of the elements, on an executor of its own
    where = {line.split("> ", 1)[1] for line in rebalanced}
    assert len(rebalanced) == 200 and len(where) == 2, where
    assert sorted(w.split()[1] for w in where) == ["0", "1"] and len({w.split()[-1] for w in where}) == 2, where
    assert sorted(rebalanced.count(line) for line in set(rebalanced)) == [100, 100]
    # the executors got Kindling, the job's directory and the -pyfs helpers as shipped zips
    zips = glob.glob(str(cluster_dir / "worker*" / "work" / "app-*" / "*" / "*.zip"))
    shipped = {os.path.basename(p) for p in zips}
    executors = {os.path.dirname(path) for path in zips}  # of the one Spark application: those that ran Python tasks
    print(f"executors that ran Python tasks: {len(executors)} of 2")
    assert {"kindling-package.zip", "job-modules.zip"} <= shipped and any(n.startswith("lib-") for n in shipped), shipped
