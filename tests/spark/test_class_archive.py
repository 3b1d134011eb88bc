"""The driver JVM's class archive (kindling/spark/class_archive.py): the first session of a setup has
its JVM write the classes it loaded when it exits; later sessions map that archive, once its JVM
logged it written whole; a half-written dump is never used."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from kindling.spark import class_archive
from kindling.spark.class_archive import archive_java_options


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KINDLING_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "jvm"


def _spark_home(tmp_path) -> str:
    (tmp_path / "spark" / "jars").mkdir(parents=True, exist_ok=True)
    (tmp_path / "spark" / "jars" / "spark-core.jar").write_bytes(b"jar")
    return str(tmp_path / "spark")


def _option(options: str, flag: str) -> str:
    return next(o.split("=", 1)[1] for o in options.split() if o.startswith(flag + "="))


def _dump_written(options: str, size: int, whole: bool) -> str:
    """What a JVM given ``options`` leaves when it exits: its dump, and its log (written whole or not)."""
    dump = _option(options, "-XX:ArchiveClassesAtExit")
    with open(dump, "wb") as f:
        f.write(b"\0" * (size if whole else size // 2))
    with open(dump[:-len(".jsa")] + ".log", "w") as f:
        f.write("[0.1s][info][cds,dynamic] Copying 13396 klasses\n")
        f.write(f"[0.2s][info][cds,dynamic] Written dynamic archive 0x800 - 0x900 [984 bytes header, {size} bytes total]\n")
    return dump


def test_the_first_session_writes_the_archive_and_the_next_ones_map_it(cache, tmp_path):
    home = _spark_home(tmp_path)
    first = archive_java_options({}, home)
    assert "-XX:ArchiveClassesAtExit=" in first and "-Xlog:cds*=off" in first
    assert archive_java_options({}, home) == ""  # the first one's JVM is writing it
    dump = _dump_written(first, 1000, whole=True)

    later = archive_java_options({}, home)
    archive = _option(later, "-XX:SharedArchiveFile")
    assert os.path.getsize(archive) == 1000 and not os.path.exists(dump)
    assert archive_java_options({}, home) == later
    assert sorted(p.suffix for p in cache.iterdir()) == [".claim", ".jsa"]


def test_a_half_written_dump_is_not_used_and_is_removed_once_stale(cache, tmp_path):
    home = _spark_home(tmp_path)
    dump = _dump_written(archive_java_options({}, home), 1000, whole=False)
    assert archive_java_options({}, home) == "" and os.path.exists(dump)  # its JVM may still be writing
    old = time.time() - 3600
    for path in cache.iterdir():
        os.utime(path, (old, old))
    again = archive_java_options({}, home)  # the claim is stale: this run writes it
    assert "-XX:ArchiveClassesAtExit=" in again and not os.path.exists(dump)


def test_each_setup_has_its_own_archive_and_few_are_kept(cache, tmp_path):
    home = _spark_home(tmp_path)
    archives = []
    for i in range(5):
        conf = {"spark.jars": f"/opt/extra-{i}.jar"}
        _dump_written(archive_java_options(conf, home), 10, whole=True)
        archives.append(_option(archive_java_options(conf, home), "-XX:SharedArchiveFile"))
        os.utime(archives[-1], (time.time() - 100 + i, time.time() - 100 + i))
    assert len(set(archives)) == 5
    moved = tmp_path / "elsewhere"
    (tmp_path / "spark").rename(moved)
    assert "-XX:ArchiveClassesAtExit=" in archive_java_options({"spark.jars": "/opt/extra-4.jar"}, str(moved))
    moved.rename(tmp_path / "spark")
    archive_java_options({"spark.jars": "/opt/extra-4.jar"}, home)
    assert sorted(p.name for p in cache.glob("*.jsa")) == sorted(os.path.basename(a) for a in archives[2:])


def test_what_another_setup_left_is_adopted_or_removed(cache, tmp_path):
    home = _spark_home(tmp_path)
    other = {"spark.jars": "/opt/other.jar"}
    written = _dump_written(archive_java_options(other, home), 10, whole=True)
    half = _dump_written(archive_java_options({"spark.jars": "/opt/third.jar"}, home), 10, whole=False)
    third = os.path.basename(half).split(".")[0]
    old = time.time() - 3600
    for path in (half, half[:-len(".jsa")] + ".log", cache / f"{third}.claim"):
        os.utime(path, (old, old))
    archive_java_options({}, home)  # this setup's run tidies the directory
    names = sorted(p.name for p in cache.iterdir())
    assert not os.path.exists(written) and not any(third in n or n.count(".") > 1 for n in names), names
    assert os.path.basename(written).split(".")[0] + ".jsa" in names


def test_off_when_asked_or_when_the_job_sets_its_own_or_others_can_write_the_cache(cache, tmp_path):
    home = _spark_home(tmp_path)
    assert archive_java_options({"kindling.jvm-class-archive": "false"}, home) == ""
    with pytest.raises(ValueError, match="kindling.jvm-class-archive is true or false, got 'no'"):
        archive_java_options({"kindling.jvm-class-archive": "no"}, home)
    assert archive_java_options({"spark.driver.extraJavaOptions": "-XX:SharedArchiveFile=/x.jsa"}, home) == ""
    cache.mkdir(parents=True)
    cache.chmod(0o777)
    assert archive_java_options({}, home) == "" and list(cache.iterdir()) == []


PROGRAM = """
from kindling.datastream import StreamExecutionEnvironment
from kindling.spark.session import get_spark

env = StreamExecutionEnvironment.get_execution_environment()
print(sorted(env.from_collection([3, 1, 2]).map(lambda x: x * 10).execute_and_collect()))
jvm = get_spark().sparkContext._jvm
with open(f"/proc/{jvm.java.lang.ProcessHandle.current().pid()}/maps") as f:
    print("mapped" if "spark-driver-" in f.read() else "not mapped")
"""


def _written_whole(log) -> bool:
    """Whether the dump ``log`` names is as long as its JVM logged it written."""
    written = class_archive._WRITTEN.search(log.read_text(errors="replace"))
    dump = log.with_suffix(".jsa")
    return bool(written) and dump.exists() and dump.stat().st_size >= int(written.group(1))


@pytest.mark.slow
def test_a_second_run_maps_the_archive_its_first_run_wrote(tmp_path):
    """Two runs of a job, each its own Spark: the first's JVM writes the archive as it exits."""
    program = tmp_path / "job.py"
    program.write_text(PROGRAM)
    env = dict(os.environ, KINDLING_CACHE_DIR=str(tmp_path / "cache"))
    run = lambda: subprocess.run([sys.executable, "-m", "kindling", "run", str(program)], env=env,  # noqa: E731
                                 capture_output=True, text=True, timeout=600)
    first = run()
    assert first.returncode == 0 and first.stdout.split("\n")[:2] == ["[10, 20, 30]", "not mapped"], first.stderr[-2000:]
    jvm = tmp_path / "cache" / "jvm"
    deadline = time.time() + 300
    while not any(_written_whole(log) for log in jvm.glob("*.log")):  # the first JVM exits after its run
        assert time.time() < deadline, list(jvm.iterdir())
        time.sleep(0.2)
    second = run()
    assert second.returncode == 0 and second.stdout.split("\n")[:2] == ["[10, 20, 30]", "mapped"], second.stderr[-2000:]
    assert [p.name.count(".") for p in jvm.glob("*.jsa")] == [1]  # the dump became the archive
    assert class_archive._ARCHIVE.fullmatch(next(jvm.glob("*.jsa")).name)
