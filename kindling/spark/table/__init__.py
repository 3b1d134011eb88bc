"""The relational side on Spark: resolved expressions as Spark Columns
(:mod:`kindling.spark.table.columns`), with the built-in functions Spark computes as Flink does
(:mod:`kindling.spark.table.functions`); the parts of a table's plan Spark's JVM operators compute,
as DataFrame operations (:mod:`kindling.spark.table.translate`), and group aggregations with Flink's
changelog (:mod:`kindling.spark.table.aggregation`). Which parts those are,
kindling/table/planner/physical.py decides."""
