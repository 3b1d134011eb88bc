"""Kafka for Spark: a Python data source reading Kafka partitions (one split, and one
watermark channel, per partition) and a sink writer producing records, both through
confluent-kafka (the JVM Kafka connector is not part of PySpark).

Offsets live in Spark's checkpoint: a micro-batch reads fixed offset ranges, so a replayed
batch reads the same records. Offsets are also committed to the consumer group after each
batch, for monitoring only. The exactly-once sink spreads a micro-batch's records over a fixed
number of Kafka transactions by what a replay reproduces, their key (or value), and commits,
inside each transaction, the batch id as the offset of a marker group; a replayed transaction
whose batch committed is skipped (see :class:`KafkaWriter`).
"""
from __future__ import annotations

import gc
import re
import sys
import time
from itertools import repeat
from typing import Any, Callable, Iterable, Iterator

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.datasource import DataSourceReader, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadLimit, ReadMaxRows, SupportsTriggerAvailableNow
from pyspark.sql.types import BinaryType, LongType, StructField, StructType

from kindling.graph.parallelism import parallelism_of
from kindling.graph.specs import KafkaSinkSpec, KafkaSourceSpec
from kindling.runtime.chain import Record
from kindling.spark.codec import codec_for
from kindling.spark.exit_buffers import Cursor, ExitBuffer
from kindling.spark.metrics import report_skipped
from kindling.spark.read_shares import share_out
from kindling.spark.run_mode import RunMode
from kindling.spark.rows import CHANNEL, CONTROL_MARK, END_MARK, POS, PRODUCED, TS, WM
from kindling.spark.sinks import SinkBookkeeping, SinkWriter
from kindling.spark.sources import KindlingSource, SourcePlan, encode_option, read_handed_watermark, read_limit
from kindling.spark.stage_plan import ExitPlan

FORMAT = "kindling_kafka"
ROWS_PER_ARROW_BATCH = 10_000
METADATA_TIMEOUT_S = 10.0  # an unreachable broker fails the job after this long, not a hang
READ_STALL_S = 30.0  # a partition read that makes no progress for this long fails
#: Flink and Java-client properties librdkafka does not know (handled here or meaningless)
_NOT_LIBRDKAFKA = {"partition.discovery.interval.ms", "commit.offsets.on.checkpoint", "client.id.prefix",
                   "register.consumer.metrics", "key.deserializer", "value.deserializer", "key.serializer",
                   "value.serializer", "kindling.max-offsets-per-batch", "transaction.timeout.ms.flink"}
DEFAULT_DISCOVERY_MS = 300_000  # Flink's partition.discovery.interval.ms
COMMIT_TOPIC = "__kindling_sink_commits"  # its offsets (a group per transaction) mark committed batches
KEY = "__key"  # EXACTLY_ONCE: the serialized key of a pickled element, which its transaction is chosen by


def _kafka():
    try:
        import confluent_kafka
    except ImportError:  # pragma: no cover - the dependency is declared
        raise ImportError("the Kafka connector needs confluent-kafka: pip install 'kindling-streams[kafka]'") from None
    return confluent_kafka


def client_config(servers: str, properties: dict, **extra: Any) -> dict:
    """librdkafka settings: the servers, the user's properties (but those only Flink knows), extras."""
    config = {"bootstrap.servers": servers}
    config.update({k: v for k, v in properties.items() if k not in _NOT_LIBRDKAFKA})
    config.update(extra)
    return config


def reader_subtask(topic: str, partition: int, readers: int) -> int:
    """The reader subtask Flink's KafkaSource gives a partition: partition 0 of a topic to the
    subtask the Java hash of its name picks, the next partitions to the next subtasks in turn."""
    name_hash = 0
    for char in topic:  # String.hashCode(); Kafka's topic names are ASCII
        name_hash = (31 * name_hash + ord(char)) & 0xFFFFFFFF
    first = (name_hash * 31 & 0x7FFFFFFF) % readers
    return (first + partition) % readers


def _by_reader(splits: list["_Split"], readers: int) -> list["_Split"]:
    """``splits`` placed so that each one's index (its Spark partition, which the stage reading it
    takes as its subtask, modulo ``readers``) is its Kafka partition's Flink reader subtask; the
    gaps are empty splits. So ``print()`` names the subtask Flink would."""
    queues: list[list[_Split]] = [[] for _ in range(readers)]
    for split in splits:
        queues[reader_subtask(split.topic, split.partition, readers)].append(split)
    placed = [queue[turn] if turn < len(queue) else _Split()
              for turn in range(max(map(len, queues), default=0)) for queue in queues]
    while placed and placed[-1].end <= placed[-1].start:
        placed.pop()
    return placed


def _tp_key(topic: str, partition: int) -> str:
    return f"{topic}:{partition}"  # ':' cannot occur in a topic name


def _tp_of(key: str) -> tuple[str, int]:
    topic, partition = key.rsplit(":", 1)
    return topic, int(partition)


class KafkaPlan(SourcePlan):
    """A KafkaSourceSpec with what Spark needs: the value type, the execution mode, and where
    skipped records are counted (the job's metrics accumulator, under the source's ``name``).
    With a ``stage`` (a stage's Arrow function and its ``stage_schema``), the tasks reading the
    partitions run the stage on the records they read and hand Spark its output."""

    def __init__(self, spec: KafkaSourceSpec, type_info: Any, streaming: bool, watermark_file: str | None,
                 name: str = "Kafka Source", metrics: Any = None, readers: int = 1, max_records_per_batch: int = 0):
        super().__init__(spec, type_info, 0, streaming, watermark_file, name, metrics,  # a split per partition
                         max_records_per_batch)
        self.readers = readers  # the source's parallel instances (Flink's reader subtasks)
        self.stage: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]] | None = None
        self.stage_schema: StructType | None = None

    def schema(self) -> StructType:
        """The value's columns, the Kafka record timestamp (``__ts``), ``__wm`` (null but in control
        rows), ``__ch`` (the partition's name, or a control row's payload) and ``__pos`` (the record's
        offset, named when a function fails on it); or the stage's columns."""
        if self.stage_schema is not None:
            return self.stage_schema
        return StructType(list(codec_for(self.type_info).fields)
                          + [StructField(TS, LongType()), StructField(WM, LongType()), StructField(CHANNEL, BinaryType()),
                             StructField(POS, LongType())])


class _Metadata:
    """The driver's view of the topics: partitions and offsets (one consumer, kept open)."""

    def __init__(self, spec: KafkaSourceSpec):
        kafka = _kafka()
        self.spec = spec
        prefix = spec.client_id_prefix or "kindling-source"
        self.consumer = kafka.Consumer(_consumer_config(spec, **{"client.id": f"{prefix}-enumerator"}))

    def partitions(self) -> list[tuple[str, int]]:
        spec = self.spec
        if spec.partitions:
            return [tuple(tp) for tp in spec.partitions]
        try:
            topics = self.consumer.list_topics(timeout=METADATA_TIMEOUT_S).topics
        except Exception as exc:
            raise ConnectionError(f"could not reach Kafka at {spec.bootstrap_servers} within {METADATA_TIMEOUT_S:.0f} s: "
                                  f"{exc}; check set_bootstrap_servers(...) and that the broker runs") from None
        if spec.topic_pattern is not None:
            pattern = re.compile(spec.topic_pattern)
            names = sorted(t for t in topics if pattern.fullmatch(t))
        else:
            missing = [t for t in spec.topics if t not in topics]
            if missing:
                raise ValueError(f"Kafka topics {missing} do not exist at {spec.bootstrap_servers}")
            names = list(spec.topics)
        return [(t, p) for t in names for p in sorted(topics[t].partitions)]

    def _watermarks(self, tp: tuple[str, int]) -> tuple[int, int]:
        kafka = _kafka()
        return self.consumer.get_watermark_offsets(kafka.TopicPartition(*tp), timeout=METADATA_TIMEOUT_S)

    def resolve(self, initializer: tuple, tps: list[tuple[str, int]]) -> dict[str, int]:
        """The offset of each partition an OffsetsInitializer names."""
        kafka = _kafka()
        kind = initializer[0]
        out: dict[str, int] = {}
        if kind == "committed":
            found = self.consumer.committed([kafka.TopicPartition(*tp) for tp in tps], timeout=METADATA_TIMEOUT_S)
            for tp, c in zip(tps, found):
                out[_tp_key(*tp)] = c.offset if c.offset >= 0 else self._reset(initializer[1], tp, "committed offset")
        elif kind == "timestamp":
            found = self.consumer.offsets_for_times([kafka.TopicPartition(*tp, initializer[1]) for tp in tps],
                                                    timeout=METADATA_TIMEOUT_S)
            for tp, c in zip(tps, found):
                out[_tp_key(*tp)] = c.offset if c.offset >= 0 else self._watermarks(tp)[1]
        elif kind == "offsets":
            for tp in tps:
                given = initializer[1].get(tuple(tp))
                out[_tp_key(*tp)] = given if given is not None else self._reset(initializer[2], tp, "given offset")
        else:
            for tp in tps:
                low, high = self._watermarks(tp)
                out[_tp_key(*tp)] = low if kind == "earliest" else high
        return out

    def _reset(self, strategy: str, tp: tuple[str, int], what: str) -> int:
        if strategy == "NONE":
            raise ValueError(f"Kafka partition {tp[0]}-{tp[1]} has no {what} and the offset reset strategy is NONE; "
                             "use KafkaOffsetsInitializer.committed_offsets(KafkaOffsetResetStrategy.EARLIEST) (or LATEST)")
        low, high = self._watermarks(tp)
        return low if strategy == "EARLIEST" else high

    def commit(self, offsets: dict[str, int]) -> None:
        """Commits the offsets to the source's group (monitoring only: offsets live in Spark's checkpoint)."""
        kafka = _kafka()
        try:
            self.consumer.commit(offsets=[kafka.TopicPartition(*_tp_of(k), o) for k, o in offsets.items()],
                                 asynchronous=False)
        except Exception as exc:
            print(f"[kindling] could not commit Kafka offsets to group {self.spec.group_id!r} (monitoring only): {exc}",
                  file=sys.stderr, flush=True)

    def close(self) -> None:
        self.consumer.close()


def _consumer_config(spec: KafkaSourceSpec, **extra: Any) -> dict:
    defaults = {"group.id": spec.group_id or "kindling", "enable.auto.commit": False,
                "enable.auto.offset.store": False, "isolation.level": "read_uncommitted",
                "enable.partition.eof": False, "socket.connection.setup.timeout.ms": 10_000}
    defaults.update({k: v for k, v in spec.properties.items() if k not in _NOT_LIBRDKAFKA})
    defaults.update(extra)
    return client_config(spec.bootstrap_servers, {}, **defaults)


class _Split(InputPartition):
    """Offsets ``start`` to ``end`` (exclusive) of one partition, or a control row: the end of
    a bounded input (``end_of_input``) or the job's watermark handed to the source (``watermark``)."""

    def __init__(self, topic: str = "", partition: int = 0, start: int = 0, end: int = 0,
                 end_of_input: bool = False, watermark: int | None = None):
        self.topic = topic
        self.partition = partition
        self.start = start
        self.end = end
        self.end_of_input = end_of_input
        self.watermark = watermark


def _read(plan: KafkaPlan, split: _Split) -> Iterator[pa.RecordBatch]:
    """What the task reading ``split`` hands Spark: the records, or the output of the stage reading them."""
    batches = _read_split(plan, split)
    return plan.stage(batches) if plan.stage is not None else batches


def _read_split(plan: KafkaPlan, split: _Split) -> Iterator[pa.RecordBatch]:
    """The records of a split as Arrow batches: values, record timestamps, the split's name."""
    import pickle

    codec = codec_for(plan.type_info)
    names = [f.name for f in codec.fields] + [TS, WM, CHANNEL, POS]
    if split.end_of_input or split.watermark is not None:
        mark, payload = (END_MARK, None) if split.end_of_input else (CONTROL_MARK, pickle.dumps(("watermark", split.watermark)))
        yield pa.RecordBatch.from_arrays([pa.nulls(1, f.type) for f in codec.arrow_schema]
                                         + [pa.nulls(1, pa.int64()), pa.array([mark], pa.int64()),
                                            pa.array([payload], pa.binary()), pa.nulls(1, pa.int64())], names=names)
        return
    if split.end <= split.start:  # a gap between the splits of reader subtasks (_by_reader)
        return
    kafka = _kafka()
    spec = plan.spec
    label = pa.scalar(f"{split.topic}-{split.partition}".encode(), pa.binary())
    decode = _RecordDecoder(spec.deserializer, codec, split)
    prefix = spec.client_id_prefix or "kindling-source"
    consumer = kafka.Consumer(_consumer_config(spec, **{"client.id": f"{prefix}-{split.topic}-{split.partition}"}))
    pending: list = []  # records read, not yet in a batch

    def batch() -> pa.RecordBatch:
        arrays, stamps, offsets = decode(pending)
        pending.clear()
        n = len(offsets)
        return pa.RecordBatch.from_arrays(arrays + [stamps, pa.nulls(n, pa.int64()), pa.repeat(label, n), offsets],
                                          names=names)

    try:
        consumer.assign([kafka.TopicPartition(split.topic, split.partition, split.start)])
        position = split.start
        stalled_since = time.monotonic()
        while position < split.end:
            messages = consumer.consume(min(ROWS_PER_ARROW_BATCH, split.end - position), timeout=1.0)
            for m in messages:
                if m.error() is not None:
                    raise RuntimeError(f"Kafka {split.topic}-{split.partition}: {m.error()}")
            if messages:
                stalled_since = time.monotonic()
                position = messages[-1].offset() + 1
                if position > split.end:  # control records moved the offsets: records past the end came
                    messages = [m for m in messages if m.offset() < split.end]
                pending.extend(messages)
            else:
                fetched = consumer.position([kafka.TopicPartition(split.topic, split.partition)])[0].offset
                if fetched >= split.end:  # only control records (transaction markers) were left
                    break
                if time.monotonic() - stalled_since > READ_STALL_S:
                    raise TimeoutError(f"Kafka {split.topic}-{split.partition}: no record at offset {position} "
                                       f"(reading up to {split.end}) for {READ_STALL_S:.0f} s")
            if len(pending) >= ROWS_PER_ARROW_BATCH:
                yield batch()
        if pending:
            yield batch()
        report_skipped(plan.metrics, plan.name, decode.skipped)
    finally:
        consumer.close()


class _RecordDecoder:
    """Turns Kafka records into the source's Arrow columns: values (deserialized; UTF-8 strings
    of SimpleStringSchema decoded by Arrow, a batch at a time), record timestamps and offsets.
    A deserializer returning None skips the record (as in Flink): ``skipped`` counts them."""

    def __init__(self, deserializer: Any, codec: Any, split: _Split):
        self.deserialize = deserializer.deserialize
        self.with_key = getattr(deserializer, "deserialize_record", None)  # a Kafka table's: key and value columns
        self.codec = codec
        self.split = split
        self.utf8 = _utf8_strings(deserializer, codec)
        self.skipped = 0

    def __call__(self, records: list) -> tuple[list[pa.Array], pa.Array, pa.Array]:
        offsets = [m.offset() for m in records]
        missing = _kafka().TIMESTAMP_NOT_AVAILABLE
        collecting = gc.isenabled()
        gc.disable()  # a (kind, timestamp) tuple per record would set off collections walking every record
        try:
            stamps = [ts if kind != missing else None for kind, ts in [m.timestamp() for m in records]]
        finally:
            if collecting:
                gc.enable()
        raw = [m.value() for m in records]
        if self.utf8:
            utf8 = self._utf8(raw, offsets)
            if utf8.null_count == 0:  # else a null value fails below, as the deserializer does
                return [utf8], pa.array(stamps, pa.int64()), pa.array(offsets, pa.int64())
        values, kept = [], []
        keys = [m.key() for m in records] if self.with_key is not None else [None] * len(records)
        for i, (data, offset) in enumerate(zip(raw, offsets)):
            value = self._deserialized(data, offset, keys[i])
            if value is None:  # Flink skips records a deserializer turns into null
                self.skipped += 1
            else:
                values.append(value)
                kept.append(i)
        if len(kept) < len(raw):
            offsets = [offsets[i] for i in kept]
            stamps = [stamps[i] for i in kept]
        try:
            arrays = self.codec.encode(values)
        except Exception as exc:
            raise ValueError(f"a value deserialized from Kafka {self.split.topic}-{self.split.partition} (offsets "
                             f"{self.split.start}..{self.split.end - 1}) does not fit the source's type: {exc}") from None
        return arrays, pa.array(stamps, pa.int64()), pa.array(offsets, pa.int64())

    def _deserialized(self, data: bytes | None, offset: int, key: bytes | None = None) -> Any:
        try:
            return self.with_key(key, data) if self.with_key is not None else self.deserialize(data)
        except Exception as exc:
            raise ValueError(f"could not deserialize the Kafka record at {self.split.topic}-{self.split.partition} "
                             f"offset {offset}: {type(exc).__name__}: {exc}") from None

    def _utf8(self, raw: list, offsets: list) -> pa.Array:
        """Record values as an Arrow string array; a value that is not UTF-8 fails naming its offset."""
        try:
            return pa.array(raw, pa.binary()).cast(pa.string())
        except pa.ArrowInvalid:
            for data, offset in zip(raw, offsets):
                if data is not None:
                    self._deserialized(data, offset)
            raise


def _utf8_strings(deserializer: Any, codec: Any) -> bool:
    """Whether the values are UTF-8 strings (SimpleStringSchema), which Arrow decodes a batch at a time."""
    from kindling.common.serialization import SimpleStringSchema

    return (type(deserializer) is SimpleStringSchema and [f.type for f in codec.arrow_schema] == [pa.string()]
            and deserializer.get_charset().replace("-", "").lower() == "utf8")


class _BatchReader(DataSourceReader):
    """A bounded source in a one-step (batch) job: the offsets from start to stop, resolved now."""

    def __init__(self, plan: KafkaPlan):
        self.plan = plan

    def partitions(self):
        return self.splits() or [_Split()]

    def splits(self) -> list[_Split]:
        metadata = _Metadata(self.plan.spec)
        try:
            tps = metadata.partitions()
            start = metadata.resolve(self.plan.spec.starting, tps)
            stop = metadata.resolve(self.plan.spec.stopping or ("latest",), tps)
        finally:
            metadata.close()
        return _by_reader([_Split(*_tp_of(k), start[k], stop[k]) for k in start if stop[k] > start[k]],
                          self.plan.readers)

    def read(self, partition: _Split):
        return _read(self.plan, partition)


class _StreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Offsets ``{"p": {"topic:partition": next offset}, "stop": {...} or None, "end": bool}``
    (``"wm"``: the last watermark handed over). A bounded source reads up to ``stop`` (resolved
    when the job first starts, kept in the checkpoint) and then emits its end-of-input row."""

    def __init__(self, plan: KafkaPlan):
        self.plan = plan
        self.spec = plan.spec
        self._metadata: _Metadata | None = None  # opened on the driver when first needed (never pickled)
        self.discovered_at = time.monotonic()
        self.limit = int(plan.spec.properties.get("kindling.max-offsets-per-batch", 0) or 0)
        interval = plan.spec.properties.get("partition.discovery.interval.ms")
        self.discovery_ms = int(interval) if interval is not None else DEFAULT_DISCOVERY_MS

    @property
    def metadata(self) -> _Metadata:
        if self._metadata is None:
            self._metadata = _Metadata(self.spec)
        return self._metadata

    def initialOffset(self) -> dict:
        tps = self.metadata.partitions()
        start = self.metadata.resolve(self.spec.starting, tps)
        stop = self.metadata.resolve(self.spec.stopping, tps) if self.spec.stopping else None
        return {"p": start, "stop": stop, "end": False}

    def prepareForTriggerAvailableNow(self) -> None:
        pass

    def latestOffset(self, start: dict = None, limit: Any = None) -> dict:
        start = start or self.initialOffset()
        positions = dict(start["p"])
        stop = start.get("stop")
        if stop is None and self.discovery_ms > 0 and not self.spec.partitions \
                and (time.monotonic() - self.discovered_at) * 1000 >= self.discovery_ms:
            self.discovered_at = time.monotonic()
            new = [tp for tp in self.metadata.partitions() if _tp_key(*tp) not in positions]
            positions.update(self.metadata.resolve(("earliest",), new))  # Flink starts new partitions at the earliest
        latest = {}
        for key, position in positions.items():
            end = stop[key] if stop is not None else self.metadata._watermarks(_tp_of(key))[1]
            if self.limit > 0:
                end = min(end, position + self.limit)
            latest[key] = max(position, end)
        if isinstance(limit, ReadMaxRows):  # kindling.source.max-records-per-batch, shared by the partitions
            shares = share_out(limit.max_rows, [latest[key] - positions[key] for key in latest])
            latest = {key: positions[key] + share for key, share in zip(latest, shares)}
        reached = stop is not None and all(latest[k] >= stop[k] for k in latest)
        offset = {"p": latest, "stop": stop, "end": bool(reached and self.spec.bounded)}
        handed = read_handed_watermark(self.plan.watermark_file)
        known = start.get("wm")
        if handed is not None and (known is None or handed > known):
            offset["wm"] = handed
        elif known is not None:
            offset["wm"] = known
        return offset

    def getDefaultReadLimit(self) -> ReadLimit:
        return read_limit(self.plan)  # offsets, over all partitions

    def partitions(self, start: dict, end: dict):
        splits = []
        for key, stop in end["p"].items():
            begin = start["p"].get(key)
            if begin is None:  # discovered in this batch
                begin = self.metadata.resolve(("earliest",), [_tp_of(key)])[key]
            if stop > begin:
                splits.append(_Split(*_tp_of(key), begin, stop))
        splits = _by_reader(splits, self.plan.readers)
        if end.get("end") and not start.get("end"):
            splits.append(_Split(end_of_input=True))
        if end.get("wm") is not None and end.get("wm") != start.get("wm"):
            splits.append(_Split(watermark=end["wm"]))
        return splits

    def read(self, partition: _Split):
        return _read(self.plan, partition)

    def commit(self, end: dict) -> None:
        if self.spec.group_id and self.spec.properties.get("commit.offsets.on.checkpoint", "true") != "false":
            self.metadata.commit(end["p"])

    def stop(self) -> None:
        if self._metadata is not None:
            self._metadata.close()
            self._metadata = None


class KafkaDataSource(KindlingSource):
    """The Python data source behind every KafkaSource; option ``plan`` holds the KafkaPlan."""

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def reader(self, schema: StructType) -> DataSourceReader:
        return _BatchReader(self._plan())

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        return _StreamReader(self._plan())


def kafka_source_frame(compiler: Any, node: Any, plan: KafkaPlan | None = None) -> DataFrame:
    """The DataFrame of a KafkaSource node (called by the compiler): the Kafka data source reading
    ``plan`` (by default the node's records)."""
    spark = compiler.spark
    if not getattr(spark, "_kindling_kafka_registered", False):
        spark.dataSource.register(KafkaDataSource)
        spark._kindling_kafka_registered = True
    reader = spark.readStream if compiler.streaming else spark.read
    return reader.format(FORMAT).option("plan", encode_option(plan or _plan_of(compiler, node))).load()


def kafka_source_stage_frame(compiler: Any, node: Any, plan: Any) -> DataFrame | None:
    """A KafkaSource read by its stage's own pass (:func:`kafka_stage_frame`), unless a batch job's
    stage only hands the records to one sink as they are."""
    if compiler.leaves_as_it_is(plan):
        return None
    return kafka_stage_frame(compiler, node, compiler.stage_function(plan), plan.schema())


def produces_in_stage(spec: KafkaSinkSpec, sink_count: int) -> bool:
    """Whether the stage computing a KafkaSink's records sends them itself (a ``produced`` exit,
    :class:`ProducingExitBuffer`): without transactions (EXACTLY_ONCE ties its transactions to the
    micro-batch, in the sink pass)."""
    return spec.guarantee != "EXACTLY_ONCE"


def kafka_stage_frame(compiler: Any, node: Any, stage: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]],
                      schema: StructType) -> DataFrame:
    """A KafkaSource read by its stage's own Python pass: each task reads a partition's records and
    hands them straight to ``stage`` (no trip through the JVM between the consumer and the stage's
    functions). A streaming query's reader tasks run the stage; a batch job has a Spark partition
    per Kafka partition (placed by :func:`_by_reader`)."""
    plan = _plan_of(compiler, node)
    if compiler.streaming:
        plan.stage, plan.stage_schema = stage, schema
        return kafka_source_frame(compiler, node, plan)
    splits = _BatchReader(plan).splits()

    def read(ids: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in ids:
            for index in batch.column(0).to_pylist():
                yield from _read_split(plan, splits[index])

    ids = compiler.spark.range(0, len(splits), 1, max(len(splits), 1))
    return ids.mapInArrow(lambda batches: stage(read(batches)), schema)


def _plan_of(compiler: Any, node: Any) -> KafkaPlan:
    if compiler.mode is RunMode.BATCH and not node.source.bounded:
        raise ValueError("an unbounded KafkaSource cannot run in BATCH mode; use set_bounded(...) or STREAMING mode")
    handoff = getattr(compiler, "handoff", None)
    return KafkaPlan(node.source, node.type_info, compiler.streaming, handoff.path if handoff is not None else None,
                     node.name, getattr(compiler, "metrics", None), parallelism_of(node, compiler.parallelism),
                     getattr(compiler, "source_batch_records", 0))


# -- sink ------------------------------------------------------------------------------------


class KafkaWriter(SinkWriter):
    """Produces each element of a micro-batch as a Kafka record, from the tasks that hold them.

    ``EXACTLY_ONCE``: a micro-batch's records are spread over ``n`` transactions by their key (by
    their value when they have none), so that a replay puts each record in the same transaction
    whatever its partitioning: ``n`` is ``spark.sql.shuffle.partitions`` when the batch first ran,
    kept in the sink's bookkeeping beside the checkpoint. Transaction ``p`` (transactional id
    ``<prefix>-<p>``: a new attempt fences an old one and aborts what it left open) commits, inside
    it, ``batch_id + 1`` as the offset of group :func:`commit_group` on the marker topic; a replayed
    transaction that finds its batch committed writes nothing. A replay that computes the same
    records therefore writes exactly those the first attempt did not commit. A BATCH job, never
    replayed, commits no marks. ``AT_LEAST_ONCE`` and ``NONE`` flush every task's records before
    the batch counts as written and fail on any delivery error (``NONE`` without ``acks=all``)."""

    def __init__(self, spec: KafkaSinkSpec):
        self.spec = spec
        self.marker_ready = False
        self.books = SinkBookkeeping("kafka", f"{spec.bootstrap_servers} {spec.transactional_id_prefix}")

    def bind(self, checkpoint_dir: str) -> None:
        """Keeps the number of transactions of each micro-batch under the job's checkpoint directory."""
        self.books.bind(checkpoint_dir)

    def finish(self) -> None:
        self.books.close()

    def _ensure_marker_topic(self) -> None:
        kafka = _kafka()
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient(client_config(self.spec.bootstrap_servers, {}))
        futures = admin.create_topics([NewTopic(COMMIT_TOPIC, 1, 1)], operation_timeout=METADATA_TIMEOUT_S)
        for future in futures.values():
            try:
                future.result(timeout=METADATA_TIMEOUT_S)
            except kafka.KafkaException as exc:
                if exc.args[0].code() != kafka.KafkaError.TOPIC_ALREADY_EXISTS:
                    raise ConnectionError(f"KafkaSink (EXACTLY_ONCE) could not create its marker topic "
                                          f"{COMMIT_TOPIC} at {self.spec.bootstrap_servers}: {exc}") from None
        self.marker_ready = True

    def write(self, df: DataFrame, batch_id: int) -> int:
        spec = self.spec
        if PRODUCED in df.columns:  # the stage produced the records itself: rows count them
            return sum(row[0] for row in df.select(PRODUCED).collect() if row[0])
        exactly_once = spec.guarantee == "EXACTLY_ONCE"
        query = None
        if exactly_once:
            if not self.marker_ready:
                self._ensure_marker_topic()
            query = df.sparkSession.sparkContext.getLocalProperty("sql.streaming.queryId")
            transactions = self.books.transactions(df.sparkSession, batch_id)
            spread_by = F.col(df.columns[0])  # the value (serialized or pickled)
            if spec.key_schema is not None:
                df = _with_keys(spec, df)
                spread_by = F.coalesce(F.col(KEY), spread_by)
            df = df.repartition(transactions, spread_by)  # Spark's hash of it picks the transaction

        def write_partition(batches):
            from pyspark import TaskContext

            transaction = (query, TaskContext.get().partitionId()) if exactly_once else None
            n = write_records(spec, batch_id, batches, transaction)
            yield pa.RecordBatch.from_arrays([pa.array([n], pa.int64())], names=["n"])

        return sum(r[0] for r in df.mapInArrow(write_partition, "n long").collect())


def commit_group(prefix: str, query: str, transaction: int) -> str:
    """The marker group of an EXACTLY_ONCE sink's transaction ``transaction``: its committed offset on
    the marker topic is ``1 +`` the last micro-batch the transaction committed. Named by the
    streaming query's id, the same after a restart from the checkpoint and new for a new job (one
    restored from a savepoint too), so another job's marks are never taken for this one's."""
    return f"{prefix}-{query[:8]}-{transaction}"


def _with_keys(spec: KafkaSinkSpec, df: DataFrame) -> DataFrame:
    """A KafkaSink's pickled elements with their serialized keys (column KEY)."""
    import pickle

    serialize = spec.key_schema.serialize

    def add_keys(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            keys = []
            for data in batch.column(0).to_pylist():
                value = pickle.loads(data)
                try:
                    keys.append(serialize(value))
                except Exception as exc:
                    raise ValueError(f"KafkaSink could not serialize the key of {value!r}: "
                                     f"{type(exc).__name__}: {exc}") from exc
            yield batch.append_column(KEY, pa.array(keys, pa.binary()))

    return df.mapInArrow(add_keys, StructType(df.schema.fields + [StructField(KEY, BinaryType())]))


def write_records(spec: KafkaSinkSpec, batch_id: int, batches: Iterator[pa.RecordBatch],
                  transaction: tuple[str | None, int] | None = None) -> int:
    """Produces one task's part of a micro-batch (serialized values or pickled elements, see
    KafkaSinkSpec.layout); returns how many. ``transaction``: ``(query id, index)`` of the
    EXACTLY_ONCE transaction the records make (no query id: a BATCH job, which commits no mark)."""
    import pickle

    if transaction is None:
        producer = _Producer(spec)
        n = _produce_all(producer, batches, pickle)
        producer.finish()
        return n
    kafka = _kafka()
    query, index = transaction
    producer = _Producer(spec, f"{spec.transactional_id_prefix}-{index}")
    producer.producer.init_transactions(METADATA_TIMEOUT_S)
    marker = kafka.TopicPartition(COMMIT_TOPIC, 0)
    group = None if query is None else kafka.Consumer(client_config(
        spec.bootstrap_servers, {}, **{"group.id": commit_group(spec.transactional_id_prefix, query, index),
                                       "enable.auto.commit": False}))
    try:
        if group is not None and group.committed([marker], timeout=METADATA_TIMEOUT_S)[0].offset > batch_id:
            for _ in batches:  # this transaction of the batch was committed before: a replay
                pass
            return 0
        producer.producer.begin_transaction()
        n = _produce_all(producer, batches, pickle)
        producer.producer.flush()
        if producer.errors:
            producer.producer.abort_transaction()
            raise RuntimeError(f"KafkaSink could not deliver records: {'; '.join(producer.errors)}")
        if group is not None:
            producer.producer.send_offsets_to_transaction([kafka.TopicPartition(COMMIT_TOPIC, 0, batch_id + 1)],
                                                          group.consumer_group_metadata(), METADATA_TIMEOUT_S)
        producer.producer.commit_transaction(METADATA_TIMEOUT_S * 3)
        return n
    finally:
        if group is not None:
            group.close()


class _Producer:
    """A confluent-kafka producer for a KafkaSink: ``acks=all`` for AT_LEAST_ONCE, a
    transactional id for EXACTLY_ONCE. Records with a key go to the partition Kafka's Java
    producer (Flink's) picks, by the murmur2 hash of the key, unless the sink's properties name
    another ``partitioner``. Only failed deliveries are reported (not one callback per record);
    they are kept for :meth:`finish`."""

    def __init__(self, spec: KafkaSinkSpec, transactional_id: str | None = None):
        extra: dict[str, Any] = {"socket.connection.setup.timeout.ms": 10_000, "on_delivery": self.delivered,
                                 "delivery.report.only.error": True,
                                 "partitioner": spec.properties.get("partitioner", "murmur2_random")}
        if spec.guarantee == "AT_LEAST_ONCE":
            extra["acks"] = "all"
        if transactional_id is not None:
            extra["transactional.id"] = transactional_id
        self.spec = spec
        self.producer = _kafka().Producer(client_config(spec.bootstrap_servers, spec.properties, **extra))
        self.errors: list[str] = []
        select = spec.topic_selector
        self.select = select.apply if callable(getattr(select, "apply", None)) else select
        self.sent = 0

    def delivered(self, err, msg) -> None:
        if err is not None and len(self.errors) < 5:
            self.errors.append(f"{msg.topic()}: {err}")

    def send(self, topic: str, payload: bytes, key: bytes | None, stamp: int | None) -> None:
        # the element's timestamp is the record's (Flink's); without one the producer stamps it
        timestamp = stamp if stamp is not None and stamp >= 0 else 0
        while True:
            try:
                self.producer.produce(topic, value=payload, key=key, timestamp=timestamp)
                self.sent += 1
                return
            except BufferError:  # the local queue is full: let deliveries drain it
                self.producer.poll(0.1)

    def sender(self, keys_given: bool = False) -> Callable[..., None]:
        """``send(value, stamp, key=None)``: serializes and produces one element (topic, key and
        value from the sink's schemas; the key is ``key`` when ``keys_given``), the work of one
        element bound once."""
        spec, select, produce = self.spec, self.select, self.producer.produce
        serialize, key_schema = spec.value_schema.serialize, None if keys_given else spec.key_schema

        def send(value: Any, stamp: int | None, key: bytes | None = None) -> None:
            try:
                topic = select(value) if select is not None else spec.topic
                if key_schema is not None:
                    key = key_schema.serialize(value)
                payload = serialize(value)
            except Exception as exc:
                raise ValueError(f"KafkaSink could not serialize {value!r}: {type(exc).__name__}: {exc}") from exc
            try:
                produce(topic, value=payload, key=key, timestamp=stamp if stamp is not None and stamp >= 0 else 0)
                self.sent += 1
            except BufferError:
                self.send(topic, payload, key, stamp)

        return send

    def send_values(self, values: Iterable, stamps: Iterable, keys: list | None = None) -> None:
        """Produces elements, with their serialized ``keys`` if given."""
        send = self.sender(keys is not None)
        for value, stamp, key in zip(values, stamps, keys if keys is not None else repeat(None)):
            send(value, stamp, key)
        self.producer.poll(0)

    def finish(self) -> None:
        """Waits until every record is delivered; fails on any delivery error."""
        remaining = self.producer.flush(METADATA_TIMEOUT_S * 6)
        if self.errors or remaining:
            raise RuntimeError(f"KafkaSink could not deliver {remaining or 'some'} records to "
                               f"{self.spec.bootstrap_servers}: {'; '.join(self.errors) or 'timed out'}")


class StageProducer:
    """Produces the records of a KafkaSink (NONE or AT_LEAST_ONCE) from inside the stage that
    computes its elements, one Python pass less than a separate sink pass (``produced``
    exit layout, kindling/spark/exit_buffers.py): each element goes out as the stage pushes it, all
    delivered before its task ends (:meth:`finish`), so before the micro-batch commits (a
    replayed batch produces again: at least once)."""

    def __init__(self, spec: KafkaSinkSpec):
        self.spec = spec
        self.producer: _Producer | None = None  # opened by the first element

    def pusher(self, record: Any = None) -> Callable[[Any], None]:
        """``push(value)``: produces one element, with ``record``'s current timestamp (None: none)."""
        send = None

        def push(value: Any) -> None:
            nonlocal send
            if self.producer is None:
                send = self._open().sender()
            send(value, record.timestamp if record is not None else None)

        return push

    def send_all(self, values: list) -> None:
        """Produces elements without timestamps."""
        (self.producer or self._open()).send_values(values, repeat(None))

    def _open(self) -> _Producer:
        self.producer = _Producer(self.spec)
        return self.producer

    @property
    def opened(self) -> bool:
        return self.producer is not None

    def finish(self) -> int:
        """Waits until every record is delivered (fails on a delivery error); returns how many."""
        producer, self.producer = self.producer, None
        if producer is None:
            return 0
        producer.finish()
        return producer.sent


def _produce_all(producer: _Producer, batches: Iterator[pa.RecordBatch], pickle: Any) -> int:
    """Produces the elements of ``batches``: values serialized by the stage (``encoded`` layout),
    or pickled elements serialized here."""
    encoded = producer.spec.layout == "encoded"
    n = 0
    for batch in batches:
        stamps = batch.column(TS).to_pylist() if TS in batch.schema.names else [None] * batch.num_rows
        if encoded:
            topic = producer.spec.topic
            for payload, stamp in zip(batch.column(0).to_pylist(), stamps):
                producer.send(topic, payload, None, stamp)
            producer.producer.poll(0)
        else:
            keys = batch.column(KEY).to_pylist() if KEY in batch.schema.names else None
            producer.send_values([pickle.loads(data) for data in batch.column(0).to_pylist()], stamps, keys)
        n += batch.num_rows
    return n


class ProducingExitBuffer(ExitBuffer):
    """A ``produced`` exit: sends each element to Kafka as it is pushed; at the task's end it waits
    until all are delivered and hands on one row counting them."""

    def __init__(self, plan: ExitPlan, record: Record, cursor: Cursor, timed: bool):
        super().__init__(plan, record, cursor, timed)
        self.producer = StageProducer(plan.sink_spec)
        self.push = self.producer.pusher(record if timed else None)
        self.extend = self.producer.send_all

    def ready(self, final: bool) -> bool:
        return final and self.producer.opened

    def take(self) -> tuple[int, list[pa.Array], list | None, list | None, list | None]:
        return 1, [pa.array([self.producer.finish()], pa.int64())], None, None, None
