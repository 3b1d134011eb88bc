"""The relational planner: Table API and SQL expressions resolved against a table's columns
(:mod:`kindling.table.planner.expressions`), with every built-in function defined once
(:mod:`kindling.table.planner.functions`). Nothing here imports pyspark: the Python evaluator
(kindling/runtime/table) and the Spark translator (kindling/spark/table) compile what the planner
resolves.
"""
