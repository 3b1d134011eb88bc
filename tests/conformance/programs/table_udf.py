"""Python functions in the Table API: scalar functions (general and pandas, a ScalarFunction object),
table functions in join_lateral and left_outer_join_lateral, aggregate functions (an AggregateFunction
object), called directly, by registered name and from SQL.
"""
from pyflink.common import Row
from pyflink.table import AggregateFunction, DataTypes, EnvironmentSettings, ScalarFunction, TableEnvironment
from pyflink.table.expressions import call, col
from pyflink.table.udf import udaf, udf, udtf

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
people = t_env.from_elements([(1, 'ada lovelace', 36), (2, 'alan turing', 41), (3, 'grace', 85), (4, 'ada', 12)],
                             ['id', 'name', 'age'])


@udf(result_type=DataTypes.STRING())
def initials(name):
    return ''.join(part[0].upper() for part in name.split())


class Scaled(ScalarFunction):
    def open(self, function_context):
        self.factor = 10

    def eval(self, value):
        return value * self.factor


scaled = udf(Scaled(), result_type=DataTypes.BIGINT())
doubled = udf(lambda s: s * 2, result_type='BIGINT', func_type='pandas')


@udtf(result_types=[DataTypes.STRING(), DataTypes.INT()])
def parts(name):
    for part in name.split():
        if part != 'grace':
            yield part, len(part)


class Oldest(AggregateFunction):
    def create_accumulator(self):
        return Row(None, -1)

    def accumulate(self, accumulator, name, age):
        if age > accumulator[1]:
            accumulator[0], accumulator[1] = name, age

    def get_value(self, accumulator):
        return accumulator[0]


oldest = udaf(Oldest(), result_type=DataTypes.STRING(),
              accumulator_type=DataTypes.ROW([DataTypes.FIELD('name', DataTypes.STRING()),
                                              DataTypes.FIELD('age', DataTypes.BIGINT())]))

people.select(col('id'), initials(col('name')).alias('who'), scaled(col('age')), doubled(col('age'))) \
    .execute().print()
people.join_lateral(parts(col('name')).alias('part', 'size')).select(col('id'), col('part'), col('size')) \
    .execute().print()
people.left_outer_join_lateral(parts(col('name')).alias('part', 'size')).select(col('id'), col('part')) \
    .execute().print()
people.add_columns((col('id') % 2).alias('odd')).group_by(col('odd')) \
    .select(col('odd'), oldest(col('name'), col('age')).alias('oldest')) \
    .execute().print()
t_env.create_temporary_function('initials', initials)
people.select(call('initials', col('name'))).execute().print()
t_env.create_temporary_view('people', people)
t_env.sql_query("SELECT initials(name) AS who, age FROM people WHERE age > 20").execute().print()
