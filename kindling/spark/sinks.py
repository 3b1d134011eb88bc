"""Sink writers, called by the runner for every micro-batch (or once in BATCH mode): their base,
and those of the print, collect and discarding sinks (each other connector's is in its module;
kindling/spark/connectors.py says which spec each writes).

Each is exactly-once where the target allows: output is keyed by the batch id, so a
batch that Spark replays after a failure rewrites the same output.
"""
from __future__ import annotations

import hashlib
import pickle
import posixpath
import shutil
import sys
import tempfile
from typing import Any, Iterator

import pyarrow.fs as pafs
from py4j.protocol import Py4JError
from pyspark.sql import DataFrame

from kindling.graph.specs import CollectSinkSpec, PrintSinkSpec
from kindling.spark.filesystems import filesystem


class SinkWriter:
    """Writes one sink's part of a micro-batch; returns how many elements it wrote. ``on_driver``:
    it reads the frame on the driver a partition at a time (``toLocalIterator``, one Spark job per
    partition), so the runner computes the frame's partitions together first."""

    on_driver = False

    def write(self, df: DataFrame, batch_id: int) -> int:
        raise NotImplementedError

    def bind(self, checkpoint_dir: str) -> None:
        """The job's checkpoint directory (a streaming job's), where a sink may keep what a replayed
        micro-batch needs."""

    def end_of_input(self) -> None:
        """A bounded job's input ended and every micro-batch is written (before :meth:`finish`)."""

    def finish(self) -> None:
        """The job ended (finished, failed or was cancelled)."""


class SinkBookkeeping:
    """Small files a sink keeps so that a replayed micro-batch writes what its first attempt wrote
    (when the batch was first written, what it compacted, how it spread its records), under the
    job's checkpoint directory once :meth:`bind` names it: kept with Spark's own progress, as
    Flink keeps the like in its checkpoint state, and never in the sink's output. A sink never
    bound (a BATCH job, which is not replayed) keeps them in a temporary directory of this run,
    removed by :meth:`close`."""

    def __init__(self, kind: str, target: str):
        self.name = f"{kind}-{hashlib.sha1(target.encode()).hexdigest()[:16]}"  # one directory per sink target
        self.fs: Any = None
        self.root: str | None = None
        self.temporary = False

    def bind(self, checkpoint_dir: str) -> None:
        self.fs, self.root = filesystem(posixpath.join(checkpoint_dir, "kindling-sinks", self.name))

    def _directory(self) -> str:
        if self.root is None:
            from kindling.spark.session import scratch_dir

            self.fs, self.root, self.temporary = pafs.LocalFileSystem(), tempfile.mkdtemp(dir=scratch_dir()), True
        self.fs.create_dir(self.root, recursive=True)
        return self.root

    def read(self, name: str) -> bytes | None:
        """The content of file ``name`` (None: there is none)."""
        path = posixpath.join(self._directory(), name)
        if self.fs.get_file_info(path).type == pafs.FileType.NotFound:
            return None
        with self.fs.open_input_stream(path) as f:
            return f.read()

    def write(self, name: str, data: bytes) -> None:
        """Writes file ``name`` whole or not at all (a temporary file moved into place)."""
        path = posixpath.join(self._directory(), name)
        with self.fs.open_output_stream(path + ".tmp") as out:
            out.write(data)
        self.fs.move(path + ".tmp", path)

    def names(self, prefix: str = "") -> list[str]:
        """The names of the files kept, those starting with ``prefix``, sorted."""
        infos = self.fs.get_file_info(pafs.FileSelector(self._directory()))
        found = (posixpath.basename(i.path) for i in infos if i.type == pafs.FileType.File)
        return sorted(n for n in found if n.startswith(prefix) and not n.endswith(".tmp"))

    def delete(self, name: str) -> None:
        try:
            self.fs.delete_file(posixpath.join(self._directory(), name))
        except OSError:  # not there (each filesystem says so its own way)
            pass

    def transactions(self, spark: Any, batch_id: int) -> int:
        """How many transactions an exactly-once sink spreads micro-batch ``batch_id`` over:
        ``spark.sql.shuffle.partitions`` when the batch first ran, the same number in a replay
        whatever its parallelism, so that each record goes to the transaction it went to before."""
        name = f"{batch_id}.transactions"
        kept = self.read(name)
        if kept is not None:
            return int(kept)
        n = int(spark.conf.get("spark.sql.shuffle.partitions"))
        self.write(name, str(n).encode("ascii"))
        self.delete(f"{batch_id - 3}.transactions")  # Spark replays the last batch only
        return n

    def close(self) -> None:
        """Removes a temporary directory (a bound one stays with the checkpoint)."""
        if self.temporary:
            shutil.rmtree(self.root, ignore_errors=True)
            self.fs = self.root = None
            self.temporary = False


def local_rows(df: DataFrame) -> Iterator:
    """``df``'s rows on the driver, a partition at a time (``toLocalIterator``: a Spark job per
    partition). Spark 4.3's scheduler files each job under the SQL execution that started it
    (``DAGScheduler.activeQueryToJobs``) and forgets them when that execution ends; the iterator's
    execution ends before its jobs start, so they were never forgotten: every job, and with it its
    plan, cached relations included, stayed in the driver's heap for the session's life (about
    6 MB per Table program). Once the rows are read, the jobs of every execution that has ended
    are forgotten, as Spark does at an execution's end (those of a read stopped early, at the next
    read's end)."""
    yield from df.toLocalIterator()
    _forget_ended_executions(df.sparkSession)


def _forget_ended_executions(spark: Any) -> None:
    scheduler = spark.sparkContext._jsc.sc().dagScheduler()
    try:
        executions = scheduler.activeQueryToJobs().keySet().toArray()
    except Py4JError:  # a Spark without this record keeps no jobs past their execution
        return
    running = spark.sparkContext._jvm.org.apache.spark.sql.execution.SQLExecution
    for execution in executions:
        if running.getQueryExecution(execution) is None:
            scheduler.cleanupQueryJobs(execution)  # through the scheduler's event loop, as Spark does it


class PrintWriter(SinkWriter):
    """Writes the lines a stage formatted (with Flink's ``id:n> `` prefixes, see
    ``PrintExit.line_prefix``) in the order of the DataFrame's partitions."""

    on_driver = True

    def __init__(self, spec: PrintSinkSpec):
        self.stream = sys.stderr if spec.to_stderr else sys.stdout

    def write(self, df: DataFrame, batch_id: int) -> int:
        n = 0
        lines = []
        for row in local_rows(df):
            lines.append(row[0])
            n += 1
            if len(lines) >= 1000:
                print("\n".join(lines), file=self.stream, flush=True)
                lines.clear()
        if lines:
            print("\n".join(lines), file=self.stream, flush=True)
        return n


class CollectWriter(SinkWriter):
    """Hands elements to ``execute_and_collect``'s buffer on the driver, one partition at a time
    (``toLocalIterator``), so a large micro-batch is never held whole on the driver; the buffer
    makes this wait while it is full. Each row holds a list of elements its stage pickled
    (``CollectedExit``, kindling/spark/stage_plan.py)."""

    on_driver = True

    def __init__(self, spec: CollectSinkSpec):
        self.collector = spec.collector

    def write(self, df: DataFrame, batch_id: int) -> int:
        return self.collector.put_chunks(batch_id, (pickle.loads(row[0]) for row in local_rows(df)))

    def finish(self) -> None:
        self.collector.end()


class DiscardWriter(SinkWriter):
    """A sink that drops its rows (Flink's blackhole, DiscardingSink): Spark's ``noop`` writer, which
    computes every column (a count alone would let Spark skip the columns and their errors)."""

    def write(self, df: DataFrame, batch_id: int) -> int:
        from pyspark.sql import Observation
        from pyspark.sql import functions as F

        rows = Observation()
        df.observe(rows, F.count(F.lit(1)).alias("rows")).write.format("noop").mode("overwrite").save()
        return rows.get["rows"]
