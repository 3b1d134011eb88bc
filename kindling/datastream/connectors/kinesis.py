"""``pyflink.datastream.connectors.kinesis``: the Kinesis connector is not supported by Kindling yet."""
from kindling.common.unsupported import connector, missing_module

missing_module(__name__, connector("Kinesis"))
