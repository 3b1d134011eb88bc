"""``kindling run`` runs every example in examples/ (found, not listed: a new example is covered
when it lands), each as ``kindling run example.py`` runs it, all in one ``kindling run``
process so that Spark starts once (tests/conformance/run_on_kindling.py). An example runs with
no arguments on its bundled data; one that needs a server this test does not start (a Kafka
broker, PostgreSQL) is skipped, naming the test that runs it against one. What the examples
compute is checked in tests/examples/.
"""
from __future__ import annotations

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))
from conformance_support import run_on_kindling  # noqa: E402

# a connector module an example imports -> the server it needs, and where it runs against one
NEEDS_SERVER = {
    "connectors.kafka": "a Kafka broker: tests/connectors/test_kafka_example.py runs it against the test broker",
    "connectors.jdbc": "a PostgreSQL server: tests/connectors/test_jdbc*.py run it against the test server",
}


def example_paths() -> list[str]:
    """Every example, relative to examples/."""
    found = []
    for root, dirs, files in os.walk(EXAMPLES):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")) and d != "data")
        found += [os.path.relpath(os.path.join(root, f), EXAMPLES) for f in sorted(files)
                  if f.endswith(".py") and not f.startswith("_")]
    return found


def needed_server(example: str) -> str | None:
    with open(os.path.join(EXAMPLES, example), encoding="utf-8") as f:
        source = f.read()
    return next((server for module, server in NEEDS_SERVER.items() if module in source), None)


RUNNABLE = [e for e in example_paths() if needed_server(e) is None]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> tuple[dict[str, tuple[str, str]], str]:
    """Each runnable example's (stdout, status), from one ``kindling run`` in a scratch directory."""
    cwd = str(tmp_path_factory.mktemp("examples"))
    paths = [os.path.join(EXAMPLES, e) for e in RUNNABLE]
    results = run_on_kindling(paths, timeout=300 + 240 * len(paths), cwd=cwd)
    return {e: results[p] for e, p in zip(RUNNABLE, paths)}, cwd


def test_examples_are_found():
    assert {"word_count.py", "fraud_detection.py", os.path.join("windowing", "tumbling_time_window.py")} \
        <= set(RUNNABLE)
    assert needed_server("kafka_windows.py") is not None


@pytest.mark.slow
@pytest.mark.timeout(1800)  # the first example waits for the whole kindling run process
@pytest.mark.parametrize("example", example_paths())
def test_kindling_run_runs_the_example(example, outputs):
    server = needed_server(example)
    if server is not None:
        pytest.skip(f"needs {server}")
    results, cwd = outputs
    stdout, status = results[example]
    assert status == "ok", f"kindling run {example} failed: {status}"
    written = [f for _, _, files in os.walk(cwd) for f in files]
    assert stdout.strip() or written, f"{example} printed and wrote nothing"
