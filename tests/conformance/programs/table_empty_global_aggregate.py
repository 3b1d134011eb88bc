"""A global aggregation (no GROUP BY) over no rows: one row in BATCH mode (COUNT 0, SUM/MAX/AVG NULL, a
pandas function's value of an empty Series), none in STREAMING mode; over rows, their aggregates. With
built-in aggregates only and with Python functions in the arguments or as the aggregate."""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col
from pyflink.table.udf import udaf, udf

add_one = udf(lambda v: v + 1, result_type=DataTypes.BIGINT())
pandas_count = udaf(lambda v: len(v), result_type=DataTypes.BIGINT(), func_type="pandas")

for settings in (EnvironmentSettings.in_batch_mode(), EnvironmentSettings.in_streaming_mode()):
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "2")
    t_env.create_temporary_function("add_one", add_one)
    t_env.create_temporary_function("pandas_count", pandas_count)
    values = t_env.from_elements([(1, 'a'), (2, 'b'), (3, 'c')], DataTypes.ROW(
        [DataTypes.FIELD('v', DataTypes.BIGINT()), DataTypes.FIELD('s', DataTypes.STRING())]))
    t_env.create_temporary_view('T', values)
    print("batch" if not settings.is_streaming_mode() else "streaming")
    for condition in ("v > 5", "v > 1"):
        t_env.execute_sql(f"SELECT COUNT(*) AS n, SUM(v) AS total, MAX(s) AS most, AVG(v) AS mean FROM T "
                          f"WHERE {condition}").print()
        t_env.execute_sql(f"SELECT COUNT(*) AS n, SUM(add_one(v)) AS total FROM T WHERE {condition}").print()
    if not settings.is_streaming_mode():  # PyFlink runs pandas aggregate functions in BATCH mode only
        t_env.execute_sql("SELECT pandas_count(v) AS n FROM T WHERE v > 5").print()
    values.where(col('v') > 5).select(col('v').count.alias('n'), add_one(col('v')).max.alias('top')).execute().print()
