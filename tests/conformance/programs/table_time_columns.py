"""TIME values: a DataTypes.TIME() column of from_elements collected, TIME literals, CAST to and from TIME,
a TIME argument of a Python UDF."""
import datetime

from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.udf import udf

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
t = t_env.from_elements([(1, datetime.time(12, 30, 5)), (2, datetime.time(0, 0, 0))], DataTypes.ROW(
    [DataTypes.FIELD("id", DataTypes.INT()), DataTypes.FIELD("tm", DataTypes.TIME())]))
t_env.create_temporary_view("t", t)
t.print_schema()
print(sorted(str(r) for r in t.execute().collect()))
print(list(t_env.execute_sql("SELECT TIME '12:00:00' AS x, CAST('10:11:12' AS TIME) AS y").collect()))
print(sorted(str(r) for r in t_env.execute_sql("SELECT id, CAST(tm AS STRING) FROM t").collect()))
t_env.create_temporary_function("text_of", udf(lambda x: str(x), result_type=DataTypes.STRING()))
print(sorted(str(r) for r in t_env.execute_sql("SELECT id, text_of(tm) FROM t").collect()))
