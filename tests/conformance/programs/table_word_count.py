"""A word count in the Table API, as PyFlink's own example: a table function splits lines into words
(flat_map + alias), group_by counts them, the print connector shows each count's changes.
"""
from pyflink.common import Row
from pyflink.table import DataTypes, EnvironmentSettings, Schema, TableDescriptor, TableEnvironment
from pyflink.table.expressions import col, lit
from pyflink.table.udf import udtf

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
lines = t_env.from_elements([("the cat sat on the mat",), ("the dog sat",), ("a cat and a dog",)],
                            DataTypes.ROW([DataTypes.FIELD('line', DataTypes.STRING())]))
t_env.create_temporary_table('counts', TableDescriptor.for_connector('print')
                             .schema(Schema.new_builder().column('word', DataTypes.STRING())
                                     .column('count', DataTypes.BIGINT()).build()).build())


@udtf(result_types=[DataTypes.STRING()])
def split(line: Row):
    for word in line[0].split():
        yield Row(word)


lines.flat_map(split).alias('word').group_by(col('word')).select(col('word'), lit(1).count) \
    .execute_insert('counts').wait()
