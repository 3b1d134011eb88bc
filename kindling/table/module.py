"""``pyflink.table.module`` is not supported by Kindling: Flink modules (such as Hive's functions) are not there."""
from kindling.common.unsupported import missing_module

missing_module(__name__, "Flink modules (such as Hive's functions) are not there")
