"""A streaming inner join on equal keys with checkpointing on (Kindling runs it as a streaming query of
several micro-batches, where Spark joins: kindling/spark/table/join.py): a key's rows arrive on each
side in different batches, null keys join nothing, the rest of the condition holds for each pair; a
Calc after the join, and a print table of parallelism 2 (each row in the join's subtask of its key).
# conformance: sorted
"""
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import StreamTableEnvironment
from pyflink.table.expressions import col

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
env.enable_checkpointing(1000)
t_env = StreamTableEnvironment.create(env)
t_env.get_config().set("kindling.source.max-records-per-batch", "12")  # 3 micro-batches (Flink ignores it)
orders = t_env.from_elements([(i, None if i % 9 == 0 else f"u{i % 5}", i * 10 % 70) for i in range(1, 31)],
                             ['oid', 'user_id', 'amount'])
users = t_env.from_elements([(f"u{j % 6}" if j % 7 else None, f"name{j}", j * 15) for j in range(15, 0, -1)],
                            ['uid', 'name', 'cap'])
t_env.create_temporary_view("orders", orders)
t_env.create_temporary_view("users", users)
orders.join(users, (col('user_id') == col('uid')) & (col('amount') <= col('cap'))) \
    .select(col('oid'), col('name'), col('amount'), col('cap')).execute().print()
t_env.execute_sql("CREATE TEMPORARY TABLE printed (oid BIGINT, name STRING, total BIGINT) WITH ('connector' = 'print')")
t_env.execute_sql("INSERT INTO printed SELECT o.oid, u.name, o.amount + u.cap FROM orders o JOIN users u "
                  "ON o.user_id = u.uid WHERE o.amount > 20").wait()
