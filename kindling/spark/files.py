"""Files for the file connector, on any filesystem pyarrow reaches (local paths, ``file://``,
``s3://``, ``hdfs://``, ...; other schemes through fsspec when it is installed).

Reading (``FileSource``): the driver lists the files and cuts them into splits (byte ranges of
line formats, runs of Avro blocks, runs of row groups of Parquet; other formats a file per
split); Spark's tasks read the splits, streaming, never a whole file into memory: in a bounded
job the tasks of the source's stage itself (:func:`file_stage_frame`), else Kindling's Python
data source. There a micro-batch reads at most its share of records of a split (``FileListing``):
a split is read ``parallelism`` at a time, each from where the last micro-batch stopped (a line's
byte offset for line formats, else a record's number), and its watermark channel finishes only in
the micro-batch that reads it to its end. The offsets remember which files were taken as a
high-water mark, the newest modification time taken plus the files of that time, and the splits
taken but not read to their end, so they stay small however many files the source reads (files
must appear complete, by an atomic move, and with a modification time not older than the mark).

Writing (``FileSink``): kindling/spark/file_sink.py, apart so that what only reads files does not
import the sink side.
"""
from __future__ import annotations

import csv
import io
import posixpath
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

import pyarrow as pa
import pyarrow.fs as pafs
from pyspark.sql import DataFrame

from kindling.common.types import Row
from kindling.graph.specs import FileSourceSpec
from kindling.spark.codec import ValueTypeError, codec_for
from kindling.spark.filesystems import filesystem
from kindling.spark.metrics import report_skipped
from kindling.spark.read_shares import share_out
from kindling.spark.rows import LAST_SPLIT_END_MARK, PART_SEPARATOR, SPLIT_END_MARK

ROWS_PER_ARROW_BATCH = 10_000
READ_CHUNK_BYTES = 1 << 20


# -- filesystems --------------------------------------------------------------------------------

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
    """A part of a file: bytes ``start`` to ``end`` (line formats, Avro), row groups ``start`` to
    ``end`` (Parquet), or the whole file (``end`` None); of its records, the first ``skip`` are
    left out and at most ``count`` read (None: all), when a micro-batch reads a part of a split."""

    root: str
    path: str
    start: int = 0
    end: int | None = None
    skip: int = 0
    count: int | None = None

    @property
    def label(self) -> str:
        return self.path if self.end is None else f"{self.path}@{self.start}"


def channel_label(label: str, part: FileSplit) -> str:
    """What names the rows of ``part`` (read from the split ``label``) in a source's ``__ch``: the
    split (their watermark channel), then where the part starts when that is not the split's start
    (``record_position`` counts lines from there)."""
    return label if part.label == label else f"{label}{PART_SEPARATOR}{part.start}"


def _byte_splittable(fmt: Any) -> bool:
    """Whether a file of ``fmt`` may be cut into byte ranges of whole lines: text lines, JSON
    lines, and CSV whose fields cannot hold a line break (see ``CsvReaderFormat.line_splittable``)."""
    if fmt.kind not in ("text_line", "json") and not (fmt.kind == "csv" and fmt.line_splittable()):
        return False
    return _byte_lines(fmt.charset)


def _byte_lines(charset: str) -> bool:
    """Whether text of ``charset`` ends its lines at the byte ``\\n`` (not UTF-16, ...)."""
    try:
        return "\n\r".encode(charset) == b"\n\r"
    except LookupError:
        raise ValueError(f"unknown charset {charset!r} of the FileSource format") from None


def make_splits(files: list[FileStatus], fmt: Any, split_bytes: int) -> list[FileSplit]:
    splits: list[FileSplit] = []
    for f in files:
        if f.size > split_bytes and (_byte_splittable(fmt) or fmt.kind == "avro"):  # Avro: blocks by sync marker
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
    """What a FileSource reads: its splits (a bounded read), or, for the stream reader, the parts
    of splits each micro-batch reads. An offset is ``{"mtime": ns, "at": [paths], "open": [...]}``:
    every file modified before ``mtime``, and the files ``at`` it, have been taken, and ``open``
    holds the splits taken but not read to their end, in the order taken, each as ``[root, path,
    start, end, position]``: the byte offset of its next line (line formats) or the number of its
    records read (others). The first ``parallelism`` open splits are read, sharing a micro-batch's
    records (``share_out``); a split read to its end makes room for the next one taken. ``"end"``:
    a bounded source has read every split. ``type_info`` is needed to count the records of formats
    read whole (``record_count``); ``max_files``: the files a micro-batch takes at most (0: no limit;
    ``kindling.source.max-files-per-batch``)."""

    def __init__(self, spec: FileSourceSpec, parallelism: int = 1, type_info: Any = None, max_files: int = 0):
        self.spec = spec
        self.parallelism = max(1, parallelism)
        self.max_files = max_files
        self.type_info = type_info
        self.listing: list[FileStatus] | None = None
        self.by_lines = _byte_splittable(spec.format)  # positions are byte offsets of lines, else record numbers
        self.records: dict[tuple, int] = {}  # a split's records, when its position counts records

    def _files(self, fresh: bool) -> list[FileStatus]:
        if self.listing is None or (fresh and not self.spec.bounded):
            self.listing = list_files(self.spec.paths)
        return self.listing

    def splits(self) -> list[FileSplit]:
        return make_splits(self._files(True), self.spec.format, self.spec.split_bytes)

    @staticmethod
    def initial_offset() -> dict:
        return {"mtime": -1, "at": [], "open": [], "end": False}

    @staticmethod
    def _read_by(f: FileStatus, mark: dict) -> bool:
        return f.mtime_ns < mark["mtime"] or (f.mtime_ns == mark["mtime"] and f.path in mark["at"])

    def _untaken(self, mark: dict, fresh: bool = True) -> list[FileStatus]:
        """The files not taken by ``mark``, in the order they are taken: by modification time, then path."""
        return sorted((f for f in self._files(fresh) if not self._read_by(f, mark)), key=lambda f: (f.mtime_ns, f.path))

    def _first(self, split: FileSplit) -> int:
        return split.start if self.by_lines else 0

    def _left(self, split: FileSplit, position: int) -> int:
        """How many records of ``split`` are left from ``position``: at most, for line formats (bytes)."""
        if self.by_lines:
            return (split.end if split.end is not None else _fs(split.root).get_file_info(split.path).size) - position
        return self._records(split) - position

    def _records(self, split: FileSplit) -> int:
        key = (split.path, split.start)
        if key not in self.records:
            self.records[key] = record_count(self.spec.format, self.type_info, split)
        return self.records[key]

    def _advance(self, split: FileSplit, position: int, most: int | None) -> tuple[int | None, int]:
        """``(position, records)`` after reading at most ``most`` more records of ``split`` (None:
        all); the position is None once the split is read to its end."""
        if most is None:
            return None, 0
        if self.by_lines:
            return line_cut(split, position, most)
        left = self._records(split) - position
        return (None if most >= left else position + most), min(most, left)

    def latest_offset(self, start: dict, budget: int | None = None) -> dict:
        """The offset after a micro-batch of at most ``budget`` records (None: everything there is)."""
        mark = {"mtime": start.get("mtime", -1), "at": list(start.get("at", []))}
        taken = [list(entry) for entry in start.get("open", [])]
        untaken, later = self._untaken(mark), []
        if self.max_files > 0:  # the files after the first max_files wait for the next micro-batch
            untaken, later = untaken[:self.max_files], untaken[self.max_files:]
        while True:
            while len(taken) < self.parallelism and untaken:
                f = untaken.pop(0)
                taken += [[s.root, s.path, s.start, s.end, self._first(s)]
                          for s in make_splits([f], self.spec.format, self.spec.split_bytes)]
                at = set(mark["at"]) if f.mtime_ns == mark["mtime"] else set()
                mark = {"mtime": f.mtime_ns, "at": sorted(at | {f.path})}
            reading = taken[:self.parallelism]
            if not reading or budget == 0:
                break
            splits = [FileSplit(*entry[:4]) for entry in reading]
            left = None if budget is None else [self._left(s, e[4]) for s, e in zip(splits, reading)]
            shares = [None] * len(reading) if budget is None else share_out(budget, left)
            ended = []
            for i, (split, entry, share) in enumerate(zip(splits, reading, shares)):
                if left is not None and left[i] == 0:
                    entry[4] = None  # nothing (more) in it
                elif share != 0:
                    entry[4], records = self._advance(split, entry[4], share)
                    budget = None if budget is None else max(budget - records, 0)
                if entry[4] is None:
                    ended.append(entry)
            if not ended:
                break
            taken = [entry for entry in taken if entry[4] is not None]
        return {**mark, "open": taken, "end": self.spec.bounded and not taken and not untaken and not later}

    def parts_between(self, start: dict, end: dict) -> list[tuple[str, FileSplit, int | None]]:
        """``(split label, part, ending)`` of every part of a split read between two offsets (listed
        again: a replayed micro-batch reads the same parts); ``ending`` is the mark of a split read to
        its end: ``LAST_SPLIT_END_MARK`` (it ends at MAX_WATERMARK) once a bounded source has taken
        every file and started every split, else ``SPLIT_END_MARK``."""
        start = start if "mtime" in start else self.initial_offset()
        before = {tuple(e[:4]): e[4] for e in start.get("open", [])}
        after = {tuple(e[:4]): e[4] for e in end.get("open", [])}
        fresh = [f for f in self._files(True) if self._read_by(f, end) and not self._read_by(f, start)]
        splits = [FileSplit(*key) for key in before] + make_splits(fresh, self.spec.format, self.spec.split_bytes)
        started = all(position != self._first(FileSplit(*key)) for key, position in after.items())
        ending = LAST_SPLIT_END_MARK if self.spec.bounded and started and not self._untaken(end, False) \
            else SPLIT_END_MARK
        parts = []
        for split in splits:
            key = (split.root, split.path, split.start, split.end)
            a = before.get(key, self._first(split))
            b = after.get(key)
            if b == a:
                continue
            if self.by_lines:
                part = FileSplit(split.root, split.path, a, split.end if b is None else b)
            else:
                part = FileSplit(split.root, split.path, split.start, split.end, a, None if b is None else b - a)
            parts.append((split.label, part, ending if b is None else None))
        return parts


def line_cut(split: FileSplit, position: int, lines: int) -> tuple[int | None, int]:
    """``(cut, counted)``: the byte after ``lines`` more lines of ``split`` from ``position`` (a
    line's start), None when fewer lines start before the split's end, and how many lines that
    is (lines end at a ``\\n``; the file's last may have none)."""
    with _fs(split.root).open_input_file(split.path) as f:
        end = split.end if split.end is not None else f.size()
        f.seek(position)
        at, counted, open_line = position, 0, False
        while at < end:
            data = f.read(min(READ_CHUNK_BYTES, end - at))
            if not data:  # the file is shorter than the split said: it ends here
                break
            newlines = data.count(b"\n")
            if counted + newlines < lines:
                counted += newlines
                at += len(data)
                open_line = not data.endswith(b"\n")
                continue
            i = -1
            for _ in range(lines - counted):
                i = data.find(b"\n", i + 1)
            at += i + 1
            if at < end:
                return at, lines
            return None, lines
        return None, counted + open_line


def record_count(fmt: Any, type_info: Any, split: FileSplit) -> int:
    """How many records a split of a format read by record numbers holds: Parquet's from its row
    groups' metadata, Avro's from its blocks' headers, other formats' (read whole) by reading it."""
    if fmt.kind in ("parquet", "avro_parquet"):
        import pyarrow.parquet as pq

        with _fs(split.root).open_input_file(split.path) as stream:
            metadata = pq.ParquetFile(stream).metadata
        groups = range(split.start, split.end) if split.end is not None else range(metadata.num_row_groups)
        return sum(metadata.row_group(i).num_rows for i in groups)
    if fmt.kind == "avro":
        return sum(records for _, records in _avro_blocks(split))
    if fmt.kind == "csv" and not fmt.ignore_errors:
        try:
            return sum(records for _, records in _csv_runs(fmt, split, [], counting=True))
        except _NotCountable:
            pass
    return sum(batch.num_rows for batch in read_split(fmt, type_info, split))


class _NotCountable(Exception):
    """A CSV split whose records ``_csv_runs`` cannot count without reading their values."""


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
    """Where the ``index``-th record (0-based) of the split ``label`` (or of the part of it that
    ``channel_label`` names) is: its file and line for line formats (one record a line; JSON skips
    blank lines), its file and number otherwise."""
    label, _, part_start = label.partition(PART_SEPARATOR)
    path, _, start = label.rpartition("@") if "@" in label else (label, "", "0")
    start = part_start or start
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


def _line_runs(split: FileSplit) -> Iterator[tuple[int, list[bytes]]]:
    """``(byte offset of the first line, lines)`` of the lines that start within the split, without
    their terminators (``\\n``, ``\\r\\n`` or ``\\r``); a line starting in the split is read to its
    end, past the split's end if need be."""
    for offset, block in _line_blocks(split):
        lines = block.split(b"\n")
        if lines[-1] == b"":
            lines.pop()  # the block's last newline ends its last line
        if b"\r" in block:
            lines = [part for line in lines for part in (line[:-1] if line.endswith(b"\r") else line).split(b"\r")]
        yield offset, lines


def _csv_lines(split: FileSplit, charset: str, offset: int) -> Iterator[str]:
    """The text lines of a CSV split from byte ``offset`` (a line's start) on: to the end of the
    file as a stream (a whole file), or those starting before the split's end (CSV whose fields
    hold no line breaks)."""
    if split.end is None:
        with _fs(split.root).open_input_file(split.path) as raw:
            raw.seek(offset)
            yield from io.TextIOWrapper(raw, encoding=charset, newline="")
        return
    for _, lines in _line_runs(FileSplit(split.root, split.path, offset, split.end)):
        for line in lines:
            yield line.decode(charset) + "\n"


def _line_blocks(split: FileSplit) -> Iterator[tuple[int, bytes]]:
    """``(byte offset, bytes)`` blocks of about a chunk each of the whole lines that start within
    the split (a line starting in the split is read to its end, past the split's end if need be),
    each ending with a ``\\n`` (but the file's last line, when it has none)."""
    with _fs(split.root).open_input_file(split.path) as f:
        end = split.end if split.end is not None else f.size()
        pos = split.start
        carry = b""
        if pos > 0:  # the line running over from the previous split is that split's
            f.seek(pos - 1)
            pos -= 1
            while True:
                data = f.read(READ_CHUNK_BYTES)
                if not data:
                    return
                i = data.find(b"\n")
                if i >= 0:
                    pos += i + 1
                    carry = data[i + 1:]
                    break
                pos += len(data)
        while pos < end:
            data = f.read(READ_CHUNK_BYTES)
            buffer = carry + data
            cut = buffer.rfind(b"\n") + 1 if data else len(buffer)  # the file's last line may have no \n
            block, carry = buffer[:cut], buffer[cut:]
            if pos + len(block) > end:  # the last line starting before the split's end ends the block
                last = block.find(b"\n", end - pos - 1)
                block = block[:last + 1] if last >= 0 else block
            if block:
                yield pos, block
            pos += len(block)
            if not data:
                return


def _line_count(data: bytes) -> int:
    """How many lines ``data`` ends (``\\n``, ``\\r\\n`` or ``\\r``, as Python's csv reader counts them)."""
    return data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")


def _csv_runs(fmt: Any, split: FileSplit, types: list[pa.DataType], counting: bool = False) -> Iterator[Any]:
    """The records of a CSV split as runs of columns, and ``(line in the split, ValueError)`` for
    each bad one. Blocks of lines without quote or escape characters (where every line is a
    record) are cut into fields by pyarrow; from the first block with such a character on, and
    for blocks with lines that do not fit, Python's csv reader (``CsvReaderFormat.column_runs``)
    reads, naming the lines. ``counting``: ``(byte after the block, its number of records)`` of
    each block instead, its fields cut but not converted (a value that does not fit its type is
    counted: reading it fails), or ``_NotCountable`` where Python's reader would read."""
    schema, charset = fmt.schema, fmt.charset

    def python(open_text: Callable[[], Iterable[str]], at_file_start: bool, lines_before: int) -> Iterator[Any]:
        for run in fmt.column_runs(open_text, ROWS_PER_ARROW_BATCH, at_file_start):
            yield (run[0] + lines_before, run[1]) if isinstance(run, tuple) else run

    def text_of(data: bytes) -> Iterator[str]:
        yield from io.StringIO(data.decode(charset), newline="")

    def from_offset(offset: int, lines_before: int) -> Iterator[Any]:
        return python(lambda: _csv_lines(split, charset, offset), offset == 0, lines_before)

    try:
        special = [c.encode(charset) for c in (schema.quote_char, schema.escape_char) if c is not None]
        fast = (not schema.allow_comments and _byte_lines(charset) and len(schema.column_separator.encode(charset)) == 1
                and all(len(c) == 1 for c in special))
    except (UnicodeError, ValueError):
        fast = False
    if not fast:
        if counting:
            raise _NotCountable
        yield from from_offset(split.start, 0)
        return
    import pyarrow.csv as pacsv

    names = [f"c{i}" for i in range(schema.size())]
    read_options = pacsv.ReadOptions(column_names=names, use_threads=False, encoding=charset)
    parse_options = pacsv.ParseOptions(delimiter=schema.column_separator, quote_char=False, escape_char=False,
                                       double_quote=False, newlines_in_values=False, ignore_empty_lines=True)
    convert_options = pacsv.ConvertOptions(column_types={n: pa.string() for n in names}, strings_can_be_null=False,
                                           quoted_strings_can_be_null=False, include_columns=names[:1] if counting else None)
    heading = (schema.use_header + schema.skip_first_data_row) if split.start == 0 else 0
    lines_before = 0  # lines of the split before the block
    for offset, block in _line_blocks(split):
        heading_here, after = heading > 0, offset + len(block)
        while heading and block:  # the header and a skipped first row: a line each, or Python's reader
            cut = block.find(b"\n") + 1 or len(block)
            line, block = block[:cut], block[cut:]
            lines_before += 1
            if not line.strip():
                continue
            try:
                fields = next(csv.reader([line.decode(charset)], **schema.dialect()))
            except (csv.Error, UnicodeDecodeError, StopIteration):
                fields = None
            if fields is None or (heading > schema.skip_first_data_row and not schema.header_ok(fields)):
                if counting:
                    raise _NotCountable
                yield from from_offset(0, 0)
                return
            heading -= 1
        if any(c in block for c in special):
            if counting:
                raise _NotCountable
            yield from from_offset(0, 0) if heading_here else from_offset(offset, lines_before)
            return
        try:
            table = pacsv.read_csv(pa.py_buffer(block), read_options=read_options, parse_options=parse_options,
                                   convert_options=convert_options) if block.strip() else None
            if counting:  # after: None while the header or the skipped first row are still to come
                yield None if heading else after, 0 if table is None else table.num_rows
                lines_before += _line_count(block)
                continue
            runs = [] if table is None else [
                [parsed if (parsed := schema.arrow_column(i, c, t)) is not None else
                 schema.parse_field_column(i, c.to_pylist()) for i, (c, t) in enumerate(zip(batch.columns, types))]
                for batch in table.to_batches(ROWS_PER_ARROW_BATCH)]
        except (pa.ArrowInvalid, ValueError):  # lines that do not fit: Python's reader names them
            if counting:
                raise _NotCountable from None
            runs = list(python(lambda: text_of(block), False, lines_before))
        yield from runs
        lines_before += _line_count(block)


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
    """The records of a split (but its first ``skip``, at most ``count``) as Arrow batches in the
    layout of the stream's type; ``skipped[0]`` counts the records a format told to ignore parse
    errors skipped (after the first ``skip`` records, which an earlier micro-batch counted)."""
    skipped = skipped if skipped is not None else [0]
    partitions = getattr(fmt, "partition_columns", None)
    if partitions is not None:
        yield from _with_partition_columns(partitions, type_info, split,
                                           _split_records(fmt, partitions.data_type, split, skipped))
        return
    yield from _split_records(fmt, type_info, split, skipped)


def _split_records(fmt: Any, type_info: Any, split: FileSplit, skipped: list) -> Iterator[pa.RecordBatch]:
    if not split.skip and split.count is None:
        yield from _records(fmt, type_info, split, skipped)
        return
    split = _past_blocks(fmt, split)
    skip, count = split.skip, split.count
    for batch in _records(fmt, type_info, split, skipped):
        if skip >= batch.num_rows:
            skip -= batch.num_rows
            skipped[0] = 0
            continue
        batch = batch.slice(skip, count)
        skip = 0
        if count is not None:
            count -= batch.num_rows
        if batch.num_rows:
            yield batch
        if count == 0:
            return


def _with_partition_columns(partitions: Any, type_info: Any, split: FileSplit,
                            batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """A partitioned table's rows: the batches of a file's columns with the partition columns'
    values taken from the file's directory names (``PartitionColumns``)."""
    from kindling.common.typeinfo import Types

    base = filesystem(split.root)[1].rstrip("/")
    values = partitions.values_of(posixpath.dirname(split.path)[len(base):].strip("/"))
    names, types = type_info.get_field_names(), type_info.get_field_types()
    positions = partitions.positions
    constants = codec_for(Types.ROW_NAMED([names[p] for p in positions], [types[p] for p in positions])).encode(
        [Row(*values)])
    for batch in batches:
        columns = list(batch.columns)
        for position, constant in sorted(zip(positions, constants), key=lambda pair: pair[0]):
            columns.insert(position, pa.repeat(constant[0], batch.num_rows))
        yield pa.RecordBatch.from_arrays(columns, names=names)


def _past_blocks(fmt: Any, split: FileSplit) -> FileSplit:
    """``split`` starting at the Parquet row group, Avro block or CSV block (lines without a quote
    or escape character, counted without reading their values) that holds its first record to read."""
    skip = split.skip
    if fmt.kind in ("parquet", "avro_parquet"):
        import pyarrow.parquet as pq

        with _fs(split.root).open_input_file(split.path) as stream:
            metadata = pq.ParquetFile(stream).metadata
        group = split.start
        last = split.end if split.end is not None else metadata.num_row_groups
        while group < last - 1 and skip >= metadata.row_group(group).num_rows:
            skip -= metadata.row_group(group).num_rows
            group += 1
        return FileSplit(split.root, split.path, group, last, skip, split.count)
    if fmt.kind == "avro":
        for offset, records in _avro_blocks(split):
            if skip < records:
                return FileSplit(split.root, split.path, offset, split.end, skip, split.count)
            skip -= records
    if fmt.kind == "csv" and not fmt.ignore_errors and skip:  # blocks of whole records, counted (_csv_runs)
        start = split.start
        try:
            for after, records in _csv_runs(fmt, split, [], counting=True):
                if skip < records or after is None:
                    break
                start, skip = after, skip - records
        except _NotCountable:
            pass  # Python reads from this block on: the blocks counted before it are skipped all the same
        return FileSplit(split.root, split.path, start, split.end, skip, split.count)
    return split


def _records(fmt: Any, type_info: Any, split: FileSplit, skipped: list) -> Iterator[pa.RecordBatch]:
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
        for columns in _csv_records(fmt, codec, split, skipped):
            yield _columns_batch(codec, columns)
        return
    if kind == "json":
        yield from _json_batches(fmt, codec, split, skipped)
        return
    if kind == "avro":
        for values in _avro_runs(fmt, split, skipped):
            yield pa.RecordBatch.from_arrays(codec.encode(values), names=names)
        return
    raise TypeError(f"unknown FileSource format {fmt!r}")


def _columns_batch(codec: Any, columns: list) -> pa.RecordBatch:
    """Columns of a row type's values (lists, or Arrow arrays of the column's type) as an Arrow
    batch: each straight into its Arrow type, or (a value Arrow does not take as it is) through
    the codec's rows."""
    schema = codec.arrow_schema
    try:
        return pa.RecordBatch.from_arrays([c if isinstance(c, pa.Array) else pa.array(c, f.type)
                                           for c, f in zip(columns, schema)], schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
        names = [f.name for f in schema]
        columns = [c.to_pylist() if isinstance(c, pa.Array) else c for c in columns]
        rows = []
        for values in zip(*columns):
            row = Row(*values)
            row.set_field_names(names)
            rows.append(row)
        return pa.RecordBatch.from_arrays(codec.encode(rows), schema=schema)


def _csv_records(fmt: Any, codec: Any, split: FileSplit, skipped: list) -> Iterator[list]:
    """Runs of a CSV split's records as columns; a bad record fails naming its line, or (the
    format ignoring parse errors) is counted in ``skipped[0]``."""
    types = [f.type for f in codec.arrow_schema]
    for run in _csv_runs(fmt, split, types):
        if isinstance(run, tuple):
            if not fmt.ignore_errors:
                line = run[0] + (_line_number(split, split.start) - 1 if split.start else 0)
                raise _fail(fmt, split, f"line {line}", run[1]) from None
            skipped[0] += 1
            continue
        yield run


def _json_batches(fmt: Any, codec: Any, split: FileSplit, skipped: list) -> Iterator[pa.RecordBatch]:
    """The rows of a JSON-lines split; a line that is no JSON object of the row type (a field
    that does not fit its type included) fails naming its line, or is skipped and counted."""
    names = [f.name for f in codec.fields]
    for offset, lines in _line_runs(split):
        values, numbers = [], []
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                values.append(fmt.parse(line))
                numbers.append(i)
            except (ValueError, UnicodeDecodeError) as exc:
                if not fmt.ignore_errors:
                    raise _fail(fmt, split, f"line {_json_line(split, offset, lines, i)}", exc) from None
                skipped[0] += 1
        try:
            arrays = codec.encode(values)
        except ValueTypeError:
            fitting = []
            for value, i in zip(values, numbers):
                try:
                    codec.encode([value])
                    fitting.append(value)
                except ValueTypeError as exc:
                    if not fmt.ignore_errors:
                        raise _fail(fmt, split, f"line {_json_line(split, offset, lines, i)}", exc) from None
                    skipped[0] += 1
            arrays = codec.encode(fitting)
        yield pa.RecordBatch.from_arrays(arrays, names=names)


def _json_line(split: FileSplit, offset: int, lines: list[bytes], index: int) -> int:
    """The line number of ``lines[index]``, of the run starting at byte ``offset``."""
    return _line_number(split, offset + sum(len(previous) + 1 for previous in lines[:index]))


class _AfterHeader:
    """An Avro file read from a block on, behind the file's header (what fastavro reads first)."""

    def __init__(self, header: bytes, f: Any):
        self.header, self.f, self.at = header, f, 0

    def read(self, n: int = -1) -> bytes:
        head = b""
        if self.at < len(self.header):
            head = self.header[self.at:] if n < 0 else self.header[self.at:self.at + n]
            self.at += len(head)
            n = n if n < 0 else n - len(head)
            if n == 0:
                return head
        data = self.f.read() if n < 0 else self.f.read(n)
        self.at += len(data)
        return head + data

    def tell(self) -> int:
        return self.at


def _after_sync(f: Any, start: int, sync: bytes) -> int | None:
    """The position just after the first sync marker at or after byte ``start`` (None: none)."""
    f.seek(start)
    pos, tail = start, b""
    while True:
        data = f.read(READ_CHUNK_BYTES)
        if not data:
            return None
        buffer = tail + data
        i = buffer.find(sync)
        if i >= 0:
            return pos - len(tail) + i + len(sync)
        tail = buffer[-(len(sync) - 1):]
        pos += len(data)


def _avro_long(f: Any) -> int | None:
    """An Avro long (zig-zag varint) read from ``f`` (None at the end of the file)."""
    value = shift = 0
    while True:
        byte = f.read(1)
        if not byte:
            return None
        value |= (byte[0] & 0x7F) << shift
        shift += 7
        if not byte[0] & 0x80:
            return (value >> 1) ^ -(value & 1)


def _avro_blocks(split: FileSplit) -> Iterator[tuple[int, int]]:
    """``(byte offset, records)`` of the Avro blocks starting within the split, from their headers
    alone (a block: its record count, its size, its data, the sync marker)."""
    import fastavro

    with _fs(split.root).open_input_file(split.path) as f:
        end = split.end if split.end is not None else f.size()
        try:
            fastavro.block_reader(f)
        except Exception:  # noqa: BLE001 - a damaged header: reading the split says what is wrong
            return
        header_size = f.tell()
        f.seek(header_size - 16)
        sync = f.read(16)
        pos = header_size if split.start == 0 else _after_sync(f, max(split.start - len(sync), 0), sync)
        while pos is not None and pos < end:
            f.seek(pos)
            records, size = _avro_long(f), _avro_long(f)
            if records is None or size is None or records < 0 or size < 0:
                return
            yield pos, records
            pos = f.tell() + size + len(sync)


def _avro_runs(fmt: Any, split: FileSplit, skipped: list) -> Iterator[list]:
    """Runs of the records of the Avro blocks starting within the split (blocks are found by the
    file's sync marker). A block that cannot be read fails the job naming the file, record and
    byte, or (``ignore_parse_errors``) is skipped from the bad record on, its records counted, and
    reading goes on after the next sync marker."""
    import fastavro

    with _fs(split.root).open_input_file(split.path) as f:
        end = split.end if split.end is not None else f.size()
        try:
            fastavro.block_reader(f)
        except Exception as exc:  # noqa: BLE001 - whatever fastavro raises on a damaged header
            raise _fail(fmt, split, "its header", exc) from None
        header_size = f.tell()
        f.seek(0)
        header = f.read(header_size)
        sync = header[-16:]  # the header ends with the file's sync marker
        pos = header_size if split.start == 0 else _after_sync(f, max(split.start - len(sync), 0), sync)
        values: list = []
        while pos is not None and pos < end:
            f.seek(pos)
            stream = _AfterHeader(header, f)
            blocks = fastavro.block_reader(stream, fmt.schema.parsed)
            start, block, taken = pos, None, 0
            try:
                for block in blocks:
                    if start >= end:
                        pos = None
                        break
                    taken = 0
                    for record in block:
                        values.append(record)
                        taken += 1
                        if len(values) >= ROWS_PER_ARROW_BATCH:
                            yield values
                            values = []
                    start = pos + stream.tell() - header_size  # the next block's
                    block, taken = None, 0
                else:
                    pos = None
            except Exception as exc:  # noqa: BLE001 - a damaged block: whatever fastavro raises
                if not fmt.ignore_errors:
                    where = f"the block at byte {start}"
                    raise _fail(fmt, split, where if block is None else f"record {taken + 1} of {where}", exc) from None
                skipped[0] += block.num_records - taken if block is not None else 1
                pos = _after_sync(f, start + 1, sync)
        yield values


def file_source_stage_frame(compiler: Any, node: Any, plan: Any) -> DataFrame | None:
    """A FileSource in a Spark batch job: its stage's own pass reads the files (:func:`file_stage_frame`)."""
    if compiler.streaming:
        return None
    return file_stage_frame(compiler.spark, node.source, node.type_info, node.name, compiler.metrics,
                            compiler.stage_function(plan), plan.schema())


def file_stage_frame(spark: Any, spec: FileSourceSpec, type_info: Any, name: str, metrics: Any,
                     stage: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]], schema: Any) -> DataFrame:
    """A bounded read of a FileSource (a batch job) and its stage in one Python pass: a Spark
    partition per split, whose task reads the split and hands its records straight to ``stage``
    (no trip through the JVM between the reader and the stage's functions)."""
    splits = FileListing(spec).splits()
    fmt = spec.format

    def read(ids: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in ids:
            for index in batch.column(0).to_pylist():
                skipped = [0]
                yield from read_split(fmt, type_info, splits[index], skipped)
                report_skipped(metrics, name, skipped[0])

    ids = spark.range(0, len(splits), 1, max(len(splits), 1))
    return ids.mapInArrow(lambda batches: stage(read(batches)), schema)


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


__all__ = ["FileListing", "FileSplit", "FileStatus", "ParseError", "estimated_elements", "file_source_stage_frame",
           "file_stage_frame", "list_files", "make_splits", "read_split"]
