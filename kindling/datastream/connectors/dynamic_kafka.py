"""``pyflink.datastream.connectors.dynamic_kafka``: the Dynamic Kafka connector is not supported by Kindling yet."""
from kindling.common.unsupported import connector, missing_module

missing_module(__name__, connector("Dynamic Kafka"))
