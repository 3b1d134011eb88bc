"""Connectors, as in ``pyflink.datastream.connectors``, with PyFlink's package-level names.

``from kindling.datastream.connectors import FileSink, FileSource, ...`` works as in PyFlink;
a connector Kindling does not have yet (Pulsar, RabbitMQ, ...) fails with an ImportError
that says so.
"""
from kindling.common.unsupported import JVM_ONLY, connector, missing_names
from kindling.datastream.connectors.base import DeliveryGuarantee, Sink, Source
from kindling.datastream.connectors.discarding import DiscardingSink
from kindling.datastream.connectors.file_system import (BucketAssigner, FileEnumeratorProvider, FileSink,
                                                        FileSource, FileSourceBuilder, FileSplitAssignerProvider,
                                                        OutputFileConfig, RollingPolicy, StreamFormat,
                                                        StreamingFileSink)
from kindling.datastream.connectors.jdbc import JdbcConnectionOptions, JdbcExecutionOptions, JdbcSink
from kindling.datastream.connectors.kafka import FlinkKafkaConsumer, FlinkKafkaProducer, KafkaSource, Semantic
from kindling.datastream.connectors.number_seq import NumberSequenceSource

__all__ = ["BucketAssigner", "DeliveryGuarantee", "DiscardingSink", "FileEnumeratorProvider", "FileSink",
           "FileSource", "FileSourceBuilder", "FileSplitAssignerProvider", "StreamingFileSink", "FlinkKafkaConsumer", "FlinkKafkaProducer", "JdbcConnectionOptions",
           "JdbcExecutionOptions", "JdbcSink", "KafkaSource", "NumberSequenceSource",
           "OutputFileConfig", "RollingPolicy", "Semantic", "Sink", "Source", "StreamFormat"]

_MISSING = {
    **dict.fromkeys(["DynamicKafkaSource", "DynamicKafkaSourceBuilder", "KafkaMetadataService",
                     "KafkaRecordDeserializationSchema", "KafkaStreamSetSubscriber", "KafkaStreamSubscriber",
                     "StreamPatternSubscriber", "SingleClusterTopicMetadataService"], connector("Dynamic Kafka")),
    **dict.fromkeys(["PulsarSource", "PulsarSourceBuilder", "StartCursor", "StopCursor"], connector("Pulsar")),
    **dict.fromkeys(["RMQSource", "RMQSink", "RMQConnectionConfig"], connector("RabbitMQ")),
    "JavaFunctionWrapper": JVM_ONLY,
}
__getattr__ = missing_names(__name__, _MISSING)
