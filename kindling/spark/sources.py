"""Sources as PySpark Python data sources: batch readers for BATCH mode, stream readers
(with ``SupportsTriggerAvailableNow``, so bounded sources finish) for STREAMING mode.

The whole source spec travels in one option, so one registered data source serves all,
including the wake sources of event-time operators' processing-time timers (``TimerWakes``).
Offsets live in Spark's checkpoint, which makes every source here replayable.
"""
from __future__ import annotations

import base64
import heapq
import os
import pickle
import shutil
import tempfile
import threading
import time
from typing import Any, Iterator

import cloudpickle
import numpy as np
import pyarrow as pa
from pyspark.accumulators import AccumulatorParam
from pyspark.sql.datasource import DataSource, DataSourceReader, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows, SupportsTriggerAvailableNow
from pyspark.sql import DataFrame
from pyspark.sql.types import BinaryType, LongType, StructField, StructType

from kindling.graph.specs import (CollectionSourceSpec, DataGenSourceSpec, FileSourceSpec, JdbcSourceSpec,
                                  KafkaSourceSpec, SequenceSourceSpec, SocketTextSourceSpec)
from kindling.runtime.partitioners import first_task_shares
from kindling.spark import datagen
from kindling.spark.codec import codec_for
from kindling.spark.files import FileListing, FileSplit, channel_label, read_split, record_position
from kindling.spark.metrics import report_skipped
from kindling.spark.read_shares import share_out
from kindling.spark.rows import (CHANNEL, CONTROL_MARK, ELEMENTS, END_MARK, KEY, LAST_SPLIT_END_MARK, POS,
                                 SPLIT_END_MARK, TS, WM)

FORMAT = "kindling_source"
ROWS_PER_ARROW_BATCH = 10_000


def encode_option(obj: Any) -> str:
    return base64.b64encode(cloudpickle.dumps(obj)).decode("ascii")


def decode_option(text: str) -> Any:
    return cloudpickle.loads(base64.b64decode(text))


class SourcePlan:
    """A source spec with what Spark needs to read it: value type and partition count."""

    def __init__(self, spec: Any, type_info: Any, parallelism: int, streaming: bool = True,
                 watermark_file: str | None = None, name: str = "", metrics: Any = None,
                 max_records_per_batch: int = 0, max_files_per_batch: int = 0):
        self.spec = spec
        self.max_records_per_batch = max_records_per_batch  # 0: no limit (see _StreamReader.getDefaultReadLimit)
        self.max_files_per_batch = max_files_per_batch  # files a micro-batch starts at most (0: no limit)
        self.name = name  # the source operator's, for its metrics
        self.metrics = metrics  # the job's metrics accumulator (kindling.spark.metrics)
        self.type_info = type_info
        self.parallelism = parallelism
        self.streaming = streaming
        self.watermark_file = watermark_file  # where the runner hands the job's watermark to the source
        if isinstance(spec, CollectionSourceSpec):
            # Encoded once on the driver: a value that does not fit the type fails while building.
            self.collection_ipc = _to_ipc(codec_for(type_info), spec.values)

    def schema(self) -> StructType:
        """The value's columns; in STREAMING mode then ``__wm`` (null but in control rows: the
        end of a bounded input, a watermark hand-off), ``__ch`` (the name of the row's split,
        or a control row's payload) and ``__pos`` (the row's place in its split, named when a
        function fails on it: :func:`describe_position`)."""
        fields = list(codec_for(self.type_info).fields)
        if self.streaming:
            fields += [StructField(WM, LongType()), StructField(CHANNEL, BinaryType()), StructField(POS, LongType())]
        return StructType(fields)


def _to_ipc(codec, values: list) -> bytes:
    arrays = codec.encode(values)
    batch = pa.RecordBatch.from_arrays(arrays, names=[f.name for f in codec.fields])
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return sink.getvalue().to_pybytes()


class _Slice(InputPartition):
    """What one task reads: rows ``start`` (inclusive) to ``end`` (exclusive) of a collection or
    sequence, or a part of a file (``file``, see kindling/spark/files.py); or a control row: the
    end of a bounded input (``control``), the job's watermark handed to the source (``watermark``).
    ``label`` names the split the rows belong to (its channel); ``ending`` (``SPLIT_END_MARK``,
    ``LAST_SPLIT_END_MARK``) says that they are the last of that split."""

    def __init__(self, start: int = 0, end: int = 0, file: FileSplit | None = None, control: bool = False,
                 label: str = "", watermark: int | None = None, ending: int | None = None):
        self.start = start
        self.end = end
        self.file = file
        self.control = control
        self.label = label or (file.label if file is not None else f"{start}-{end}")
        self.watermark = watermark
        self.ending = ending


def _split(start: int, end: int, parts: int) -> list[_Slice]:
    count = end - start
    parts = max(1, min(parts, count)) if count > 0 else 1
    bounds = [start + count * i // parts for i in range(parts + 1)]
    return [_Slice(bounds[i], bounds[i + 1]) for i in range(parts)]


class IndexSplits:
    """The offsets of a source whose records are numbered (collection, sequence, bounded DataGen,
    JDBC scan splits): Flink's splits of the indexes, one per parallel reader (a collection has
    one), each at its own position: ``{"splits": [[start, end, next], ...]}``. A micro-batch moves
    the unfinished splits on by their shares of its records (``share_out``); a split ends, and so
    its watermark channel finishes, only in the micro-batch that reads it to its end."""

    @staticmethod
    def initial(total: int, parts: int) -> list[list[int]]:
        return [[s.start, s.end, s.start] for s in _split(0, total, parts) if s.end > s.start]

    @staticmethod
    def read(splits: list[list[int]]) -> int:
        return sum(position - start for start, _, position in splits)

    @staticmethod
    def advance(splits: list[list[int]], budget: int | None) -> list[list[int]]:
        takes = share_out(budget, [end - position for _, end, position in splits])
        return [[start, end, position + take] for (start, end, position), take in zip(splits, takes)]

    @staticmethod
    def slices(start: list[list[int]], end: list[list[int]]) -> list[_Slice]:
        """The parts of the splits read between two offsets. A split read to its end ends at
        MAX_WATERMARK (``LAST_SPLIT_END_MARK``) once every split has started: before that, a
        split not yet read would be left behind by it."""
        started = all(position > first for first, _, position in end)
        slices = []
        for (first, last, a), (_, _, b) in zip(start, end):
            if b > a:
                ending = None if b < last else LAST_SPLIT_END_MARK if started else SPLIT_END_MARK
                slices.append(_Slice(a, b, label=f"{first}-{last}", ending=ending))
        return slices


def read_handed_watermark(path: str | None) -> int | None:
    """The watermark the runner handed to the sources (see ``WatermarkHandOff``), if any."""
    if not path:
        return None
    try:
        with open(path, encoding="ascii") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


class WatermarkHandOff:
    """Carries an unbounded job's watermark from its keyed operators back to its sources, so
    that Spark's watermark follows the minimum over channels and fires the event-time timers
    of keys that get no elements. After each micro-batch the runner calls :meth:`after_batch`:
    the smallest of the keyed operators' watermarks (Spark accumulators) goes to a file; the
    stream reader reads it when Spark asks for the latest offset, puts it into the offset (so a
    micro-batch runs) and emits it as a control row whose event time moves Spark's watermark
    to exactly that value. Timers of idle keys therefore fire two micro-batches after the
    batch that moved the watermark (see docs/architecture.md)."""

    def __init__(self, accumulators: dict):
        from kindling.spark.session import scratch_dir

        self.accumulators = accumulators
        self.directory = tempfile.mkdtemp(prefix="wm-", dir=scratch_dir())
        self.path = os.path.join(self.directory, "watermark")
        self.handed: int | None = None
        self.wakes: TimerWakes | None = None

    def after_batch(self, batch_id: int) -> None:
        if self.wakes is not None:
            self.wakes.after_batch(batch_id)
        values = [a.value for a in self.accumulators.values() if a.value is not None]
        if not values:
            return
        watermark = min(min(values), END_MARK)  # MAX_WATERMARK (bounded inputs ended) as Spark's end
        if watermark <= 0:  # Spark's watermark starts at 0: nothing to hand over yet
            return
        if self.handed is None or watermark > self.handed:
            temporary = self.path + ".tmp"
            with open(temporary, "w", encoding="ascii") as f:
                f.write(str(watermark))
            os.replace(temporary, self.path)
            self.handed = watermark

    def close(self) -> None:
        if self.wakes is not None:
            self.wakes.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    def timer_wakes(self) -> "TimerWakes":
        """The job's processing-time timer wake-ups (created for the first keyed operator that needs them)."""
        if self.wakes is None:
            self.wakes = TimerWakes(self.directory)
        return self.wakes


# -- processing-time timers in an event-time operator ---------------------------------------

WAKE_RUN = b""  # the __elements of a wake row: not a pickle, so never an element run


class WakePlan:
    """The wake source of one keyed operator: the directory where the driver puts due wakes."""

    def __init__(self, directory: str):
        self.directory = directory
        self.run = os.path.basename(directory)

    def schema(self) -> StructType:
        return StructType([StructField(KEY, BinaryType()), StructField(ELEMENTS, BinaryType()),
                           StructField(TS, LongType()), StructField(WM, LongType()),
                           StructField(CHANNEL, BinaryType())])


class _TimerReportParam(AccumulatorParam):
    """Accumulates ``{key: earliest pending processing-time timer or None}`` (later reports win)."""

    def zero(self, value):
        return {}

    def addInPlace(self, a, b):
        a.update(b)
        return a


class TimerWakes:
    """Fires processing-time timers of event-time keyed operators on the wall clock, whether or
    not their keys get elements (docs/architecture.md, "Time across parallel inputs").

    Such an operator runs in Spark's EventTime mode, whose timers follow the watermark only. So
    it reports, per micro-batch, each key whose earliest processing-time timer changed (a Spark
    accumulator); the driver keeps them in a heap and, when one is due, a timer thread writes a
    wake-up file for the operator's wake source (:class:`_WakeReader`), whose new offset makes
    Spark run a micro-batch carrying one row per due key. The row reaches the key's
    ``handleInputRows``, which fires its due timers. Jobs whose keys register no
    processing-time timers report nothing and never get a wake row."""

    def __init__(self, parent: str):
        self.parent = parent
        self.operators: dict[str, tuple[Any, str]] = {}  # uid -> (accumulator, wake directory)
        self.due: dict[tuple[str, bytes], int] = {}  # (uid, key) -> earliest pending timer
        self.heap: list[tuple[int, str, bytes]] = []  # over ``due``, lazily deleted
        self.seq: dict[str, int] = {}
        self.lock = threading.Lock()
        self.thread: Any = None  # the threading.Timer of the earliest due wake
        self.scheduled: int | None = None
        self.closed = False

    def add_operator(self, spark, uid: str) -> tuple[Any, WakePlan]:
        """The accumulator an operator reports to and the plan of its wake source."""
        accumulator = spark.sparkContext.accumulator({}, _TimerReportParam())
        directory = tempfile.mkdtemp(prefix="wake-", dir=self.parent)
        self.operators[uid] = (accumulator, directory)
        self.seq[uid] = 0
        return accumulator, WakePlan(directory)

    def after_batch(self, batch_id: int) -> None:
        with self.lock:
            for uid, (accumulator, _) in self.operators.items():
                reports = accumulator.value
                if not reports:
                    continue
                accumulator.value = {}
                for key, timer in reports.items():
                    if timer is None:
                        self.due.pop((uid, key), None)
                    else:
                        self.due[(uid, key)] = timer
                        heapq.heappush(self.heap, (timer, uid, key))
            self._schedule()

    def _schedule(self) -> None:
        heap = self.heap
        while heap and self.due.get((heap[0][1], heap[0][2])) != heap[0][0]:
            heapq.heappop(heap)
        if not heap or self.closed or (self.scheduled is not None and self.scheduled <= heap[0][0]):
            return
        if self.thread is not None:
            self.thread.cancel()
        self.scheduled = heap[0][0]
        self.thread = threading.Timer(max(heap[0][0] / 1000 - time.time(), 0), self._deliver)
        self.thread.daemon = True
        self.thread.start()

    def _deliver(self) -> None:
        with self.lock:
            self.scheduled = None
            now = int(time.time() * 1000)
            woken: dict[str, list[tuple[bytes, int]]] = {}
            heap = self.heap
            while heap and heap[0][0] <= now:
                timer, uid, key = heapq.heappop(heap)
                if self.due.get((uid, key)) == timer:
                    del self.due[(uid, key)]
                    woken.setdefault(uid, []).append((key, timer))
            for uid, keys in woken.items():
                if self.closed:
                    break
                directory = self.operators[uid][1]
                self.seq[uid] += 1
                seq = self.seq[uid]
                with open(os.path.join(directory, f"wake-{seq}"), "wb") as f:
                    pickle.dump(keys, f, protocol=5)
                temporary = os.path.join(directory, "latest.tmp")
                with open(temporary, "w", encoding="ascii") as f:
                    f.write(str(seq))
                os.replace(temporary, os.path.join(directory, "latest"))
            self._schedule()

    def close(self) -> None:
        with self.lock:
            self.closed = True
            if self.thread is not None:
                self.thread.cancel()
        for _, directory in self.operators.values():
            shutil.rmtree(directory, ignore_errors=True)


class _WakeSlice(InputPartition):
    def __init__(self, keys: list[tuple[bytes, int]]):
        self.keys = keys


class _WakeReader(DataSourceStreamReader):
    """Offsets ``{"run": .., "seq": n}``: the n-th wake file of this job run (see TimerWakes)."""

    def __init__(self, plan: WakePlan):
        self.plan = plan

    def _seq(self, offset: dict) -> int:
        return offset["seq"] if offset.get("run") == self.plan.run else 0

    def initialOffset(self) -> dict:
        return {"run": self.plan.run, "seq": 0}

    def latestOffset(self, start: dict = None, limit: Any = None) -> dict:
        try:
            with open(os.path.join(self.plan.directory, "latest"), encoding="ascii") as f:
                return {"run": self.plan.run, "seq": int(f.read())}
        except (OSError, ValueError):
            return {"run": self.plan.run, "seq": self._seq(start or {})}

    def partitions(self, start: dict, end: dict):
        keys: list[tuple[bytes, int]] = []
        for seq in range(self._seq(start) + 1, self._seq(end) + 1):
            try:
                with open(os.path.join(self.plan.directory, f"wake-{seq}"), "rb") as f:
                    keys.extend(pickle.load(f))
            except OSError:  # an earlier run's (a job restarted from its checkpoint): nothing to wake
                pass
        return [_WakeSlice(keys)] if keys else []

    def read(self, partition):
        keys = partition.keys
        n = len(keys)
        yield pa.RecordBatch.from_arrays(
            [pa.array([k for k, _ in keys], pa.binary()), pa.array([WAKE_RUN] * n, pa.binary()),
             pa.array([t for _, t in keys], pa.int64()), pa.nulls(n, pa.int64()), pa.nulls(n, pa.binary())],
            names=[KEY, ELEMENTS, TS, WM, CHANNEL])

    def commit(self, end: dict) -> None:
        for seq in range(1, self._seq(end) + 1):
            path = os.path.join(self.plan.directory, f"wake-{seq}")
            if os.path.exists(path):
                os.remove(path)


def describe_position(spec: Any, split: str, position: int) -> str:
    """Where a source's row is, for errors: ``position`` in ``split`` as the source numbers them
    (a file split's record, a Kafka offset, an element's index)."""
    if isinstance(spec, FileSourceSpec):
        return record_position(spec, split, position)
    if isinstance(spec, KafkaSourceSpec):
        topic, _, partition = split.rpartition("-")
        return f"Kafka topic {topic}, partition {partition}, offset {position}"
    if isinstance(spec, CollectionSourceSpec):
        return f"index {position} of the collection"
    if isinstance(spec, SequenceSourceSpec):
        return f"index {position} of the sequence"
    return f"row {position} of split {split}"


class _Reading:
    """Reads the rows of a slice as Arrow batches, for both batch and stream readers."""

    def __init__(self, plan: SourcePlan):
        self.plan = plan

    def total(self) -> int | None:
        """How many records a source of numbered records has (None: another kind of source)."""
        spec = self.plan.spec
        if isinstance(spec, CollectionSourceSpec):
            return len(spec.values)
        if isinstance(spec, SequenceSourceSpec):
            return spec.end - spec.start + 1
        if isinstance(spec, DataGenSourceSpec):
            return spec.count
        if isinstance(spec, JdbcSourceSpec):  # offsets count the scan's splits
            return spec.partitions
        return None

    def readers(self) -> int:
        """How many splits a source of numbered records has: Flink reads a collection with parallelism 1."""
        return 1 if isinstance(self.plan.spec, CollectionSourceSpec) else self.plan.parallelism

    def read(self, part: _Slice) -> Iterator[pa.RecordBatch]:
        if not self.plan.streaming:
            yield from self._values(part)
            return
        file = getattr(part, "file", None)
        label = (part.label if file is None else channel_label(part.label, file)).encode()
        position = getattr(part, "start", 0) if file is None else file.skip  # an index, a file's record
        for batch in self._values(part):
            n = batch.num_rows
            yield pa.RecordBatch.from_arrays(
                batch.columns + [pa.nulls(n, pa.int64()), pa.array([label] * n, pa.binary()),
                                 pa.array(np.arange(position, position + n, dtype=np.int64))],
                names=batch.schema.names + [WM, CHANNEL, POS])
            position += n
        if getattr(part, "ending", None) is not None:
            yield self._control_row(part.ending, label)
        if part.control:
            yield self._control_row(END_MARK, None)
        elif part.watermark is not None:
            yield self._control_row(CONTROL_MARK, pickle.dumps(("watermark", part.watermark)))

    def _control_row(self, mark: int, payload: bytes | None) -> pa.RecordBatch:
        codec = codec_for(self.plan.type_info)
        arrays = [pa.nulls(1, f.type) for f in codec.arrow_schema]
        return pa.RecordBatch.from_arrays(arrays + [pa.array([mark], pa.int64()), pa.array([payload], pa.binary()),
                                                    pa.nulls(1, pa.int64())],
                                          names=[f.name for f in codec.fields] + [WM, CHANNEL, POS])

    def _values(self, part: _Slice) -> Iterator[pa.RecordBatch]:
        spec = self.plan.spec
        if part.watermark is not None:
            return
        if isinstance(spec, CollectionSourceSpec):
            table = pa.ipc.open_stream(self.plan.collection_ipc).read_all()
            yield from table.slice(part.start, part.end - part.start).to_batches(ROWS_PER_ARROW_BATCH)
        elif isinstance(spec, SequenceSourceSpec):
            for lo in range(part.start, part.end, ROWS_PER_ARROW_BATCH):
                hi = min(part.end, lo + ROWS_PER_ARROW_BATCH)
                yield pa.RecordBatch.from_arrays([pa.array(range(spec.start + lo, spec.start + hi), pa.int64())], names=["f0"])
        elif isinstance(spec, FileSourceSpec):  # kindling/spark/files.py
            if part.file is not None:
                skipped = [0]
                yield from read_split(spec.format, self.plan.type_info, part.file, skipped)
                report_skipped(self.plan.metrics, self.plan.name, skipped[0])
        elif isinstance(spec, (DataGenSourceSpec, SocketTextSourceSpec)):  # kindling/spark/datagen.py
            yield from datagen.values(self.plan, part)
        elif isinstance(spec, JdbcSourceSpec):  # kindling/spark/jdbc.py
            from kindling.spark.jdbc import read_split as read_jdbc_split

            for split in range(part.start, part.end):
                yield from read_jdbc_split(spec, split, self.plan.type_info)
        else:
            raise TypeError(f"unsupported source spec {spec!r}")

    def slices(self, start: int, end: int) -> list[_Slice]:
        return _split(start, end, self.readers())


class _BatchReader(DataSourceReader):
    def __init__(self, plan: SourcePlan):
        self.reading = _Reading(plan)

    def partitions(self):
        spec = self.reading.plan.spec
        if isinstance(spec, FileSourceSpec):
            return [_Slice(file=split) for split in FileListing(spec).splits()] or [_Slice()]
        return self.reading.slices(0, self.reading.total())

    def read(self, partition):
        return self.reading.read(partition)


class _StreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Offsets: ``{"splits": ...}`` for numbered records (``IndexSplits``), the files' read
    positions (``FileListing``), ``{"pos": n}`` for unbounded generators and sockets; ``"end":
    true`` once a bounded source has emitted everything, including its control row."""

    def __init__(self, plan: SourcePlan):
        self.reading = _Reading(plan)
        self.spec = plan.spec
        self.files = FileListing(self.spec, plan.parallelism, plan.type_info, plan.max_files_per_batch) \
            if isinstance(self.spec, FileSourceSpec) else None
        self.bounded = self.spec.bounded
        self.total = self.reading.total()  # None: records not numbered up front
        self.feed = datagen.feed_for(plan, self.reading)  # generated sources: kindling/spark/datagen.py

    def initialOffset(self) -> dict:
        if self.files:
            return FileListing.initial_offset()
        if self.total is not None:
            return {"splits": IndexSplits.initial(self.total, self.reading.readers()), "end": False}
        return {"pos": 0, "end": False}

    def _with_watermark(self, start: dict | None, offset: dict) -> dict:
        """Adds the watermark the runner handed over, when it moved: a new offset makes Spark run
        a micro-batch that carries it to the keyed operators (see ``kindling/spark/keyed.py``)."""
        handed = read_handed_watermark(self.reading.plan.watermark_file)
        known = (start or {}).get("wm")
        if handed is not None and (known is None or handed > known):
            offset["wm"] = handed
        elif known is not None:
            offset["wm"] = known
        return offset

    def prepareForTriggerAvailableNow(self) -> None:
        pass

    def latestOffset(self, start: dict = None, limit: Any = None) -> dict:
        start = start or self.initialOffset()
        budget = limit.max_rows if isinstance(limit, ReadMaxRows) else None
        if self.files:
            offset = self.files.latest_offset(start, budget)
        elif self.total is None:  # an unbounded generator, a socket (lines)
            offset = _admitted(start, self.feed.latest(start), budget)
            if not isinstance(self.feed, datagen.DataGenFeed):
                return offset
        else:
            splits = _index_splits(start)
            if isinstance(self.feed, datagen.DataGenFeed):  # paced by its rate
                due = self.feed.due(IndexSplits.read(splits))
                budget = due if budget is None else budget if due is None else min(budget, due)
            moved = IndexSplits.advance(splits, budget)
            offset = {"splits": moved, "end": all(position == end for _, end, position in moved)}
        return self._with_watermark(start, offset)

    def getDefaultReadLimit(self) -> ReadLimit:
        return read_limit(self.reading.plan)

    def partitions(self, start: dict, end: dict):
        ending = [_Slice(control=True)] if end.get("end") and not start.get("end") else []
        if end.get("wm") is not None and end.get("wm") != start.get("wm"):
            ending.append(_Slice(watermark=end["wm"]))
        if self.files:
            parts = self.files.parts_between(start, end)
            return [_Slice(file=part, label=label, ending=mark) for label, part, mark in parts] + ending
        if self.total is not None:
            return IndexSplits.slices(_index_splits(start), _index_splits(end)) + ending
        return self.feed.slices(start, end) + ending

    def read(self, partition):
        return self.reading.read(partition)

    def commit(self, end: dict) -> None:
        if self.feed is not None:
            self.feed.commit(end)


def _index_splits(offset: dict) -> list[list[int]]:
    if "splits" not in offset:
        raise ValueError("the checkpoint holds this source's offset as an older Kindling wrote it (a position "
                         f"over all splits: {offset}); start the job from a new checkpoint directory")
    return offset["splits"]


# -- micro-batch sizing: admission control of record-counted offsets --------------------------

def read_limit(plan: SourcePlan) -> ReadLimit:
    """A stream reader's default read limit: at most ``kindling.source.max-records-per-batch``
    records per micro-batch, when set, so that a large input commits in several micro-batches."""
    most = plan.max_records_per_batch
    return ReadMaxRows(most) if most > 0 else ReadAllAvailable()


def _admitted(start: dict, offset: dict, budget: int | None) -> dict:
    """``offset`` ({"pos", "end"}) moved back to at most ``budget`` records after ``start``."""
    first = start.get("pos", 0)
    if budget is None or offset["pos"] - first <= budget:
        return offset
    return {**offset, "pos": first + budget, "end": False}


class KindlingSource(DataSource):
    """The one Python data source behind every Kindling source; option ``plan`` holds the SourcePlan."""

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def _plan(self) -> SourcePlan:
        return decode_option(self.options["plan"])

    def schema(self) -> StructType:
        return self._plan().schema()

    def reader(self, schema: StructType) -> DataSourceReader:
        return _BatchReader(self._plan())

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        plan = self._plan()
        return _WakeReader(plan) if isinstance(plan, WakePlan) else _StreamReader(plan)


# -- translations (kindling/spark/connectors.py): the frames of the sources this module reads ---------

def kindling_source_frame(compiler: Any, node: Any) -> DataFrame:
    """The frame of a source read by Kindling's Python data source (:class:`KindlingSource`)."""
    spark = compiler.spark
    if not getattr(spark, "_kindling_source_registered", False):  # seconds, the first time: only when read
        spark.dataSource.register(KindlingSource)
        spark._kindling_source_registered = True
    reader = spark.readStream if compiler.streaming else spark.read
    return reader.format(FORMAT).option("plan", encode_option(compiler.source_plan(node))).load()


def collection_frame(compiler: Any, node: Any) -> DataFrame:
    """A collection: in a Spark batch job a local relation, which needs no Python data source (no
    Python worker to plan the read); one partition, in order: Flink reads a collection with parallelism 1."""
    if compiler.streaming:
        return kindling_source_frame(compiler, node)
    source_plan = compiler.source_plan(node)
    table = pa.ipc.open_stream(source_plan.collection_ipc).read_all()
    return compiler.spark.createDataFrame(table, schema=source_plan.schema()).coalesce(1)


def collection_stage_frame(compiler: Any, node: Any, plan: Any) -> DataFrame | None:
    """A collection in a Spark batch job whose stage runs functions: the stage's one task reads the
    collection itself, in order (no local relation of a row per element for Spark to convert)."""
    if compiler.streaming or compiler.leaves_as_it_is(plan):
        return None
    return _read_by_tasks(compiler.spark, [compiler.source_plan(node).collection_ipc], compiler.stage_function(plan),
                          plan.schema())


def collection_exchange_frame(compiler: Any, node: Any, distribution: Any, plan: Any) -> DataFrame | None:
    """A collection handed as it is through an exchange (``distribution``: rebalance, rescale, shuffle,
    broadcast) into the stage ``plan``, in a Spark batch job: the driver, which holds the collection,
    gives each of the stage's instances its share (the elements the partitioner sends it, in order),
    which the instance's task reads itself: no Python pass of the source over every element, no
    exchange. None where the driver cannot tell the shares (``partition_custom`` runs the user's
    partitioner in the tasks)."""
    if compiler.streaming:
        return None
    collection = pa.ipc.open_stream(compiler.source_plan(node).collection_ipc).read_all()
    shares = first_task_shares(distribution, collection.num_rows)
    if shares is None:
        return None
    chunks = [_table_ipc(collection.take(share)) for share in shares]
    return _read_by_tasks(compiler.spark, chunks, compiler.stage_function(plan), plan.schema())


def _table_ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table, max_chunksize=ROWS_PER_ARROW_BATCH)
    return sink.getvalue().to_pybytes()


def _read_by_tasks(spark: Any, chunks: list[bytes], stage: Any, schema: StructType) -> DataFrame:
    """A Spark partition per chunk (Arrow IPC streams of a collection's values), whose task reads its
    chunk and hands each batch straight to ``stage``. The chunks travel in the task's function,
    which PySpark pickles on the driver (and broadcasts when large): the driver's own encoding of
    the user's collection, never bytes that data wrote."""

    def read(ids: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in ids:
            for index in batch.column(0).to_pylist():
                yield from pa.ipc.open_stream(chunks[index]).read_all().to_batches(ROWS_PER_ARROW_BATCH)

    ids = spark.range(0, len(chunks), 1, len(chunks))
    return ids.mapInArrow(lambda batches: stage(read(batches)), schema)


def sequence_frame(compiler: Any, node: Any) -> DataFrame:
    """A number sequence: in a Spark batch job Spark's own range."""
    if compiler.streaming:
        return kindling_source_frame(compiler, node)
    spec = node.source
    return compiler.spark.range(spec.start, spec.end + 1,
                                numPartitions=compiler.parallelism_of(node)).withColumnRenamed("id", "f0")


def generated_source_stage_frame(compiler: Any, node: Any, plan: Any) -> DataFrame | None:
    """A bounded generator in a Spark batch job: its stage's own pass generates the records
    (kindling/spark/datagen.py)."""
    if compiler.streaming:
        return None
    readers = compiler.parallelism_of(node)
    splits = [(start, end) for start, end, _ in IndexSplits.initial(node.source.count, readers)]
    return datagen.generated_stage_frame(compiler.spark, SourcePlan(node.source, node.type_info, readers, False),
                                         splits, compiler.stage_function(plan), plan.schema())
