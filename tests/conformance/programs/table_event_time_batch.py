"""Batch mode over csv tables declaring a WATERMARK, parallelism 2: interval joins (inner, left, right,
full, with another condition), OVER aggregations (ROWS and RANGE, unbounded and bounded), Top-N,
deduplication, a window Top-N and DISTINCT aggregates (Kindling computes them in Spark's operators:
docs/table.md).
Rows come in no defined order.
# conformance: sorted
"""
import os
import tempfile

from pyflink.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "2")
ROWS = {"a": [(1, 1, "a1", 10), (2, 2, "a2", 30), (3, 2, "a0", 20), (4, 1, "a9", 30), (8, 1, "a3", 5),
              (9, 3, "a4", 7), (20, 1, "a5", 12), (21, 5, "a6", 3)],
        "b": [(3, 1, "b1", 4), (4, 2, "b2", 8), (12, 1, "b3", 1), (30, 4, "b4", 2), (8, 1, "b5", 6)]}
for name, rows in ROWS.items():
    path = tempfile.mkdtemp()
    for part, half in enumerate((rows[:len(rows) // 2], rows[len(rows) // 2:])):
        with open(os.path.join(path, f"part-{part}.csv"), "w") as f:
            f.writelines(f"2024-01-01 00:00:{t:02},{k},{v},{n}\n" for t, k, v, n in half)
    t_env.execute_sql(f"CREATE TABLE {name} (ts TIMESTAMP(3), id INT, v STRING, n INT, "
                      f"WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
                      f"WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')")

for query in [
    "SELECT a.id, a.v, b.v, b.ts FROM a JOIN b ON a.id = b.id AND a.ts BETWEEN b.ts - INTERVAL '4' SECOND "
    "AND b.ts + INTERVAL '1' SECOND",
    "SELECT a.v, b.v FROM a LEFT JOIN b ON a.id = b.id AND a.ts BETWEEN b.ts - INTERVAL '6' SECOND AND b.ts",
    "SELECT a.v, b.v, b.n FROM a FULL OUTER JOIN b ON a.id = b.id AND a.ts > b.ts - INTERVAL '5' SECOND "
    "AND a.ts <= b.ts AND b.n > 1",
    "SELECT b.v, a.v FROM a RIGHT JOIN b ON a.id = b.id AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts",
    "SELECT v, SUM(n) OVER w, COUNT(v) OVER w, MAX(n) OVER w, AVG(n) OVER w FROM a "
    "WINDOW w AS (PARTITION BY id ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
    "SELECT v, MIN(n) OVER (ORDER BY ts RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM b",
    "SELECT v, SUM(n) OVER (PARTITION BY id ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM a",
    "SELECT * FROM (SELECT id, v, n, ROW_NUMBER() OVER (PARTITION BY id ORDER BY n DESC) AS rn FROM a) WHERE rn <= 2",
    "SELECT id, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts) AS rn FROM a) WHERE rn = 1",
    "SELECT id, v, r FROM (SELECT *, RANK() OVER (ORDER BY n) AS r FROM a) WHERE r <= 3",
    "SELECT window_start, v, n FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end "
    "ORDER BY n DESC) AS rn FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rn <= 2",
    "SELECT v, window_start, window_end FROM TABLE(HOP(TABLE b, DESCRIPTOR(ts), INTERVAL '5' SECOND, "
    "INTERVAL '10' SECOND)) UNION ALL SELECT v, ts, ts FROM a",
    "SELECT id, COUNT(DISTINCT n % 3) AS k, SUM(DISTINCT n / 10) AS s, AVG(DISTINCT n / 10) AS a, COUNT(*) AS c "
    "FROM a GROUP BY id",
    "SELECT window_start, COUNT(DISTINCT id) AS ids, SUM(DISTINCT id) AS s FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), "
    "INTERVAL '10' SECOND)) GROUP BY window_start, window_end",
]:
    print(query)
    t_env.execute_sql(query).print()
