"""The relational side on Spark: resolved expressions as Spark Columns
(:mod:`kindling.spark.table.columns`), with the built-in functions Spark computes as Flink does
(:mod:`kindling.spark.table.functions`)."""
