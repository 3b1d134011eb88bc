"""A streaming semi join (IN, and EXISTS with a condition beyond the keys) with checkpointing on (Kindling
runs it as a streaming query of several micro-batches, where Spark joins: kindling/spark/table/semi_join.py):
a left row is emitted once, when it has a partner, whichever side's rows come first; null keys match
nothing; a print table of parallelism 2 (each row in the join's subtask of its key).
# conformance: sorted
"""
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import StreamTableEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
env.enable_checkpointing(1000)
t_env = StreamTableEnvironment.create(env)
t_env.get_config().set("kindling.source.max-records-per-batch", "8")  # 3 micro-batches (Flink ignores it)
orders = t_env.from_elements([(i, None if i % 7 == 0 else f"c{i % 5}", i * 10 % 70) for i in range(1, 21)],
                             ['oid', 'user_id', 'amount'])
users = t_env.from_elements([(f"c{j % 6}" if j % 4 else None, j * 6) for j in range(12, 0, -1)], ['uid', 'cap'])
t_env.create_temporary_view("orders", orders)
t_env.create_temporary_view("users", users)
t_env.sql_query("SELECT oid, user_id FROM orders WHERE user_id IN (SELECT uid FROM users)").execute().print()
t_env.execute_sql("CREATE TEMPORARY TABLE printed (oid BIGINT, amount BIGINT) WITH ('connector' = 'print')")
t_env.execute_sql("INSERT INTO printed SELECT oid, amount FROM orders o WHERE EXISTS "
                  "(SELECT * FROM users u WHERE u.uid = o.user_id AND o.amount < u.cap)").wait()
