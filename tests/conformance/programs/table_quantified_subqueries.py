"""``x op ALL (subquery)`` and ``x op ANY|SOME (subquery)`` in WHERE, negated too, uncorrelated and
correlated, with NULLs on either side and an empty subquery, in batch and streaming mode (whose changelog is
applied here: the rows it leaves). In streaming, ALL over an empty uncorrelated subquery keeps no row
(Flink's plan joins the subquery's aggregate, which a streaming aggregate of no rows does not give).
"""
from collections import Counter

from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment

A = DataTypes.ROW([DataTypes.FIELD('k', DataTypes.INT()), DataTypes.FIELD('v', DataTypes.STRING())])
M = DataTypes.ROW([DataTypes.FIELD('m', DataTypes.INT())])
for mode in ["batch", "stream"]:
    settings = EnvironmentSettings.in_batch_mode() if mode == "batch" else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "2")
    t_env.create_temporary_view("a", t_env.from_elements([(1, 'x'), (2, 'y'), (3, 'x'), (None, 'n'), (6, 'z')], A))
    t_env.create_temporary_view("b", t_env.from_elements([(2,), (5,)], M))
    t_env.create_temporary_view("c", t_env.from_elements([(2,), (None,)], M))
    t_env.create_temporary_view("e", t_env.sql_query("SELECT m FROM b WHERE m > 100"))
    for query in ["SELECT k FROM a WHERE k < ALL (SELECT m FROM b)",
                  "SELECT k FROM a WHERE k < ALL (SELECT m FROM c)",
                  "SELECT k FROM a WHERE k < ALL (SELECT m FROM e)",
                  "SELECT k FROM a WHERE NOT k < ALL (SELECT m FROM b)",
                  "SELECT k FROM a WHERE k = ANY (SELECT m FROM b)",
                  "SELECT k FROM a WHERE k > SOME (SELECT m FROM c)",
                  "SELECT k FROM a WHERE NOT k > ANY (SELECT m FROM b)",
                  "SELECT k FROM a WHERE NOT k > ANY (SELECT m FROM c)",
                  "SELECT k FROM a WHERE k <> ALL (SELECT m FROM b)",
                  "SELECT k, v FROM a WHERE k >= ALL (SELECT m FROM b WHERE m < a.k)"]:
        rows = Counter()
        with t_env.execute_sql(query).collect() as changes:
            for row in changes:
                rows[tuple(row)] += -1 if str(row.get_row_kind()) in ("-D", "-U") else 1
        print(mode, query, sorted(rows.elements(), key=repr))
