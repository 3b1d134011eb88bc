"""Flink's Table semantics in Python, without Spark: expressions compiled once into functions of a
row (:mod:`kindling.runtime.table.evaluate`), the built-in functions by name
(:mod:`kindling.runtime.table.functions`) and the aggregates' accumulators
(:mod:`kindling.runtime.table.aggregates`)."""
