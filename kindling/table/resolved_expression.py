"""``pyflink.table.resolved_expression`` is not supported by Kindling: resolved expressions belong to Flink's planner; JVM-only."""
from kindling.common.unsupported import missing_module

missing_module(__name__, "resolved expressions belong to Flink's planner; JVM-only")
