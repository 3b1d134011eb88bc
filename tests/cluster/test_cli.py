"""``kindling run`` / ``kindling info``: flink run's Python options as configuration keys, and
the master a run would use."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
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


def test_refused_options_say_why():
    with pytest.raises(SystemExit, match="savepoints are not supported"):
        run_configuration(options("-s", "/savepoints/1", "job.py"))
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


def test_detached_run_continues_in_the_background_with_its_log(tmp_path, capsys):
    assert main(["run", "-d", "--master", "local[1]", str(tmp_path / "missing_job.py"), "-d"]) == 0
    out = capsys.readouterr().out
    pid = int(out.split("pid ")[1].split(",")[0])
    log = out.split("output in ")[1].split(" (")[0]
    os.waitpid(pid, 0)  # the background run is this process's child; it ends at once: no such job file
    with open(log) as f:
        assert "missing_job.py does not exist" in f.read()
    os.unlink(log)
