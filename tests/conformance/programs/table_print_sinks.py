"""Print sinks fed by a Table API source (from_elements: a parallel source whose one split one
subtask reads, so the sinks print subtask prefixes): a statement set writing to two print tables,
one through SQL naming the table by ``"%s" % table`` (registered as a view), one filtered by a
Python function of ``table.data``; a print table with an identifier and one on stderr.
# conformance: sorted, ignore-prefix (the subtask that reads the split is Flink's choice)
"""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.udf import udf

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "2")
table = t_env.from_elements([(1, "Hello"), (2, "World"), (3, "Flink"), (4, "PyFlink")], ["id", "data"])
for name in ("small", "flinky"):
    t_env.execute_sql(f"CREATE TABLE {name} (id BIGINT, data STRING) WITH ('connector' = 'print', "
                      f"'print-identifier' = '{name}')")
t_env.execute_sql("CREATE TABLE quiet (id BIGINT, data STRING) WITH ('connector' = 'print', 'standard-error' = 'true')")


@udf(result_type=DataTypes.BOOLEAN())
def flinky(data):
    return "Flink" in data


statements = t_env.create_statement_set()
statements.add_insert_sql("INSERT INTO small SELECT * FROM %s WHERE id <= 2" % table)
statements.add_insert("flinky", table.where(flinky(table.data)))
statements.add_insert("quiet", table)
statements.execute().wait()
