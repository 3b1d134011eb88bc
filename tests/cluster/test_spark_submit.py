"""A Kindling job submitted with PySpark's own ``spark-submit`` runs on the master spark-submit
names (the driver's JVM is spark-submit's), not on an embedded ``local[*]``."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest


@pytest.mark.slow
def test_a_job_started_by_spark_submit_runs_on_its_master(tmp_path):
    import pyspark

    (tmp_path / "submitted_job.py").write_text(textwrap.dedent('''
        from kindling.datastream import StreamExecutionEnvironment
        from kindling.spark.session import get_spark

        env = StreamExecutionEnvironment.get_execution_environment()
        env.from_collection([1, 2, 3]).map(lambda x: x * 10).print()
        env.execute()
        print("master", get_spark().sparkContext.master)
    '''))
    spark_submit = os.path.join(os.path.dirname(os.path.abspath(pyspark.__file__)), "bin", "spark-submit")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KINDLING_CONF", "KINDLING_SPARK_MASTER")}
    env.update(PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1",
               PATH=os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", ""))
    result = subprocess.run([spark_submit, "--master", "local[1]", "--conf", "spark.ui.enabled=false",
                             "submitted_job.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=800)
    assert result.returncode == 0, result.stderr[-4000:]
    *printed, last = result.stdout.splitlines()
    assert last == "master local[1]"
    assert sorted(line.split("> ")[-1] for line in printed) == ["10", "20", "30"]
