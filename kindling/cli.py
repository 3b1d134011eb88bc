"""``kindling`` command line: ``kindling run`` runs a job as ``flink run`` runs a PyFlink job,
with the same Python options, on the embedded local Spark or on the cluster ``--master`` (or
``-D spark.master=...``) names; ``kindling info`` shows what a run would use; ``kindling list``
and ``kindling cancel`` show and stop the jobs ``kindling run -d`` started.

The options reach the job's ``get_execution_environment()`` as configuration (see
``kindling.common.submission``): ``-pyfs`` is ``python.files``, ``-pyarch`` ``python.archives``,
``-pyreq`` ``python.requirements``, ``-pyexec`` ``python.executable``, ``-D k=v`` any key.
"""
from __future__ import annotations

import argparse
import atexit
import json
import os
import runpy
import shutil
import subprocess
import sys
from typing import Sequence

from kindling.common.submission import ENVIRONMENT_VARIABLE, submitted_configuration


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kindling", description="Run PyFlink DataStream jobs on Apache Spark.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser(
        "run", help="run a job (python file or module), locally or on a Spark cluster",
        description="Runs a job as `flink run` does: kindling run [options] job.py [args...] "
                    "or kindling run [options] -m module [args...]")
    run.add_argument("-py", "--python", metavar="FILE", help="the job's Python file")
    run.add_argument("-pym", "--pyModule", "-m", dest="module", metavar="MODULE", help="the job's Python module")
    run.add_argument("-pyfs", "--pyFiles", action="append", default=[], metavar="PATHS",
                     help="comma-separated .py/.zip/.egg/.whl files or directories put on the path of "
                          "the job and of Spark's Python workers (python.files)")
    run.add_argument("-pyarch", "--pyArchives", action="append", default=[], metavar="ARCHIVES",
                     help="comma-separated archive#target_dir, extracted into the workers' working "
                          "directory (python.archives)")
    run.add_argument("-pyreq", "--pyRequirements", metavar="FILE[#CACHE_DIR]",
                     help="requirements installed for the workers (python.requirements)")
    run.add_argument("-pyexec", "--pyExecutable", metavar="PYTHON",
                     help="the Python interpreter of Spark's workers (python.executable)")
    run.add_argument("-D", dest="properties", action="append", default=[], metavar="KEY=VALUE",
                     help="a configuration key, e.g. -D parallelism.default=2 -D spark.executor.memory=1g")
    run.add_argument("--master", "-t", dest="master", metavar="URL",
                     help="Spark master: local[N], spark://host:port, yarn, k8s://... (spark.master)")
    run.add_argument("-d", "--detached", action="store_true",
                     help="start the job in the background and return; its output goes to a log file")
    run.add_argument("-s", "--fromSavepoint", metavar="PATH",
                     help="start the job from this savepoint (execution.savepoint.path)")
    run.add_argument("-n", "--allowNonRestoredState", action="store_true",
                     help="skip savepoint state of operators the job no longer has "
                          "(execution.savepoint.ignore-unclaimed-state)")
    run.add_argument("-j", "--jarfile", action="append", default=[], metavar="JAR", help="jars (pipeline.jars)")
    run.add_argument("args", nargs="*", help="the job file (unless -py/-m) and its arguments")
    listing = commands.add_parser("list", help="the jobs kindling run -d started and that still run")
    listing.add_argument("-a", "--all", action="store_true", help="also those that ended")
    cancel = commands.add_parser("cancel", help="stop a job kindling run -d started")
    cancel.add_argument("id", help="the job's id, as kindling list shows it (its pid)")
    cancel.add_argument("--timeout", type=float, default=30.0,
                        help="seconds to wait for the job to stop before it is killed")
    info = commands.add_parser("info", help="versions, Java and the Spark master a run would use")
    info.add_argument("--master", help="the master to report instead of the configured one")
    info.add_argument("-D", dest="properties", action="append", default=[], metavar="KEY=VALUE")
    return parser


def _properties(pairs: Sequence[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"kindling: -D expects key=value, got {pair!r}")
        values[key.strip()] = value
    return values


def _join(key: str, conf: dict[str, str], entries: Sequence[str]) -> None:
    listed = [e for entry in entries for e in entry.split(",") if e]
    if listed:
        conf[key] = ",".join(filter(None, [conf.get(key, "")] + listed))


def run_configuration(options: argparse.Namespace) -> dict[str, str]:
    """The configuration keys ``kindling run``'s options stand for."""
    conf = _properties(options.properties)
    if options.fromSavepoint:
        conf["execution.savepoint.path"] = os.path.abspath(options.fromSavepoint)
    if options.allowNonRestoredState:
        conf["execution.savepoint.ignore-unclaimed-state"] = "true"
    if options.master:
        conf["spark.master"] = options.master
    _join("python.files", conf, [os.path.abspath(p) for e in options.pyFiles for p in e.split(",") if p])
    _join("python.archives", conf, options.pyArchives)
    _join("pipeline.jars", conf, options.jarfile)
    if options.pyRequirements:
        conf["python.requirements"] = options.pyRequirements
    if options.pyExecutable:
        conf["python.executable"] = options.pyExecutable
    return conf


def _client_path(conf: dict[str, str]) -> list[str]:
    """Where ``python.files`` put modules on the job's own path (a file's directory, a
    directory itself, a zip/egg/whl as it is), as PyFlink's client does."""
    paths = []
    for entry in filter(None, conf.get("python.files", "").split(",")):
        paths.append(os.path.dirname(entry) if entry.endswith(".py") else entry)
    return paths


def _run(options: argparse.Namespace) -> int:
    args = list(options.args)
    if not options.python and not options.module:
        if not args:
            raise SystemExit("kindling run: name the job: kindling run [options] job.py [args...] "
                             "or -m module")
        options.python, args = args[0], args[1:]
    conf = {**submitted_configuration(), **run_configuration(options)}
    _alias_pyflink(conf)
    os.environ[ENVIRONMENT_VARIABLE] = json.dumps(conf)
    sys.path[:0] = [p for p in _client_path(conf) if p not in sys.path]
    if options.module:
        sys.argv = [options.module, *args]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(options.module, run_name="__main__", alter_sys=True)
    else:
        path = os.path.abspath(options.python)
        if not os.path.exists(path):
            raise SystemExit(f"kindling run: the job file {path} does not exist")
        sys.argv = [path, *args]
        sys.path.insert(0, os.path.dirname(path))
        runpy.run_path(path, run_name="__main__")
    return 0


def _alias_pyflink(conf: dict[str, str]) -> None:
    """Lets the job (and the modules Spark's workers import for it) say ``pyflink`` for
    ``kindling``: a job moved from PyFlink runs unchanged."""
    import tempfile

    from kindling.pyflink_alias import install, shim_zip

    install()
    directory = tempfile.mkdtemp(prefix="kindling-alias-")
    atexit.register(shutil.rmtree, directory, True)
    conf["python.files"] = ",".join(filter(None, [conf.get("python.files", ""), shim_zip(directory)]))


def _detach(argv: list[str], options: argparse.Namespace) -> int:
    """Starts ``kindling ARGV`` (the same run without ``-d``) in a new session, records it for
    ``kindling list`` / ``cancel``, and prints its id (the pid) and log file."""
    import tempfile

    from kindling.common.submission import JobRegistry

    conf = {**submitted_configuration(), **run_configuration(options)}
    log = tempfile.NamedTemporaryFile(prefix="kindling-run-", suffix=".log", delete=False)
    registry = JobRegistry()
    job = options.module or os.path.abspath(options.python or (options.args or ["?"])[0])
    master = conf.get("spark.master") or os.environ.get("KINDLING_SPARK_MASTER") or "local[*]"
    record = registry.new_record(job=job, master=master, log=log.name)
    process = subprocess.Popen([sys.executable, "-m", "kindling", *argv], stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, start_new_session=True,
                               env=dict(os.environ, **{JobRegistry.RECORD_VARIABLE: record}))
    registry.started(record, process.pid)
    print(f"Job started in the background: pid {process.pid}, output in {log.name} "
          f"(see it with: kindling list; stop it with: kindling cancel {process.pid})")
    return 0


def _list(options: argparse.Namespace) -> int:
    """Prints the jobs ``kindling run -d`` started (running ones; all with ``-a``), as ``flink list``."""
    from kindling.common.submission import JobRegistry

    jobs = [job for job in JobRegistry().jobs() if options.all or job["status"] == "RUNNING"]
    if not jobs:
        print("No running jobs." if not options.all else "No jobs.")
        return 0
    print(f"{'ID':>8}  {'STATUS':<9}  {'STARTED':<19}  {'APPLICATION':<24}  {'MASTER':<24}  JOB (LOG)")
    for job in jobs:
        print(f"{job['pid']:>8}  {job['status']:<9}  {job['started']:<19}  {job.get('application') or '-':<24}  "
              f"{job['master']:<24}  {job['job']} ({job['log']})")
    return 0


def _cancel(options: argparse.Namespace) -> int:
    """Stops a job ``kindling run -d`` started: SIGTERM to its process group (the driver and
    its Spark JVM), SIGKILL if it has not ended within the grace period."""
    from kindling.common.submission import JobRegistry

    registry = JobRegistry()
    job = registry.find(options.id)
    if job is None:
        raise SystemExit(f"kindling cancel: no job {options.id} was started by kindling run -d "
                         f"(kindling list -a shows them; records in {registry.directory})")
    if job["status"] != "RUNNING":
        raise SystemExit(f"kindling cancel: job {options.id} is not running ({job['status']})")
    registry.cancel(job, options.timeout)
    print(f"Cancelled job {options.id} ({job['job']}).")
    return 0


def _info(options: argparse.Namespace) -> int:
    import platform

    import kindling
    from kindling.spark.session import pyspark_version, spark_master, with_submitted_keys

    conf = with_submitted_keys(_properties(options.properties))
    if options.master:
        conf["spark.master"] = options.master
    try:
        master = spark_master(conf)
    except RuntimeError as exc:
        master = f"none: {exc}"
    java_home = os.environ.get("JAVA_HOME")
    java = os.path.join(java_home, "bin", "java") if java_home else shutil.which("java")
    try:
        result = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
        java_version = (result.stderr or result.stdout).splitlines()[0]
    except Exception as exc:  # noqa: BLE001 -- any failure is what info reports
        java_version = f"not found ({exc}); Spark needs Java 17 or 21"
    print(f"Kindling  {getattr(kindling, '__version__', '')} ({os.path.dirname(kindling.__file__)})")
    print(f"PySpark   {pyspark_version()}")
    print(f"Python    {platform.python_version()} ({sys.executable})")
    print(f"Java      {java_version} ({java})")
    print(f"Master    {master}")
    print(f"Workers'  Python: {conf.get('spark.pyspark.python') or os.environ.get('PYSPARK_PYTHON') or sys.executable}")
    return 0


_FLAGS = {"-d", "--detached", "-n", "--allowNonRestoredState", "-h", "--help"}
_JOB = {"-py", "--python", "-pym", "--pyModule", "-m"}


def _split_job_arguments(argv: list[str]) -> tuple[list[str], list[str]]:
    """``run``'s own options, and the job's arguments: what follows the job file, or the
    module or file named by ``-m``/``-pym``/``-py`` (options after it are the job's)."""
    i = 1
    while i < len(argv):
        token = argv[i]
        if token == "--":
            return argv[:i], argv[i + 1:]
        if token in _JOB:
            return argv[:i + 2], argv[i + 2:]
        if not token.startswith("-"):
            return argv[:i + 1], argv[i + 1:]
        attached = token.startswith("--") and "=" in token or token.startswith("-D") and len(token) > 2  # -Dk=v
        i += 1 if token in _FLAGS or attached else 2  # else: an option, then its value
    return argv, []


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kindling`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    job_arguments: list[str] = []
    if argv[:1] == ["run"]:
        argv, job_arguments = _split_job_arguments(argv)
    options = _parser().parse_args(argv)
    if options.command == "run":
        options.args = list(options.args) + job_arguments
        if options.detached:
            return _detach([a for a in argv if a not in ("-d", "--detached")] + job_arguments, options)
        from kindling.common.submission import JobRegistry

        record = os.environ.pop(JobRegistry.RECORD_VARIABLE, "")
        if record:  # the background process of `kindling run -d`
            return JobRegistry().run_detached(record, lambda: _run(options))
        return _run(options)
    return {"list": _list, "cancel": _cancel, "info": _info}[options.command](options)


if __name__ == "__main__":
    sys.exit(main())
