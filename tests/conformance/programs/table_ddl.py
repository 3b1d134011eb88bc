"""CREATE TABLE over CSV files (filesystem connector): computed and PROCTIME() columns, a WATERMARK
(Flink SQL's: emitted as soon as a row moves it, so a later out-of-order row is late for its window)
and a primary key; the schema printed and described, the rows queried, tumbling windows in
streaming and batch mode."""
import os
import tempfile

from pyflink.table import EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col, lit
from pyflink.table.window import Tumble

directory = tempfile.mkdtemp()
with open(os.path.join(directory, "clicks.csv"), "w") as f:
    f.write("ann,1,2024-01-01 00:00:01\nbob,2,2024-01-01 00:00:07\nann,4,2024-01-01 00:00:03\n"
            "cy,8,2024-01-01 00:00:12.5\n")

for settings in (EnvironmentSettings.in_streaming_mode(), EnvironmentSettings.in_batch_mode()):
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(f"""
        CREATE TABLE clicks (
            name STRING,
            n INT,
            ts TIMESTAMP(3),
            tenfold AS n * 10,
            pt AS PROCTIME(),
            WATERMARK FOR ts AS ts - INTERVAL '1' SECOND,
            PRIMARY KEY (name) NOT ENFORCED
        ) WITH ('connector' = 'filesystem', 'path' = '{directory}', 'format' = 'csv')""")
    clicks = t_env.from_path("clicks")
    clicks.print_schema()
    t_env.execute_sql("DESCRIBE clicks").print()
    t_env.execute_sql("SELECT name, n, ts, tenfold FROM clicks").print()
    clicks.window(Tumble.over(lit(5).seconds).on(col("ts")).alias("w")).group_by(col("w")) \
        .select(col("w").start.alias("start"), col("w").end.alias("end"), col("n").sum.alias("total")) \
        .execute().print()
