"""GROUP BY of expressions in BATCH mode: SQL (repeated in the SELECT list, inside a larger expression, in
HAVING, with CUBE and GROUPING of a key expression, a Python and a pandas function of the key, GROUP BY 1
as the constant 1) and the Table API (a key expression named by its alias); only final rows, groups in no
defined order.
# conformance: sorted
"""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col
from pyflink.table.udf import udf

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql("CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES (1, 'a', 10), (2, 'b', 20), (3, 'A', 30), "
                  "(4, 'B', 15), (5, 'a', 7), (6, 'c', 1)) AS x(id, k, v)")
t_env.create_temporary_function('plus_one', udf(lambda x: x + 1, result_type=DataTypes.INT()))
t_env.create_temporary_function('pandas_plus_one', udf(lambda x: x + 1, result_type=DataTypes.INT(),
                                                       func_type='pandas'))
for query in [
    "SELECT UPPER(k), SUM(v) FROM v GROUP BY UPPER(k)",
    "SELECT id % 2 AS m, COUNT(*) AS n, AVG(v) FROM v GROUP BY id % 2 HAVING SUM(v) > 40",
    "SELECT (id % 3) * 10, k, MAX(v) FROM v GROUP BY k, id % 3",
    "SELECT plus_one(id % 2), pandas_plus_one(id % 3), COUNT(*) FROM v "
    "GROUP BY plus_one(id % 2), pandas_plus_one(id % 3)",
    "SELECT UPPER(k), id % 2, GROUPING(UPPER(k)), SUM(v) FROM v GROUP BY CUBE (UPPER(k), id % 2)",
    "SELECT COUNT(*) AS n, SUM(v) FROM v GROUP BY 1",
]:
    t_env.execute_sql(query).print()
t_env.from_path('v').group_by(col('k').upper_case.alias('u')) \
    .select(col('u'), col('v').sum.alias('total'), col('id').count).execute().print()
