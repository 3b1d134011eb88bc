"""What a process reading Kindling's sources imports: Spark starts fresh Python interpreters for a
streaming query's sources (the data source's creation, its stream runner, the planning of its
read) and its workers read them; each imports ``kindling.spark.sources`` and what unpickling the
source's plan needs, never the sink side (kindling/spark/file_sink.py, exit buffers, the operator
chain). Fast: one interpreter, no Spark."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import kindling

SINK_SIDE = ("kindling.spark.file_sink", "kindling.spark.exit_buffers", "kindling.spark.sinks",
             "kindling.spark.stage_plan", "kindling.runtime.chain", "kindling.runtime.channels",
             "kindling.runtime.keyed_operator")


def _modules_after(code: str) -> set[str]:
    root = os.path.dirname(os.path.dirname(kindling.__file__))
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"],
                         env=env, capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_the_stream_reader_of_a_table_csv_source_does_not_import_the_sink_side():
    modules = _modules_after(
        "import pyspark.sql.streaming.python_streaming_source_runner\n"
        "from kindling.spark.sources import KindlingSource, SourcePlan, _StreamReader\n"
        "import kindling.table.formats  # what unpickling a Table csv format imports\n"
        "import kindling.spark.files\n")
    assert "kindling.spark.sources" in modules and "kindling.spark.files" in modules
    assert sorted(m for m in SINK_SIDE if m in modules) == []


def test_the_file_sink_is_where_the_connectors_find_it():
    from kindling.graph.specs import FileSinkSpec
    from kindling.spark import file_sink
    from kindling.spark.connectors import SINKS

    assert SINKS[FileSinkSpec].writer is file_sink.FileWriter
    assert SINKS[FileSinkSpec].stage_buffer is file_sink.PartFileExitBuffer
