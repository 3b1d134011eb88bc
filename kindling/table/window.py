"""``pyflink.table.window``: still to come in Kindling (docs/table.md)."""
from kindling.common.unsupported import TABLE_API, missing_module

missing_module(__name__, TABLE_API)
