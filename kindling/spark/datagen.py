"""Sources for demos and tests, read through ``sources.KindlingSource``: the DataGeneratorSource
(records made from their index, paced by a rate limit) and ``socket_text_stream`` (lines from a
TCP server).

A generator's offset is the next index (``{"pos": n}``, in Spark's checkpoint), so a restarted
job goes on where it stopped. A rate limit moves the offset with the wall clock: each
micro-batch holds the records that came due since the last. A socket is not replayable (as in
Flink): lines read but not yet committed when a job stops are lost.
"""
from __future__ import annotations

import codecs
import socket
import threading
import time
from typing import Any, Callable, Iterator

import pyarrow as pa
from pyspark.sql.datasource import InputPartition

from kindling.graph.specs import DataGenSourceSpec, SocketTextSourceSpec
from kindling.runtime.errors import user_function_failure
from kindling.spark.codec import codec_for

ROWS_PER_ARROW_BATCH = 10_000
PACED_BATCH_S = 0.02  # a rate-limited batch read hands on what came due at least this often
SOCKET_RETRY_DELAY_S = 0.5  # Flink's socket source waits this long between reconnection attempts
SOCKET_CONNECT_TIMEOUT_S = 5


class _LineSlice(InputPartition):
    """Lines read from the socket, handed to a task whole (the socket is read on the driver)."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.control = False
        self.watermark = None
        self.label = "socket"


def generated(plan: Any, start: int, end: int) -> Iterator[pa.RecordBatch]:
    """The records of indexes ``start`` to ``end`` (exclusive) as Arrow batches of the value's
    columns. A batch read (BATCH mode, one-step jobs) keeps the rate limit by waiting: each of the
    ``parallelism`` splits gets its share of the rate, a batch of what came due every
    ``PACED_BATCH_S`` (a record at a time when the rate is lower)."""
    spec: DataGenSourceSpec = plan.spec
    generate = getattr(spec.generator, "map", spec.generator)
    codec = codec_for(plan.type_info)
    names = [f.name for f in codec.fields]
    split_rate = None
    if spec.rate is not None and not plan.streaming:
        split_rate = spec.rate / max(1, min(plan.parallelism, spec.count or 1))
    step = ROWS_PER_ARROW_BATCH if split_rate is None else max(1, min(ROWS_PER_ARROW_BATCH,
                                                                      int(split_rate * PACED_BATCH_S)))
    began = time.monotonic()
    for lo in range(start, end, step):
        hi = min(end, lo + step)
        if split_rate is not None:
            time.sleep(max(0.0, began + (hi - start) / split_rate - time.monotonic()))
        try:
            arrays = codec.encode([generate(i) for i in range(lo, hi)])
        except Exception as exc:
            raise user_function_failure("Source: DataGeneratorSource", exc) from None
        yield pa.RecordBatch.from_arrays(arrays, names=names)


def generated_stage_frame(spark: Any, plan: Any, splits: list[tuple[int, int]],
                          stage: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]], schema: Any) -> Any:
    """A bounded generator read by its stage's own Python pass (a batch job): a Spark partition per
    split of indexes (``splits``), whose task generates the split's records at its share of the rate
    and hands each batch straight to ``stage``. So the time reading takes passes in the stage, as
    in Flink's source chained with its operators: the watermark generators see it (and a one-step
    job's replay of time, kindling/spark/one_step.py), which a read through Spark's Python data
    source, handing the stage its rows only in batches of thousands, would hide."""

    def read(ids: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in ids:
            for index in batch.column(0).to_pylist():
                yield from generated(plan, *splits[index])

    ids = spark.range(0, len(splits), 1, max(len(splits), 1))
    return ids.mapInArrow(lambda batches: stage(read(batches)), schema)


def lines(plan: Any, part: _LineSlice) -> Iterator[pa.RecordBatch]:
    for lo in range(0, len(part.lines), ROWS_PER_ARROW_BATCH):
        yield pa.RecordBatch.from_arrays([pa.array(part.lines[lo:lo + ROWS_PER_ARROW_BATCH], pa.string())],
                                         names=["f0"])


class DataGenFeed:
    """The offsets of a generator in a streaming query. A bounded one (a count) is read by
    ``parallelism`` splits of its indexes, as Flink's (kindling/spark/sources.py, ``IndexSplits``),
    each micro-batch taking what :meth:`due` allows; an unbounded one takes a chunk a micro-batch
    (or what came due), the k-th range of every micro-batch being split ``gen-k``."""

    def __init__(self, plan: Any, reading: Any):
        self.spec: DataGenSourceSpec = plan.spec
        self.parallelism = plan.parallelism
        self.reading = reading
        self.origin: tuple[float, int] | None = None  # (when, index) the pacing counts from

    def _paced(self, pos: int) -> int:
        """How many records came due by now under the rate limit, when ``pos`` have been read."""
        spec = self.spec
        if self.origin is None:
            self.origin = (time.monotonic(), pos)
        since, first = self.origin
        target = first + int((time.monotonic() - since) * spec.rate)
        if target <= pos and spec.count is not None and pos < spec.count:
            # A bounded query (availableNow) ends at the first micro-batch without data: wait for the next record.
            time.sleep(max(0.0, since + (pos + 1 - first) / spec.rate - time.monotonic()))
            target = pos + 1
        return max(target, pos)

    def due(self, read: int) -> int | None:
        """A bounded generator: how many more records may be read when ``read`` have been (None: all)."""
        if self.spec.rate is None:
            return None
        return min(self._paced(read), self.spec.count) - read

    def latest(self, start: dict | None) -> dict:
        """An unbounded generator's next offset."""
        pos = (start or {}).get("pos", 0)
        target = pos + ROWS_PER_ARROW_BATCH * self.parallelism if self.spec.rate is None else self._paced(pos)
        return {"pos": target, "end": False}

    def slices(self, start: dict, end: dict) -> list:
        """An unbounded generator's micro-batch: its indexes in ``parallelism`` consecutive ranges;
        the k-th range of every batch is split ``gen-k`` (its watermark goes on from batch to batch)."""
        slices = self.reading.slices(start["pos"], end["pos"])
        for k, piece in enumerate(slices):
            piece.label = f"gen-{k}"
        return [s for s in slices if s.end > s.start]

    def commit(self, end: dict) -> None:
        pass


class SocketFeed:
    """Reads lines from the socket in a thread of the driver-side reader; offsets count lines."""

    def __init__(self, plan: Any):
        self.spec: SocketTextSourceSpec = plan.spec
        self.lock = threading.Lock()
        self.lines: list[str] = []
        self.base: int | None = None  # the offset of ``lines[0]``
        self.closed = False
        self.error: BaseException | None = None
        self.thread: threading.Thread | None = None

    def __getstate__(self) -> dict:  # Spark pickles the reader for its tasks, which need the lines only
        return {"spec": self.spec}

    def __setstate__(self, state: dict) -> None:
        self.__init__(type("Plan", (), {"spec": state["spec"]}))

    def _read(self) -> None:
        spec = self.spec
        attempt = 0
        connected_once = False
        while True:
            try:
                with socket.create_connection((spec.hostname, spec.port), timeout=SOCKET_CONNECT_TIMEOUT_S) as conn:
                    connected_once = True
                    conn.settimeout(None)
                    self._receive(conn)
            except OSError as exc:
                if not connected_once and (spec.max_retry == 0 or 0 <= spec.max_retry <= attempt):
                    self.error = ConnectionError(f"socket_text_stream could not connect to {spec.hostname}:{spec.port}: "
                                                 f"{exc}")
                    return
            attempt += 1
            if 0 <= spec.max_retry < attempt:
                with self.lock:
                    self.closed = True
                return
            time.sleep(SOCKET_RETRY_DELAY_S)

    def _receive(self, conn: socket.socket) -> None:
        delimiter = self.spec.delimiter
        pending = ""
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        while True:
            data = conn.recv(65536)
            text = pending + decoder.decode(data, final=not data)
            parts = text.split(delimiter)
            pending = parts.pop() if data else ""
            if not data and parts and parts[-1] == "":  # the text ended with the delimiter
                parts.pop()
            if parts:
                with self.lock:
                    self.lines.extend(p[:-1] if delimiter == "\n" and p.endswith("\r") else p for p in parts)
            if not data:
                return

    def latest(self, start: dict | None) -> dict:
        pos = (start or {}).get("pos", 0)
        if self.thread is None:
            self.base = pos
            self.thread = threading.Thread(target=self._read, name="kindling-socket-source", daemon=True)
            self.thread.start()
        if self.error is not None:
            raise self.error
        with self.lock:
            return {"pos": self.base + len(self.lines), "end": self.closed}

    def slices(self, start: dict, end: dict) -> list:
        with self.lock:
            lines = self.lines[max(0, start["pos"] - self.base):end["pos"] - self.base]
        return [_LineSlice(lines)] if lines else []

    def commit(self, end: dict) -> None:
        with self.lock:
            done = end["pos"] - self.base
            if done > 0:
                del self.lines[:done]
                self.base = end["pos"]


def feed_for(plan: Any, reading: Any) -> DataGenFeed | SocketFeed | None:
    """The offsets and splits of a generated source's stream reader (None for other sources)."""
    if isinstance(plan.spec, DataGenSourceSpec):
        return DataGenFeed(plan, reading)
    if isinstance(plan.spec, SocketTextSourceSpec):
        return SocketFeed(plan)
    return None


def values(plan: Any, part: Any) -> Iterator[pa.RecordBatch]:
    """The rows of a generated source's split."""
    if isinstance(part, _LineSlice):
        return lines(plan, part)
    return generated(plan, part.start, part.end)
