"""Fast tests (no Spark) of what the Python processes Spark starts for every streaming query
import: each query starts a stream source runner per Kindling source and, per keyed operator, a
runner learning its state schema, fresh interpreters each, which unpickle a source's plan (its
spec and format) or an operator (KeyedStageProcessor, whose ``init`` that runner calls without a task). What they import is paid on every query (docs/testing.md)."""
from __future__ import annotations

import os
import subprocess
import sys

import cloudpickle

from kindling.common import Types
from kindling.datastream import KeyedProcessFunction
from kindling.runtime.keyed_operator import KeyedProcessOperator
from kindling.spark.keyed import KeyedStageProcessor
from kindling.spark.sources import KindlingSource
from kindling.spark.stage_plan import PrintExit, StagePlan
from kindling.table import DataTypes, Schema
from kindling.table.formats import file_source

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: the Table API and its SQL parser, which reading a table's files does not need
TABLE_API = ("kindling.table.table_environment", "kindling.table.table", "kindling.table.sql_dialect", "sqlglot")


#: what a keyed operator's state-schema runner does not need: planning, tasks and what they import
TASK_SIDE = ("pyarrow", "kindling.datastream", "kindling.runtime.batch", "kindling.runtime.keyed_operator",
             "kindling.spark.one_step", "kindling.spark.stage", "kindling.spark.sources", "kindling.spark.codec")


def _imported_on_unpickling(payload: bytes, runner: str = "python_streaming_source_runner") -> set[str]:
    """The modules a fresh interpreter holds after importing Spark's ``runner`` (the stream source
    runner unless told) and unpickling ``payload``."""
    script = ("import sys, cloudpickle\n"
              f"import pyspark.sql.streaming.{runner}\n"
              "cloudpickle.loads(sys.stdin.buffer.read())\n"
              "print('\\n'.join(sys.modules))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", script], input=payload, capture_output=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    return set(done.stdout.decode().split())


def test_a_stream_source_runner_reading_a_table_s_files_does_not_import_the_table_api(tmp_path):
    schema = (Schema.new_builder().column("ts", DataTypes.TIMESTAMP(3)).column("name", DataTypes.STRING())
              .column("k", DataTypes.INT()).build())
    source = file_source("csv", schema, {"format": "csv"}, [str(tmp_path)], None)
    imported = _imported_on_unpickling(cloudpickle.dumps((KindlingSource, source)))
    assert "kindling.table.formats" in imported and "kindling.spark.sources" in imported
    assert [m for m in TABLE_API if m in imported] == []


class _Sum(KeyedProcessFunction):
    def process_element(self, value, ctx):
        yield value


def test_a_keyed_operator_s_state_schema_runner_imports_neither_the_tasks_side_nor_pyarrow():
    plan = StagePlan(name="keyed", uid="job-schema/2", root_exits=[0],
                     exits=[PrintExit(index=0, name="print", type_info=Types.STRING())], channels=True)
    processor = KeyedStageProcessor("job-schema/2", KeyedProcessOperator(_Sum()), plan, "EventTime")
    imported = _imported_on_unpickling(cloudpickle.dumps(processor), "transform_with_state_driver_worker")
    assert "kindling.spark.keyed" in imported and "kindling.spark.stage_plan" in imported
    assert sorted(m for m in imported if m.split(".")[0] == "pyarrow" or m in TASK_SIDE
                  or any(m.startswith(t + ".") for t in TASK_SIDE)) == []


def test_the_table_package_s_names_are_there_when_read():
    script = ("import sys\n"
              "import kindling.table as table\n"
              "assert 'kindling.table.table_environment' not in sys.modules\n"
              "from kindling.table import *\n"
              "missing = [n for n in table.__all__ if n not in globals()]\n"
              "assert missing == [], missing\n"
              "assert set(table.__all__) <= set(dir(table))\n"
              "assert table.TableEnvironment.__module__ == 'kindling.table.table_environment'\n"
              "try:\n"
              "    from kindling.table import Module\n"
              "except ImportError as e:\n"
              "    assert 'not supported by Kindling yet' in str(e)\n"
              "else:\n"
              "    raise AssertionError('Module imported')\n"
              "assert not hasattr(table, 'NoSuchName')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
