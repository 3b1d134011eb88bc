"""``pyflink.table``: the Table API and SQL are not supported by Kindling yet."""
from kindling.common.unsupported import TABLE_API, missing_module

missing_module(__name__, TABLE_API)
