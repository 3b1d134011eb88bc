"""Flink's Table semantics in Python, without Spark (nor kindling.table): expressions compiled once
into functions of a row (:mod:`kindling.runtime.table.evaluate`), the built-in functions by name
(:mod:`kindling.runtime.table.functions`), the aggregates' accumulators
(:mod:`kindling.runtime.table.aggregates`), and the Table operators a plan node the planner leaves
to Python runs inside Spark tasks (kindling/table/planner/lowering.py builds them)."""
