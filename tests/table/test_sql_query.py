"""``sql_query`` for projections and filters, translated through sqlglot into the Table API's Spark
column expressions; expected rows and column names recorded from PyFlink 2.3."""
from __future__ import annotations

from collections import Counter

import pytest

from kindling.table import StreamTableEnvironment

SOURCE = ("CREATE TABLE src (id INT, name STRING) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', "
          "'fields.id.start' = '1', 'fields.id.end' = '10', 'fields.name.kind' = 'sequence', "
          "'fields.name.start' = '100', 'fields.name.end' = '200')")


def test_select_where_and_views(any_env, capsys):
    t_env = StreamTableEnvironment.create(any_env)
    t_env.execute_sql(SOURCE)
    table = t_env.sql_query("SELECT id, id * 2 + 1 AS x, name, id - 1, -id FROM src "
                            "WHERE (id > 3 AND NOT id = 7) OR name = '100'")
    table.print_schema()
    assert capsys.readouterr().out == ("(\n  `id` INT,\n  `x` INT,\n  `name` STRING,\n  `EXPR$3` INT,\n"
                                       "  `EXPR$4` INT\n)\n")
    assert sorted(map(tuple, t_env.to_data_stream(table).execute_and_collect())) == [
        (1, 3, '100', 0, -1), (4, 9, '103', 3, -4), (5, 11, '104', 4, -5), (6, 13, '105', 5, -6),
        (8, 17, '107', 7, -8), (9, 19, '108', 8, -9), (10, 21, '109', 9, -10)]
    t_env.create_temporary_view('v', table)
    rows = t_env.to_data_stream(t_env.sql_query("SELECT * FROM v WHERE x < 12")).execute_and_collect()
    assert sorted(r.id for r in rows) == [1, 4, 5]


@pytest.mark.parametrize("query, message", [
    ("SELECT name, id, COUNT(*) FROM src GROUP BY name", r"reads \['id'\], which are not grouped"),
    ("SELECT LEVENSHTEIN(name, 'x') FROM src", r"the function LEVENSHTEIN\(name, 'x'\) is not supported by Kindling"),
    ("INSERT INTO src SELECT * FROM src", "sql_query takes a SELECT query"),
    ("SELECT id FROM nope", "Object 'nope' not found"),
    ("WITH RECURSIVE r AS (SELECT id FROM src) SELECT id FROM r", "WITH RECURSIVE is not supported"),
    ("VALUES (1, 'a'), (2)", "have different numbers of values"),
    ("SELECT * FROM (VALUES (1, NULL), (2, NULL)) AS v(a, b)", r"a VALUES column of NULLs only needs a type"),
    ("SELECT * FROM (VALUES (1, 2)) AS v(a)", "1 column names for VALUES of 2 columns"),
])
def test_untranslatable_queries_fail_naming_the_part(env, query, message):
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(SOURCE)
    with pytest.raises(ValueError, match=message):
        t_env.sql_query(query)


def test_with_names_shadow_tables_and_see_earlier_names(env):
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(SOURCE)
    table = t_env.sql_query("WITH src AS (SELECT id FROM src WHERE id <= 3), twice (n) AS (SELECT id * 2 FROM src) "
                            "SELECT n FROM twice UNION ALL SELECT id FROM src")
    assert sorted(r[0] for r in t_env.to_data_stream(table).execute_and_collect()) == [1, 2, 2, 3, 4, 6]


def test_intersect_and_except_in_batch():
    from kindling.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "2")
    t_env.create_temporary_view("a", t_env.sql_query("VALUES (1), (1), (2), (3)"))
    t_env.create_temporary_view("b", t_env.sql_query("VALUES (1), (1), (3), (4)"))

    def rows(query):
        return sorted(r[0] for r in t_env.sql_query(query).execute().collect())

    assert rows("SELECT * FROM a INTERSECT SELECT * FROM b") == [1, 3]
    assert rows("SELECT * FROM a INTERSECT ALL SELECT * FROM b") == [1, 1, 3]
    assert rows("SELECT * FROM a EXCEPT SELECT * FROM b") == [2]
    assert rows("SELECT * FROM a EXCEPT ALL SELECT * FROM (VALUES (1), (2)) AS c(x)") == [1, 3]


def test_intersect_and_except_in_streaming_sql_emit_and_retract_each_rows_copies():
    from kindling.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "2")
    t_env.create_temporary_view("a", t_env.from_elements([(1,), (1,), (2,), (3,), (None,)], ["x"]))
    t_env.create_temporary_view("b", t_env.from_elements([(1,), (3,), (3,), (4,), (None,)], ["x"]))

    def changes(query):
        with t_env.execute_sql(query).collect() as rows:
            return [(str(r.get_row_kind()), r[0]) for r in rows]

    def left(changelog):
        counts = Counter()
        for kind, x in changelog:
            counts[x] += 1 if kind == "+I" else -1
        return sorted(counts.elements(), key=repr)

    intersect = changes("SELECT * FROM a INTERSECT SELECT * FROM b")
    assert sorted(intersect, key=repr) == [("+I", 1), ("+I", 3), ("+I", None)]  # append-only: copies only grow
    except_all = changes("SELECT * FROM a EXCEPT ALL SELECT * FROM b")
    assert {kind for kind, _ in except_all} <= {"+I", "-D"} and left(except_all) == [1, 2]


def test_cast_fails_on_a_value_that_does_not_convert_and_try_cast_gives_null():
    from kindling.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.create_temporary_view("texts", t_env.sql_query("SELECT * FROM (VALUES ('12'), ('x')) AS t(s)"))
    assert sorted(r[0] for r in t_env.sql_query("SELECT TRY_CAST(s AS INT) FROM texts").execute().collect()
                  if r[0] is not None) == [12]
    with pytest.raises(Exception, match=r"job failed in Spark: \[CAST_INVALID_INPUT\] The value 'x'"):
        list(t_env.sql_query("SELECT CAST(s AS INT) FROM texts").execute().collect())


def test_string_literals_read_as_flink_reads_them():
    from kindling.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    rows = list(t_env.sql_query(r"SELECT 'it''s', CHAR_LENGTH('a\nb') FROM (VALUES (1)) AS v(x)").execute().collect())
    assert [tuple(r) for r in rows] == [("it's", 4)]  # PyFlink 2.3's row: a backslash is a character


def test_fractions_of_a_second_are_exact_milliseconds():
    from kindling.table.sql import sql_expression

    intervals = ["INTERVAL '1.001' SECOND", "INTERVAL '2' MINUTES"]
    assert [sql_expression(i)._interval_ms for i in intervals] == [1001, 120_000]  # as a float: 1000 ms


def test_row_types_constructors_and_fields_in_sql(env):
    from kindling.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.create_temporary_view('t', t_env.from_elements([(1, 'a')], ['id', 'name']))
    t_env.create_temporary_view('u', t_env.from_elements([(1, 'x')], ['id', 'tag']))
    rows = t_env.sql_query("SELECT ROW(id, name) AS r FROM t")
    assert repr(rows.get_schema().get_field_data_types()[0]) == "ROW<`EXPR$0` BIGINT, `EXPR$1` STRING> NOT NULL"
    joined = t_env.sql_query("SELECT r.EXPR$1 AS n, u.tag FROM (SELECT id, (id, name) AS r FROM t) v "
                             "JOIN u ON v.id = u.id")
    assert [tuple(r) for r in joined.execute().collect()] == [('a', 'x')]
    cast = t_env.sql_query("SELECT CAST(ROW(id, name) AS ROW<a STRING, b STRING>) AS r FROM t")
    assert [tuple(r[0]) for r in cast.execute().collect()] == [("1", "a")]  # by position, as Flink
    with pytest.raises(ValueError, match=r"cast from BIGINT to ROW<`a` BIGINT> is not supported by Kindling yet"):
        t_env.sql_query("SELECT CAST(id AS ROW<a BIGINT>) FROM t")
    t_env.execute_sql("CREATE TABLE n (xs ARRAY<INT>) WITH ('connector' = 'filesystem', 'path' = '/nowhere', "
                      "'format' = 'csv')")
    with pytest.raises(ValueError, match=r"the columns \['xs'\] are ROW, ARRAY or MAP: not supported by Kindling"):
        t_env.sql_query("SELECT ARRAY[1] AS xs").execute_insert("n")
