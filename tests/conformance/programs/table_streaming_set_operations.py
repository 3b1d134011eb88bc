"""INTERSECT and EXCEPT (distinct and ALL) in streaming SQL, at parallelism 2, NULLs equal, also over an
updating input (a GROUP BY): the rows each changelog leaves, sorted (Flink's changelog of them depends on
its rewrite and on the order rows arrive in). The Table API refuses them on unbounded tables, as Flink's.
"""
from collections import Counter

from pyflink.common import RowKind
from pyflink.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "2")
a = t_env.from_elements([(1, 'x'), (2, 'y'), (2, 'y'), (3, 'z'), (None, 'n'), (5, 'w')], ['k', 'v'])
b = t_env.from_elements([(2, 'y'), (3, 'z'), (3, 'z'), (None, 'n'), (4, 'q')], ['k', 'v'])
t_env.create_temporary_view("a", a)
t_env.create_temporary_view("b", b)


def left_rows(query):
    rows = Counter()
    with t_env.execute_sql(query).collect() as changes:
        for row in changes:
            rows[tuple(row)] += -1 if row.get_row_kind() in (RowKind.DELETE, RowKind.UPDATE_BEFORE) else 1
    return sorted((r for r, n in rows.items() for _ in range(n)), key=repr)


for query in ["SELECT * FROM a INTERSECT SELECT * FROM b",
              "SELECT * FROM a EXCEPT SELECT * FROM b",
              "SELECT * FROM a INTERSECT ALL SELECT * FROM b",
              "SELECT * FROM a EXCEPT ALL SELECT * FROM b",
              "SELECT k FROM a EXCEPT SELECT k FROM b WHERE k > 2",
              "SELECT v, COUNT(*) AS n FROM a GROUP BY v EXCEPT SELECT v, CAST(1 AS BIGINT) FROM b"]:
    print(query)
    print(left_rows(query))

try:
    a.intersect(b)
except Exception as e:
    print("Table API intersect refused:", "unbounded" in str(e))
