"""MATCH_RECOGNIZE as PyFlink 2.3's CEP matches it: greedy quantifiers (a greedy B{1,2} lets the next
variable take no row B accepts; a greedy loop leaves only on a row it rejects), reluctant ones, an
optional variable, {0,m}, every AFTER MATCH SKIP (and the default, TO NEXT ROW), WITHIN (exclusive; a
match waiting behind an older open run is emitted when WITHIN ends that run), MEASURES of navigation,
aggregates and MATCH_ROWTIME(); in STREAMING and BATCH, parallelism 2, the table two csv files (two
splits). The watermark's delay is longer than the data, so that no row is late whatever the timing.
Matches of several partitions come in no defined order.
# conformance: sorted
"""
import os
import tempfile

from pyflink.table import EnvironmentSettings, TableEnvironment

VALUES = {"a": [1, 2, 3, 1, 5, 6, 2, 7, 3, 4], "b": [4, 3, 5, 7, 8, 1, 2, 9, 9, 1], "c": [5, 5, 5, 1, 1, 9, 2, 3, 4, 5],
          "d": [1, 2, 3, 1], "e": [1, 2, 1, 5, 0]}
OFFSETS = {"a": 0, "b": 100, "c": 200, "d": 300, "e": 400}


def tables(t_env):
    t_env.get_config().set("parallelism.default", "2")
    path = tempfile.mkdtemp()
    rows = sorted((1000 * (i + 1) + OFFSETS[name] + (5000 if name == "c" and i >= 6 else 0), name, v)
                  for name, values in VALUES.items() for i, v in enumerate(values))
    for part in range(2):
        with open(os.path.join(path, f"part{part}.csv"), "w") as f:
            f.writelines(f"{name},{v},2024-01-01 00:00:{ms // 1000:02}.{ms % 1000:03}\n"
                         for ms, name, v in rows[part::2])
    t_env.execute_sql(f"CREATE TABLE t (name STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - "
                      f"INTERVAL '1' MINUTE) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')")


def match(measures, pattern, define, after="", within=""):
    return (f"SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY name ORDER BY ts MEASURES {measures} ONE ROW PER MATCH "
            f"{after} PATTERN ({pattern}) {within} DEFINE {define}) AS m")


QUERIES = [
    match("FIRST(A.v) AS first_v, LAST(B.v) AS last_v, COUNT(B.v) AS nb, A.ts AS start_ts, SUM(B.v) AS sb, "
          "AVG(B.v) AS ab, MIN(B.v) AS mnb, MAX(B.v) AS mxb, MATCH_ROWTIME() AS mt, C.v AS cv, FIRST(B.v, 1) AS fb1, "
          "LAST(B.v, 1) AS lb1", "A B+ C", "B AS B.v > A.v, C AS C.v < LAST(B.v, 1)",
          "AFTER MATCH SKIP PAST LAST ROW", "WITHIN INTERVAL '10' SECOND"),
    match("A.v AS av, FIRST(B.v) AS fb, LAST(B.v) AS lb, COUNT(B.v) AS nb, C.v AS cv", "A B{1,2} C",
          "B AS B.v < 5", "AFTER MATCH SKIP PAST LAST ROW"),
    match("A.v AS av, COUNT(B.v) AS nb, C.v AS cv", "A B*? C", "A AS A.v < 3, C AS C.v > 4",
          "AFTER MATCH SKIP TO NEXT ROW"),
    match("A.v AS av, B.v AS bv, C.v AS cv", "A? B C", "A AS A.v > 4, B AS B.v < 5", "AFTER MATCH SKIP TO NEXT ROW"),
    match("A.v AS av, COUNT(B.v) AS nb", "A B{0,2} C", "B AS B.v > 3", "AFTER MATCH SKIP TO NEXT ROW"),
    match("A.v AS av, COUNT(B.v) AS nb, C.v AS cv", "A B{2,3}? C", "B AS B.v > 2", "AFTER MATCH SKIP TO NEXT ROW"),
    match("A.v AS av, COUNT(B.v) AS nb, LAST(B.v) AS lb, C.v AS cv", "A B+ C", "B AS B.v >= A.v",
          "AFTER MATCH SKIP TO LAST B", "WITHIN INTERVAL '6' SECOND"),
    match("A.v AS av, COUNT(B.v) AS nb, LAST(B.v) AS lb", "A B+?", "B AS B.v >= A.v", "AFTER MATCH SKIP TO FIRST B"),
    match("A.v AS av, COUNT(B.v) AS nb, LAST(B.v) AS lb", "A B+?", "B AS B.v >= A.v"),
    match("A.v AS av, C.v AS cv", "A B? C", "A AS A.v < 3, C AS C.v > 0", "AFTER MATCH SKIP TO LAST C"),
    match("A.v AS av, FIRST(B.v) AS fb, LAST(B.v) AS lb, C.v AS cv", "A B{2} C", "A AS A.v > 0",
          "AFTER MATCH SKIP PAST LAST ROW"),
]

for settings in (EnvironmentSettings.in_streaming_mode(), EnvironmentSettings.in_batch_mode()):
    t_env = TableEnvironment.create(settings)
    tables(t_env)
    for query in QUERIES:
        print(query)
        result = t_env.sql_query(query)
        result.print_schema()
        result.execute().print()
