"""A GROUP BY and a join of csv ``filesystem`` tables of several files, in a streaming job with
checkpointing on, parallelism 2 (Kindling: micro-batches of one file each, read by Spark's own file
stream source, the aggregation and the join computed by Spark: docs/table.md). Each key's rows are in
one file, in order: Flink's per-row changes of a key are the same whichever file its readers take
first. The GROUP BY's changes printed by the client and by a print table of parallelism 2 (each change
in the aggregation's subtask of its key).
# conformance: sorted
"""
import os
import tempfile

from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import StreamTableEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
env.enable_checkpointing(1000)
t_env = StreamTableEnvironment.create(env)
t_env.get_config().set("kindling.source.max-files-per-batch", "1")  # a file a micro-batch (Flink ignores it)
events, names = tempfile.mkdtemp(), tempfile.mkdtemp()
for i, keys in enumerate([(1, 2, 1, 3, 1), (4, 5, 4, 4), (6, 7, 6, 8, 7, 6)]):
    with open(os.path.join(events, f"part-{i}.csv"), "w") as f:
        f.writelines(f"{k},{k * 10 + n},{'x' * n}\n" for n, k in enumerate(keys))
with open(os.path.join(names, "names.csv"), "w") as f:
    f.writelines(f"{k},name{k}\n" for k in (1, 3, 4, 6, 9))
t_env.execute_sql(f"CREATE TABLE ev (k INT, v BIGINT, s STRING) WITH ('connector' = 'filesystem', 'path' = '{events}', "
                  "'format' = 'csv')")
t_env.execute_sql(f"CREATE TABLE nm (k INT, name STRING) WITH ('connector' = 'filesystem', 'path' = '{names}', "
                  "'format' = 'csv')")

print("GROUP BY")
t_env.execute_sql("SELECT k, COUNT(*) AS c, SUM(v) AS total, MAX(s) AS longest FROM ev GROUP BY k").print()
t_env.execute_sql("CREATE TEMPORARY TABLE printed (k INT, c BIGINT, total BIGINT) WITH ('connector' = 'print')")
t_env.execute_sql("INSERT INTO printed SELECT k, COUNT(*), SUM(v) FROM ev GROUP BY k").wait()
print("JOIN")
t_env.execute_sql("SELECT ev.k, ev.v, nm.name FROM ev JOIN nm ON ev.k = nm.k").print()
