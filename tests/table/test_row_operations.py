"""Row-based Table operations (map, flat_map, aggregate, flat_aggregate, add_or_replace_columns, column
ranges), more aggregates, data views, and the TableEnvironment's catalog answers, on Spark in batch mode
(tests/conformance/programs/table_row_operations.py compares the streaming changelogs with PyFlink's)."""
from __future__ import annotations

import pytest

from kindling.common import Row
from kindling.table import (AggregateFunction, DataTypes, EnvironmentSettings, ExplainDetail, MapView,
                            TableAggregateFunction, TableEnvironment)
from kindling.table.expressions import col, concat, lit, range_, with_columns, without_columns
from kindling.table.udf import udaf, udf, udtaf

from table_support import quiet_t_env

PEOPLE = [(1, 'ann', 'de', 30), (2, 'bob', 'cn', 45), (3, 'cid', 'cn', 20), (4, 'dan', 'cn', 45)]


class Top2(TableAggregateFunction):
    def create_accumulator(self):
        return []

    def accumulate(self, accumulator, row):
        accumulator.append(row.age)
        accumulator.sort(reverse=True)
        del accumulator[2:]

    def emit_value(self, accumulator):
        for age in accumulator:
            yield Row(age)


class Distinct(AggregateFunction):
    """Counts the distinct names of a group in a MapView."""

    def create_accumulator(self):
        return Row(MapView())

    def accumulate(self, accumulator, name):
        accumulator[0].put(name, True)

    def get_value(self, accumulator):
        return len(list(accumulator[0].keys()))


def _rows(table) -> list:
    with table.execute().collect() as rows:
        return sorted(tuple(r) for r in rows)


@pytest.fixture
def people(spark):
    t_env = quiet_t_env("batch", parallelism=2)
    return t_env.from_elements(PEOPLE, ['id', 'name', 'country', 'age'])


def test_map_aggregate_and_flat_aggregate_take_whole_rows(people):
    pair = udf(lambda r: Row(r.id * 10, r.name.upper()), result_type=DataTypes.ROW(
        [DataTypes.FIELD('ten', DataTypes.BIGINT()), DataTypes.FIELD('up', DataTypes.STRING())]))
    assert _rows(people.map(pair)) == [(10, 'ANN'), (20, 'BOB'), (30, 'CID'), (40, 'DAN')]
    assert people.map(udf(lambda i: i + 1, result_type='BIGINT')(col('id'))).get_schema().get_field_names() == ['f0']

    total = udaf(lambda ages: int(ages.sum()), result_type=DataTypes.BIGINT(), func_type='pandas')
    assert _rows(people.group_by(col('country')).aggregate(total(col('age')).alias('total'))
                 .select(col('country'), col('total'))) == [('cn', 110), ('de', 30)]
    assert _rows(people.aggregate(total(col('age')).alias('all')).select(col('all'))) == [(140,)]

    # PyFlink 2.3 runs general aggregate and table aggregate functions in streaming mode only (a group's
    # changes once per bundle: one row per group of a small bounded input)
    top2 = udtaf(Top2(), result_type=DataTypes.ROW([DataTypes.FIELD('age', DataTypes.BIGINT())]))
    distinct = udaf(Distinct(), result_type=DataTypes.BIGINT())
    with pytest.raises(ValueError, match="table aggregate function Top2.* is not supported in batch mode"):
        _rows(people.group_by(col('country')).flat_aggregate(top2).select(col('country'), col('age')))
    with pytest.raises(ValueError, match="non-Pandas UDAFs are not supported in batch mode currently"):
        _rows(people.group_by(col('age')).select(col('age'), distinct(col('name'))))
    streamed = quiet_t_env("streaming", parallelism=2).from_elements(PEOPLE, ['id', 'name', 'country', 'age'])
    assert _rows(streamed.group_by(col('country')).flat_aggregate(top2).select(col('country'), col('age'))) == [
        ('cn', 45), ('cn', 45), ('de', 30)]
    assert _rows(streamed.group_by(col('age')).select(col('age'), distinct(col('name')))) == [
        (20, 1), (30, 1), (45, 2)]


def test_columns_are_replaced_and_selected_by_ranges(people):
    replaced = people.add_or_replace_columns(concat(col('name'), '!').alias('name'), lit(1).alias('one'))
    assert replaced.get_schema().get_field_names() == ['id', 'name', 'country', 'age', 'one']
    assert _rows(replaced.select(with_columns(range_(1, 2)), col('one')))[0] == (1, 'ann!', 1)
    assert people.select(without_columns(col('country'), 4)).get_schema().get_field_names() == ['id', 'name']
    assert people.select(col('*')).get_schema().get_field_names() == ['id', 'name', 'country', 'age']


def test_more_aggregates_in_the_table_api_and_sql(people):
    stats = people.group_by(col('country')).select(
        col('country'), col('age').var_pop, col('age').stddev_samp, col('name').list_agg('+'),
        col('name').first_value, col('name').last_value, col('age').percentile(0.5), col('age').array_agg)
    assert _rows(stats) == [('cn', 138, 14, 'bob+cid+dan', 'bob', 'dan', 45.0, [45, 20, 45]),
                            ('de', 0, None, 'ann', 'ann', 'ann', 30.0, [30])]
    t_env = people._t_env
    t_env.create_temporary_view('people', people)
    assert _rows(t_env.sql_query("SELECT country, VAR_SAMP(age), LISTAGG(name), MAX(age) FROM people "
                                 "GROUP BY country")) == [('cn', 208, 'bob,cid,dan', 45), ('de', None, 'ann', 30)]


def test_the_environment_answers_for_its_catalog(spark, capsys):
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    table = t_env.from_elements([(1, 'a')], ['id', 's'])
    t_env.create_view('v', table)
    assert (t_env.list_views(), t_env.list_catalogs(), t_env.get_current_database()) == (
        ['v'], ['default_catalog'], 'default_database')
    assert t_env.drop_view('v') and not t_env.drop_view('v')
    assert t_env.explain_sql("SELECT UPPER(s) FROM %s" % table, ExplainDetail.PLAN_ADVICE).endswith(
        "No available advice...\n")
    table.select(col('s').upper_case).print_explain(ExplainDetail.CHANGELOG_MODE)
    assert "changelogMode=[I]" in capsys.readouterr().out
    with pytest.raises(ValueError, match="JSON_EXECUTION_PLAN"):
        table.explain(ExplainDetail.JSON_EXECUTION_PLAN)
    with pytest.raises(ValueError, match=r"A catalog with name \[hive\] does not exist"):
        t_env.use_catalog('hive')
    with pytest.raises(ValueError, match="computes local times in UTC"):
        t_env.get_config().set_local_timezone('Europe/Berlin')
    with pytest.raises(ValueError, match="The INTERSECT operation on two unbounded tables is currently not supported"):
        table.intersect(table)
    with pytest.raises(NotImplementedError, match="Table.to_changelog is not supported by Kindling yet"):
        table.to_changelog()


def test_a_pandas_aggregate_of_floats_computes_in_float32_as_pyflink(spark):
    import numpy

    t_env = quiet_t_env("batch", parallelism=1)
    prices = t_env.from_elements([('bob', 30.2), ('bob', 53.1), ('bob', 3.1)],
                                 DataTypes.ROW([DataTypes.FIELD('name', DataTypes.STRING()),
                                                DataTypes.FIELD('price', DataTypes.FLOAT())]))
    mean = udaf(lambda v: v.mean(), result_type=DataTypes.FLOAT(), func_type='pandas')
    [(name, price)] = _rows(prices.group_by(col('name')).select(col('name'), mean(col('price'))))
    # PyFlink's example pandas_udaf prints 28.800001 (float32 arithmetic), not 28.8
    assert numpy.float32(price) == numpy.array([30.2, 53.1, 3.1], dtype='float32').mean() != numpy.float32(28.8)
