"""Interval joins of bounded csv tables declaring a WATERMARK, in a STREAMING job at parallelism 2.
The rows of each table's file come out of order, but by less than the watermark's delay: no row is
late whatever the timing, so Flink joins every pair within the bounds once and pads each unmatched
row of an outer side once (Kindling computes the join in Spark's operators, in one step:
docs/table.md). `a_late` has one more row, later than the delay: Flink may drop its pairs (Kindling
keeps the Python operator on micro-batches; its rows here join nothing the timing could change).
Without a WATERMARK the times are not time attributes: Flink plans a regular join with the bounds as
its condition.
# conformance: sorted
"""
import os
import tempfile

from pyflink.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "2")
A = [(300, 1, "a1"), (0, 2, "a2"), (1000, 1, "a3"), (800, 3, "a4"), (2500, 2, "a5"), (2100, 1, "a6"),
     (4000, 4, "a7"), (3600, 1, "a8"), (6000, 2, "a9"), (5800, 5, "a10")]
B = [(500, 1, "b1"), (1200, 2, "b2"), (900, 1, "b3"), (2600, 3, "b4"), (3000, 1, "b5"), (4900, 2, "b6"),
     (4500, 6, "b7"), (6100, 1, "b8")]


def table(name, rows, watermark=True):
    path = tempfile.mkdtemp()
    with open(os.path.join(path, "rows.csv"), "w") as f:
        f.writelines(f"2024-01-01 00:00:{ms // 1000:02}.{ms % 1000:03},{k},{v}\n" for ms, k, v in rows)
    mark = ", WATERMARK FOR ts AS ts - INTERVAL '0.5' SECOND" if watermark else ""
    t_env.execute_sql(f"CREATE TABLE {name} (ts TIMESTAMP(3), k INT, v STRING{mark}) WITH ('connector' = "
                      f"'filesystem', 'path' = '{path}', 'format' = 'csv')")


table("a", A)
table("b", B)
table("a_late", A + [(1900, 7, "late")])
table("a_plain", A, watermark=False)
table("b_plain", B, watermark=False)
t_env.execute_sql("CREATE TABLE printed (k INT, av STRING, bv STRING) WITH ('connector' = 'print')")
BOUNDS = "a.ts BETWEEN b.ts - INTERVAL '1' SECOND AND b.ts + INTERVAL '0.5' SECOND"
t_env.execute_sql(f"INSERT INTO printed SELECT a.k, a.v, b.v FROM a, b WHERE a.k = b.k AND {BOUNDS}").wait()
for query in [
    f"SELECT a.k, a.v, b.v, a.ts, b.ts FROM a, b WHERE a.k = b.k AND {BOUNDS}",
    f"SELECT a.k, a.v, b.v FROM a LEFT JOIN b ON a.k = b.k AND {BOUNDS}",
    f"SELECT a.v, b.v FROM a RIGHT JOIN b ON a.k = b.k AND {BOUNDS} AND a.v <> 'a3'",
    f"SELECT a.v, b.v, b.k FROM a FULL JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '2' SECOND",
    f"SELECT a.v, b.v FROM a_late a JOIN b ON a.k = b.k AND {BOUNDS}",
    f"SELECT a.v, b.v FROM a_plain a JOIN b_plain b ON a.k = b.k AND {BOUNDS}",
]:
    print(query)
    t_env.execute_sql(query).print()
