"""Pandas scalar functions get whole Series (a batch of rows: here the whole small input, parallelism 1,
one bundle) and return a Series of the same length: a function of the whole Series (its mean, its
length, a rank) sees every row of the batch; in a filter and in SQL too. A pandas aggregate function
gets the group's (or OVER frame's) whole Series (PyFlink: in batch mode only).
"""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col, lit
from pyflink.table.udf import udaf, udf

ROWS = [(1, 'a', 10.0), (2, 'b', 20.0), (3, 'a', 30.0), (4, 'b', 60.0), (5, 'a', None)]
SCHEMA = DataTypes.ROW([DataTypes.FIELD('id', DataTypes.BIGINT()), DataTypes.FIELD('kind', DataTypes.STRING()),
                        DataTypes.FIELD('v', DataTypes.DOUBLE())])
t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
readings = t_env.from_elements(ROWS, SCHEMA)

centered = udf(lambda s: s - s.mean(), result_type=DataTypes.DOUBLE(), func_type='pandas')
size = udf(lambda s: s.map(lambda _: len(s)), result_type=DataTypes.BIGINT(), func_type='pandas')
ranked = udf(lambda s: s.rank(method='min'), result_type=DataTypes.DOUBLE(), func_type='pandas')
scaled = udf(lambda s, factor: s * factor, result_type=DataTypes.DOUBLE(), func_type='pandas')
dtype = udf(lambda i, v, k: i.map(lambda _: f'{i.dtype}/{v.dtype}/{k.dtype}'), result_type=DataTypes.STRING(),
            func_type='pandas')
spread = udaf(lambda s: float(s.max() - s.min()), result_type=DataTypes.DOUBLE(), func_type='pandas')
counted = udaf(lambda s: len(s), result_type=DataTypes.BIGINT(), func_type='pandas')

readings.select(col('id'), centered(col('v')).alias('centered'), size(col('id')).alias('n'),
                ranked(col('v')).alias('rank'), scaled(col('v'), lit(0.5)).alias('half'),
                centered(scaled(col('v'), lit(2.0))).alias('nested'),
                dtype(col('id'), col('v'), col('kind')).alias('dtypes')) \
    .execute().print()
readings.where(centered(col('v')) > 0).select(col('id'), col('v')).execute().print()
t_env.create_temporary_function('centered', centered)
t_env.create_temporary_view('readings', readings)
t_env.sql_query("SELECT id, centered(v) AS c FROM readings WHERE id > 1").execute().print()

batch_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
batch_env.get_config().set("parallelism.default", "1")
batch_env.from_elements(ROWS, SCHEMA).group_by(col('kind')) \
    .select(col('kind'), spread(col('v')).alias('spread'), counted(col('id')).alias('n')).execute().print()
batch_env.create_temporary_view('readings', batch_env.from_elements(ROWS, SCHEMA))
batch_env.create_temporary_function('spread', spread)
batch_env.sql_query("SELECT id, spread(v) OVER (PARTITION BY kind ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) "
                    "AS s FROM readings").execute().print()
