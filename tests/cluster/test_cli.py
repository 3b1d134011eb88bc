"""``kindling run`` / ``kindling info``: flink run's Python options as configuration keys, and
the master a run would use."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
import zipfile

import pytest

from kindling.cli import _parser, _split_job_arguments, main, run_configuration
from kindling.spark.session import _zip, spark_master


def options(*argv: str):
    return _parser().parse_args(["run", *argv])


def test_python_options_become_pyflink_configuration_keys(tmp_path):
    conf = run_configuration(options(
        "--master", "spark://127.0.0.1:7077", "-pyfs", "a.py,lib", "-pyfs", "c.zip", "-pyarch", "venv.zip#venv",
        "-pyreq", "requirements.txt#cache", "-pyexec", "venv/bin/python", "-j", "x.jar",
        "-D", "parallelism.default=3", "-D", "spark.executor.memory=1g", "job.py", "in.txt"))
    assert conf == {
        "spark.master": "spark://127.0.0.1:7077",
        "python.files": ",".join(os.path.abspath(p) for p in ("a.py", "lib", "c.zip")),
        "python.archives": "venv.zip#venv", "python.requirements": "requirements.txt#cache",
        "python.executable": "venv/bin/python", "pipeline.jars": "x.jar",
        "parallelism.default": "3", "spark.executor.memory": "1g"}


def test_the_job_file_or_module_ends_kindlings_options():
    assert _split_job_arguments(["run", "-D", "a=b", "-d", "--master=local[1]", "job.py", "-D", "x", "-d"]) == \
        (["run", "-D", "a=b", "-d", "--master=local[1]", "job.py"], ["-D", "x", "-d"])
    assert _split_job_arguments(["run", "-pyfs", "lib", "-m", "pkg.job", "--in", "x"]) == \
        (["run", "-pyfs", "lib", "-m", "pkg.job"], ["--in", "x"])
    assert _split_job_arguments(["run", "--", "job.py", "-m"]) == (["run"], ["job.py", "-m"])


def test_a_property_with_its_value_attached_is_one_option():
    """Flink's CLI takes ``-Dkey=value`` as well as ``-D key=value``: the job file after it stays the job's."""
    assert _split_job_arguments(["run", "-Dparallelism.default=2", "job.py", "x"]) == \
        (["run", "-Dparallelism.default=2", "job.py"], ["x"])
    assert run_configuration(options("-Dparallelism.default=2", "-D", "a.b=c", "job.py")) == {
        "parallelism.default": "2", "a.b": "c"}


def test_savepoint_options_become_configuration_keys():
    assert run_configuration(options("-s", "/savepoints/1", "-n", "job.py")) == {
        "execution.savepoint.path": "/savepoints/1", "execution.savepoint.ignore-unclaimed-state": "true"}
    assert _split_job_arguments(["run", "-n", "-s", "sp", "job.py", "-n"]) == \
        (["run", "-n", "-s", "sp", "job.py"], ["-n"])


def test_refused_options_say_why():
    with pytest.raises(SystemExit, match="-D expects key=value"):
        run_configuration(options("-D", "parallelism.default", "job.py"))
    with pytest.raises(SystemExit, match="name the job"):
        main(["run", "--master", "local[1]"])


def test_info_prints_versions_java_and_the_master(capsys, monkeypatch):
    import pyspark

    monkeypatch.delenv("SPARK_REMOTE", raising=False)
    main(["info", "--master", "spark://127.0.0.1:7077"])
    out = capsys.readouterr().out
    assert f"PySpark   {pyspark.__version__}" in out and "\nJava      " in out
    assert "Master    spark://127.0.0.1:7077" in out
    main(["info", "--master", "sc://127.0.0.1:15002"])
    assert "Master    none: Kindling cannot run over Spark Connect" in capsys.readouterr().out


def test_spark_connect_is_refused_naming_what_does_not_work(monkeypatch):
    with pytest.raises(RuntimeError, match=r"Spark Connect \(sc://h:15002\).*callbacks into this driver"):
        spark_master({"spark.master": "sc://h:15002"})
    monkeypatch.delenv("SPARK_REMOTE", raising=False)
    assert spark_master({"spark.master": "spark://h:7077"}) == "spark://h:7077"
    monkeypatch.setenv("SPARK_REMOTE", "sc://h:15002")
    with pytest.raises(RuntimeError, match="SPARK_REMOTE=sc://h:15002"):
        spark_master({"spark.master": "spark://h:7077"})


def test_a_jobs_directory_ships_its_modules_and_packages_only(tmp_path):
    job = tmp_path / "job"
    for path in ("job.py", "helpers.py", "pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/m.py", "pkg/data.csv",
                 "notes/readme.py", ".hidden/x.py", "venv/pyvenv.cfg", "venv/lib/x.py"):
        (job / path).parent.mkdir(parents=True, exist_ok=True)
        (job / path).write_text("")
    with zipfile.ZipFile(_zip(str(job), str(tmp_path / "job.zip"), package=False)) as archive:
        assert sorted(archive.namelist()) == ["helpers.py", "job.py", "pkg/__init__.py", "pkg/sub/__init__.py",
                                              "pkg/sub/m.py"]


@pytest.mark.slow
def test_kindling_run_runs_a_module_with_its_arguments_and_D_options(tmp_path):
    (tmp_path / "argjob.py").write_text(textwrap.dedent('''
        import sys
        from kindling.datastream import StreamExecutionEnvironment

        env = StreamExecutionEnvironment.get_execution_environment()
        print("job", sys.argv[1:], env.get_parallelism(), env.get_configuration().get_string("my.key", ""))
        env.from_collection([1, 2, 3]).map(lambda x: x * 10).print()
        env.execute()
    '''))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KINDLING_CONF")}
    result = subprocess.run([sys.executable, "-m", "kindling", "run", "--master", "local[1]", "-D", "my.key=v",
                             "-D", "parallelism.default=1", "-D", "kindling.progress=false", "-m", "argjob",
                             "--in", "x"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    lines = result.stdout.splitlines()
    assert lines[0] == "job ['--in', 'x'] 1 v"
    assert sorted(line.split("> ")[-1] for line in lines[1:]) == ["10", "20", "30"]


def _started(out: str) -> tuple[int, str]:
    """The pid and log file ``kindling run -d`` printed."""
    return int(out.split("pid ")[1].split(",")[0]), out.split("output in ")[1].split(" (")[0]


def test_detached_run_continues_in_the_background_with_its_log(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KINDLING_STATE_DIR", str(tmp_path / "state"))
    assert main(["run", "-d", "--master", "local[1]", str(tmp_path / "missing_job.py"), "-d"]) == 0
    pid, log = _started(capsys.readouterr().out)
    os.waitpid(pid, 0)  # the background run is this process's child; it ends at once: no such job file
    with open(log) as f:
        assert "missing_job.py does not exist" in f.read()
    os.unlink(log)
    main(["list"])
    assert capsys.readouterr().out == "No running jobs.\n"
    main(["list", "-a"])
    listed = capsys.readouterr().out.splitlines()[1].split()
    assert listed[:2] == [str(pid), "FAILED"] and "local[1]" in listed and listed[-2].endswith("missing_job.py")
    with pytest.raises(SystemExit, match=f"job {pid} is not running \\(FAILED\\)"):
        main(["cancel", str(pid)])
    with pytest.raises(SystemExit, match="no job 1 was started by kindling run -d"):
        main(["cancel", "1"])


def _running(pid: int) -> bool:
    from kindling.common.submission import _alive

    return _alive(pid, None)


def test_kindling_list_shows_a_detached_job_and_cancel_stops_it_with_its_children(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KINDLING_STATE_DIR", str(tmp_path / "state"))
    (tmp_path / "endless_job.py").write_text(textwrap.dedent('''
        import subprocess, sys, time
        child = subprocess.Popen(["sleep", "600"])  # as the Spark JVM a driver starts: in its process group
        with open(sys.argv[1], "w") as f:
            f.write(str(child.pid))
        try:
            time.sleep(600)
        except KeyboardInterrupt:
            print("interrupted: the job's clean-up runs", flush=True)
            raise
    '''))
    ready = tmp_path / "child.pid"
    assert main(["run", "-d", "-D", "parallelism.default=1", str(tmp_path / "endless_job.py"), str(ready)]) == 0
    pid, log = _started(capsys.readouterr().out)
    for _ in range(600):
        if ready.exists() and ready.read_text():
            break
        time.sleep(0.1)
    child = int(ready.read_text())
    main(["list"])
    header, row = capsys.readouterr().out.splitlines()
    assert header.split()[:3] == ["ID", "STATUS", "STARTED"]
    assert row.split()[:2] == [str(pid), "RUNNING"] and f"{tmp_path / 'endless_job.py'} ({log})" in row
    main(["cancel", str(pid)])
    assert capsys.readouterr().out.startswith(f"Cancelled job {pid}")
    os.waitpid(pid, 0)
    for _ in range(100):  # the sleeping child, reparented when the job ended, is reaped by init
        if not _running(child):
            break
        time.sleep(0.1)
    assert not _running(child)
    with open(log) as f:
        assert "interrupted: the job's clean-up runs" in f.read()
    os.unlink(log)
    main(["list", "-a"])
    assert capsys.readouterr().out.splitlines()[1].split()[:2] == [str(pid), "CANCELED"]


@pytest.mark.parametrize("how", ["--master", "SPARK_REMOTE"])
def test_kindling_run_refuses_spark_connect_naming_what_does_not_work(tmp_path, how):
    (tmp_path / "job.py").write_text(textwrap.dedent('''
        from kindling.datastream import StreamExecutionEnvironment

        env = StreamExecutionEnvironment.get_execution_environment()
        env.from_collection([1, 2]).print()
        env.execute()
    '''))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KINDLING_CONF", "KINDLING_SPARK_MASTER")}
    command = [sys.executable, "-m", "kindling", "run", "job.py"]
    if how == "SPARK_REMOTE":
        env["SPARK_REMOTE"] = "sc://127.0.0.1:15002"
    else:
        command[4:4] = ["--master", "sc://127.0.0.1:15002"]
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode != 0
    named = "SPARK_REMOTE=sc://127.0.0.1:15002" if how == "SPARK_REMOTE" else "sc://127.0.0.1:15002"
    assert f"Kindling cannot run over Spark Connect ({named})" in result.stderr, result.stderr[-3000:]
    assert "foreachBatch callbacks into this driver" in result.stderr and "addPyFile" in result.stderr


def test_a_detached_job_records_its_spark_application_once_its_session_exists(tmp_path, monkeypatch):
    import types

    from kindling.common.submission import JobRegistry

    registry = JobRegistry(str(tmp_path))
    record = registry.new_record(job="job.py", master="spark://127.0.0.1:7077", log="job.log")
    registry.started(record, os.getpid())
    context = types.SimpleNamespace(_active_spark_context=types.SimpleNamespace(applicationId="app-2026-0001"))
    monkeypatch.setitem(sys.modules, "pyspark", types.SimpleNamespace(SparkContext=context))
    registry._note_application(record)  # the background job's thread: returns once it has seen the session
    [job] = registry.jobs()
    assert (job["application"], job["status"], job["master"]) == ("app-2026-0001", "RUNNING", "spark://127.0.0.1:7077")
