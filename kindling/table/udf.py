"""``pyflink.table.udf``: Python table functions are still to come in Kindling."""
from kindling.common.unsupported import TABLE_API, missing_module

missing_module(__name__, TABLE_API)
