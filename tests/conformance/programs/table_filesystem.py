"""The filesystem connector's csv and json formats: rows of many types (nulls, doubles and floats as
Java writes them, decimals, dates, timestamps, strings that need quoting) written by INSERT into a
directory, the part files' lines printed, and read back, in streaming and batch mode."""
import datetime
import decimal
import os
import tempfile

from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment

ROW = DataTypes.ROW([DataTypes.FIELD("id", DataTypes.BIGINT()), DataTypes.FIELD("name", DataTypes.STRING()),
                     DataTypes.FIELD("score", DataTypes.DOUBLE()), DataTypes.FIELD("ratio", DataTypes.FLOAT()),
                     DataTypes.FIELD("price", DataTypes.DECIMAL(10, 2)), DataTypes.FIELD("day", DataTypes.DATE()),
                     DataTypes.FIELD("at", DataTypes.TIMESTAMP(3)), DataTypes.FIELD("ok", DataTypes.BOOLEAN())])
ROWS = [(1, "ann", 1.5, 0.1, decimal.Decimal("3.25"), datetime.date(2024, 2, 3),
         datetime.datetime(2024, 1, 1, 0, 0, 1, 500000), True),
        (2, 'bo, "the" one', 1e20, 1e10, decimal.Decimal("-1.50"), datetime.date(2024, 2, 4),
         datetime.datetime(2024, 1, 1, 0, 0, 2), False),
        (3, "a very long name without commas", 0.001, 2.5, decimal.Decimal("0.00"), datetime.date(2024, 2, 5),
         datetime.datetime(2024, 1, 1), None)]
COLUMNS = "id BIGINT, name STRING, score DOUBLE, ratio FLOAT, price DECIMAL(10, 2), `day` DATE, `at` TIMESTAMP(3), " \
          "ok BOOLEAN"

for settings in (EnvironmentSettings.in_streaming_mode(), EnvironmentSettings.in_batch_mode()):
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "1")
    for fmt in ("csv", "json"):
        path = tempfile.mkdtemp()
        t_env.execute_sql(f"CREATE TABLE {fmt}_rows ({COLUMNS}) WITH ('connector' = 'filesystem', "
                          f"'path' = '{path}', 'format' = '{fmt}')")
        t_env.from_elements(ROWS, ROW).execute_insert(f"{fmt}_rows").wait()
        for name in sorted(os.listdir(path)):
            if not name.startswith("."):
                with open(os.path.join(path, name)) as f:
                    print(f.read(), end="")
        t_env.execute_sql(f"SELECT * FROM {fmt}_rows").print()
