"""CROSS JOIN UNNEST: an ARRAY's elements, a MAP's entries (key and value columns) and an ARRAY of ROWs' fields,
one row per element beside the row's columns; a row of an empty or NULL collection makes none.
# conformance: sorted
"""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment

for settings in (EnvironmentSettings.in_batch_mode(), EnvironmentSettings.in_streaming_mode()):
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "1")
    t_env.create_temporary_view('t', t_env.from_elements(
        [(1, [10, 20], {'a': 1, 'b': 2}), (2, [], {}), (3, None, None), (4, [30], {'c': 3})],
        DataTypes.ROW([DataTypes.FIELD('id', DataTypes.INT()),
                       DataTypes.FIELD('xs', DataTypes.ARRAY(DataTypes.INT())),
                       DataTypes.FIELD('m', DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))])))
    t_env.create_temporary_view('r', t_env.from_elements(
        [(1, [(1, 'x'), (2, 'y')]), (2, [(3, 'z')])],
        DataTypes.ROW([DataTypes.FIELD('id', DataTypes.INT()),
                       DataTypes.FIELD('items', DataTypes.ARRAY(DataTypes.ROW([
                           DataTypes.FIELD('n', DataTypes.INT()), DataTypes.FIELD('name', DataTypes.STRING())])))])))
    for query in ["SELECT id, x FROM t CROSS JOIN UNNEST(xs) AS u(x)",
                  "SELECT id, x * 2 AS y FROM t, UNNEST(t.xs) AS u(x) WHERE x > 10",
                  "SELECT id, k, v FROM t CROSS JOIN UNNEST(m) AS u(k, v)",
                  "SELECT id, n, name FROM r CROSS JOIN UNNEST(items) AS u(n, name)",
                  "SELECT id, COUNT(*) AS c FROM t CROSS JOIN UNNEST(xs) AS u(x) GROUP BY id"]:
        print(query)
        t_env.sql_query(query).execute().print()
