"""PyFlink's Python dependency API on Spark: files, archives and requirements reach Spark's
Python workers (here the shared local session, which started without them: Kindling adds
them to the running SparkContext)."""
from __future__ import annotations

import os
import zipfile

import pytest

from kindling.common import Types
from kindling.datastream import StreamExecutionEnvironment


def test_dependency_methods_set_pyflinks_configuration_keys(tmp_path):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.add_python_file("a.py")
    env.add_python_file(str(tmp_path))
    env.add_python_archive("venv.tar.gz", "venv")
    env.add_python_archive("hdfs://nn/data.zip")
    env.set_python_requirements("requirements.txt", "cache")
    env.set_python_executable("venv/bin/python")
    env.add_jars("file:///x.jar", "file:///y.jar")
    env.add_classpaths("file:///z.jar")
    conf = env.get_configuration()
    assert conf.get_string("python.files", "") == f"{os.path.abspath('a.py')},{tmp_path}"
    assert conf.get_string("python.archives", "") == f"{os.path.abspath('venv.tar.gz')}#venv,hdfs://nn/data.zip"
    assert conf.get_string("python.requirements", "") == f"{os.path.abspath('requirements.txt')}#{os.path.abspath('cache')}"
    assert conf.get_string("python.executable", "") == "venv/bin/python"
    assert conf.get_string("pipeline.jars", "") == "file:///x.jar,file:///y.jar"
    assert conf.get_string("pipeline.classpaths", "") == "file:///z.jar"


def test_configuration_keys_map_to_spark_settings(tmp_path):
    from kindling.spark.session import cluster_settings, with_submitted_keys

    jar, archive = tmp_path / "x.jar", tmp_path / "env.zip"
    jar.write_bytes(b""), archive.write_bytes(b"")
    conf = with_submitted_keys({"python.executable": "env/bin/python", "python.archives": f"{archive}#env",
                                "pipeline.jars": f"file://{jar}", "spark.jars": "/opt/a.jar"})
    assert conf["spark.pyspark.python"] == "env/bin/python"
    assert cluster_settings(conf, "spark://h:7077") == {"spark.archives": f"{archive}#env",
                                                        "spark.jars": f"/opt/a.jar,{jar}"}
    with pytest.raises(FileNotFoundError, match="pipeline.jars names .*missing.jar, which does not exist"):
        cluster_settings({"pipeline.jars": str(tmp_path / "missing.jar")}, "local[2]")


def test_flinks_own_jars_are_not_given_to_spark(tmp_path):
    # PyFlink's Kafka examples add Flink's connector and format jars (at paths that do not exist):
    # Kindling implements those connectors in Python, and Flink's classes do nothing in Spark
    from kindling.spark.session import cluster_settings

    flink_jars = "file:///path/to/flink-sql-avro-1.15.0.jar,file:///path/to/flink-sql-connector-kafka-1.15.0.jar"
    assert cluster_settings({"pipeline.jars": flink_jars, "pipeline.classpaths": "/opt/flink-json-2.3.0.jar"},
                            "local[2]") == {}
    jar = tmp_path / "udfs.jar"
    jar.write_bytes(b"")
    assert cluster_settings({"pipeline.jars": f"{flink_jars},file://{jar}"}, "local[2]") == {"spark.jars": str(jar)}


def _wheel(directory, name: str, source: str) -> None:
    """A minimal pure-Python wheel ``name``-1.0 in ``directory`` (pip installs it offline)."""
    info = f"{name}-1.0.dist-info"
    with zipfile.ZipFile(directory / f"{name}-1.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr(f"{name}.py", source)
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        wheel.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{info}/RECORD", f"{name}.py,,\n{info}/METADATA,,\n{info}/WHEEL,,\n{info}/RECORD,,\n")


@pytest.mark.parametrize("how", ["python_file", "requirements"])
def test_shipped_modules_reach_the_workers(env, tmp_path, how):
    module = f"shipped_{how}"
    source = f"def tag(v):\n    return '{how}:' + str(v)\n"
    if how == "python_file":
        (tmp_path / "lib").mkdir()
        (tmp_path / "lib" / f"{module}.py").write_text(source)
        env.add_python_file(str(tmp_path / "lib"))
    else:
        (tmp_path / "cache").mkdir()
        _wheel(tmp_path / "cache", module, source)
        (tmp_path / "requirements.txt").write_text(f"{module}==1.0\n")
        env.set_python_requirements(str(tmp_path / "requirements.txt"), str(tmp_path / "cache"))
    code = (f"def f(v):\n    import os, {module}\n"
            f"    return {module}.tag(v) + (':worker' if os.getpid() != {os.getpid()} else ':driver')\n")
    scope: dict = {}
    exec(compile(code, "<job>", "exec"), scope)  # a function whose module the driver cannot import
    with pytest.raises(ImportError):
        __import__(module)
    env.set_parallelism(2)
    stream = env.from_collection([1, 2, 3], type_info=Types.INT()).map(scope["f"], output_type=Types.STRING()) \
        .key_by(lambda s: s).map(lambda s: s, output_type=Types.STRING())
    with stream.execute_and_collect() as results:
        assert sorted(results) == [f"{how}:1:worker", f"{how}:2:worker", f"{how}:3:worker"]


def test_an_archive_is_extracted_for_the_workers_under_its_target_dir(env, tmp_path):
    with zipfile.ZipFile(tmp_path / "model.zip", "w") as archive:
        archive.writestr("weights/factor.txt", "7")
    env.add_python_archive(str(tmp_path / "model.zip"), "model")

    def scale(v: int) -> int:
        from pyspark import SparkFiles

        with open(os.path.join(SparkFiles.get("model"), "weights", "factor.txt")) as f:
            return v * int(f.read())

    env.set_parallelism(2)
    stream = env.from_collection([1, 2, 3], type_info=Types.INT()).key_by(lambda v: v % 2).map(scale, Types.INT())
    with stream.execute_and_collect() as results:
        assert sorted(results) == [7, 14, 21]


def test_requirements_with_compiled_extensions_are_refused_with_the_alternative(tmp_path, monkeypatch):
    from kindling.spark import session

    monkeypatch.setattr(session, "_scratch", str(tmp_path / "scratch"))
    (tmp_path / "scratch").mkdir()
    _wheel(tmp_path, "native_dep", "")
    with zipfile.ZipFile(tmp_path / "native_dep-1.0-py3-none-any.whl", "a") as wheel:
        wheel.writestr("native_dep_ext.so", b"\0")
    (tmp_path / "requirements.txt").write_text("native_dep==1.0\n")
    with pytest.raises(RuntimeError, match=r"compiled extensions \(native_dep_ext.so.*add_python_archive"):
        session._requirements_zip(f"{tmp_path / 'requirements.txt'}#{tmp_path}", str(tmp_path / "scratch"))


def test_configuration_keys_set_by_the_job_ship_as_the_methods_do(env, tmp_path):
    """``python.files`` / ``python.archives`` in the job's own Configuration (as PyFlink's
    ``env.configure(...)`` or flink-conf.yaml carry them), without the methods."""
    from kindling.common import Configuration

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "shipped_by_key.py").write_text("def tag(v):\n    return f'key:{v}'\n")
    with zipfile.ZipFile(tmp_path / "table.zip", "w") as archive:
        archive.writestr("offset.txt", "100")
    conf = Configuration()
    conf.set_string("python.files", str(tmp_path / "lib"))
    conf.set_string("python.archives", f"{tmp_path / 'table.zip'}#table")
    env.configure(conf)
    scope: dict = {}
    exec(compile("def f(v):\n    import os, shipped_by_key\n    from pyspark import SparkFiles\n"
                 "    with open(os.path.join(SparkFiles.get('table'), 'offset.txt')) as f:\n"
                 "        return shipped_by_key.tag(v + int(f.read()))\n", "<job>", "exec"), scope)
    env.set_parallelism(2)
    stream = env.from_collection([1, 2], type_info=Types.INT()).key_by(lambda v: v % 2) \
        .map(scope["f"], output_type=Types.STRING())
    with stream.execute_and_collect() as results:
        assert sorted(results) == ["key:101", "key:102"]


JOB_USING_EVERY_OPTION = '''
import os, sys
from pyspark import SparkFiles
from kindling.common import Types
from kindling.datastream import StreamExecutionEnvironment
from kindling.spark.session import get_spark

def probe(v):
    import from_pyfs, from_pyreq  # shipped with -pyfs and -pyreq; the driver never imports them
    with open(os.path.join(SparkFiles.get("model"), "factor.txt")) as f:  # extracted by -pyarch
        factor = int(f.read())
    return f"{from_pyfs.NAME}:{from_pyreq.NAME}:{v * factor}:{os.environ.get('WORKER_PYTHON_MARK')}"

env = StreamExecutionEnvironment.get_execution_environment()
env.from_collection([1, 2, 3], type_info=Types.INT()).key_by(lambda v: v % 2) \\
    .map(probe, output_type=Types.STRING()).print()
env.execute()
jars = get_spark().sparkContext._jsc.sc().listJars().mkString(",").split(",")  # the jars Spark serves
print("jars", any(j.endswith("/extra.jar") for j in jars), "key", env.get_configuration().get_string("my.key", ""))
'''


@pytest.mark.slow
def test_kindling_run_ships_pyfs_pyarch_pyreq_pyexec_and_jars(tmp_path):
    """Every dependency option of ``kindling run``, end to end in one local run on Spark's
    Python workers: -pyfs, -pyarch, -pyreq (offline cache), -pyexec (a launcher that marks
    the workers' environment), -j (a jar in Spark's list) and -D."""
    import subprocess
    import sys

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "from_pyfs.py").write_text("NAME = 'pyfs'\n")
    (tmp_path / "cache").mkdir()
    _wheel(tmp_path / "cache", "from_pyreq", "NAME = 'pyreq'\n")
    (tmp_path / "requirements.txt").write_text("from_pyreq==1.0\n")
    with zipfile.ZipFile(tmp_path / "model.zip", "w") as archive:
        archive.writestr("factor.txt", "7")
    with zipfile.ZipFile(tmp_path / "extra.jar", "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    launcher = tmp_path / "worker-python"
    launcher.write_text(f"#!/bin/sh\nWORKER_PYTHON_MARK=pyexec exec {sys.executable} \"$@\"\n")
    launcher.chmod(0o755)
    (tmp_path / "job").mkdir()
    (tmp_path / "job" / "every_option.py").write_text(JOB_USING_EVERY_OPTION)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KINDLING_CONF")}
    command = [sys.executable, "-m", "kindling", "run", "--master", "local[2]", "-pyfs", str(tmp_path / "lib"),
               "-pyarch", f"{tmp_path / 'model.zip'}#model", "-pyreq", f"{tmp_path / 'requirements.txt'}#"
               f"{tmp_path / 'cache'}", "-pyexec", str(launcher), "-j", str(tmp_path / "extra.jar"),
               "-D", "my.key=v", "-D", "parallelism.default=2", "-D", "kindling.progress=false",
               str(tmp_path / "job" / "every_option.py")]
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    *printed, last = result.stdout.splitlines()
    assert sorted(line.split("> ")[-1] for line in printed) == ["pyfs:pyreq:14:pyexec", "pyfs:pyreq:21:pyexec",
                                                                 "pyfs:pyreq:7:pyexec"]
    assert last == "jars True key v"
