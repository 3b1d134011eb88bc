"""Connectors, as in ``pyflink.datastream.connectors``, with PyFlink's package-level names.

``from kindling.datastream.connectors import FileSink, FileSource, ...`` works as in PyFlink;
a connector Kindling does not have yet (JDBC, Pulsar, ...) fails with an ImportError
that says so.
"""
from kindling.common.unsupported import JVM_ONLY, connector, missing_names
from kindling.datastream.connectors.base import DeliveryGuarantee, Sink, Source
from kindling.datastream.connectors.discarding import DiscardingSink
from kindling.datastream.connectors.file_system import (BucketAssigner, FileSink, FileSource,
                                                        FileSourceBuilder, OutputFileConfig, RollingPolicy,
                                                        StreamFormat)
from kindling.datastream.connectors.kafka import FlinkKafkaConsumer, FlinkKafkaProducer, KafkaSource, Semantic
from kindling.datastream.connectors.number_seq import NumberSequenceSource

__all__ = ["BucketAssigner", "DeliveryGuarantee", "DiscardingSink", "FileSink", "FileSource",
           "FileSourceBuilder", "FlinkKafkaConsumer", "FlinkKafkaProducer", "KafkaSource", "NumberSequenceSource",
           "OutputFileConfig", "RollingPolicy", "Semantic", "Sink", "Source", "StreamFormat"]

_FILE_SYSTEM_LATER = ("bulk formats, file enumerators and split assigners of the file connector are still "
                      "to come (open issue: connectors and formats)")
_MISSING = {
    **dict.fromkeys(["DynamicKafkaSource", "DynamicKafkaSourceBuilder", "KafkaMetadataService",
                     "KafkaRecordDeserializationSchema", "KafkaStreamSetSubscriber", "KafkaStreamSubscriber",
                     "StreamPatternSubscriber", "SingleClusterTopicMetadataService"], connector("Dynamic Kafka")),
    **dict.fromkeys(["JdbcSink", "JdbcConnectionOptions", "JdbcExecutionOptions"], connector("JDBC")),
    **dict.fromkeys(["PulsarSource", "PulsarSourceBuilder", "StartCursor", "StopCursor"], connector("Pulsar")),
    **dict.fromkeys(["RMQSource", "RMQSink", "RMQConnectionConfig"], connector("RabbitMQ")),
    **dict.fromkeys(["FileEnumeratorProvider", "FileSplitAssignerProvider"], _FILE_SYSTEM_LATER),
    "StreamingFileSink": "StreamingFileSink is the legacy file sink; use FileSink.for_row_format(...)",
    "JavaFunctionWrapper": JVM_ONLY,
}
__getattr__ = missing_names(__name__, _MISSING)
