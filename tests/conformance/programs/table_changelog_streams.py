"""An aggregated table read back as DataStreams: to_retract_stream gives (is_add, row) pairs,
to_changelog_stream rows with their RowKind; a DataStream made into a table is aggregated too. Three sinks interleave in no defined order.
# conformance: sorted
"""
from pyflink.common import Types
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.table import DataTypes, StreamTableEnvironment
from pyflink.table.expressions import col

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
t_env = StreamTableEnvironment.create(env)
sales = t_env.from_elements([('pens', 3), ('ink', 1), ('pens', 4), ('ink', 2)],
                            DataTypes.ROW([DataTypes.FIELD('item', DataTypes.STRING()),
                                           DataTypes.FIELD('qty', DataTypes.INT())]))
totals = sales.group_by(col('item')).select(col('item'), col('qty').sum.alias('total'))
t_env.to_retract_stream(totals, Types.ROW([Types.STRING(), Types.INT()])).print()
t_env.to_changelog_stream(totals).map(lambda row: f"{row.get_row_kind()} {row.item}={row.total}").print()
stream = env.from_collection([(1, 'a'), (2, 'b'), (3, 'a')],
                             type_info=Types.ROW_NAMED(['n', 'k'], [Types.INT(), Types.STRING()]))
counted = t_env.from_data_stream(stream).group_by(col('k')).select(col('k'), col('n').sum.alias('s'))
t_env.to_changelog_stream(counted).map(lambda row: f"stream {row.get_row_kind()} {row.k}={row.s}").print()
env.execute("table_changelog_streams")
