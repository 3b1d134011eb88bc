"""A pandas scalar function called outside a projection or a filter gets Series of a batch's values, as in
a projection (PyFlink's planner computes it in a Python Calc below the operator or a filter above it): as
an aggregate's argument (SQL, its FILTER, the Table API), over a group aggregation's results (above it:
the groups' Series), an OVER aggregate's argument, a sort key, a join's condition
on one side (below the join, the side's Series), of both sides in an equality (each side's below), of both
sides otherwise (a filter above the inner join: the joined rows' Series).
# conformance: sorted (the order of a batch job's aggregated and joined rows)
"""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col
from pyflink.table.udf import udf

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
centered = udf(lambda s: s - s.mean(), result_type=DataTypes.DOUBLE(), func_type='pandas')
t_env.create_temporary_function('centered', centered)


def columns(first, second):
    return DataTypes.ROW([DataTypes.FIELD(first, DataTypes.BIGINT()), DataTypes.FIELD(second, DataTypes.BIGINT())])


t_env.create_temporary_view('a', t_env.from_elements([(1, 10), (1, 20), (2, 60), (2, 5)], columns('k', 'v')))
t_env.create_temporary_view('b', t_env.from_elements([(1, -20), (1, -25), (1, -2), (2, 30), (3, 0)],
                                                     columns('k2', 'w')))
queries = [
    "SELECT k, SUM(centered(v)) AS s, COUNT(*) FILTER (WHERE centered(v) > 0) AS above FROM a GROUP BY k",
    "SELECT k, centered(SUM(v)) + COUNT(v) AS c FROM a GROUP BY k",
    "SELECT k, v, SUM(centered(v)) OVER (PARTITION BY k ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND "
    "CURRENT ROW) AS s FROM a",
    "SELECT k, v, k2, w FROM a JOIN b ON a.k = b.k2 AND centered(v) > w",
    "SELECT k, v, k2, w FROM a JOIN b ON a.k = b.k2 AND centered(v) > 0",
    "SELECT k, v, k2, w FROM a LEFT JOIN b ON a.k = b.k2 AND centered(w) > 0",
    "SELECT k, v, k2, w FROM a JOIN b ON centered(v) + 3.75 = w",
]
for query in queries:
    print(query)
    t_env.execute_sql(query).print()
t_env.from_path('a').group_by(col('k')).select(col('k'), centered(col('v')).max.alias('m')).execute().print()
t_env.from_path('a').order_by(centered(col('v'))).execute().print()
