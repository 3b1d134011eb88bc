"""Connectors, as in ``pyflink.datastream.connectors``, with PyFlink's package-level names.

``from kindling.datastream.connectors import FileSink, FileSource, ...`` works as in PyFlink;
a connector Kindling does not have yet (Pulsar, RabbitMQ, ...) fails with an ImportError
that says so.
"""
from kindling.common.unsupported import JVM_ONLY, connector, missing_names

#: each public name's module, imported when the name is first read: a Spark process that unpickles
#: one connector's source or format does not import the others (Kafka's client among them)
_LAZY = {
    **dict.fromkeys(["DeliveryGuarantee", "Sink", "Source"], "kindling.datastream.connectors.base"),
    "DiscardingSink": "kindling.datastream.connectors.discarding",
    **dict.fromkeys(["BucketAssigner", "FileEnumeratorProvider", "FileSink", "FileSource", "FileSourceBuilder",
                     "FileSplitAssignerProvider", "OutputFileConfig", "RollingPolicy", "StreamFormat",
                     "StreamingFileSink"], "kindling.datastream.connectors.file_system"),
    **dict.fromkeys(["JdbcConnectionOptions", "JdbcExecutionOptions", "JdbcSink"],
                    "kindling.datastream.connectors.jdbc"),
    **dict.fromkeys(["FlinkKafkaConsumer", "FlinkKafkaProducer", "KafkaSource", "Semantic"],
                    "kindling.datastream.connectors.kafka"),
    "NumberSequenceSource": "kindling.datastream.connectors.number_seq",
}

__all__ = ["BucketAssigner", "DeliveryGuarantee", "DiscardingSink", "FileEnumeratorProvider", "FileSink", "FileSource",
           "FileSourceBuilder", "FileSplitAssignerProvider", "FlinkKafkaConsumer", "FlinkKafkaProducer",
           "JdbcConnectionOptions", "JdbcExecutionOptions", "JdbcSink", "KafkaSource", "NumberSequenceSource",
           "OutputFileConfig", "RollingPolicy", "Semantic", "Sink", "Source", "StreamFormat",
           "StreamingFileSink"]

_MISSING = {
    **dict.fromkeys(["DynamicKafkaSource", "DynamicKafkaSourceBuilder", "KafkaMetadataService",
                     "KafkaRecordDeserializationSchema", "KafkaStreamSetSubscriber", "KafkaStreamSubscriber",
                     "StreamPatternSubscriber", "SingleClusterTopicMetadataService"], connector("Dynamic Kafka")),
    **dict.fromkeys(["PulsarSource", "PulsarSourceBuilder", "StartCursor", "StopCursor"], connector("Pulsar")),
    **dict.fromkeys(["RMQSource", "RMQSink", "RMQConnectionConfig"], connector("RabbitMQ")),
    "JavaFunctionWrapper": JVM_ONLY,
}
__getattr__ = missing_names(__name__, _MISSING, lazy=_LAZY)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
