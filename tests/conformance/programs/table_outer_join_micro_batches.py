"""Streaming LEFT and FULL OUTER joins on equal keys with checkpointing on (Kindling runs them as
streaming queries of several micro-batches, where Spark joins: kindling/spark/table/join.py): a key's
rows arrive on each side in different batches, equal rows on both sides, null keys padded and never
joined, the rest of the condition decides partners. Which rows are padded and then retracted depends
on the order the inputs' rows arrive (in Flink as in Kindling), so the program prints each join's
rows once its changes are applied, and whether any pair was retracted.
# conformance: sorted
"""
from collections import Counter

from pyflink.common import RowKind
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import StreamTableEnvironment
from pyflink.table.expressions import col

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
env.enable_checkpointing(1000)
t_env = StreamTableEnvironment.create(env)
t_env.get_config().set("kindling.source.max-records-per-batch", "8")  # Kindling's micro-batches (Flink ignores it)
orders = t_env.from_elements([(i, None if i % 9 == 0 else f"u{i % 5}", i * 10 % 70) for i in range(1, 31)] +
                             [(7, "u2", 0), (7, "u2", 0)], ['oid', 'user_id', 'amount'])
users = t_env.from_elements([(f"u{j % 7}" if j % 8 else None, f"name{j}", j * 15) for j in range(15, 0, -1)] +
                            [("u6", "twin", 5), ("u6", "twin", 5)], ['uid', 'name', 'cap'])
condition = (col('user_id') == col('uid')) & (col('amount') <= col('cap'))
for title, joined in (("LEFT", orders.left_outer_join(users, condition)),
                      ("FULL", orders.full_outer_join(users, condition))):
    rows, retracted_pairs = Counter(), 0
    with joined.select(col('oid'), col('user_id'), col('amount'), col('name'), col('cap')).execute().collect() as out:
        for row in out:
            values = tuple(row)
            if row.get_row_kind() in (RowKind.DELETE, RowKind.UPDATE_BEFORE):
                rows[values] -= 1
                retracted_pairs += values[0] is not None and values[3] is not None
            else:
                rows[values] += 1
    for values, count in sorted((+rows).items(), key=str):
        print(title, values, count)
    print(title, "retracted pairs:", retracted_pairs, "negative rows:", sum(1 for c in rows.values() if c < 0))
