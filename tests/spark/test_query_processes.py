"""Fast tests (no Spark) of what the Python processes Spark starts for every streaming query
import: each query starts a stream source runner per Kindling source and, per keyed operator, a
runner learning its state schema, fresh interpreters each, which unpickle a source's plan (its
spec and format) or an operator. What they import is paid on every query (docs/testing.md)."""
from __future__ import annotations

import os
import subprocess
import sys

import cloudpickle

from kindling.spark.sources import KindlingSource
from kindling.table import DataTypes, Schema
from kindling.table.formats import file_source

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: the Table API and its SQL parser, which reading a table's files does not need
TABLE_API = ("kindling.table.table_environment", "kindling.table.table", "kindling.table.sql_dialect", "sqlglot")


def _imported_on_unpickling(payload: bytes) -> set[str]:
    """The modules a fresh interpreter holds after importing Spark's stream source runner and
    unpickling ``payload``."""
    script = ("import sys, cloudpickle\n"
              "import pyspark.sql.streaming.python_streaming_source_runner\n"
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
