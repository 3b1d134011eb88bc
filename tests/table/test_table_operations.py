"""Relational operations on a connector table (``select``, ``where``, ``add/drop/rename_columns``),
run as Spark column expressions and read back as a DataStream, in both runtime modes."""
from __future__ import annotations

import pytest

from kindling.common import Types
from kindling.table import DataTypes, StreamTableEnvironment
from kindling.table.expressions import col, lit

SOURCE = ("CREATE TABLE src (id INT, name STRING) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', "
          "'fields.id.start' = '1', 'fields.id.end' = '10', 'fields.name.kind' = 'sequence', "
          "'fields.name.start' = '100', 'fields.name.end' = '200')")


def _source(env):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(SOURCE)
    return t_env, t_env.from_path('src')


def test_where_select_rename_drop_run_in_spark_and_reach_a_data_stream(any_env):
    t_env, src = _source(any_env)
    table = src.where((col('id') > 3) & ~(col('id') == 7)) \
        .select(col('id'), (col('id') * 10 + 1).alias('x'), col('name'), lit(True)) \
        .rename_columns(col('name').alias('n')).drop_columns(col('_c3'))
    assert table.get_schema().get_field_names() == ['id', 'x', 'n']
    assert table.get_schema().get_field_data_types() == [DataTypes.INT(), DataTypes.INT(), DataTypes.STRING()]
    rows = list(t_env.to_data_stream(table).execute_and_collect())
    assert sorted((r.id, r.x, r.n) for r in rows) == [(i, 10 * i + 1, str(99 + i)) for i in (4, 5, 6, 8, 9, 10)]
    typed = t_env.to_append_stream(table.add_columns((col('x') - 0.5).alias('y')),
                                   Types.ROW([Types.INT(), Types.INT(), Types.STRING(), Types.DOUBLE()]))
    assert sorted(map(tuple, typed.execute_and_collect()))[0] == (4, 41, '103', 40.5)


def test_wrong_expressions_fail_naming_the_problem(env):
    _, src = _source(env)
    with pytest.raises(ValueError, match=r"Column 'nope' not found in the table; columns: \['id', 'name'\]"):
        src.select(col('nope'))
    with pytest.raises(ValueError, match="needs numeric operands, got STRING and INT"):
        src.select(col('name') + 1)
    with pytest.raises(ValueError, match="where/filter needs a BOOLEAN condition"):
        src.where(col('id') + 1)
    with pytest.raises(TypeError, match="no truth value"):
        bool(col('id') > 1)


def test_result_columns_are_named_and_typed_as_pyflink_names_them(env, capsys):
    # recorded from PyFlink 2.3: Table.print_schema() of the same expressions
    _, src = _source(env)
    src.where((col('id') > 3) & ~(col('id') == 7)) \
        .select(col('id'), (col('id') * 10 + 1).alias('x'), col('name'), lit(True), col('id') + 1) \
        .rename_columns(col('name').alias('n')).print_schema()
    src.select(col('id') * 2.5, col('id') + 1).print_schema()
    assert capsys.readouterr().out == ("(\n  `id` INT,\n  `x` INT,\n  `n` STRING,\n  `_c3` BOOLEAN NOT NULL,\n"
                                       "  `_c4` INT\n)\n(\n  `_c0` DOUBLE,\n  `_c1` INT\n)\n")


def test_from_elements_names_and_types_columns_as_pyflink(env, capsys):
    t_env = StreamTableEnvironment.create(env)
    t_env.from_elements([(1, 'Hi'), (2, 'Hello')]).print_schema()
    t_env.from_elements([(1, 'Hi')], DataTypes.ROW([DataTypes.FIELD('a', DataTypes.INT()),
                                                    DataTypes.FIELD('b', DataTypes.STRING())])).print_schema()
    assert capsys.readouterr().out == "(\n  `_1` BIGINT,\n  `_2` STRING\n)\n(\n  `a` INT,\n  `b` STRING\n)\n"
    with pytest.raises(ValueError, match="the element \\(3,\\) has 1 fields, the table 2"):
        t_env.from_elements([(1, 'Hi'), (3,)])


def test_execute_collect_reads_a_query_over_elements(any_env):
    t_env = StreamTableEnvironment.create(any_env)
    table = t_env.from_elements([(1, 'Hi'), (2, 'Hello'), (3, 'Hey')], ['a', 'b'])
    with table.where(col('a') >= 2).select(col('b'), col('a') * 3).execute().collect() as rows:
        assert sorted((r[0], r[1]) for r in rows) == [('Hello', 6), ('Hey', 9)]


def test_from_pandas_and_to_pandas_round_trip_through_a_query(env):
    import pandas

    t_env = StreamTableEnvironment.create(env)
    table = t_env.from_pandas(pandas.DataFrame({'id': [1, 2, 3], 'name': ['a', 'b', 'c']}))
    assert table.get_schema().get_field_data_types() == [DataTypes.BIGINT(), DataTypes.STRING()]
    result = table.where(col('id') != 2).add_columns((col('id') + 10).alias('more')).to_pandas()
    assert list(result.columns) == ['id', 'name', 'more']
    assert sorted(result.itertuples(index=False, name=None)) == [(1, 'a', 11), (3, 'c', 13)]


def test_from_data_stream_schema_reads_declared_columns_as_the_stream_has_them(env):
    from kindling.table import Schema

    t_env = StreamTableEnvironment.create(env)
    ds = env.from_collection([("a", 1)], Types.ROW_NAMED(["name", "v"], [Types.STRING(), Types.INT()]))
    only_rowtime = Schema.new_builder().column_by_metadata("rowtime", "TIMESTAMP_LTZ(3)").build()
    assert t_env.from_data_stream(ds, only_rowtime).get_schema().get_field_names() == ["name", "v", "rowtime"]
    plain = Schema.new_builder().column("v", "INT").build()
    assert t_env.from_data_stream(ds, plain).get_schema().get_field_names() == ["v"]
    with pytest.raises(ValueError, match="declares column 'v' as BIGINT, the stream's field is INT"):
        t_env.from_data_stream(ds, Schema.new_builder().column("v", DataTypes.BIGINT()).build())
    with pytest.raises(TypeError, match="Schema column 'v' must be a DataType"):
        Schema.new_builder().column("v", 3)
