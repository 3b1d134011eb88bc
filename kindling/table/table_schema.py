"""``pyflink.table.table_schema`` is not supported by Kindling: TableSchema (deprecated in Flink) is not there; use Table.get_schema()."""
from kindling.common.unsupported import missing_module

missing_module(__name__, "TableSchema (deprecated in Flink) is not there; use Table.get_schema()")
