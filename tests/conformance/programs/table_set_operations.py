"""Set operations of the Table API in batch mode (Flink refuses them on unbounded tables): intersect,
intersect_all, minus, minus_all, with repeated rows on both sides."""
from pyflink.table import EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
left = t_env.from_elements([(1, 'a'), (2, 'b'), (2, 'b'), (3, 'c'), (3, 'c'), (3, 'c')], ['id', 'name'])
right = t_env.from_elements([(2, 'b'), (3, 'c'), (3, 'c'), (4, 'd')], ['rid', 'rname'])
for operation in ('intersect', 'intersect_all', 'minus', 'minus_all'):
    result = getattr(left, operation)(right)
    result.print_schema()
    result.order_by(col('id')).execute().print()
