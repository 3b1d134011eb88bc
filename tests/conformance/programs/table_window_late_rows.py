"""Window aggregations (TUMBLE with window_time, HOP, CUMULATE) in bounded STREAMING jobs over csv
tables declaring a WATERMARK, parallelism 2. The rows of `ev`'s one file come out of order, but by
less than the watermark's delay: no row is late whatever the timing (Kindling computes the windows
in Spark's operators, in one step: docs/table.md). `ev_late` has one more row, later than the
delay: Flink drops it (Kindling keeps the Python window operator on micro-batches). Windows of
different keys come in no defined order.
# conformance: sorted, ignore-prefix
"""
import os
import tempfile

from pyflink.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "2")
ROWS = [(0, 1, 1), (200, 2, 10), (1000, 1, 11), (800, 2, 12), (1500, 2, 2), (1300, 1, 3), (2100, 1, 4), (1950, 2, 5),
        (2500, 1, 13), (3000, 1, 6), (3999, 2, 14), (3500, 1, 15), (4100, 2, 7), (3700, 3, 8)]
for table, rows in (("ev", ROWS), ("ev_late", ROWS + [(1900, 1, 100)])):
    path = tempfile.mkdtemp()
    with open(os.path.join(path, "events.csv"), "w") as f:
        f.writelines(f"2024-01-01 00:00:{ms // 1000:02}.{ms % 1000:03},{k},{v}\n" for ms, k, v in rows)
    t_env.execute_sql(f"CREATE TABLE {table} (ts TIMESTAMP(3), k INT, v INT, WATERMARK FOR ts AS ts - INTERVAL "
                      f"'0.5' SECOND) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')")
t_env.execute_sql("CREATE TABLE printed (k INT, ws TIMESTAMP(3), we TIMESTAMP(3), wt TIMESTAMP(3), c BIGINT, s INT) "
                  "WITH ('connector' = 'print')")
TUMBLE = ("SELECT k, window_start, window_end, window_time, COUNT(*) AS c, SUM(v) AS s FROM TABLE(TUMBLE(TABLE ev, "
          "DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end, window_time")
t_env.execute_sql("INSERT INTO printed " + TUMBLE).wait()
for query in [
    TUMBLE,
    "SELECT window_start, window_end, COUNT(*), SUM(v), MAX(v) FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), "
    "INTERVAL '1' SECOND, INTERVAL '2' SECOND)) GROUP BY window_start, window_end",
    "SELECT k, window_start, window_end, MIN(v) FROM TABLE(CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' SECOND, "
    "INTERVAL '3' SECOND)) GROUP BY k, window_start, window_end",
    TUMBLE.replace("TABLE ev,", "TABLE ev_late,"),
]:
    print(query)
    t_env.execute_sql(query).print()
