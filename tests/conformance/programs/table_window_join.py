"""Window joins (two window TVFs joined on window_start and window_end): INNER with a further condition,
LEFT, RIGHT and FULL OUTER, IN, EXISTS and NOT EXISTS, over TUMBLE, HOP and CUMULATE windows, a
projection and filter inside the window TVF's query; in STREAMING (each window's rows when the watermark
passes its end) and BATCH, parallelism 2, each table two csv files (two splits). The watermark's delay
is longer than the data, so that no row is late whatever the timing (which rows Flink drops as late
depends on how fast each split is read). Windows come in no defined order.
# conformance: sorted
"""
import os
import tempfile

from pyflink.table import EnvironmentSettings, TableEnvironment

LEFT = [[(1000, 'L1', 1), (2000, 'L2', 2), (6000, 'L3', 3), (7000, 'L4', 4)],
        [(3000, 'L5', 5), (12000, 'L6', 6), (4000, 'L7', 9), (9999, 'L8', 3)]]
RIGHT = [[(1500, 'R1', 1), (2500, 'R2', 2), (8000, 'R3', 3)],
         [(8500, 'R4', 5), (13000, 'R5', 6), (5000, 'R6', 3), (14999, 'R7', 7)]]


def tables(t_env):
    t_env.get_config().set("parallelism.default", "2")
    for table, files in (("l", LEFT), ("r", RIGHT)):
        path = tempfile.mkdtemp()
        for i, rows in enumerate(files):
            with open(os.path.join(path, f"part{i}.csv"), "w") as f:
                f.writelines(f"2024-01-01 00:00:{ms // 1000:02}.{ms % 1000:03},{name},{k}\n" for ms, name, k in rows)
        t_env.execute_sql(f"CREATE TABLE {table} (ts TIMESTAMP(3), name STRING, k INT, WATERMARK FOR ts AS ts - "
                          f"INTERVAL '1' MINUTE) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')")


def seconds(*counts):
    return ", ".join(f"INTERVAL '{n}' SECOND" for n in counts)


def windows(table, tvf="TUMBLE", sizes=seconds(5)):
    return f"(SELECT * FROM TABLE({tvf}(TABLE {table}, DESCRIPTOR(ts), {sizes})))"


SAME_WINDOW = "L.window_start = R.window_start AND L.window_end = R.window_end"
QUERIES = [
    f"SELECT L.name, R.name, L.window_start, L.window_end FROM {windows('l')} L JOIN {windows('r')} R "
    f"ON {SAME_WINDOW} AND L.k = R.k",
    f"SELECT * FROM {windows('l')} L FULL JOIN {windows('r')} R ON {SAME_WINDOW} AND L.k = R.k",
    f"SELECT L.name, R.name, COALESCE(L.window_start, R.window_start) FROM {windows('l')} L LEFT JOIN "
    f"{windows('r')} R ON {SAME_WINDOW} AND L.k = R.k",
    f"SELECT L.name, R.name, R.window_end FROM {windows('l')} L RIGHT JOIN {windows('r')} R "
    f"ON {SAME_WINDOW} AND L.k = R.k AND L.name <> 'L3'",
    f"SELECT L.name, R.name FROM {windows('l')} L JOIN {windows('r')} R ON {SAME_WINDOW} AND L.k < R.k",
    f"SELECT * FROM {windows('l')} L WHERE L.k IN (SELECT k FROM {windows('r')} R WHERE {SAME_WINDOW})",
    f"SELECT name, window_end FROM {windows('l')} L WHERE EXISTS (SELECT * FROM {windows('r')} R "
    f"WHERE L.k = R.k AND {SAME_WINDOW})",
    f"SELECT * FROM {windows('l')} L WHERE NOT EXISTS (SELECT * FROM {windows('r')} R "
    f"WHERE L.k = R.k AND {SAME_WINDOW})",
    "SELECT L.n, R.name, L.window_start, L.window_end FROM (SELECT name AS n, k, window_start, window_end FROM "
    "TABLE(HOP(TABLE l, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) WHERE k < 6) L JOIN "
    f"{windows('r', 'HOP', seconds(5, 10))} R "
    f"ON {SAME_WINDOW} AND L.k = R.k",
    f"SELECT L.name, R.name, L.window_start, L.window_end FROM "
    f"{windows('l', 'CUMULATE', seconds(5, 15))} L LEFT JOIN {windows('r', 'CUMULATE', seconds(5, 15))} R "
    f"ON {SAME_WINDOW} AND L.k = R.k",
]

for settings in (EnvironmentSettings.in_streaming_mode(), EnvironmentSettings.in_batch_mode()):
    t_env = TableEnvironment.create(settings)
    tables(t_env)
    for query in QUERIES:
        print(query)
        result = t_env.sql_query(query)
        result.print_schema()
        result.execute().print()
