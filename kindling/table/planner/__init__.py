"""The relational planner: Table API and SQL expressions resolved against a table's columns
(:mod:`kindling.table.planner.expressions`), with every built-in function defined once
(:mod:`kindling.table.planner.functions`); a Table's logical plan (:mod:`.nodes`), rewrites
(:mod:`.rules`), the one physical choice per node (:mod:`.physical`), the plan printed with those
choices (:mod:`.explain`), and the plan turned into the job (:mod:`.lowering`). Nothing here imports
pyspark: the Python evaluator (kindling/runtime/table) and the Spark translator (kindling/spark/table)
compile what the planner resolves. docs/architecture.md, "The SQL path", lists the hops from
``sql_query`` to Spark's operators.
"""
