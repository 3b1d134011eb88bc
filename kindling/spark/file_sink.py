"""Writing files for the file connector (``FileSink``), on the filesystems kindling/spark/files.py
reads: Spark's tasks write hidden in-progress part files (:class:`TaskPartFiles`: the tasks of the
stage computing the elements, or of a pass of the sink's own), named from the streaming query
(stable across restarts from a checkpoint), the micro-batch and the task's partition; the driver
makes them visible (renames them) once every task of the micro-batch has written, so a replayed
micro-batch rewrites the same part files instead of adding others. With compaction
(:class:`Compaction`) they are committed hidden and become visible compacted. What the sink
remembers between attempts of a micro-batch (when it was first written, what it compacted) is kept
beside the job's checkpoint (:class:`~kindling.spark.sinks.SinkBookkeeping`), never in the output:
a finished job leaves part files only there, as Flink does. A partitioned sink (a table's
PARTITIONED BY, ``FileSinkSpec.partitioning``) writes a task's elements into part files in each
partition directory they go to, and commits partitions (``FileSinkSpec.commit``) at micro-batch
commits and at the end of a bounded input; a partitioned table's reader adds the partition columns
from the directory names (``PartitionColumns``).

Apart from kindling/spark/files.py (listing, splits, reading) so that the processes that only read
files (Spark's Python data source runners, its workers reading a source) do not import the sink
side (exit buffers, the operator chain, the DataStream API).
"""
from __future__ import annotations

import csv
import io
import json
import pickle
import posixpath
import sys
import time
import uuid
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.fs as pafs
from pyspark.sql import DataFrame

from kindling.graph.specs import FileSinkSpec
from kindling.runtime.chain import Record
from kindling.spark.codec import ValueTypeError, codec_for
from kindling.spark.exit_buffers import Cursor, ExitBuffer
from kindling.spark.files import READ_CHUNK_BYTES, _fs
from kindling.spark.filesystems import filesystem
from kindling.spark.rows import WRITTEN_COUNT, WRITTEN_FILE
from kindling.spark.sinks import SinkBookkeeping, SinkWriter
from kindling.spark.stage_plan import ExitPlan


def writes_in_stage(spec: FileSinkSpec, sink_count: int) -> bool:
    """Whether the stage computing a FileSink's records writes their part files itself (a
    ``written`` exit, :class:`PartFileExitBuffer`): when it is the job's only sink."""
    return sink_count == 1


def _part_files_key(spec: FileSinkSpec) -> str:
    """The Spark local property telling a stage's tasks where a micro-batch's part files go."""
    return f"kindling.part-files:{spec.base_path}"


class FileWriter(SinkWriter):
    """Writes a micro-batch into the part files of a FileSink (see the module's docstring): the
    stage computing the elements writes them (a ``written`` exit, kindling/spark/exit_buffers.py), or,
    when the job has other sinks, a pass of its own over the sink's rows."""

    def __init__(self, spec: FileSinkSpec):
        self.spec = spec
        self.fs, self.base = filesystem(spec.base_path)
        self.token: str | None = None
        self.books = SinkBookkeeping("files", spec.base_path)
        self.compaction = Compaction(spec, self.fs, self.base, self.books) if spec.compaction is not None else None
        self.last_batch: int | None = None  # the last micro-batch written
        self.pending_partitions: dict[str, float] | None = None  # a partitioned sink's, since when
        self.spark: Any = None

    def bind(self, checkpoint_dir: str) -> None:
        """Keeps the sink's bookkeeping under the job's checkpoint directory."""
        self.books.bind(checkpoint_dir)

    def _started(self, batch_id: int) -> tuple[int, bool]:
        """When a micro-batch was first written (epoch seconds), and whether this is a later attempt."""
        name = f"{self.spec.part_prefix}-{self.token}-{batch_id}.started"
        kept = self.books.read(name)
        if kept is not None:
            return int(kept), True
        started = int(time.time())
        self.books.write(name, str(started).encode("ascii"))
        self.books.delete(f"{self.spec.part_prefix}-{self.token}-{batch_id - 3}.started")  # Spark replays the last only
        return started, False

    def _bucket(self, started: int) -> str:
        """The bucket directory of a micro-batch first written at ``started`` (epoch seconds)."""
        spec = self.spec
        if not spec.bucket_format:
            return self.base
        if spec.bucket_timezone:
            from zoneinfo import ZoneInfo

            moment = datetime.fromtimestamp(started, ZoneInfo(spec.bucket_timezone))
        else:
            moment = datetime.fromtimestamp(started, timezone.utc).astimezone()
        return posixpath.join(self.base, moment.strftime(spec.bucket_format))

    def write(self, df: DataFrame, batch_id: int) -> int:
        context = df.sparkSession.sparkContext
        query = context.getLocalProperty("sql.streaming.queryId")  # None: a batch job, written at once
        if self.token is None:  # names this job's part files: the same after a restart from the checkpoint
            self.token = (query or uuid.uuid4().hex)[:8]
        started, again = self._started(batch_id)
        directory = self._bucket(started)
        self.fs.create_dir(directory, recursive=True)
        spec = self.spec
        name = f"{spec.part_prefix}-{self.token}-{batch_id}"
        if WRITTEN_FILE in df.columns:  # the stage writes the part files: tell its tasks where
            context.setLocalProperty(_part_files_key(spec), f"{directory}\n{name}")
            try:
                rows = df.collect()
            finally:
                context.setLocalProperty(_part_files_key(spec), None)
        else:
            def write_partition(batches):
                files = TaskPartFiles(spec, None, (directory, name))
                for batch in batches:
                    files.add_batch(batch)
                written = files.close()
                yield pa.RecordBatch.from_arrays([pa.array([w[0] for w in written], pa.string()),
                                                  pa.array([w[1] for w in written], pa.int64())],
                                                 names=[WRITTEN_FILE, WRITTEN_COUNT])

            rows = df.mapInArrow(write_partition, f"{WRITTEN_FILE} string, {WRITTEN_COUNT} long").collect()
        total = 0
        hidden = self.compaction is not None  # compacted files become visible, not part files
        committed = set()
        for pending, count in rows:
            total += count
            committed.add(_committed_name(pending, hidden))
            self.fs.move(pending, _committed_name(pending, hidden))
        if again or any(pending.rsplit(".", 2)[1] != "0" for pending, _ in rows):
            self._remove_earlier_attempts(directory, name, committed)
        if spec.partitioning is not None:
            self._partitions_written(directory, committed, query is not None)
        self.last_batch, self.spark = batch_id, df.sparkSession
        if self.compaction is not None:
            self.compaction.after_batch(df.sparkSession, self.token, batch_id, directory, ending=query is None)
        return total

    def _remove_earlier_attempts(self, directory: str, name: str, committed: set[str]) -> None:
        """Once a micro-batch's part files are committed, removes the files of the batch that this
        attempt did not write: in-progress files of failed task attempts (a task Spark ran again,
        or an earlier attempt of the batch), and part files an earlier attempt committed from tasks
        this one does not have (it ran at a higher parallelism)."""
        partitioned = self.spec.partitioning is not None  # the files are in partition directories
        for info in self.fs.get_file_info(pafs.FileSelector(directory, recursive=partitioned)):
            base = posixpath.basename(info.path)
            if base.lstrip(".").startswith(f"{name}-") and info.path not in committed:
                _delete_if_there(self.fs, info.path)

    def _partitions_written(self, directory: str, committed: set[str], streaming: bool) -> None:
        """Keeps the partitions a micro-batch wrote as pending (since when, if not already), and
        commits those whose ``sink.partition-commit.delay`` has passed (the ``process-time``
        trigger, at each micro-batch's commit: Flink's checkpoint)."""
        pending = self._pending()
        now = time.time()
        for path in committed:
            pending.setdefault(posixpath.relpath(posixpath.dirname(path), directory), now)
        commit = self.spec.commit
        if streaming and not commit.at_end_only:
            due = [p for p, since in pending.items() if (now - since) * 1000 >= commit.delay_ms]
            self._commit(directory, due)
        self.books.write("partitions.pending", json.dumps(pending).encode("utf-8"))

    def _pending(self) -> dict[str, float]:
        """The partitions written and not committed yet (kept beside the checkpoint: a restarted
        job commits them)."""
        if self.pending_partitions is None:
            kept = self.books.read("partitions.pending")
            self.pending_partitions = json.loads(kept.decode("utf-8")) if kept is not None else {}
        return self.pending_partitions

    def _commit(self, directory: str, partitions: list[str]) -> None:
        """Commits partitions: their success file (``sink.partition-commit.policy.kind`` success-file)."""
        name = self.spec.commit.success_file
        for partition in sorted(partitions):
            if name:
                with self.fs.open_output_stream(posixpath.join(directory, partition, name)):
                    pass
            del self.pending_partitions[partition]

    def end_of_input(self) -> None:
        """A bounded job's input ended and all is written: every pending partition is committed, as
        Flink commits them at the end of input."""
        if self.spec.partitioning is not None:
            pending = self._pending()
            self._commit(self.base, list(pending))  # partitioned sinks have no buckets
            self.books.write("partitions.pending", b"{}")

    def finish(self) -> None:
        """The end of the job: what waits for compaction is compacted (as Flink does at the end
        of input), as part of the last micro-batch written."""
        try:
            if self.compaction is not None and self.last_batch is not None:
                try:
                    self.compaction.after_batch(self.spark, self.token, self.last_batch, None, ending=True)
                except Exception as exc:  # noqa: BLE001 - the job has ended: say what stays hidden
                    print(f"[kindling] FileSink {self.spec.base_path}: part files waiting for compaction stay "
                          f"hidden (a restart from the checkpoint compacts them): {exc}", file=sys.stderr, flush=True)
        finally:
            self.books.close()


def _committed_name(pending: str, hidden: bool) -> str:
    """``dir/.name.<attempt>.inprogress`` -> ``dir/name`` (``dir/.name`` when ``hidden``: waiting
    for compaction)."""
    directory, base = posixpath.split(pending)
    return posixpath.join(directory, base[0 if hidden else 1:].rsplit(".", 2)[0])


def _delete_if_there(fs: pafs.FileSystem, path: str) -> None:
    try:
        fs.delete_file(path)
    except (FileNotFoundError, OSError):
        pass


class Compaction:
    """Compaction of a FileSink's part files, as Flink's (``FileSink...enable_compact``): with it,
    a micro-batch's part files are committed hidden (``.<name>``), and per bucket they wait until
    their total size reaches the strategy's threshold, or the number of micro-batches (Flink's
    checkpoints) since the oldest waiting one reaches its count, or the input ends; then the
    compactor joins them into ``compacted-<name of the first>``, which becomes visible, and
    they are deleted.

    Exactly once: the driver decides at the end of each micro-batch (before Spark commits it)
    and first writes a log per compacted file (``<prefix>-<query>-<batch>-<phase><n>.compaction``
    in the sink's bookkeeping: the target and its inputs); Spark's tasks then write each target
    (hidden, then renamed) and delete its inputs. A replay of the micro-batch finds its logs and completes them instead of
    deciding again: a visible target is kept and the inputs the replay wrote again are deleted,
    so no record becomes visible twice and none is lost."""

    def __init__(self, spec: FileSinkSpec, fs: pafs.FileSystem, base: str, books: SinkBookkeeping):
        self.spec = spec
        self.fs = fs
        self.base = base
        self.books = books
        self.strategy, self.compactor = spec.compaction
        self.buckets: set[str] | None = None  # directories that may hold waiting files (None: not listed yet)

    def after_batch(self, spark: Any, token: str, batch_id: int, directory: str | None, ending: bool) -> None:
        """Compacts what is due after micro-batch ``batch_id`` (everything waiting when ``ending``)."""
        phase = "e" if ending and directory is None else "b"  # the end of a streaming job, or a micro-batch
        logs = self._logs(token, batch_id)
        if not any(name.split("-")[-1].startswith(phase) for name in logs):
            requests = self._decide(token, batch_id, directory, ending)
            for k, request in enumerate(requests):
                name = f"{self.spec.part_prefix}-{token}-{batch_id}-{phase}{k}.compaction"
                self.books.write(name, json.dumps(request).encode())
                logs.append(name)
        requests = [json.loads(self.books.read(name)) for name in logs]
        if requests:
            _run_compactions(spark, self.spec, requests)
        for old in self._logs(token, None):
            if int(old.rsplit("-", 2)[-2]) < batch_id - 2:
                self.books.delete(old)

    def _logs(self, token: str, batch_id: int | None) -> list[str]:
        """The names of this query's compaction logs (of micro-batch ``batch_id``, or all)."""
        stem = f"{self.spec.part_prefix}-{token}-" + ("" if batch_id is None else f"{batch_id}-")
        return [name for name in self.books.names(stem)
                if name.endswith(".compaction") and name[len(stem):].count("-") == (0 if batch_id is not None else 1)]

    def _waiting(self, token: str, directory: str | None) -> dict[str, list[tuple[int, str, int]]]:
        """Per bucket, the committed hidden part files of this query: ``(batch, path, size)``."""
        if self.buckets is None:
            infos = self.fs.get_file_info(pafs.FileSelector(self.base, recursive=True, allow_not_found=True))
            self.buckets = {posixpath.dirname(i.path) for i in infos if i.type == pafs.FileType.File}
        if directory is not None:
            self.buckets.add(directory)
        stem = f".{self.spec.part_prefix}-{token}-"
        waiting: dict[str, list[tuple[int, str, int]]] = {}
        for bucket in sorted(self.buckets):
            for info in self.fs.get_file_info(pafs.FileSelector(bucket, allow_not_found=True)):
                name = posixpath.basename(info.path)
                if info.type != pafs.FileType.File or not name.startswith(stem) \
                        or not name.endswith(self.spec.part_suffix) or name.endswith(".inprogress"):
                    continue
                batch = name[len(stem):].split("-", 1)[0]
                if batch.isdigit():
                    waiting.setdefault(bucket, []).append((int(batch), info.path, info.size))
        self.buckets = set(waiting)
        return waiting

    def _decide(self, token: str, batch_id: int, directory: str | None, ending: bool) -> list[dict]:
        """Flink's compact coordinator: per bucket, a request each time the waiting files reach the
        size threshold; the rest when the oldest waited the number of micro-batches, or at the end."""
        threshold = self.strategy.size_threshold
        checkpoints = self.strategy.num_checkpoints_before_compaction
        requests = []
        for bucket, files in self._waiting(token, directory).items():
            files = sorted(f for f in files if f[0] <= batch_id)  # never a later batch's (a failed one's)
            group: list[tuple[int, str, int]] = []
            size = 0
            for f in files:
                group.append(f)
                size += f[2]
                if 0 <= threshold <= size:
                    requests.append(group)
                    group, size = [], 0
            if group and (ending or (checkpoints > 0 and batch_id - group[0][0] + 1 >= checkpoints)):
                requests.append(group)
        out = []
        for group in requests:
            inputs = [path for _, path, _ in group]
            if self.compactor.kind == "identical" and len(inputs) != 1:
                raise ValueError(f"FileCompactor.identical_file_compactor() copies one file, but {len(inputs)} part "
                                 f"files are due for compaction in {posixpath.dirname(inputs[0])}: use "
                                 "concat_file_compactor(), or a strategy that compacts each file alone")
            target = posixpath.join(posixpath.dirname(inputs[0]), "compacted-" + posixpath.basename(inputs[0])[1:])
            out.append({"target": target, "inputs": inputs})
        return out


def _run_compactions(spark: Any, spec: FileSinkSpec, requests: list[dict]) -> None:
    """Spark's tasks write each request's target (unless it is visible already) and delete its inputs."""
    root = spec.base_path
    delimiter = spec.compaction[1].delimiter

    def compact(ids: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        fs = _fs(root)
        for batch in ids:
            for index in batch.column(0).to_pylist():
                request = requests[index]
                target = request["target"]
                if fs.get_file_info(target).type == pafs.FileType.NotFound:
                    directory, name = posixpath.split(target)
                    staged = posixpath.join(directory, f".{name}.inprogress")
                    with fs.open_output_stream(staged) as out:
                        for path in request["inputs"]:
                            try:
                                source = fs.open_input_stream(path)
                            except FileNotFoundError:
                                raise RuntimeError(f"part file {path} to compact into {target} is gone: the "
                                                   "FileSink's hidden files were changed from outside") from None
                            with source:
                                while True:
                                    chunk = source.read(READ_CHUNK_BYTES)
                                    if not chunk:
                                        break
                                    out.write(chunk)
                            if delimiter:
                                out.write(delimiter)
                    fs.move(staged, target)
                for path in request["inputs"]:
                    _delete_if_there(fs, path)
        yield pa.RecordBatch.from_arrays([pa.array([0], pa.int64())], names=["done"])

    spark.range(0, len(requests), 1, len(requests)).mapInArrow(compact, "done long").collect()


class TaskPartFiles:
    """A task's in-progress part files of a FileSink (``.<name>-<partition><suffix>.<attempt>.inprogress``),
    written as elements come: by the stage computing them (values, or a columnar writer's
    columns), or by a pass of the sink's own (the sink's rows). ``where`` is the bucket directory
    and the micro-batch's file name (from the driver; by default the Spark local property
    :func:`_part_files_key`). Row formats roll to a new part file (``-1``, ``-2``, ...) past
    ``part_size`` bytes."""

    def __init__(self, spec: FileSinkSpec, type_info: Any, where: tuple[str, str] | None = None):
        self.spec = spec
        self.type_info = type_info  # the stream's type, for the row format's encoder
        self.where = where
        self.written: list[tuple[str, int]] = []
        self.path: str | None = None
        self.out: Any = None
        self.writer: Any = None  # a bulk format's writer
        self.count = 0
        self.size = 0
        self.partitions: dict[str, TaskPartFiles] = {}  # a partitioned sink's: by partition directory

    @property
    def opened(self) -> bool:
        return self.path is not None or bool(self.written) or any(p.opened for p in self.partitions.values())

    def _where(self) -> tuple[str, str]:
        if self.where is None:
            from pyspark import TaskContext

            where = TaskContext.get().getLocalProperty(_part_files_key(self.spec))
            if not where:
                raise RuntimeError(f"the FileSink writing to {self.spec.base_path} was not told where this "
                                   "micro-batch's part files go")
            self.where = tuple(where.split("\n", 1))
        return self.where

    def _open(self) -> None:
        from pyspark import TaskContext

        context = TaskContext.get()
        directory, name = self._where()
        roll = f"-{len(self.written)}" if self.written else ""
        self.path = posixpath.join(directory, f".{name}-{context.partitionId()}{roll}{self.spec.part_suffix}"
                                              f".{context.attemptNumber()}.inprogress")
        self.out = _fs(self.spec.base_path).open_output_stream(self.path)
        self.count = self.size = 0
        if self.spec.writer is not None:
            self.writer = _BULK_WRITERS[self.spec.writer.kind](self.spec.writer.options, self.out)

    def add_values(self, values: list) -> None:
        """Elements as the stream holds them."""
        if self.spec.partitioning is not None:
            self._add_partitioned(values)
            return
        if self.spec.writer is None:
            self.add_lines(self.spec.encoder.encode_all(values, self.type_info))
            return
        if self.out is None:
            self._open()
        self.writer.write(values)
        self.count += len(values)

    def add_columns(self, arrays: list[pa.Array]) -> None:
        """Elements as the columns of a columnar writer's row type (``FileSinkSpec.columns_type``)."""
        if self.out is None:
            self._open()
        self.writer.write_columns(arrays)
        self.count += len(arrays[0]) if arrays else 0

    def add_lines(self, lines: list[bytes]) -> None:
        """Encoded elements of a row format, a line each; a part file ends with the line that takes
        it to ``part_size`` bytes. The lines of a part file go in one write."""
        part_size = self.spec.part_size
        start = 0
        while start < len(lines):
            if self.out is None:
                self._open()
            end, size = start, self.size
            if part_size:
                while end < len(lines) and size < part_size:
                    size += len(lines[end]) + 1
                    end += 1
            else:
                end = len(lines)
                size += sum(map(len, lines[start:])) + end - start
            self.out.write(b"\n".join(lines[start:end]) + b"\n")
            self.count += end - start
            self.size = size
            if part_size and size >= part_size:
                self._close_part()
            start = end

    def add_batch(self, batch: pa.RecordBatch) -> None:
        """A batch of the sink's rows (``FileSinkSpec.layout``)."""
        if not batch.num_rows:
            return
        layout = self.spec.layout
        if layout == "columns":
            self.add_columns(batch.columns)
        elif layout == "encoded":
            self.add_lines(batch.column(0).to_pylist())
        else:
            self.add_values([pickle.loads(v) for v in batch.column(0).to_pylist()])

    def _close_part(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None
        self.out.close()
        self.written.append((self.path, self.count))
        self.out = self.path = None

    def _add_partitioned(self, values: list) -> None:
        """Elements of a partitioned sink, each into the part files of its partition directory."""
        rows: dict[str, list] = {}
        partitioning = self.spec.partitioning
        for value in values:
            directory, row = partitioning(value)
            rows.setdefault(directory, []).append(row)
        for directory, written in rows.items():
            files = self.partitions.get(directory)
            if files is None:
                bucket, name = self._where()
                path = posixpath.join(bucket, directory)
                _fs(self.spec.base_path).create_dir(path, recursive=True)
                files = self.partitions[directory] = TaskPartFiles(replace(self.spec, partitioning=None), None,
                                                                   (path, name))
            if files.spec.columns_type is not None:
                files.add_columns(codec_for(files.spec.columns_type).encode(written))
            else:
                files.add_values(written)

    def close(self) -> list[tuple[str, int]]:
        """Closes the part files; their paths and counts (none when nothing was written)."""
        if self.out is not None:
            self._close_part()
        written, self.written = self.written, []
        for files in self.partitions.values():
            written.extend(files.close())
        return written


class _ColumnarWriter:
    """Parquet or ORC from the columns of the writer's row type."""

    def __init__(self, kind: str, options: dict, out: Any):
        self.schema = codec_for(options["type_info"]).arrow_schema
        if kind == "parquet":
            import pyarrow.parquet as pq

            self.writer = pq.ParquetWriter(out, self.schema)
        else:
            import pyarrow.orc as orc

            self.writer = orc.ORCWriter(out)

    def write_columns(self, arrays: list[pa.Array]) -> None:
        table = pa.Table.from_arrays(arrays, names=self.schema.names)
        self.writer.write(table if table.schema == self.schema else table.cast(self.schema))

    def close(self) -> None:
        self.writer.close()


class _CsvWriter:
    def __init__(self, options: dict, out: Any):
        self.schema = options["schema"]
        self.text = io.TextIOWrapper(out, encoding="utf-8", newline="")
        self.writer = csv.writer(self.text, **self.schema.dialect())
        if self.schema.use_header:
            self.writer.writerow(self.schema.field_names())

    def write(self, values: list) -> None:
        self.writer.writerows(self.schema.format_fields(v) for v in values)

    def close(self) -> None:
        self.text.flush()
        self.text.detach()


class _AvroWriter:
    def __init__(self, options: dict, out: Any):
        from fastavro.write import Writer

        self.schema = options["schema"]
        self.writer = Writer(out, self.schema.parsed)

    def write(self, values: list) -> None:
        for v in values:
            self.writer.write(self.schema.to_record(v))

    def close(self) -> None:
        self.writer.flush()


class _AvroParquetWriter:
    def __init__(self, options: dict, out: Any):
        self.schema = options["schema"]
        self.out = out
        self.writer: Any = None

    def write(self, values: list) -> None:
        import pyarrow.parquet as pq

        table = pa.Table.from_pylist([self.schema.to_record(v) for v in values])
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.out, table.schema)
        self.writer.write(table.cast(self.writer.schema))

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


_BULK_WRITERS = {
    "parquet": lambda options, out: _ColumnarWriter("parquet", options, out),
    "orc": lambda options, out: _ColumnarWriter("orc", options, out),
    "csv": _CsvWriter,
    "avro": _AvroWriter,
    "avro_parquet": _AvroParquetWriter,
}


class PartFileExitBuffer(ExitBuffer):
    """A ``written`` exit: writes what it collected into the task's in-progress part files at each
    flush and hands on a row per part file when the task ends."""

    def __init__(self, plan: ExitPlan, record: Record, cursor: Cursor, timed: bool):
        super().__init__(plan, record, cursor, timed)
        self.files = TaskPartFiles(plan.sink_spec, plan.type_info)
        self.final = False

    def ready(self, final: bool) -> bool:
        self.final = final
        return bool(self.values) or (final and self.files.opened)

    def take(self) -> tuple[int, list[pa.Array], list | None, list | None, list | None]:
        values = self.values
        try:
            if values and self.plan.sink_spec.columns_type is not None:
                self.files.add_columns(self.encode_columns(values))
            elif values:
                if self.plan.type_info is not None:
                    self.codec.encode(values)  # values must fit the declared type
                self.files.add_values(values)
        except ValueTypeError as exc:
            raise self.type_failure(exc) from None
        values.clear()
        self.ts.clear()
        self.wm.clear()
        self.ch.clear()
        written = self.files.close() if self.final else []
        return len(written), [pa.array([w[0] for w in written], pa.string()),
                              pa.array([w[1] for w in written], pa.int64())], None, None, None


__all__ = ["Compaction", "FileWriter", "PartFileExitBuffer", "TaskPartFiles", "writes_in_stage"]
