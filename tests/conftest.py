"""One SparkSession for the whole test session, shared by every end-to-end test."""
from __future__ import annotations

import os

import pytest

os.environ.setdefault("KINDLING_SPARK_MASTER", "local[2]")


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    """Kindling's own session (its files are this run's, see kindling.spark.session); Spark's
    log goes to pytest's temporary directory, kept for the last few runs."""
    from kindling.common import Configuration
    from kindling.spark.session import get_spark

    conf = Configuration()
    conf.set_string("spark.sql.shuffle.partitions", "2")
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
