"""Deduplication by processing time (ROW_NUMBER() OVER (PARTITION BY k ORDER BY a PROCTIME() column)
= 1) of a collection, parallelism 1: keep the first row of each key (+I once), keep the last one
(+I, then -U old / +U new for every later row), with and without the row number selected, and a
filter after it. Every row differs from the others (Flink's keep-last emits nothing for a row equal to
the one kept, which only rows of the same millisecond could be)."""
from pyflink.common import Types
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, Schema, StreamTableEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)
rows = [(1, 'a', 1.5), (2, 'b', 2.0), (3, 'a', 1.5), (4, 'a', 3.0), (5, 'c', None), (6, None, 7.0), (7, 'b', 2.5),
        (8, None, 8.0), (9, 'a', -1.0), (10, 'c', 4.0), (11, 'b', 2.0)]
orders = env.from_collection(rows, type_info=Types.ROW_NAMED(['id', 'k', 'amount'],
                                                             [Types.INT(), Types.STRING(), Types.DOUBLE()]))
t_env.create_temporary_view("orders", t_env.from_data_stream(
    orders, Schema.new_builder().column("id", DataTypes.INT()).column("k", DataTypes.STRING())
    .column("amount", DataTypes.DOUBLE()).column_by_expression("pt", "PROCTIME()").build()))

for query in [
    "SELECT id, k, amount FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt) AS rn FROM orders) "
    "WHERE rn = 1",
    "SELECT k, amount, id, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt ASC) AS rn "
    "FROM orders) WHERE rn = 1",
    "SELECT id, k, amount FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt DESC) AS rn FROM orders) "
    "WHERE rn = 1",
    "SELECT k, id, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt DESC) AS rn FROM orders) "
    "WHERE rn = 1",
    "SELECT k, amount * 2 AS twice FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt DESC) AS rn "
    "FROM orders) WHERE rn = 1 AND id > 2",
]:
    print(query)
    result = t_env.sql_query(query)
    result.print_schema()
    result.execute().print()
