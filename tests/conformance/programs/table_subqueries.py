"""SQL subqueries in WHERE: IN, NOT IN (null-aware: a NULL in the subquery's column keeps no row), EXISTS and
NOT EXISTS correlated on equalities, as Flink's semi and anti joins. Streaming: the semi joins (a row once
its first partner came) and anti joins whose rows meet no partner (the inputs race in Flink).
# conformance: sorted
"""
from pyflink.table import EnvironmentSettings, TableEnvironment

for settings in (EnvironmentSettings.in_batch_mode(), EnvironmentSettings.in_streaming_mode()):
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "1")
    t_env.create_temporary_view('t', t_env.from_elements(
        [(1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (None, 'd', 40), (2, 'e', 50)], ['k', 's', 'x']))
    t_env.create_temporary_view('o', t_env.from_elements([(1, 5), (2, 1), (2, 7), (4, 9)], ['k', 'w']))
    t_env.create_temporary_view('n', t_env.from_elements([(1,), (None,)], ['k']))
    queries = [
        "SELECT s FROM t WHERE k IN (SELECT k FROM o)",
        "SELECT s, x FROM t WHERE k IN (SELECT k FROM o WHERE w > 6) AND x > 10",
        "SELECT s FROM t WHERE EXISTS (SELECT 1 FROM o WHERE o.k = t.k AND o.w > 3)",
        "SELECT s FROM t AS a WHERE k + 1 IN (SELECT k FROM o)",
        "SELECT s FROM t WHERE NOT EXISTS (SELECT * FROM o WHERE o.k = t.k + 10)",
        "SELECT s FROM t WHERE k NOT IN (SELECT k FROM o WHERE k > 100)",
    ]
    if not settings.is_streaming_mode():
        queries += [
            "SELECT s FROM t WHERE k NOT IN (SELECT k FROM o)",
            "SELECT s FROM t WHERE k NOT IN (SELECT k FROM n)",
            "SELECT s FROM t WHERE NOT EXISTS (SELECT 1 FROM o WHERE o.k = t.k)",
            "SELECT s FROM t WHERE NOT (k IN (SELECT k FROM o))",
            "SELECT k, COUNT(*) AS c FROM t WHERE k IN (SELECT k FROM o) GROUP BY k",
        ]
    for query in queries:
        print(query)
        t_env.sql_query(query).execute().print()
