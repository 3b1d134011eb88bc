"""The Kafka connector, as in ``pyflink.datastream.connectors.kafka``: ``KafkaSource`` and
``KafkaSink`` builders, offsets initializers, record serialization, and the legacy
``FlinkKafkaConsumer`` / ``FlinkKafkaProducer``.

Kafka is spoken through confluent-kafka inside Spark Python data sources and sink writers
(``kindling/spark/kafka.py``); docs/connectors.md says what differs from Flink.
"""
from __future__ import annotations

import importlib.util
import re
from abc import ABC, abstractmethod
from enum import Enum
from typing import Any, Callable, Dict, List, Optional, Set, Union

from kindling.common.serialization import DeserializationSchema, SerializationSchema
from kindling.datastream.connectors.base import DeliveryGuarantee, Sink, Source
from kindling.datastream.functions import SinkFunction, SourceFunction
from kindling.graph.specs import KafkaSinkSpec, KafkaSourceSpec

__all__ = ["FlinkKafkaConsumer", "FlinkKafkaProducer", "KafkaOffsetResetStrategy", "KafkaOffsetsInitializer",
           "KafkaRecordSerializationSchema", "KafkaRecordSerializationSchemaBuilder", "KafkaSink",
           "KafkaSinkBuilder", "KafkaSource", "KafkaSourceBuilder", "KafkaTopicPartition", "KafkaTopicSelector",
           "Semantic"]


class KafkaTopicPartition:
    """A partition of a topic."""

    def __init__(self, topic: str, partition: int):
        if not isinstance(topic, str) or not isinstance(partition, int) or partition < 0:
            raise ValueError(f"KafkaTopicPartition needs a topic name and a partition >= 0, got {topic!r}, {partition!r}")
        self._topic = topic
        self._partition = partition

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, KafkaTopicPartition) and (self._topic, self._partition) == (other._topic, other._partition)

    def __hash__(self) -> int:
        return hash((self._topic, self._partition))

    def __repr__(self) -> str:
        return f"KafkaTopicPartition({self._topic!r}, {self._partition})"


class KafkaOffsetResetStrategy(Enum):
    """Where to start when a partition has no committed (or given) offset."""

    LATEST = 0
    EARLIEST = 1
    NONE = 2


class KafkaOffsetsInitializer:
    """Which offset of each partition a KafkaSource starts (or stops) at."""

    def __init__(self, spec: tuple):
        self._spec = spec

    @staticmethod
    def committed_offsets(offset_reset_strategy: KafkaOffsetResetStrategy = KafkaOffsetResetStrategy.NONE
                          ) -> "KafkaOffsetsInitializer":
        """The consumer group's committed offsets; ``offset_reset_strategy`` where there is none."""
        return KafkaOffsetsInitializer(("committed", _reset_name(offset_reset_strategy)))

    @staticmethod
    def earliest() -> "KafkaOffsetsInitializer":
        return KafkaOffsetsInitializer(("earliest",))

    @staticmethod
    def latest() -> "KafkaOffsetsInitializer":
        return KafkaOffsetsInitializer(("latest",))

    @staticmethod
    def offsets(offsets: Dict[KafkaTopicPartition, int],
                offset_reset_strategy: KafkaOffsetResetStrategy = KafkaOffsetResetStrategy.EARLIEST
                ) -> "KafkaOffsetsInitializer":
        """Given offsets per partition; ``offset_reset_strategy`` for partitions not given."""
        given = {}
        for tp, offset in offsets.items():
            if not isinstance(tp, KafkaTopicPartition) or not isinstance(offset, int):
                raise TypeError(f"offsets maps KafkaTopicPartition to int offsets, got {tp!r}: {offset!r}")
            given[(tp._topic, tp._partition)] = offset
        return KafkaOffsetsInitializer(("offsets", given, _reset_name(offset_reset_strategy)))

    @staticmethod
    def timestamp(timestamp: int) -> "KafkaOffsetsInitializer":
        """The first record of each partition whose timestamp is at or after ``timestamp`` (epoch ms)."""
        if not isinstance(timestamp, int):
            raise TypeError(f"timestamp must be epoch milliseconds (an int), got {timestamp!r}")
        return KafkaOffsetsInitializer(("timestamp", timestamp))


def _reset_name(strategy: KafkaOffsetResetStrategy) -> str:
    if not isinstance(strategy, KafkaOffsetResetStrategy):
        raise TypeError(f"expected a KafkaOffsetResetStrategy, got {strategy!r}")
    return strategy.name


def _initializer(value: Any, what: str) -> tuple:
    if not isinstance(value, KafkaOffsetsInitializer):
        raise TypeError(f"{what} expects a KafkaOffsetsInitializer such as KafkaOffsetsInitializer.earliest(), "
                        f"got {value!r}")
    return value._spec


class KafkaSource(Source):
    """Reads Kafka topics; each partition is a split with its own watermark, and record
    timestamps are the event time unless the WatermarkStrategy assigns its own.

    Example::

        source = KafkaSource.builder().set_bootstrap_servers("localhost:9092").set_topics("input") \\
            .set_group_id("my-group").set_starting_offsets(KafkaOffsetsInitializer.earliest()) \\
            .set_value_only_deserializer(SimpleStringSchema()).build()
        env.from_source(source, WatermarkStrategy.for_monotonous_timestamps(), "Kafka Source")
    """

    def __init__(self, spec: KafkaSourceSpec, type_info: Any = None):
        super().__init__(spec, type_info)

    @staticmethod
    def builder() -> "KafkaSourceBuilder":
        return KafkaSourceBuilder()


def _require_client() -> None:
    """Fails while the job is built, not in Spark's workers, when the Kafka client is missing."""
    if importlib.util.find_spec("confluent_kafka") is None:
        raise ImportError("the Kafka connector needs the confluent-kafka client: "
                          "pip install 'kindling-streams[kafka]'")


class KafkaSourceBuilder:
    """Configures a KafkaSource: servers, what to read (topics, a pattern or partitions), where to
    start and stop, and how to deserialize values."""

    def __init__(self):
        self._bootstrap_servers: Optional[str] = None
        self._topics: List[str] = []
        self._pattern: Optional[str] = None
        self._partitions: List[tuple] = []
        self._group_id: Optional[str] = None
        self._starting: tuple = ("earliest",)
        self._stopping: Optional[tuple] = None
        self._bounded = False
        self._deserializer: Any = None
        self._properties: Dict[str, str] = {}
        self._client_id_prefix: Optional[str] = None

    def set_bootstrap_servers(self, bootstrap_servers: str) -> "KafkaSourceBuilder":
        self._bootstrap_servers = bootstrap_servers
        return self

    def set_topics(self, *topics: str) -> "KafkaSourceBuilder":
        self._topics = list(topics)
        return self

    def set_topic_pattern(self, topic_pattern: str) -> "KafkaSourceBuilder":
        """Reads every topic whose whole name matches the regular expression (checked when partitions are discovered)."""
        try:
            re.compile(topic_pattern)
        except re.error as exc:
            raise ValueError(f"set_topic_pattern: {topic_pattern!r} is not a regular expression: {exc}") from None
        self._pattern = topic_pattern
        return self

    def set_partitions(self, partitions: Set[KafkaTopicPartition]) -> "KafkaSourceBuilder":
        for tp in partitions:
            if not isinstance(tp, KafkaTopicPartition):
                raise TypeError(f"set_partitions expects KafkaTopicPartition objects, got {tp!r}")
        self._partitions = sorted((tp._topic, tp._partition) for tp in partitions)
        return self

    def set_group_id(self, group_id: str) -> "KafkaSourceBuilder":
        self._group_id = group_id
        return self

    def set_starting_offsets(self, starting_offsets_initializer: KafkaOffsetsInitializer) -> "KafkaSourceBuilder":
        self._starting = _initializer(starting_offsets_initializer, "set_starting_offsets")
        return self

    def set_bounded(self, stopping_offsets_initializer: KafkaOffsetsInitializer) -> "KafkaSourceBuilder":
        """Stops at these offsets (resolved when the job starts) and ends the input: the job finishes."""
        self._stopping = _initializer(stopping_offsets_initializer, "set_bounded")
        self._bounded = True
        return self

    def set_unbounded(self, stopping_offsets_initializer: KafkaOffsetsInitializer) -> "KafkaSourceBuilder":
        """Stops reading at these offsets, but the stream stays unbounded (STREAMING jobs only)."""
        self._stopping = _initializer(stopping_offsets_initializer, "set_unbounded")
        self._bounded = False
        return self

    def set_value_only_deserializer(self, deserialization_schema: DeserializationSchema) -> "KafkaSourceBuilder":
        """Each record's value becomes one element through ``deserialization_schema.deserialize``."""
        if not callable(getattr(deserialization_schema, "deserialize", None)):
            raise TypeError("set_value_only_deserializer expects a DeserializationSchema such as SimpleStringSchema(), "
                            f"got {deserialization_schema!r}")
        self._deserializer = deserialization_schema
        return self

    def set_property(self, key: str, value: str) -> "KafkaSourceBuilder":
        """A Kafka consumer property (librdkafka names, which are Kafka's for the common ones);
        ``bootstrap.servers`` is :meth:`set_bootstrap_servers`, as in Flink."""
        if str(key) == "bootstrap.servers":
            return self.set_bootstrap_servers(str(value))
        self._properties[str(key)] = str(value)
        return self

    def set_properties(self, props: Dict) -> "KafkaSourceBuilder":
        for key, value in props.items():
            self.set_property(key, value)
        return self

    def set_client_id_prefix(self, prefix: str) -> "KafkaSourceBuilder":
        self._client_id_prefix = prefix
        return self

    def build(self) -> KafkaSource:
        _require_client()
        if not self._bootstrap_servers:
            raise ValueError("KafkaSource needs set_bootstrap_servers('host:port')")
        chosen = [bool(self._topics), self._pattern is not None, bool(self._partitions)]
        if sum(chosen) != 1:
            raise ValueError("KafkaSource needs exactly one of set_topics(...), set_topic_pattern(...) or "
                             "set_partitions(...)")
        if self._deserializer is None:
            raise ValueError("KafkaSource needs set_value_only_deserializer(...), e.g. SimpleStringSchema()")
        group_id = self._group_id or self._properties.get("group.id")
        if self._starting[0] == "committed" and not group_id:
            raise ValueError("KafkaOffsetsInitializer.committed_offsets() needs set_group_id(...)")
        spec = KafkaSourceSpec(bootstrap_servers=self._bootstrap_servers, topics=list(self._topics),
                               topic_pattern=self._pattern, partitions=list(self._partitions), group_id=group_id,
                               starting=self._starting, stopping=self._stopping, is_bounded=self._bounded,
                               deserializer=self._deserializer, properties=dict(self._properties),
                               client_id_prefix=self._client_id_prefix)
        return KafkaSource(spec, self._deserializer.get_produced_type())


class KafkaTopicSelector(ABC):
    """Chooses the topic of each element a KafkaSink writes."""

    @abstractmethod
    def apply(self, data: Any) -> str:
        pass


class KafkaRecordSerializationSchema:
    """How a KafkaSink turns an element into a record: topic (fixed or chosen per element), value and key."""

    def __init__(self, j_serialization_schema: Any = None, topic_selector: Optional[KafkaTopicSelector] = None):
        self._topic: Optional[str] = None
        self._topic_selector: Any = topic_selector
        self._value_schema: Optional[SerializationSchema] = None
        self._key_schema: Optional[SerializationSchema] = None

    @staticmethod
    def builder() -> "KafkaRecordSerializationSchemaBuilder":
        return KafkaRecordSerializationSchemaBuilder()


class KafkaRecordSerializationSchemaBuilder:
    """Builds a KafkaRecordSerializationSchema: a topic or topic selector and a value schema are required."""

    def __init__(self):
        self._schema = KafkaRecordSerializationSchema()

    def set_topic(self, topic: str) -> "KafkaRecordSerializationSchemaBuilder":
        self._schema._topic = topic
        return self

    def set_topic_selector(self, topic_selector: Union[Callable[[Any], str], KafkaTopicSelector]
                           ) -> "KafkaRecordSerializationSchemaBuilder":
        if not isinstance(topic_selector, KafkaTopicSelector) and not callable(topic_selector):
            raise TypeError(f"set_topic_selector expects a function or KafkaTopicSelector, got {topic_selector!r}")
        self._schema._topic_selector = topic_selector
        return self

    def set_value_serialization_schema(self, value_serialization_schema: SerializationSchema
                                       ) -> "KafkaRecordSerializationSchemaBuilder":
        _check_serializer(value_serialization_schema, "set_value_serialization_schema")
        self._schema._value_schema = value_serialization_schema
        return self

    def set_key_serialization_schema(self, key_serialization_schema: SerializationSchema
                                     ) -> "KafkaRecordSerializationSchemaBuilder":
        _check_serializer(key_serialization_schema, "set_key_serialization_schema")
        self._schema._key_schema = key_serialization_schema
        return self

    def build(self) -> KafkaRecordSerializationSchema:
        schema = self._schema
        if (schema._topic is None) == (schema._topic_selector is None):
            raise ValueError("KafkaRecordSerializationSchema needs exactly one of set_topic(...) or set_topic_selector(...)")
        if schema._value_schema is None:
            raise ValueError("KafkaRecordSerializationSchema needs set_value_serialization_schema(...)")
        return schema


def _check_serializer(schema: Any, what: str) -> None:
    if not callable(getattr(schema, "serialize", None)):
        raise TypeError(f"{what} expects a SerializationSchema such as SimpleStringSchema(), got {schema!r}")


class KafkaSink(Sink):
    """Writes elements to Kafka with the chosen DeliveryGuarantee.

    Example::

        sink = KafkaSink.builder().set_bootstrap_servers("localhost:9092").set_record_serializer(
            KafkaRecordSerializationSchema.builder().set_topic("output")
            .set_value_serialization_schema(SimpleStringSchema()).build()).build()
        stream.sink_to(sink)
    """

    def __init__(self, spec: KafkaSinkSpec, transformer: Any = None):
        super().__init__(spec, "Kafka Sink")

    @staticmethod
    def builder() -> "KafkaSinkBuilder":
        return KafkaSinkBuilder()

    def get_transformer(self) -> None:
        """PyFlink's Java-side transformer: Kindling serializes in Python, so there is none."""
        return None


class KafkaSinkBuilder:
    """Configures a KafkaSink: servers, record serializer, delivery guarantee."""

    def __init__(self):
        self._bootstrap_servers: Optional[str] = None
        self._serializer: Optional[KafkaRecordSerializationSchema] = None
        self._guarantee = DeliveryGuarantee.NONE
        self._prefix: Optional[str] = None
        self._properties: Dict[str, str] = {}

    def set_bootstrap_servers(self, bootstrap_servers: str) -> "KafkaSinkBuilder":
        self._bootstrap_servers = bootstrap_servers
        return self

    def set_delivery_guarantee(self, delivery_guarantee: DeliveryGuarantee) -> "KafkaSinkBuilder":
        if not isinstance(delivery_guarantee, DeliveryGuarantee):
            raise TypeError(f"set_delivery_guarantee expects a DeliveryGuarantee, got {delivery_guarantee!r}")
        self._guarantee = delivery_guarantee
        return self

    def set_transactional_id_prefix(self, transactional_id_prefix: str) -> "KafkaSinkBuilder":
        self._prefix = transactional_id_prefix
        return self

    def set_record_serializer(self, record_serializer: KafkaRecordSerializationSchema) -> "KafkaSinkBuilder":
        if not isinstance(record_serializer, KafkaRecordSerializationSchema):
            raise TypeError("set_record_serializer expects KafkaRecordSerializationSchema.builder()...build(), "
                            f"got {record_serializer!r}")
        self._serializer = record_serializer
        return self

    def set_property(self, key: str, value: str) -> "KafkaSinkBuilder":
        """A Kafka producer property; ``bootstrap.servers`` is :meth:`set_bootstrap_servers`, as in Flink."""
        if str(key) == "bootstrap.servers":
            return self.set_bootstrap_servers(str(value))
        self._properties[str(key)] = str(value)
        return self

    def build(self) -> KafkaSink:
        _require_client()
        if not self._bootstrap_servers:
            raise ValueError("KafkaSink needs set_bootstrap_servers('host:port')")
        if self._serializer is None:
            raise ValueError("KafkaSink needs set_record_serializer(KafkaRecordSerializationSchema.builder()...build())")
        if self._guarantee == DeliveryGuarantee.EXACTLY_ONCE and not self._prefix:
            raise ValueError("KafkaSink with DeliveryGuarantee.EXACTLY_ONCE needs set_transactional_id_prefix(...), "
                             "unique per job writing to the same Kafka cluster")
        s = self._serializer
        return KafkaSink(KafkaSinkSpec(bootstrap_servers=self._bootstrap_servers, topic=s._topic,
                                       topic_selector=s._topic_selector, value_schema=s._value_schema,
                                       key_schema=s._key_schema, guarantee=self._guarantee.name,
                                       transactional_id_prefix=self._prefix, properties=dict(self._properties)))


# -- legacy ----------------------------------------------------------------------------------


class Semantic(Enum):
    """The legacy FlinkKafkaProducer's delivery guarantees."""

    EXACTLY_ONCE = (0,)
    AT_LEAST_ONCE = (1,)
    NONE = (2,)


class FlinkKafkaConsumer(SourceFunction):
    """The legacy Kafka consumer for ``env.add_source``: a thin wrapper over :class:`KafkaSource`
    (properties need ``bootstrap.servers``; ``group.id`` names the group offsets are committed to).
    As in Flink it starts from the group's committed offsets, else from ``auto.offset.reset``."""

    def __init__(self, topics: Union[str, List[str]], deserialization_schema: DeserializationSchema, properties: Dict):
        props = {str(k): str(v) for k, v in properties.items()}
        servers = props.pop("bootstrap.servers", None)
        if not servers:
            raise ValueError("FlinkKafkaConsumer needs 'bootstrap.servers' in its properties")
        self._builder = KafkaSource.builder().set_bootstrap_servers(servers).set_properties(props) \
            .set_topics(*([topics] if isinstance(topics, str) else topics)) \
            .set_value_only_deserializer(deserialization_schema)
        self._reset = KafkaOffsetResetStrategy.EARLIEST if props.get("auto.offset.reset", "latest").lower() in (
            "earliest", "smallest", "beginning") else KafkaOffsetResetStrategy.LATEST
        if props.get("group.id"):
            self._builder.set_group_id(props["group.id"])
        self.set_start_from_group_offsets()

    def _source(self) -> KafkaSource:
        """What ``env.add_source`` reads."""
        return self._builder.build()

    def get_produced_type(self) -> Any:
        return self._builder._deserializer.get_produced_type()

    def set_commit_offsets_on_checkpoints(self, commit_on_checkpoints: bool) -> "FlinkKafkaConsumer":
        self._builder.set_property("commit.offsets.on.checkpoint", str(bool(commit_on_checkpoints)).lower())
        return self

    def set_start_from_earliest(self) -> "FlinkKafkaConsumer":
        self._builder.set_starting_offsets(KafkaOffsetsInitializer.earliest())
        return self

    def set_start_from_latest(self) -> "FlinkKafkaConsumer":
        self._builder.set_starting_offsets(KafkaOffsetsInitializer.latest())
        return self

    def set_start_from_timestamp(self, startup_offsets_timestamp: int) -> "FlinkKafkaConsumer":
        self._builder.set_starting_offsets(KafkaOffsetsInitializer.timestamp(startup_offsets_timestamp))
        return self

    def set_start_from_group_offsets(self) -> "FlinkKafkaConsumer":
        """The group's committed offsets, else ``auto.offset.reset`` (latest by default); the default."""
        if self._builder._group_id:
            self._builder.set_starting_offsets(KafkaOffsetsInitializer.committed_offsets(self._reset))
        else:
            self._builder.set_starting_offsets(KafkaOffsetsInitializer.earliest() if self._reset is
                                               KafkaOffsetResetStrategy.EARLIEST else KafkaOffsetsInitializer.latest())
        return self

    def disable_filter_restored_partitions_with_subscribed_topics(self) -> "FlinkKafkaConsumer":
        return self


class FlinkKafkaProducer(SinkFunction):
    """The legacy Kafka producer for ``stream.add_sink``: a thin wrapper over :class:`KafkaSink`."""

    def __init__(self, topic: str, serialization_schema: SerializationSchema, producer_config: Dict,
                 kafka_producer_pool_size: int = 5, semantic: Semantic = Semantic.AT_LEAST_ONCE):
        props = {str(k): str(v) for k, v in producer_config.items()}
        servers = props.pop("bootstrap.servers", None)
        if not servers:
            raise ValueError("FlinkKafkaProducer needs 'bootstrap.servers' in its producer_config")
        if not isinstance(semantic, Semantic):
            raise TypeError(f"semantic must be a Semantic, got {semantic!r}")
        prefix = props.pop("transactional.id", None) or f"kindling-{topic}"
        self._builder = KafkaSink.builder().set_bootstrap_servers(servers).set_record_serializer(
            KafkaRecordSerializationSchema.builder().set_topic(topic)
            .set_value_serialization_schema(serialization_schema).build()) \
            .set_delivery_guarantee(DeliveryGuarantee[semantic.name]).set_transactional_id_prefix(prefix)
        for key, value in props.items():
            self._builder.set_property(key, value)

    def _sink(self) -> KafkaSink:
        """What ``stream.add_sink`` writes to."""
        return self._builder.build()

    def set_write_timestamp_to_kafka(self, write_timestamp_to_kafka: bool) -> "FlinkKafkaProducer":
        return self

    def set_log_failures_only(self, log_failures_only: bool) -> "FlinkKafkaProducer":
        return self

    def set_flush_on_checkpoint(self, flush_on_checkpoint: bool) -> "FlinkKafkaProducer":
        return self

    def ignore_failures_after_transaction_timeout(self) -> "FlinkKafkaProducer":
        return self
