"""The print connector's `n> ` prefix of a Table job at parallelism 2 is the subtask of the keyed
operator that made the row: Flink places a Table key by the hash of its binary row (key fields of
several types). A GROUP BY and a TUMBLE window over a csv table with a WATERMARK (Kindling computes
them in Spark, in one step), the same window with a late row (Kindling's Python window operator),
a regular join and an OVER aggregation (Spark; Python with a late row). Then all of them again on
Kindling's Python operators (`kindling.` options, which PyFlink ignores).
# conformance: sorted
"""
import os
import tempfile

from pyflink.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "2")
WORDS = ["apple", "kiwi", "banana split", "fig", "cherry", "a much longer key than most", "date", "elderberry", "", "z"]
ROWS = [(i * 230 + i % 3 * 100, WORDS[i * 7 % len(WORDS)], i % 4, i * 11 % 97) for i in range(40)]
for table, rows in (("ev", ROWS), ("ev_late", ROWS + [(1200, "kiwi", 1, 500)])):
    path = tempfile.mkdtemp()
    with open(os.path.join(path, "events.csv"), "w") as f:
        f.writelines(f"2024-01-01 00:00:{ms // 1000:02}.{ms % 1000:03},{w},{n},{v},{v}.{n}5\n" for ms, w, n, v in rows)
    t_env.execute_sql(f"CREATE TABLE {table} (ts TIMESTAMP(3), w STRING, n INT, v BIGINT, d DECIMAL(6, 2), WATERMARK FOR "
                      f"ts AS ts - INTERVAL '0.5' SECOND) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                      f"'format' = 'csv')")
t_env.execute_sql("CREATE TABLE tags (t_w STRING, tag STRING) WITH ('connector' = 'filesystem', "
                  f"'path' = '{tempfile.mkdtemp()}', 'format' = 'csv')")
t_env.execute_sql("INSERT INTO tags VALUES " + ", ".join(f"('{w}', 'tag{i}')" for i, w in enumerate(WORDS + WORDS[:4]))).wait()


def printed(name: str, columns: str, query: str) -> None:
    t_env.execute_sql(f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'print', 'print-identifier' = '{name}')")
    t_env.execute_sql(f"INSERT INTO {name} {query}").wait()


def all_printed(suffix: str) -> None:
    printed("by_word" + suffix, "w STRING, c BIGINT, s BIGINT", "SELECT w, COUNT(*), SUM(v) FROM ev GROUP BY w")
    printed("by_word_n" + suffix, "w STRING, n INT, c BIGINT", "SELECT w, n, COUNT(*) FROM ev GROUP BY w, n")
    printed("by_decimal" + suffix, "d DECIMAL(6, 2), c BIGINT", "SELECT d, COUNT(*) FROM ev GROUP BY d")
    printed("by_ts" + suffix, "ts TIMESTAMP(3), c BIGINT", "SELECT ts, COUNT(*) FROM ev GROUP BY ts")
    tumble = ("SELECT w, window_start, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '3' "
              "SECOND)) GROUP BY w, window_start, window_end")
    printed("tumble" + suffix, "w STRING, ws TIMESTAMP(3), c BIGINT, s BIGINT", tumble)
    printed("tumble_late" + suffix, "w STRING, ws TIMESTAMP(3), c BIGINT, s BIGINT",
            tumble.replace("TABLE ev,", "TABLE ev_late,"))
    printed("joined" + suffix, "w STRING, n INT, tag STRING", "SELECT w, n, tag FROM ev JOIN tags ON w = t_w WHERE v < 40")
    over = ("SELECT w, ts, SUM(v) OVER (PARTITION BY w ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) "
            "FROM ev")
    printed("over_word" + suffix, "w STRING, ts TIMESTAMP(3), s BIGINT", over)
    printed("over_late" + suffix, "w STRING, ts TIMESTAMP(3), s BIGINT", over.replace("FROM ev", "FROM ev_late"))


all_printed("")
t_env.get_config().set("kindling.table.spark-aggregation", "false")
t_env.get_config().set("kindling.table.spark-operators", "false")
all_printed("_py")
