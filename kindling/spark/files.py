"""Files for the file connector, on any filesystem pyarrow reaches (local paths, ``file://``,
``s3://``, ``hdfs://``, ...; other schemes through fsspec when it is installed).

Reading (``FileSource``): the driver lists the files and cuts them into splits (byte ranges of
line formats, runs of row groups of Parquet; other formats a file per split); Spark's tasks
read the splits, streaming, never a whole file into memory. A monitored source remembers what
it has read as a high-water mark, the newest modification time read plus the files of that
time, so its offsets stay small however many files it reads (files must appear complete, by
an atomic move, and with a modification time not older than the mark).

Writing (``FileSink``): Spark's tasks write hidden in-progress part files, named from the
streaming query (stable across restarts from a checkpoint), the micro-batch and the task's
partition; the driver makes them visible (renames them) once every task of the micro-batch
has written, so a replayed micro-batch rewrites the same part files instead of adding others.
"""
from __future__ import annotations

import csv
import io
import os
import pickle
import posixpath
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.fs as pafs
from pyspark.sql import DataFrame

from kindling.common.types import Row
from kindling.graph.specs import FileSinkSpec, FileSourceSpec
from kindling.spark.codec import codec_for
from kindling.spark.sinks import SinkWriter

ROWS_PER_ARROW_BATCH = 10_000
READ_CHUNK_BYTES = 1 << 20


# -- filesystems --------------------------------------------------------------------------------

def filesystem(uri: str) -> tuple[pafs.FileSystem, str]:
    """The filesystem of a local path or URI, and the path within it."""
    if "://" not in uri:
        return pafs.LocalFileSystem(), os.path.abspath(uri)
    try:
        return pafs.FileSystem.from_uri(uri)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError) as arrow_error:
        try:
            import fsspec
        except ImportError:
            raise ValueError(f"no filesystem for {uri}: pyarrow does not know the scheme ({arrow_error}); "
                             "install fsspec and the scheme's fsspec package") from None
        fs, path = fsspec.core.url_to_fs(uri)
        return pafs.PyFileSystem(pafs.FSSpecHandler(fs)), path


_CACHED: dict[str, pafs.FileSystem] = {}


def _fs(root: str) -> pafs.FileSystem:
    """The (cached, per process) filesystem of a configured path."""
    fs = _CACHED.get(root)
    if fs is None:
        fs = _CACHED[root] = filesystem(root)[0]
    return fs


# -- listing and splits -------------------------------------------------------------------------

@dataclass(frozen=True)
class FileStatus:
    """A file found under ``root`` (a configured path): its path in the filesystem, size and mtime."""

    root: str
    path: str
    size: int
    mtime_ns: int


def _hidden(relative: str) -> bool:
    return any(part.startswith((".", "_")) for part in relative.split("/") if part)


def list_files(paths: list[str]) -> list[FileStatus]:
    """The files under ``paths`` (files or directories, recursively), leaving out hidden ones
    (names starting with ``.`` or ``_``, such as in-progress part files), in path order."""
    found: list[FileStatus] = []
    for root in paths:
        fs, base = filesystem(root)
        info = fs.get_file_info(base)
        if info.type == pafs.FileType.NotFound:
            raise FileNotFoundError(f"FileSource path does not exist: {root}")
        if info.type == pafs.FileType.File:
            found.append(FileStatus(root, base, info.size, info.mtime_ns or 0))
            continue
        for entry in fs.get_file_info(pafs.FileSelector(base, recursive=True)):
            if entry.type == pafs.FileType.File and not _hidden(entry.path[len(base):]):
                found.append(FileStatus(root, entry.path, entry.size, entry.mtime_ns or 0))
    found.sort(key=lambda f: f.path)
    return found


def estimated_elements(spec: FileSourceSpec) -> int:
    """About how many records the files hold (a record per 32 bytes)."""
    return sum(f.size for f in list_files(spec.paths)) // 32


@dataclass
class FileSplit:
    """A part of a file: bytes ``start`` to ``end`` (line formats), row groups ``start`` to
    ``end`` (Parquet), or the whole file (``end`` None)."""

    root: str
    path: str
    start: int = 0
    end: int | None = None

    @property
    def label(self) -> str:
        return self.path if self.end is None else f"{self.path}@{self.start}"


def _byte_splittable(fmt: Any) -> bool:
    if fmt.kind not in ("text_line", "json"):
        return False
    try:
        return "\n\r".encode(fmt.charset) == b"\n\r"  # lines end at the byte \n (not UTF-16, ...)
    except LookupError:
        raise ValueError(f"unknown charset {fmt.charset!r} of the FileSource format") from None


def make_splits(files: list[FileStatus], fmt: Any, split_bytes: int) -> list[FileSplit]:
    splits: list[FileSplit] = []
    for f in files:
        if f.size > split_bytes and _byte_splittable(fmt):
            splits.extend(FileSplit(f.root, f.path, lo, min(lo + split_bytes, f.size))
                          for lo in range(0, f.size, split_bytes))
        elif f.size > split_bytes and fmt.kind in ("parquet", "avro_parquet"):
            splits.extend(_row_group_splits(f, split_bytes))
        else:
            splits.append(FileSplit(f.root, f.path))
    return splits


def _row_group_splits(f: FileStatus, split_bytes: int) -> list[FileSplit]:
    import pyarrow.parquet as pq

    with _fs(f.root).open_input_file(f.path) as stream:
        metadata = pq.ParquetFile(stream).metadata
    splits, first, size = [], 0, 0
    for i in range(metadata.num_row_groups):
        size += metadata.row_group(i).total_byte_size
        if size >= split_bytes or i == metadata.num_row_groups - 1:
            splits.append(FileSplit(f.root, f.path, first, i + 1))
            first, size = i + 1, 0
    return splits


class FileListing:
    """What a FileSource reads: its splits (a bounded read), or, for the stream reader, the
    files between two offsets. An offset is a high-water mark ``{"mtime": ns, "at": [paths]}``:
    every file modified before ``mtime``, and the files ``at`` it, have been read."""

    def __init__(self, spec: FileSourceSpec):
        self.spec = spec
        self.listing: list[FileStatus] | None = None

    def _files(self, fresh: bool) -> list[FileStatus]:
        if self.listing is None or (fresh and not self.spec.bounded):
            self.listing = list_files(self.spec.paths)
        return self.listing

    def splits(self) -> list[FileSplit]:
        return make_splits(self._files(True), self.spec.format, self.spec.split_bytes)

    @staticmethod
    def initial_offset() -> dict:
        return {"mtime": -1, "at": []}

    @staticmethod
    def _read_by(f: FileStatus, mark: dict) -> bool:
        return f.mtime_ns < mark["mtime"] or (f.mtime_ns == mark["mtime"] and f.path in mark["at"])

    def latest_offset(self, start: dict) -> dict:
        mark = {"mtime": start.get("mtime", -1), "at": list(start.get("at", []))}
        new = [f for f in self._files(True) if not self._read_by(f, mark)]
        if new:
            newest = max(f.mtime_ns for f in new)
            at = [f.path for f in new if f.mtime_ns == newest]
            mark = {"mtime": newest, "at": sorted(set(at + (mark["at"] if newest == mark["mtime"] else [])))}
        return mark

    def splits_between(self, start: dict, end: dict) -> list[FileSplit]:
        """The splits of the files read by ``end`` but not by ``start`` (listed again: a replayed
        micro-batch reads the same files)."""
        start = start if "mtime" in start else self.initial_offset()
        files = [f for f in self._files(True) if self._read_by(f, end) and not self._read_by(f, start)]
        return make_splits(files, self.spec.format, self.spec.split_bytes)


# -- reading ------------------------------------------------------------------------------------

class ParseError(ValueError):
    """A record of a file that its format cannot read."""


def _line_number(split: FileSplit, offset: int) -> int:
    """The 1-based number of the line starting at byte ``offset`` (counted only for a message)."""
    count = 1
    with _fs(split.root).open_input_file(split.path) as f:
        remaining = offset
        while remaining > 0:
            data = f.read(min(READ_CHUNK_BYTES, remaining))
            if not data:
                break
            count += data.count(b"\n")
            remaining -= len(data)
    return count


def record_position(spec: FileSourceSpec, label: str, index: int) -> str:
    """Where the ``index``-th record (0-based) of the split ``label`` is: its file and line for
    line formats (one record a line; JSON skips blank lines), its file and number otherwise."""
    path, _, start = label.rpartition("@") if "@" in label else (label, "", "0")
    root = next((r for r in spec.paths if path.startswith(filesystem(r)[1])), spec.paths[0])
    split = FileSplit(root, path, int(start))
    if spec.format.kind in ("text_line", "json"):
        seen = 0
        for offset, lines in _line_runs(split):
            for line in lines:
                if spec.format.kind == "json" and not line.strip():
                    offset += len(line) + 1
                    continue
                if seen == index:
                    return f"file {path}, line {_line_number(split, offset)}"
                seen += 1
                offset += len(line) + 1
    return f"file {path}, record {index + 1}" + (f" after byte {start}" if int(start) else "")


def _line_runs(split: FileSplit, size_hint: int | None = None) -> Iterator[tuple[int, list[bytes]]]:
    """``(byte offset of the first line, lines)`` of the lines that start within the split, without
    their terminators (``\\n``, ``\\r\\n`` or ``\\r``); a line starting in the split is read to its
    end, past the split's end if need be."""
    with _fs(split.root).open_input_file(split.path) as f:
        start = split.start
        end = split.end if split.end is not None else f.size()
        pos = start
        buffer = b""
        if start > 0:  # the line running over from the previous split is that split's
            f.seek(start - 1)
            pos = start - 1
            while True:
                data = f.read(READ_CHUNK_BYTES)
                if not data:
                    return
                i = data.find(b"\n")
                if i >= 0:
                    pos += i + 1
                    buffer = data[i + 1:]
                    break
                pos += len(data)
        while pos < end:
            data = f.read(READ_CHUNK_BYTES)
            buffer += data
            lines = buffer.split(b"\n")
            buffer = lines.pop() if data else b""
            if not data and lines and lines[-1] == b"":
                lines.pop()  # the file's last newline ends the last line
            taken: list[bytes] = []
            p = pos
            for line in lines:
                if p >= end:
                    break
                taken.append(line)
                p += len(line) + 1
            if taken:
                if any(b"\r" in line for line in taken):
                    taken = [part for line in taken for part in (line[:-1] if line.endswith(b"\r") else line).split(b"\r")]
                yield pos, taken
            if not data or p >= end:
                return
            pos = p


def _text_lines(split: FileSplit, charset: str) -> Iterator[tuple[int, list[str]]]:
    """``(offset, lines)`` runs of a text split; a split of a charset whose lines do not end at
    a ``\\n`` byte is a whole file, decoded as a stream (offset -1: unknown)."""
    if split.end is None and "\n".encode(charset) != b"\n":
        with _fs(split.root).open_input_stream(split.path, buffer_size=READ_CHUNK_BYTES) as raw:
            text = io.TextIOWrapper(raw, encoding=charset, errors="replace", newline=None)
            run: list[str] = []
            for line in text:
                run.append(line[:-1] if line.endswith("\n") else line)
                if len(run) >= ROWS_PER_ARROW_BATCH:
                    yield -1, run
                    run = []
            if run:
                yield -1, run
        return
    for offset, lines in _line_runs(split):
        yield offset, [line.decode(charset, errors="replace") for line in lines]


def _fail(fmt: Any, split: FileSplit, where: str, error: Exception) -> ParseError:
    hint = " (ignore_parse_errors() on the format skips such records)" if hasattr(fmt, "ignore_parse_errors") else ""
    return ParseError(f"cannot read {fmt.kind.upper().replace('_', '-')} record in file {split.path}, {where}: "
                      f"{error}{hint}")


def read_split(fmt: Any, type_info: Any, split: FileSplit, skipped: list | None = None) -> Iterator[pa.RecordBatch]:
    """The records of a split as Arrow batches in the layout of the stream's type; ``skipped[0]``
    counts the records a format told to ignore parse errors skipped."""
    codec = codec_for(type_info)
    names = [f.name for f in codec.fields]
    kind = fmt.kind
    if kind == "text_line":
        for _, lines in _text_lines(split, fmt.charset):
            for lo in range(0, len(lines), ROWS_PER_ARROW_BATCH):
                yield pa.RecordBatch.from_arrays([pa.array(lines[lo:lo + ROWS_PER_ARROW_BATCH], pa.string())], names=names)
        return
    if kind in ("parquet", "avro_parquet"):
        yield from _read_parquet(fmt, codec, split)
        return
    if kind == "csv":
        for columns in _record_runs(fmt, split, skipped):
            yield _columns_batch(codec, columns)
        return
    for values in _record_runs(fmt, split, skipped):
        yield pa.RecordBatch.from_arrays(codec.encode(values), names=names)


def _columns_batch(codec: Any, columns: list) -> pa.RecordBatch:
    """Columns of a row type's values as an Arrow batch: each straight into its Arrow type, or
    (a value Arrow does not take as it is) through the codec's rows."""
    schema = codec.arrow_schema
    try:
        return pa.RecordBatch.from_arrays([pa.array(c, f.type) for c, f in zip(columns, schema)], schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
        names = [f.name for f in schema]
        rows = []
        for values in zip(*columns):
            row = Row(*values)
            row.set_field_names(names)
            rows.append(row)
        return pa.RecordBatch.from_arrays(codec.encode(rows), schema=schema)


def _record_runs(fmt: Any, split: FileSplit, skipped: list | None) -> Iterator[list]:
    kind = fmt.kind
    skipped = skipped if skipped is not None else [0]
    if kind == "json":
        for offset, lines in _line_runs(split):
            values = []
            for i, line in enumerate(lines):
                if not line.strip():
                    continue
                try:
                    values.append(fmt.parse(line))
                except (ValueError, UnicodeDecodeError) as exc:
                    if fmt.ignore_errors:
                        skipped[0] += 1
                        continue
                    at = offset + sum(len(previous) + 1 for previous in lines[:i])
                    raise _fail(fmt, split, f"line {_line_number(split, at)}", exc) from None
            yield values
    elif kind == "csv":
        with _fs(split.root).open_input_stream(split.path, buffer_size=READ_CHUNK_BYTES) as raw:
            text = io.TextIOWrapper(raw, encoding=fmt.charset, newline="")
            for run in fmt.column_runs(text, ROWS_PER_ARROW_BATCH):
                if isinstance(run, tuple):
                    if not fmt.ignore_errors:
                        raise _fail(fmt, split, f"line {run[0]}", run[1]) from None
                    skipped[0] += 1
                    continue
                yield run
    elif kind == "avro":
        import fastavro

        with _fs(split.root).open_input_stream(split.path, buffer_size=READ_CHUNK_BYTES) as raw:
            values, read = [], 0
            try:
                for record in fastavro.reader(raw, reader_schema=fmt.schema.parsed):
                    values.append(record)
                    read += 1
                    if len(values) >= ROWS_PER_ARROW_BATCH:
                        yield values
                        values = []
            except (ValueError, EOFError, fastavro.read.SchemaResolutionError) as exc:
                raise _fail(fmt, split, f"record {read + 1}", exc) from None
            yield values
    else:
        raise TypeError(f"unknown FileSource format {fmt!r}")


def _read_parquet(fmt: Any, codec: Any, split: FileSplit) -> Iterator[pa.RecordBatch]:
    import pyarrow.parquet as pq

    with _fs(split.root).open_input_file(split.path) as stream:
        parquet = pq.ParquetFile(stream)
        groups = range(split.start, split.end) if split.end is not None else None
        if fmt.kind == "avro_parquet":
            fields = fmt.schema.field_names()
            for batch in parquet.iter_batches(fmt.batch_size, row_groups=groups, columns=fields):
                yield pa.RecordBatch.from_arrays(codec.encode(batch.to_pylist()), names=[f.name for f in codec.fields])
            return
        wanted = codec.arrow_schema
        present = {n if fmt.is_case_sensitive else n.lower(): n for n in parquet.schema_arrow.names}
        columns = []
        for field in wanted:
            name = present.get(field.name if fmt.is_case_sensitive else field.name.lower())
            if name is None:
                raise ParseError(f"Parquet file {split.path} has no column {field.name!r} (its columns: "
                                 f"{parquet.schema_arrow.names})")
            columns.append(name)
        for batch in parquet.iter_batches(fmt.batch_size, row_groups=groups, columns=columns):
            try:
                arrays = [batch.column(name).cast(field.type) for name, field in zip(columns, wanted)]
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
                raise ParseError(f"Parquet file {split.path} does not fit the row type {fmt.row_type}: {exc}") from None
            yield pa.RecordBatch.from_arrays(arrays, schema=wanted)


# -- writing ------------------------------------------------------------------------------------

def _query_token(df: DataFrame) -> str:
    """Names this job's part files: the streaming query's id (the same after a restart from
    the checkpoint), or a fresh one for a BATCH job."""
    query = df.sparkSession.sparkContext.getLocalProperty("sql.streaming.queryId")
    return (query or uuid.uuid4().hex)[:8]


class FileWriter(SinkWriter):
    """Writes a micro-batch into the part files of a FileSink (see the module's docstring)."""

    def __init__(self, spec: FileSinkSpec):
        self.spec = spec
        self.fs, self.base = filesystem(spec.base_path)
        self.token: str | None = None

    def _bucket(self, batch_id: int) -> str:
        """The bucket directory of a micro-batch, from the time it was first written (kept in a
        hidden marker, so a replay writes into the same bucket)."""
        spec = self.spec
        if not spec.bucket_format:
            return self.base
        marker = self._marker(batch_id)
        try:
            with self.fs.open_input_stream(marker) as f:
                started = int(f.read())
        except (FileNotFoundError, OSError, ValueError):
            started = int(time.time())
            self.fs.create_dir(self.base, recursive=True)
            with self.fs.open_output_stream(marker) as f:
                f.write(str(started).encode("ascii"))
            if batch_id >= 3:
                try:
                    self.fs.delete_file(self._marker(batch_id - 3))
                except (FileNotFoundError, OSError):
                    pass
        if spec.bucket_timezone:
            from zoneinfo import ZoneInfo

            moment = datetime.fromtimestamp(started, ZoneInfo(spec.bucket_timezone))
        else:
            moment = datetime.fromtimestamp(started, timezone.utc).astimezone()
        return posixpath.join(self.base, moment.strftime(spec.bucket_format))

    def _marker(self, batch_id: int) -> str:
        """A hidden file beside the buckets holding when a micro-batch was first written."""
        return posixpath.join(self.base, f".{self.spec.part_prefix}-{self.token}-{batch_id}.bucket-time")

    def write(self, df: DataFrame, batch_id: int) -> int:
        if self.token is None:
            self.token = _query_token(df)
        directory = self._bucket(batch_id)
        self.fs.create_dir(directory, recursive=True)
        spec = self.spec
        name = f"{spec.part_prefix}-{self.token}-{batch_id}"
        root = spec.base_path
        part_size = spec.part_size

        def write_partition(batches):
            from pyspark import TaskContext

            context = TaskContext.get()
            partition, attempt = context.partitionId(), context.attemptNumber()
            fs = _fs(root)
            written = list(_write_parts(spec, fs, directory, batches, part_size, f"{name}-{partition}", attempt))
            yield pa.RecordBatch.from_arrays([pa.array([w[0] for w in written], pa.string()),
                                              pa.array([w[1] for w in written], pa.int64())], names=["file", "n"])

        total = 0
        for row in df.mapInArrow(write_partition, "file string, n long").collect():
            pending, count = row[0], row[1]
            if count == 0:
                self.fs.delete_file(pending)
                continue
            total += count
            self.fs.move(pending, _final_name(pending))
        return total


def _final_name(pending: str) -> str:
    """``dir/.name.<attempt>.inprogress`` -> ``dir/name``."""
    directory, base = posixpath.split(pending)
    return posixpath.join(directory, base[1:].rsplit(".", 2)[0])


def _write_parts(spec: FileSinkSpec, fs: pafs.FileSystem, directory: str, batches: Iterator[pa.RecordBatch],
                 part_size: int | None, stem: str, attempt: int) -> Iterator[tuple[str, int]]:
    """Writes a task's elements into in-progress part files; yields each file's path and count.
    Row formats roll to a new part file (``stem-1``, ...) past ``part_size`` bytes."""
    def pending(index: int) -> str:
        part = stem if index == 0 else f"{stem}-{index}"
        return posixpath.join(directory, f".{part}{spec.part_suffix}.{attempt}.inprogress")

    if spec.writer is None:
        index, count, size = 0, 0, 0
        out = fs.open_output_stream(pending(0))
        try:
            for batch in batches:
                for value in batch.column(0).to_pylist():
                    if part_size and size >= part_size:
                        out.close()
                        yield pending(index), count
                        index, count, size = index + 1, 0, 0
                        out = fs.open_output_stream(pending(index))
                    out.write(value)
                    out.write(b"\n")
                    count += 1
                    size += len(value) + 1
        finally:
            out.close()
        yield pending(index), count
        return
    path = pending(0)
    with fs.open_output_stream(path) as out:
        count = _BULK_WRITERS[spec.writer.kind](spec.writer.options, out, _values(batches))
    yield path, count


def _values(batches: Iterator[pa.RecordBatch]) -> Iterator[list]:
    for batch in batches:
        yield [pickle.loads(v) for v in batch.column(0).to_pylist()]


def _write_columnar(options: dict, out: Any, runs: Iterator[list], kind: str) -> int:
    codec = codec_for(options["type_info"])
    schema = codec.arrow_schema
    count = 0
    if kind == "parquet":
        import pyarrow.parquet as pq

        writer = pq.ParquetWriter(out, schema)
    else:
        import pyarrow.orc as orc

        writer = orc.ORCWriter(out)
    try:
        for values in runs:
            if values:
                writer.write(pa.Table.from_batches([codec.to_record_batch(values)], schema=schema))
                count += len(values)
        if count == 0 and kind == "parquet":
            writer.write(schema.empty_table())
    finally:
        writer.close()
    return count


def _write_csv(options: dict, out: Any, runs: Iterator[list]) -> int:
    schema = options["schema"]
    text = io.TextIOWrapper(out, encoding="utf-8", newline="")
    writer = csv.writer(text, **schema.dialect())
    count = 0
    if schema.use_header:
        writer.writerow(schema.field_names())
    for values in runs:
        writer.writerows(schema.format_fields(v) for v in values)
        count += len(values)
    text.flush()
    text.detach()
    return count


def _records(schema: Any, runs: Iterator[list], counter: list) -> Iterator[dict]:
    for values in runs:
        for v in values:
            counter[0] += 1
            yield schema.to_record(v)


def _write_avro(options: dict, out: Any, runs: Iterator[list]) -> int:
    import fastavro

    counter = [0]
    fastavro.writer(out, options["schema"].parsed, _records(options["schema"], runs, counter))
    return counter[0]


def _write_avro_parquet(options: dict, out: Any, runs: Iterator[list]) -> int:
    import pyarrow.parquet as pq

    schema = options["schema"]
    counter = [0]
    writer = None
    try:
        for values in runs:
            table = pa.Table.from_pylist(list(_records(schema, iter([values]), counter)))
            if writer is None:
                writer = pq.ParquetWriter(out, table.schema)
            writer.write(table.cast(writer.schema))
    finally:
        if writer is not None:
            writer.close()
    return counter[0]


_BULK_WRITERS = {
    "parquet": lambda options, out, runs: _write_columnar(options, out, runs, "parquet"),
    "orc": lambda options, out, runs: _write_columnar(options, out, runs, "orc"),
    "csv": _write_csv,
    "avro": _write_avro,
    "avro_parquet": _write_avro_parquet,
}

__all__ = ["FileListing", "FileSplit", "FileStatus", "FileWriter", "ParseError", "estimated_elements", "filesystem",
           "list_files", "make_splits", "read_split"]
