"""A Python UDF in a join condition, in the Table API and SQL, BATCH and STREAMING: an inner join runs it
on each pair (with or without an equality of keys in SQL: FROM a, b / CROSS JOIN / JOIN ON udf(...));
the Table API needs an equality; an outer join calling a Python UDF in its condition is refused, but for
a condition of the side it pads with nulls only (which goes below the join)."""
from collections import Counter

from pyflink.common import RowKind
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.udf import udf


@udf(result_type=DataTypes.BOOLEAN())
def near(x, y):
    return abs(x - y) <= 1


def show(name, build):
    """The rows the query's changes leave (in streaming their order depends on the rows' arrival)."""
    try:
        rows = Counter()
        with build().execute().collect() as changes:
            for change in changes:
                rows[str(change)] += 1 if change.get_row_kind() in (RowKind.INSERT, RowKind.UPDATE_AFTER) else -1
        print(name, sorted(row for row, count in rows.items() for _ in range(count)))
    except Exception:  # the texts differ: Flink's planner dump, Kindling's reason
        print(name, "refused")


for settings in (EnvironmentSettings.in_batch_mode(), EnvironmentSettings.in_streaming_mode()):
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "2")
    a = t_env.from_elements([(1, 10), (1, 20), (2, 30), (3, 40)], ["k", "x"])
    b = t_env.from_elements([(1, 11), (2, 35), (4, 1), (3, 41)], ["k2", "y"])
    t_env.create_temporary_view("a", a)
    t_env.create_temporary_view("b", b)
    t_env.create_temporary_function("near", near)
    show("api inner", lambda: a.join(b, (a.k == b.k2) & near(a.x, b.y)))
    show("api join where", lambda: a.join(b).where(near(a.x, b.y)))
    show("api left", lambda: a.left_outer_join(b, (a.k == b.k2) & near(a.x, b.y)))
    show("api full", lambda: a.full_outer_join(b, (a.k == b.k2) & near(a.x, 11)))
    show("api right, the function reads the padded side", lambda: a.right_outer_join(b, (a.k == b.k2) & near(a.x, 11)))
    show("api without an equality", lambda: a.join(b, near(a.x, b.y)))
    for query in ["SELECT * FROM a JOIN b ON a.k = b.k2 AND near(a.x, b.y)",
                  "SELECT * FROM a JOIN b ON near(a.x, b.y)",
                  "SELECT * FROM a CROSS JOIN b WHERE near(a.x, b.y)",
                  "SELECT k, y FROM a, b WHERE a.k = b.k2 AND near(a.x, b.y)",
                  "SELECT * FROM a LEFT JOIN b ON a.k = b.k2 AND near(a.x, b.y)",
                  "SELECT * FROM a RIGHT JOIN b ON a.k = b.k2 AND near(a.x, 11)",
                  "SELECT * FROM a FULL JOIN b ON near(a.x, b.y)",
                  "SELECT COUNT(*) FROM a CROSS JOIN b",
                  "SELECT * FROM a JOIN b ON a.x < b.y AND b.k2 = 3"]:
        show(query, lambda: t_env.sql_query(query))
