"""Runs do not share anything: each job's workers run its own interpreter, and what a run puts
on disk is its own and gone when it ends."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

JOB = '''import logging
import sys

logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(name)s %(message)s")

from kindling.common import Types
from kindling.datastream import StreamExecutionEnvironment


def where(value):
    import pyspark
    return value[0], value[1], sys.executable, ".zip" in pyspark.__file__


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
pairs = Types.TUPLE([Types.STRING(), Types.INT()])
(env.from_collection([("a", 1), ("b", 2), ("a", 3), ("b", 4)], type_info=pairs)
    .key_by(lambda t: t[0])
    .reduce(lambda a, b: (a[0], a[1] + b[1]))
    .map(where, output_type=Types.TUPLE([Types.STRING(), Types.INT(), Types.STRING(), Types.BOOLEAN()]))
    .print())
env.execute("isolation")
'''


def expected_output(python: str) -> list[str]:
    return sorted(f"({k},{v},{python},false)" for k, v in [("a", 1), ("a", 4), ("b", 2), ("b", 6)])


def printed(stdout: str) -> list[str]:
    """The job's stdout lines without the print sink's ``N> `` prefixes."""
    return sorted(line.split("> ", 1)[-1] for line in stdout.splitlines())


def start_job(python: str, directory: str, other_python: str) -> subprocess.Popen:
    """Starts JOB with ``python`` in ``directory`` (its working and temporary directory), with
    the PYSPARK_PYTHON of another environment inherited, as from a parent process."""
    os.makedirs(os.path.join(directory, "tmp"))
    with open(os.path.join(directory, "job.py"), "w") as f:
        f.write(JOB)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KINDLING_TIMING")}
    env.update(PYSPARK_PYTHON=other_python, TMPDIR=os.path.join(directory, "tmp"), KINDLING_SPARK_MASTER="local[2]")
    return subprocess.Popen([python, "job.py"], cwd=directory, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def check_finished(process: subprocess.Popen, python: str, directory: str) -> None:
    out, err = process.communicate(timeout=1200)
    assert process.returncode == 0, err[-4000:]
    assert printed(out) == expected_output(python), (out, err[-4000:])  # nothing but results on stdout
    assert "is not used" in err  # the inherited PYSPARK_PYTHON was reported, not obeyed
    assert sorted(os.listdir(directory)) == ["job.py", "tmp"]  # no spark-warehouse, metastore_db, derby.log
    assert os.listdir(os.path.join(directory, "tmp")) == []  # the run's own directory is gone


@pytest.fixture(scope="session")
def second_python(tmp_path_factory) -> str:
    """The Python of a second virtual environment with Kindling and its dependencies (those of
    this one, through a .pth file): another sys.executable, another sys.prefix."""
    import kindling

    venv = tmp_path_factory.mktemp("venv") / "second"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    kindling_root = os.path.dirname(os.path.dirname(os.path.abspath(kindling.__file__)))
    with open(os.path.join(site, "kindling-under-test.pth"), "w") as f:
        f.write(f"{kindling_root}\n{sysconfig.get_paths()['purelib']}\n")
    return python


@pytest.mark.slow
def test_two_jobs_from_two_environments_at_once(second_python, tmp_path):
    """Each job's workers run its own interpreter although both start together and each has
    inherited the other's PYSPARK_PYTHON; stdout holds only results though the job logs at
    INFO to stdout; nothing is left in the working or temporary directory."""
    first, second = str(tmp_path / "first"), str(tmp_path / "second")
    jobs = [(sys.executable, first, start_job(sys.executable, first, second_python)),
            (second_python, second, start_job(second_python, second, sys.executable))]
    for python, directory, process in jobs:
        check_finished(process, python, directory)


def test_workers_run_this_interpreter_with_compiled_pyspark(env):
    from kindling.common import Types

    def where(value):
        import pyspark

        return sys.executable, ".zip" in pyspark.__file__

    result = env.from_collection([1, 2, 3, 4]).map(
        where, output_type=Types.TUPLE([Types.STRING(), Types.BOOLEAN()])).execute_and_collect(limit=10)
    assert set(result) == {(sys.executable, False)}


def test_the_session_uses_nothing_shared(spark):
    """Everything the suite's session reads or writes on disk is this run's own: a file another
    process may rewrite (a worker launcher, a log, a warehouse) cannot break it."""
    from kindling.spark.session import scratch_dir

    scratch = scratch_dir()
    assert os.stat(scratch).st_mode & 0o077 == 0 and os.stat(scratch).st_uid == os.getuid()
    conf = spark.sparkContext.getConf()
    python = spark.sparkContext.pythonExec
    assert python == sys.executable or python.startswith(scratch + os.sep)
    for key in ("spark.local.dir", "spark.sql.warehouse.dir"):
        assert conf.get(key).replace("file:", "").startswith(scratch + os.sep), key
    assert f"-Djava.io.tmpdir={scratch}{os.sep}" in conf.get("spark.driver.extraJavaOptions")
    assert conf.get("spark.ui.enabled") == "false"  # no port to share
    assert os.environ.get("PYSPARK_PYTHON") != python  # nothing leaks into the job's child processes


@pytest.fixture
def own_scratch(tmp_path, monkeypatch) -> str:
    """Jobs of this test put their temporary checkpoints in a directory of its own."""
    import kindling.spark.runner as runner

    directory = tmp_path / "scratch"
    directory.mkdir()
    monkeypatch.setattr(runner, "scratch_dir", lambda: str(directory))
    return str(directory)


def checkpoints(directory: str) -> list[str]:
    return [name for name in os.listdir(directory) if name.startswith("checkpoint-")]


def test_temporary_checkpoint_removed_after_success(env, own_scratch):
    env.from_collection([1, 2, 3]).map(lambda x: x + 1).execute_and_collect(limit=10)
    assert checkpoints(own_scratch) == []


def test_temporary_checkpoint_removed_after_failure(env, own_scratch):
    def fail(x):
        raise ValueError("bad element")

    with pytest.raises(Exception, match="bad element"):
        env.from_collection([1, 2, 3]).map(fail).print()
        env.execute("failing")
    assert checkpoints(own_scratch) == []


def test_temporary_checkpoint_removed_after_cancel(env, own_scratch):
    from kindling.spark.runner import JobCancelledError

    def slow(x):
        time.sleep(30)
        return x

    env.get_configuration().set_boolean("kindling.bounded.one-step", False)  # a streaming query, checkpointed
    env.from_collection([1, 2]).map(slow).print()
    client = env.execute_async("cancelled")
    deadline = time.time() + 600
    while not checkpoints(own_scratch) and time.time() < deadline:
        time.sleep(0.2)
    assert checkpoints(own_scratch), "the job never created its checkpoint"
    client.cancel().result()
    with pytest.raises(JobCancelledError):
        client.get_job_execution_result().result()
    assert checkpoints(own_scratch) == []


def test_a_query_whose_python_worker_starts_too_slowly_is_started_again(env, spark, tmp_path, monkeypatch, capsys):
    from kindling.spark.sources import KindlingSource

    """Spark gives a Python worker a fixed 10 s to connect back (a busy machine can take
    longer); a query that failed so before doing anything is started again."""
    marker = tmp_path / "slowed"
    slow = tmp_path / "slow-python"
    slow.write_text(f"""#!/bin/sh
case "$*" in *python_streaming_source_runner*) [ -e {marker} ] || {{ touch {marker}; sleep 12; }} ;; esac
exec "{spark.sparkContext.pythonExec}" "$@"
""")
    slow.chmod(0o700)
    monkeypatch.setattr(spark.sparkContext, "pythonExec", str(slow))
    monkeypatch.setattr(spark, "_kindling_source_registered", False, raising=False)  # registered anew, slowly
    env.get_configuration().set_boolean("kindling.bounded.one-step", False)  # a streaming query
    try:
        assert sorted(env.from_collection([1, 2, 3]).map(lambda x: x * 2).execute_and_collect(limit=10)) == [2, 4, 6]
        assert marker.exists()
        assert "did not connect back within Spark's 10 s" in capsys.readouterr().err
    finally:
        monkeypatch.undo()
        spark.dataSource.register(KindlingSource)  # with the session's own Python again
