"""A processing-time attribute (PROCTIME() in from_data_stream's Schema): deduplication keeping the
first and the last row by arrival, an OVER aggregation by arrival, and a processing-time window
aggregation, which a bounded job ends before it fires (Flink's rule). Keys come in no defined order.
# conformance: sorted
"""
from pyflink.common import Types
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, Schema, StreamTableEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)
rows = env.from_collection([('ann', 1), ('bob', 2), ('ann', 3), ('ann', 4), ('bob', 5)],
                           type_info=Types.ROW([Types.STRING(), Types.INT()]))
table = t_env.from_data_stream(rows, Schema.new_builder().column("f0", DataTypes.STRING())
                               .column("f1", DataTypes.INT()).column_by_expression("pt", "PROCTIME()").build()) \
    .alias("u", "v", "pt")
table.print_schema()
t_env.create_temporary_view("t", table)
for query in [
    "SELECT u, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY u ORDER BY pt) AS rn FROM t) WHERE rn = 1",
    "SELECT u, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY u ORDER BY pt DESC) AS rn FROM t) WHERE rn = 1",
    "SELECT u, v, SUM(v) OVER (PARTITION BY u ORDER BY pt ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t",
    "SELECT u, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(pt), INTERVAL '1' HOUR)) GROUP BY u, window_start, "
    "window_end",
]:
    print(query)
    result = t_env.sql_query(query)
    result.print_schema()
    result.execute().print()
