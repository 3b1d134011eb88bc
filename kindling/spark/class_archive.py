"""A class-data-sharing archive of the driver JVM: the Spark classes an earlier run loaded,
mapped from one file instead of read, parsed and verified again from Spark's jars.

A Spark driver loads some 15,000 classes before its first job ends; on 2 cores that is most of
the 5 s a session takes to start. The first embedded session started with a given Java, Spark
and classpath asks its JVM to write the classes it loaded to an archive when it exits (the JVM
does so after this process has exited); every later session maps that archive (Java's AppCDS,
``-XX:SharedArchiveFile``). An archive is only used once its JVM logged that it was written
whole (Java crashes on a truncated one), and only from a directory no other user can write to.
``kindling.jvm-class-archive: false`` turns this off; archives (about 160 MB, the three most
recently used are kept) live in ``$KINDLING_CACHE_DIR`` (default ``~/.cache/kindling``) under ``jvm/``.
"""
from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import re
import shutil
import time

__all__ = ["archive_java_options"]

#: a JVM that claimed the dump and did not write it in this time is taken to have died
_STALE_SECONDS = 600
#: archives kept (about 160 MB each), the most recently used
_KEPT = 3
#: the JVM's own log only: without it a dump prints warnings (signed jars) on the console
_QUIET = "-Xlog:cds*=off"
_ARCHIVE = re.compile(r"spark-driver-[0-9a-f]{20}\.jsa")  # dumps add the writer's pid and time
_WRITTEN = re.compile(r"Written dynamic archive .*\[\d+ bytes header, (\d+) bytes total\]")


def archive_java_options(conf: dict, spark_home: str) -> str:
    """The Java options for a new driver JVM: map this setup's archive when one was written
    whole, else (when no other JVM is writing it) write it at exit; '' when turned off or when
    the job sets its own class-data-sharing options."""
    switch = str(conf.get("kindling.jvm-class-archive", "true")).strip().lower()
    if switch not in ("true", "false"):
        raise ValueError(f"kindling.jvm-class-archive is true or false, got {switch!r}")
    user_options = conf.get("spark.driver.extraJavaOptions", "")
    if switch == "false" or "SharedArchive" in user_options or "ArchiveClassesAtExit" in user_options:
        return ""
    directory = os.path.join(_cache_dir(), "jvm")
    if any(c.isspace() for c in directory):  # Spark splits the driver's Java options at spaces
        return ""
    name = _setup_key(conf, spark_home)
    archive = os.path.join(directory, name + ".jsa")
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        owner = os.stat(directory)
        if owner.st_uid != os.getuid() or owner.st_mode & 0o022:  # others could plant an archive: code in the JVM
            return ""
        _tidy(directory, archive)
        if os.path.exists(archive):
            return f"{_QUIET} -XX:SharedArchiveFile={archive}"
        claim = os.path.join(directory, name + ".claim")
        if not _claim(claim):
            return ""
        dump = os.path.join(directory, f"{name}.{os.getpid()}.{time.time_ns()}")
        return f"{_QUIET} -XX:ArchiveClassesAtExit={dump}.jsa -Xlog:cds+dynamic=info:file={dump}.log"
    except OSError:  # a read-only or full cache directory: start without an archive
        return ""


def _cache_dir() -> str:
    return os.environ.get("KINDLING_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "kindling")


def _setup_key(conf: dict, spark_home: str) -> str:
    """A name for what an archive is valid for: the Java runtime, Spark's jars and where they are, the
    driver's classpath and Java options (the JVM does not use an archive written under others)."""
    java = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else shutil.which("java")
    java = os.path.realpath(java or "java")
    parts = [java, str(_mtime(java)), os.path.realpath(spark_home)]  # the archive holds the jars' paths
    jars = sorted(glob.glob(os.path.join(spark_home, "jars", "*.jar")))
    parts += [f"{os.path.basename(j)}:{os.path.getsize(j)}" for j in jars]
    parts += [f"{k}={conf.get(k, '')}" for k in ("spark.driver.extraClassPath", "spark.jars", "spark.jars.packages",
                                                 "spark.driver.extraJavaOptions")]
    return "spark-driver-" + hashlib.sha256("\n".join(parts).encode()).hexdigest()[:20]


def _mtime(path: str) -> float:
    try:
        return os.path.getmtime(path)
    except OSError:
        return 0.0


def _claim(path: str) -> bool:
    """Whether this process may write the archive: no other is writing it (a claim left for minutes
    is removed by :func:`_tidy`)."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        return True
    except FileExistsError:
        return False


def _tidy(directory: str, wanted: str) -> None:
    """Makes every dump its JVM logged as written whole its setup's archive; removes dumps and claims
    left for minutes (a JVM that died writing), and all but the most recently used archives
    (``wanted`` is used now; a JVM mapping a removed one keeps its copy)."""
    stale = time.time() - _STALE_SECONDS
    for log in glob.glob(os.path.join(directory, "*.log")):
        dump = log[:-len(".log")] + ".jsa"
        with open(log, errors="replace") as f:
            written = _WRITTEN.search(f.read())
        if written and _size(dump) >= int(written.group(1)):
            with contextlib.suppress(FileNotFoundError):  # another run adopted it first
                os.replace(dump, os.path.join(directory, os.path.basename(log).split(".")[0] + ".jsa"))
                os.unlink(log)
        elif max(_mtime(log), _mtime(dump)) < stale:
            for path in (dump, log):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
    for claim in glob.glob(os.path.join(directory, "*.claim")):
        if _mtime(claim) < stale:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(claim)
    if os.path.exists(wanted):
        os.utime(wanted)
    archives = [p for p in glob.glob(os.path.join(directory, "*.jsa")) if _ARCHIVE.fullmatch(os.path.basename(p))]
    for old in sorted(archives, key=_mtime, reverse=True)[_KEPT:]:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(old)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return -1
