"""Deduplication, Top-N and ROW_NUMBER/RANK/DENSE_RANK in batch mode: each partition's final rows.
# conformance: sorted
"""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.create_temporary_view("scores", t_env.from_elements(
    [(1, 'ann', 15), (2, 'bob', 20), (3, 'ann', 30), (4, 'bob', 20), (5, 'ann', 10), (6, 'cat', 40), (7, 'ann', 30)],
    DataTypes.ROW([DataTypes.FIELD('id', DataTypes.INT()), DataTypes.FIELD('u', DataTypes.STRING()),
                   DataTypes.FIELD('score', DataTypes.INT())])))
for query in [
    "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY u ORDER BY id ASC) AS rn FROM scores) WHERE rn = 1",
    "SELECT id, u FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY u ORDER BY id DESC) AS rn FROM scores) WHERE rn = 1",
    "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY u ORDER BY score DESC, id) AS rn FROM scores) "
    "WHERE rn <= 2",
    "SELECT * FROM (SELECT u, score, RANK() OVER (PARTITION BY u ORDER BY score DESC) AS r FROM scores) WHERE r <= 2",
    "SELECT * FROM (SELECT u, score, DENSE_RANK() OVER (ORDER BY score) AS r FROM scores) WHERE r BETWEEN 2 AND 3",
    "SELECT * FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY u ORDER BY score) AS n FROM scores)",
]:
    print(query)
    result = t_env.sql_query(query)
    result.print_schema()
    result.execute().print()
