"""An updating table (a streaming count per word) written by the filesystem connector in the
canal-json format: each change a record, updates as a DELETE of the old row and an INSERT of the new."""
import os
import tempfile

from pyflink.table import EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col, lit

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
path = tempfile.mkdtemp()
t_env.execute_sql(f"CREATE TABLE counts (word STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                  "'format' = 'canal-json')")
words = t_env.from_elements([("to",), ("be",), ("or",), ("not",), ("to",), ("be",)], ["word"])
words.group_by(col("word")).select(col("word"), lit(1).count).execute_insert("counts").wait()
for name in sorted(os.listdir(path)):
    if not name.startswith("."):
        with open(os.path.join(path, name)) as f:
            print(f.read(), end="")
