"""Row-based Table operations of PyFlink's basic_operations example: add_or_replace_columns, map and
flat_map with Python functions taking the whole row, group_by().aggregate() with a ROW-valued udaf,
flat_aggregate() with a udtaf, limit on a streaming table, and built-in aggregates (stddev, var,
first/last value, listagg)."""
import json

from pyflink.common import Row
from pyflink.table import (AggregateFunction, DataTypes, EnvironmentSettings, TableAggregateFunction,
                           TableEnvironment)
from pyflink.table.expressions import col, concat
from pyflink.table.udf import udaf, udf, udtaf, udtf

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
table = t_env.from_elements(
    elements=[(1, '{"name": "Flink", "tel": 123, "addr": {"country": "Germany", "city": "Berlin"}}'),
              (2, '{"name": "hello", "tel": 135, "addr": {"country": "China", "city": "Shanghai"}}'),
              (3, '{"name": "world", "tel": 124, "addr": {"country": "China", "city": "NewYork"}}'),
              (4, '{"name": "PyFlink", "tel": 32, "addr": {"country": "China", "city": "Hangzhou"}}')],
    schema=['id', 'data'])
people = table.add_columns(col('data').json_value('$.name', DataTypes.STRING()).alias('name'),
                           col('data').json_value('$.tel', DataTypes.STRING()).alias('tel'),
                           col('data').json_value('$.addr.country', DataTypes.STRING()).alias('country')) \
    .drop_columns(col('data'))
people.add_or_replace_columns(concat(col('id').cast(DataTypes.STRING()), '_', col('name')).alias('id')) \
    .execute().print()
people.limit(3).execute().print()


@udf(result_type=DataTypes.ROW([DataTypes.FIELD("id", DataTypes.BIGINT()),
                                DataTypes.FIELD("country", DataTypes.STRING())]))
def extract_country(input_row: Row):
    data = json.loads(input_row.data)
    return Row(input_row.id, data['addr']['country'])


table.map(extract_country).execute().print()
table.map(udf(lambda i: i * 10, result_type=DataTypes.BIGINT())(col('id'))).alias('ten').execute().print()


@udtf(result_types=[DataTypes.BIGINT(), DataTypes.STRING()])
def extract_city(input_row: Row):
    data = json.loads(input_row.data)
    yield input_row.id, data['addr']['city']


table.flat_map(extract_city).execute().print()


class CountAndSum(AggregateFunction):
    def get_value(self, accumulator):
        return Row(accumulator[0], accumulator[1])

    def create_accumulator(self):
        return Row(0, 0)

    def accumulate(self, accumulator, input_row):
        accumulator[0] += 1
        accumulator[1] += int(input_row.tel)

    def get_accumulator_type(self):
        return self.get_result_type()

    def get_result_type(self):
        return DataTypes.ROW([DataTypes.FIELD("cnt", DataTypes.BIGINT()), DataTypes.FIELD("sum", DataTypes.BIGINT())])


people.group_by(col('country')).aggregate(udaf(CountAndSum()).alias("cnt", "sum")) \
    .select(col('country'), col('cnt'), col('sum')).execute().print()


class Top2(TableAggregateFunction):
    def emit_value(self, accumulator):
        for v in accumulator:
            if v:
                yield Row(v)

    def create_accumulator(self):
        return [None, None]

    def accumulate(self, accumulator, input_row):
        tel = int(input_row.tel)
        if accumulator[0] is None or tel > accumulator[0]:
            accumulator[1] = accumulator[0]
            accumulator[0] = tel
        elif accumulator[1] is None or tel > accumulator[1]:
            accumulator[1] = tel

    def get_accumulator_type(self):
        return DataTypes.ARRAY(DataTypes.BIGINT())

    def get_result_type(self):
        return DataTypes.ROW([DataTypes.FIELD("tel", DataTypes.BIGINT())])


people.group_by(col('country')).flat_aggregate(udtaf(Top2())).select(col('country'), col('tel')) \
    .execute().print()
numbers = people.select(col('country'), col('name'), col('tel').cast(DataTypes.INT()).alias('t'),
                        col('tel').cast(DataTypes.DOUBLE()).alias('d'))
stats = numbers.group_by(col('country')).select(
    col('country'), col('t').stddev_pop, col('t').var_samp, col('d').stddev_samp, col('d').var_pop,
    col('name').first_value, col('name').last_value, col('name').list_agg(';'))
stats.print_schema()
stats.execute().print()


@udtf(result_types=[DataTypes.STRING()])
def city_of(data: str):
    yield json.loads(data)['addr']['city']


t_env.create_temporary_function('city_of', city_of)
t_env.execute_sql("SELECT id, city FROM %s, LATERAL TABLE(city_of(data)) AS t(city)" % table).print()
