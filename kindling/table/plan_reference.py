"""``pyflink.table.plan_reference`` is not supported by Kindling: compiled plans are Flink's planner's; JVM-only."""
from kindling.common.unsupported import missing_module

missing_module(__name__, "compiled plans are Flink's planner's; JVM-only")
