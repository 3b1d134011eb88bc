"""The SparkSession a job runs on: an active one as it is, else an embedded local one.

Everything an embedded session puts on disk (Spark's log, warehouse, spill and temporary
checkpoints) lives in one directory of this process, unique per run and removed at exit, so
that two runs on one machine, from the same or different Python environments, never share a
file. Spark's Python workers run this process's own interpreter.
"""
from __future__ import annotations

import atexit
import contextlib
import logging
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from typing import Callable, Iterator

from kindling.common.configuration import Configuration
from kindling.spark.class_archive import archive_java_options

_lock = threading.Lock()

STATE_STORE_PROVIDER = "spark.sql.streaming.stateStore.providerClass"
#: Spark's state store that keeps a query's state in the JVM's heap (Flink's ``hashmap`` state backend)
HEAP_STATE_STORE = "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"

DEFAULTS = {
    STATE_STORE_PROVIDER: "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
    # a micro-batch commits its state changes as a changelog instead of a snapshot of the database
    # (snapshots are made in the background): half or less of the commit time of a keyed micro-batch
    "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "true",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.streaming.noDataMicroBatches.enabled": "true",
    "spark.python.worker.reuse": "true",
    "spark.python.authenticate.socketTimeout": "120s",  # Python <-> JVM connections on a busy machine
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


def _not_a_callback_failure(record: logging.LogRecord) -> bool:
    """py4j logs a failing ``foreachBatch`` call with its whole trace; the job reports it."""
    return not record.getMessage().startswith("There was an exception while executing the Python Proxy")


def _quiet_library_loggers() -> None:
    """py4j and PySpark log at INFO (gateway and callback-server chatter): whatever the root
    logger is configured to (PyFlink's examples send it to stdout at INFO), only their
    warnings and errors are shown, on stderr."""
    for name in ("py4j", "pyspark"):
        logger = logging.getLogger(name)
        if not any(getattr(h, "kindling", False) for h in logger.handlers):
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("%(name)s %(levelname)s: %(message)s"))
            handler.addFilter(_not_a_callback_failure)
            handler.kindling = True
            logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = False


_quiet_library_loggers()


# --- timing (KINDLING_TIMING=1 prints the phases of a run on stderr) --------------------------

def _process_start() -> float:
    """When this process started (Linux), else when this module was imported."""
    try:
        with open("/proc/self/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/stat") as f:
            boot = next(int(line.split()[1]) for line in f if line.startswith("btime"))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return time.time()


_TIMING = os.environ.get("KINDLING_TIMING", "") not in ("", "0")
_process_started = _process_start() if _TIMING else 0.0


def timing_enabled() -> bool:
    return _TIMING


def timing(phase: str) -> None:
    """Prints ``phase`` with the seconds since the process started when KINDLING_TIMING is set."""
    if _TIMING:
        print(f"[kindling] timing {time.time() - _process_started:8.3f} s  {phase}", file=sys.stderr, flush=True)


timing("kindling imported")


# --- this run's own directory ----------------------------------------------------------------

_scratch: str | None = None
_scratch_lock = threading.Lock()
_log_path: str | None = None
_exit_hooks: list[Callable[[], None]] = []
_failures = 0


def scratch_dir() -> str:
    """This process's own temporary directory (unique name, private, removed at exit)."""
    global _scratch
    with _scratch_lock:
        if _scratch is None:
            _scratch = tempfile.mkdtemp(prefix=f"kindling-{os.getpid()}-")
            atexit.register(_at_exit, os.getpid())
    return _scratch


def on_exit(hook: Callable[[], None]) -> None:
    """Runs ``hook`` at interpreter exit before this run's directory is removed (jobs still
    running are stopped there)."""
    _exit_hooks.append(hook)


def job_failed() -> str | None:
    """Records that a job failed, so that Spark's log is kept at exit; returns its path."""
    global _failures
    _failures += 1
    return _log_path


def _at_exit(owner: int) -> None:
    """Stops what still runs, then removes this run's directory; Spark's log stays if a job
    failed (and is named on stderr)."""
    if os.getpid() != owner or _scratch is None:  # a forked child exiting normally
        return
    for hook in _exit_hooks:
        try:
            hook()
        except Exception:
            traceback.print_exc()
    if not (_failures and _log_path and os.path.dirname(_log_path) == _scratch):
        shutil.rmtree(_scratch, ignore_errors=True)
        return
    for entry in os.listdir(_scratch):
        path = os.path.join(_scratch, entry)
        if path == _log_path:
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(path)
    print(f"[kindling] a job failed: Spark's log is kept at {_log_path}", file=sys.stderr, flush=True)


# --- the session -----------------------------------------------------------------------------


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


def worker_python(conf: dict, master: str) -> str:
    """The Python Spark's workers run: ``spark.pyspark.python`` when configured, else in local
    mode this very interpreter, so that workers import the same Kindling, PySpark and user
    modules as the driver. A PYSPARK_PYTHON inherited from another environment is not used
    in local mode (it is reported); on a cluster it names the workers' Python."""
    if conf.get("spark.pyspark.python"):
        return conf["spark.pyspark.python"]
    inherited = os.environ.get("PYSPARK_PYTHON", "")
    if not master.startswith("local"):
        return inherited or sys.executable
    if inherited and os.path.abspath(shutil.which(inherited) or inherited) != os.path.abspath(sys.executable):
        print(f"[kindling] PYSPARK_PYTHON={inherited} is not used: in local mode Spark's Python workers run "
              f"this job's interpreter {sys.executable} (set spark.pyspark.python to choose another)",
              file=sys.stderr, flush=True)
    return sys.executable


_WORKER_LAUNCHER = """#!/bin/sh
# Spark's Python workers of one Kindling run: {python}, importing the installed, compiled
# PySpark instead of the source zips Spark puts first on their path (zip imports are compiled
# again by every worker, and every worker reads each zip's directory when it starts a task).
kept=
set -f
IFS=:
for entry in $PYTHONPATH; do
  case "$entry" in
    */pyspark.zip|*/py4j-*.zip) ;;
    *) kept="${{kept:+$kept:}}$entry" ;;
  esac
done
unset IFS
PYTHONPATH={lib}"${{kept:+:$kept}}"
export PYTHONPATH
exec {python} "$@"
"""


def _worker_launcher(python: str, directory: str) -> str:
    """A launcher for ``python`` in this run's own ``directory``, or ``python`` itself when
    PySpark is not installed as a plain package directory."""
    import py4j
    import pyspark

    packages = [os.path.dirname(os.path.abspath(m.__file__)) for m in (pyspark, py4j)]
    path = os.path.join(directory, "python")
    if os.path.exists(path) or not all(os.path.isdir(p) for p in packages):
        return path if os.path.exists(path) else python  # a session started again / PySpark zipped
    lib = os.path.join(directory, "lib")
    os.makedirs(lib, exist_ok=True)
    for package in packages:
        os.symlink(package, os.path.join(lib, os.path.basename(package)))
    with open(path, "w") as f:
        f.write(_WORKER_LAUNCHER.format(python=shlex.quote(python), lib=shlex.quote(lib)))
    os.chmod(path, 0o700)
    return path


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """Sets environment variables while Spark starts (the JVM and PySpark read them then),
    and restores them after, so that they do not leak into the job's own child processes."""
    previous = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in previous.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def existing_spark():
    """The SparkSession this process already has (the active one, or the one created earlier), or None."""
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession() or SparkSession._instantiatedSession


def get_spark(configuration: Configuration | None = None, parallelism: int | None = None):
    """The active SparkSession, or a new embedded one configured for Kindling."""
    from pyspark.sql import SparkSession

    with _lock:
        active = existing_spark()
        conf = with_submitted_keys((configuration or Configuration()).to_dict())
        if active is not None:
            ship_python_dependencies(active, conf, active.sparkContext.master)
            return active
        check_java()
        master = spark_master(conf)
        python = worker_python(conf, master)
        scratch = scratch_dir()
        if master.startswith("local") and python == sys.executable:
            python = _worker_launcher(python, os.path.join(scratch, "worker"))
        environment = {"PYTHONPATH": _worker_python_path(), "PYSPARK_PYTHON": python,
                       "PYSPARK_DRIVER_PYTHON": sys.executable}
        if master.startswith("local") and "SPARK_LOCAL_IP" not in os.environ:
            environment["SPARK_LOCAL_IP"] = "127.0.0.1"
        settings = _settings(conf, master, parallelism, scratch)
        if is_local(master):
            settings["spark.executorEnv.PYTHONPATH"] = environment["PYTHONPATH"]
        else:  # executors get Kindling and the job's modules shipped, not this machine's paths
            for key in ("spark.driver.host", "spark.driver.bindAddress"):
                if key not in conf:
                    settings.pop(key, None)
        settings.update(cluster_settings(conf, master))
        _add_class_archive(settings, conf)
        builder = SparkSession.builder.master(master).appName(conf.get("pipeline.name", "kindling"))
        for key, value in settings.items():
            builder = builder.config(key, value)
        with _environment(environment):
            log_target = conf.get("kindling.spark-log", "")
            if log_target != "console":
                _launch_quiet_jvm(settings, master, log_target or os.path.join(scratch, "spark.log"))
            timing("JVM started")
            active = builder.getOrCreate()
        active.sparkContext.setLogLevel(conf.get("kindling.log-level", "ERROR"))
        ship_python_dependencies(active, conf, master)
        timing("SparkSession ready")
        if settings.get("spark.ui.enabled", "true").lower() == "true" and conf.get("kindling.progress", "true") != "false":
            url = active.sparkContext.uiWebUrl
            if url:
                print(f"[kindling] Spark UI: {url}", file=sys.stderr)
        return active


def _settings(conf: dict, master: str, parallelism: int | None, scratch: str) -> dict[str, str]:
    """Kindling's Spark defaults with this run's own directories (warehouse, spill, the JVM's
    temporary files, Derby's), then the user's ``spark.*`` keys."""
    settings = dict(DEFAULTS)
    settings["spark.sql.shuffle.partitions"] = str(parallelism or _local_cores(master))
    settings["spark.sql.warehouse.dir"] = os.path.join(scratch, "warehouse")
    if master.startswith("local") and not os.environ.get("SPARK_LOCAL_DIRS"):
        settings["spark.local.dir"] = os.path.join(scratch, "spark")
    settings.update({k: v for k, v in conf.items() if k.startswith("spark.")})
    if master.startswith("local"):
        java_tmp = os.path.join(scratch, "java")
        os.makedirs(java_tmp, exist_ok=True)
        own = f"-Djava.io.tmpdir={java_tmp} -Dderby.system.home={os.path.join(scratch, 'derby')}"
        settings["spark.driver.extraJavaOptions"] = " ".join(
            o for o in (own, settings.get("spark.driver.extraJavaOptions")) if o)
    return settings


def _add_class_archive(settings: dict, conf: dict) -> None:
    """Adds the driver JVM's class archive options (kindling/spark/class_archive.py) when this
    process starts that JVM."""
    from pyspark import SparkContext
    from pyspark.find_spark_home import _find_spark_home

    if SparkContext._gateway is None:
        options = archive_java_options(conf, _find_spark_home())
        settings["spark.driver.extraJavaOptions"] = " ".join(
            o for o in (options, settings.get("spark.driver.extraJavaOptions")) if o)


def _launch_quiet_jvm(settings: dict, master: str, log_path: str) -> None:
    """Starts Spark's JVM with its console output (startup warnings, worker prints) sent to
    a log file, so the user's console shows the job's own output. The log is removed at exit
    unless a job failed (or the user named it with ``kindling.spark-log``)."""
    global _log_path
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None:
        return
    spark_conf = SparkConf().setMaster(master)
    for key, value in settings.items():
        spark_conf.set(key, value)
    with open(log_path, "ab") as log:
        SparkContext._gateway = launch_gateway(spark_conf, popen_kwargs={"stdout": log, "stderr": log})
    SparkContext._jvm = SparkContext._gateway.jvm
    _log_path = log_path


def _local_cores(master: str) -> int:
    threads = master[6:-1].split(",")[0]  # local[N] or local[N,F] (F: attempts per task)
    if master.startswith("local[") and threads.isdigit():
        return int(threads)
    return os.cpu_count() or 1


# --- clusters: which master, and the Python code and files executors need --------------------

#: PySpark 4.3's Connect client has transformWithState, dataSource.register and foreachBatch
#: (read in its source, not run here), but a Connect foreachBatch function runs pickled in a
#: server-side Python process, and Kindling's runner needs what only the classic session has.
CONNECT_UNSUPPORTED = (
    "Kindling cannot run over Spark Connect ({master}): PySpark's Connect client has "
    "transformWithState, Python data sources and foreachBatch, but Kindling's runner drives each "
    "micro-batch from foreachBatch callbacks into this driver process (results, watermarks, "
    "collect and job control live here, while Connect runs the callback in a server-side Python "
    "process) and uses the SparkContext and its py4j gateway (addPyFile to ship code, JVM "
    "listeners), which a Connect client does not have. Use a classic master instead: spark.master "
    "(or kindling run --master) set to spark://host:port, yarn or k8s://..., or submit the job with "
    "spark-submit; and unset SPARK_REMOTE")


def pyspark_version() -> str:
    """The version of the PySpark Kindling runs on."""
    import pyspark

    return pyspark.__version__


def spark_master(conf: dict) -> str:
    """The master a new session uses: ``spark.master`` (the job's configuration or ``kindling
    run``'s), else spark-submit's ``--master`` when spark-submit started this driver, else
    KINDLING_SPARK_MASTER, else an embedded ``local[*]``. A Spark Connect address (``sc://``,
    SPARK_REMOTE) is refused with the reason."""
    master = (conf.get("spark.master") or _spark_submit_master() or os.environ.get("KINDLING_SPARK_MASTER") or "")
    remote = conf.get("spark.remote") or os.environ.get("SPARK_REMOTE", "")
    if master.startswith("sc://") or remote:  # PySpark builds a Connect session whenever SPARK_REMOTE is set
        raise RuntimeError(CONNECT_UNSUPPORTED.format(master=master if master.startswith("sc://")
                                                      else f"SPARK_REMOTE={remote}"))
    return master or "local[*]"


def _spark_submit_master() -> str:
    """The master of the spark-submit whose JVM started this Python driver (PySpark then connects
    to that JVM's gateway, named by PYSPARK_GATEWAY_PORT), else ''."""
    if not os.environ.get("PYSPARK_GATEWAY_PORT"):
        return ""
    from pyspark import SparkConf, SparkContext

    SparkContext._ensure_initialized()  # connects to spark-submit's JVM; it starts none
    return SparkConf().get("spark.master", "") or ""


def with_submitted_keys(conf: dict) -> dict:
    """``conf`` over ``kindling run``'s keys, with ``python.executable`` as the workers'
    Python (``spark.pyspark.python``) unless that is set itself."""
    from kindling.common.submission import submitted_configuration

    merged = {**submitted_configuration(), **conf}
    if merged.get("python.executable"):
        merged.setdefault("spark.pyspark.python", merged["python.executable"])
    return merged


def is_local(master: str) -> bool:
    return master.startswith("local")


def _listed(conf: dict, key: str) -> list[str]:
    return _split(conf.get(key, ""))


def _split(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def cluster_settings(conf: dict, master: str) -> dict[str, str]:
    """Spark settings from PyFlink's dependency keys, fixed when the session starts:
    ``python.archives`` (spark.archives,
    ``path#target_dir``), ``pipeline.jars`` / ``pipeline.classpaths`` (spark.jars). On a
    cluster the driver's address is Spark's own choice (SPARK_LOCAL_IP), not 127.0.0.1."""
    settings: dict[str, str] = {}
    archives = [_archive_uri(a) for a in _listed(conf, "python.archives")]
    if archives:
        settings["spark.archives"] = ",".join(_listed(conf, "spark.archives") + archives)
    jars = _spark_jars(conf)
    if jars:
        settings["spark.jars"] = ",".join(_listed(conf, "spark.jars") + jars)
    return settings


def _archive_uri(entry: str) -> str:
    path, _, target = entry.partition("#")
    if "://" not in path:
        path = _existing(path, "python.archives")
    return f"{path}#{target}" if target else path


def _spark_jars(conf: dict) -> list[str]:
    """The URIs of the ``pipeline.jars`` and ``pipeline.classpaths`` Spark's JVMs get. Flink's own
    jars (``flink-*.jar``: its connectors and formats, such as the ``flink-sql-connector-kafka``
    PyFlink's examples add) are left out, existing or not: Kindling implements those connectors
    in Python, and Flink's classes do nothing in Spark."""
    entries = _listed(conf, "pipeline.jars") + _listed(conf, "pipeline.classpaths")
    return [_jar_uri(j) for j in entries if not _FLINK_JAR.match(os.path.basename(j))]


_FLINK_JAR = re.compile(r"flink-.*\.jar$")


def _jar_uri(entry: str) -> str:
    if entry.startswith("file://"):
        entry = entry[len("file://"):]
    return entry if "://" in entry else _existing(entry, "pipeline.jars")


def _existing(path: str, key: str) -> str:
    path = os.path.abspath(os.path.expanduser(path))
    if not os.path.exists(path):
        raise FileNotFoundError(f"{key} names {path}, which does not exist")
    return path


_shipped: dict[int, set[str]] = {}


def ship_python_dependencies(spark, conf: dict, master: str) -> None:
    """Adds the job's Python code to the SparkContext so that every executor imports it: on a
    cluster the ``kindling`` package itself and the directory of the job's main module (zipped),
    always the ``python.files`` (files, packages, zips) and the packages of
    ``python.requirements``. Each is shipped once per session."""
    context = spark.sparkContext
    done = _shipped.setdefault(id(context), set())
    items: list[str] = []
    if not is_local(master):
        items.append(_kindling_package())
        main_file = getattr(sys.modules.get("__main__"), "__file__", None)
        if main_file:
            items.append("job:" + os.path.dirname(os.path.abspath(main_file)))
    items += [_existing(p, "python.files") for p in _listed(conf, "python.files")]
    if conf.get("python.requirements"):
        items.append("requirements:" + conf["python.requirements"])
    for item in items:
        if item not in done:
            context.addPyFile(_as_py_file(item))
            done.add(item)
    # archives and jars of a session started without them (set at start, they are there already)
    started = context.getConf()
    for archive in map(_archive_uri, _listed(conf, "python.archives")):
        if archive not in done and archive not in _split(started.get("spark.archives", "")):
            context.addArchive(archive)
            done.add(archive)
    for jar in _spark_jars(conf):
        if jar not in done and jar not in _split(started.get("spark.jars", "")):
            context._jsc.addJar(jar)
            done.add(jar)


def _as_py_file(item: str) -> str:
    """A file ``SparkContext.addPyFile`` takes (.py, .zip, .egg, .whl) for a file, a package or
    module directory, ``job:<dir>`` (the job's modules) or ``requirements:<file>[#cache]``."""
    directory = os.path.join(scratch_dir(), "shipped")
    os.makedirs(directory, exist_ok=True)
    kind, _, rest = item.partition(":")
    if kind == "requirements":
        return _requirements_zip(rest, directory)
    if kind == "job":
        return _zip(rest, os.path.join(directory, "job-modules.zip"), package=False)
    if item == _kindling_package():
        return _zip(item, os.path.join(directory, "kindling-package.zip"), package=True)
    if os.path.isdir(item):  # as in PyFlink, a directory's modules and packages go on the path
        name = os.path.basename(item.rstrip(os.sep)) or "files"
        return _zip(item, os.path.join(directory, f"{name}-{abs(hash(item))}.zip"), package=False)
    return item


def _kindling_package() -> str:
    import kindling

    return os.path.dirname(os.path.abspath(kindling.__file__))


def _zip(source: str, target: str, package: bool) -> str:
    """Zips the Python modules and packages of ``source`` (a package keeps its name as the
    top directory), skipping hidden directories, virtual environments and caches."""
    import zipfile

    base = os.path.dirname(source.rstrip(os.sep)) if package else source
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for root, dirs, files in os.walk(source):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__")) and
                             not os.path.exists(os.path.join(root, d, "pyvenv.cfg")) and d != "site-packages")
            if root != source and not os.path.exists(os.path.join(root, "__init__.py")) and not package:
                dirs[:] = []  # in a job's directory only packages, not arbitrary data trees
                continue
            for name in sorted(files):
                if name.endswith((".py", ".pyi")) or (package and not name.endswith((".pyc", ".pyo"))):
                    path = os.path.join(root, name)
                    archive.write(path, os.path.relpath(path, base))
    return target


def _requirements_zip(entry: str, directory: str) -> str:
    """``pip install -r requirements --target`` on the driver (offline from the cache
    directory when one is given, as PyFlink's ``requirements_cache_dir``), zipped for the
    executors. Packages with compiled extensions cannot be imported from a zip: ship those in
    a Python environment archive (``add_python_archive`` + ``set_python_executable``)."""
    requirements, _, cache = entry.partition("#")
    requirements = _existing(requirements, "python.requirements")
    target = os.path.join(directory, "requirements")
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
               "--target", target, "-r", requirements]
    if cache:
        command += ["--no-index", "--find-links", _existing(cache, "python.requirements cache directory")]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"installing python.requirements {requirements} failed (pip exit "
                           f"{result.returncode}): {result.stderr.strip()[-2000:]}")
    for root, _dirs, files in os.walk(target):
        compiled = [f for f in files if f.endswith((".so", ".pyd"))]
        if compiled:
            raise RuntimeError(
                f"python.requirements {requirements} installs compiled extensions ({compiled[0]} in "
                f"{root}), which Spark's executors cannot import from a shipped zip: install them in the "
                f"workers' Python, or ship a packed environment with add_python_archive(env.tar.gz, 'env') "
                f"and set_python_executable('env/bin/python')")
    return shutil.make_archive(os.path.join(directory, "requirements"), "zip", target)
