"""Set operations of tables whose columns' types differ (INT and BIGINT, INT and DOUBLE, INT and DECIMAL):
both sides are cast to the type they share, as Flink widens them; VALUES mixing integers and decimals;
collected DECIMAL values keep their type's scale.
# conformance: sorted
"""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "2")
a = t_env.from_elements([(1, 'a'), (2, 'b')], DataTypes.ROW([DataTypes.FIELD('x', DataTypes.INT()),
                                                              DataTypes.FIELD('s', DataTypes.STRING())]))
b = t_env.from_elements([(2, 'b'), (3, 'c')], DataTypes.ROW([DataTypes.FIELD('x', DataTypes.BIGINT()),
                                                              DataTypes.FIELD('s', DataTypes.STRING())]))
c = t_env.from_elements([(2.0, 'b'), (3.5, 'c')], DataTypes.ROW([DataTypes.FIELD('x', DataTypes.DOUBLE()),
                                                                  DataTypes.FIELD('s', DataTypes.STRING())]))
for name, table in [("union_all", a.union_all(b)), ("union", a.union(b)), ("minus", a.minus(b)),
                    ("intersect", b.intersect(a)), ("union_all of a double", a.union_all(c))]:
    print(name, table.get_schema())
    for row in table.execute().collect():
        print(name, row)
t_env.create_temporary_view("a", a)
t_env.create_temporary_view("c", c)
for query in ["SELECT s, x FROM a UNION SELECT s, CAST(x AS DECIMAL(10, 2)) FROM c",
              "SELECT x FROM a EXCEPT SELECT CAST(x AS BIGINT) FROM c",
              "SELECT * FROM (VALUES (1), (2.5), (CAST(3 AS BIGINT)))"]:
    table = t_env.sql_query(query)
    print(query, table.get_schema())
    for row in table.execute().collect():
        print(query, row)
