"""A DataStream written into SQL-declared sink tables (``from_data_stream(...).execute_insert``),
with the print connector's output as PyFlink 2.3 writes it (recorded from PyFlink)."""
from __future__ import annotations

import pytest

from kindling.common import Types
from kindling.table import ResultKind, StreamTableEnvironment


def test_from_data_stream_execute_insert_prints_like_flink(env, capsys):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    assert t_env.execute_sql("CREATE TABLE my_sink (a INT, b VARCHAR, c DOUBLE) WITH "
                             "('connector' = 'print', 'print-identifier' = 'ids')").get_result_kind() \
        == ResultKind.SUCCESS
    t_env.execute_sql("CREATE TABLE my_sink2 (a INT) WITH ('connector' = 'print')")
    t_env.execute_sql("CREATE TABLE drop_all (a INT, b VARCHAR, c DOUBLE) WITH ('connector' = 'blackhole')")
    ds = env.from_collection([(1, 'aaa', 1.5), (2, None, None)],
                             type_info=Types.ROW([Types.INT(), Types.STRING(), Types.DOUBLE()]))
    result = t_env.from_data_stream(ds).execute_insert('my_sink')
    assert result.get_result_kind() == ResultKind.SUCCESS_WITH_CONTENT and result.get_job_client() is not None
    result.wait()
    t_env.from_data_stream(env.from_collection([7], type_info=Types.INT())).execute_insert('my_sink2').wait()
    t_env.from_data_stream(ds).execute_insert('drop_all').wait()
    # the sink runs with its input's parallelism (a collection source's: 1), so no subtask prefix
    assert capsys.readouterr().out.splitlines() == ["ids> +I[1, aaa, 1.5]", "ids> +I[2, null, null]", "+I[7]"]


def test_ddl_result_prints_ok(env, capsys):
    StreamTableEnvironment.create(env).execute_sql(
        "CREATE TEMPORARY TABLE t (a INT NOT NULL) WITH ('connector' = 'blackhole')").print()
    assert capsys.readouterr().out == "OK\n"


@pytest.mark.parametrize("statement, message", [
    ("CREATE TABLE t (a INT) WITH ('connector' = 'print', 'colour' = 'red')",
     "Unsupported options for the 'print' connector: colour"),
    ("CREATE TABLE t (a INT, b INT) WITH ('connector' = 'print')", r"Column count of the query \(\['f0'\]\)"),
    ("CREATE TABLE t (a INT) WITH ('connector' = 'datagen')", "the 'datagen' connector cannot be written to"),
])
def test_a_wrong_sink_fails_naming_the_problem(env, statement, message):
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(statement)
    with pytest.raises(ValueError, match=message):
        t_env.from_data_stream(env.from_collection([1], type_info=Types.INT())).execute_insert('t')


@pytest.mark.parametrize("statement, message", [
    ("ALTER TABLE t RENAME TO u", "is not supported by Kindling yet"),
    ("SHOW MODULES", "is not supported by Kindling yet; SHOW CATALOGS, "),
    ("CREATE FUNCTION f AS 'nowhere.f' LANGUAGE PYTHON", "cannot import 'nowhere.f'"),
    ("DROP TABLE nope", "Table with identifier 'default_catalog.default_database.nope' does not exist."),
    ("CREATE TABLE t (a INT)", "needs a 'connector' option"),
    ("CREATE TABLE t (a INT, PRIMARY KEY (a)) WITH ('connector' = 'datagen')", "PRIMARY KEY ... NOT ENFORCED"),
    ("CREATE TABLE t (a INTERVAL DAY) WITH ('connector' = 'datagen')", "column type .* is not supported"),
])
def test_unsupported_statements_fail_naming_what(env, statement, message):
    with pytest.raises(ValueError, match=message):
        StreamTableEnvironment.create(env).execute_sql(statement)


def test_unknown_tables_are_named(env):
    t_env = StreamTableEnvironment.create(env)
    with pytest.raises(ValueError, match="Object 'nope' not found"):
        t_env.from_path('nope')


def test_batch_table_environment_inserts_a_datagen_table_into_a_print_table(spark, capsys):
    from kindling.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.execute_sql("CREATE TABLE src (id BIGINT, tag STRING) WITH ('connector' = 'datagen', "
                      "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3', "
                      "'fields.tag.kind' = 'sequence', 'fields.tag.start' = '7', 'fields.tag.end' = '9')")
    t_env.execute_sql("CREATE TABLE out (id BIGINT, tag STRING) WITH ('connector' = 'print', 'sink.parallelism' = '1')")
    t_env.from_path('src').execute_insert('out').wait()
    assert sorted(capsys.readouterr().out.splitlines()) == ["+I[1, 7]", "+I[2, 8]", "+I[3, 9]"]


def test_a_data_stream_registered_as_a_view_is_read_back_by_name(env):
    t_env = StreamTableEnvironment.create(env)
    t_env.create_temporary_view('people', env.from_collection(
        [('ann', 3)], type_info=Types.ROW_NAMED(['name', 'age'], [Types.STRING(), Types.INT()])))
    assert t_env.from_path('people').get_schema().get_field_names() == ['name', 'age']
    rows = list(t_env.to_data_stream(t_env.from_path('people')).execute_and_collect())
    assert [(r.name, r.age) for r in rows] == [('ann', 3)]
    with pytest.raises(ValueError, match="Temporary table '`default_catalog`.`default_database`.`people`' "
                                         "already exists"):
        t_env.create_temporary_view('people', t_env.from_path('people'))
