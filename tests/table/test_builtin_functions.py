"""Flink's built-in functions give the same values as Spark columns (a table of elements, run in Spark's
JVM operators) and in Python (a table from a DataStream, run in the Python pass), nulls included, as
PyFlink computes them (tests/conformance/programs/table_*_functions.py compare the printed tables).
"""
from __future__ import annotations

import datetime

import pytest

from kindling.common import Types
from kindling.table import DataTypes, StreamTableEnvironment
from kindling.table.expression import JsonValueOnEmptyOrError, TimeIntervalUnit
from kindling.table.expressions import (array, coalesce, col, concat, concat_ws, date_format, from_unixtime,
                                        if_then_else, lit, map_, to_date, unix_timestamp)

ROWS = [(1, 'Hello World', -2.5, 7, '{"a": {"b": [1, 2]}, "n": 1.5}', datetime.datetime(2024, 3, 15, 10, 20, 30)),
        (2, '  flink sql ', 3.75, -3, '[1, 2]', datetime.datetime(1999, 12, 31, 23, 59, 59)),
        (3, None, None, None, None, None)]
NAMES = ['id', 's', 'd', 'i', 'j', 'ts']
TYPES = [DataTypes.BIGINT(), DataTypes.STRING(), DataTypes.DOUBLE(), DataTypes.INT(), DataTypes.STRING(),
         DataTypes.TIMESTAMP(3)]
s, d, i, j, ts = col('s'), col('d'), col('i'), col('j'), col('ts')

# (expression, its values for the three rows)
CASES = [
    (s.upper_case, ['HELLO WORLD', '  FLINK SQL ', None]),
    (s.char_length, [11, 12, None]),
    (s.trim(), ['Hello World', 'flink sql', None]),
    (s.substring(2, 3), ['ell', ' fl', None]),
    (s.replace('l', 'L'), ['HeLLo WorLd', '  fLink sqL ', None]),
    (s.lpad(13, '*'), ['**Hello World', '*  flink sql ', None]),
    (lit('o').position(s), [5, 0, None]),
    (s.split_index(' ', 1), ['World', '', None]),
    (s.regexp_replace('[aeiou]', '#'), ['H#ll# W#rld', '  fl#nk sql ', None]),
    (s.regexp_extract('([a-z]+)', 1), ['ello', 'flink', None]),
    (s.like('%o%'), [True, False, None]),
    (concat(s, '!'), ['Hello World!', '  flink sql !', None]),
    (concat_ws('-', s, 'z'), ['Hello World-z', '  flink sql -z', 'z']),
    (s.md5, ['b10a8db164e0754105b7a99be72e3fe5', '20e2865bab98fd4338c9db9c486a5235', None]),
    (s.is_null, [False, False, True]),
    (coalesce(s, 'none'), ['Hello World', '  flink sql ', 'none']),
    (col('id').in_(1, 3), [True, False, True]),
    (i.between(0, 10), [True, False, None]),
    (if_then_else(i > 0, 'pos', 'neg'), ['pos', 'neg', 'neg']),
    ((i > 0).is_true, [True, False, False]),
    (d.abs, [2.5, 3.75, None]),
    (d.floor(), [-3.0, 3.0, None]),
    (d.round(1), [-2.5, 3.8, None]),
    (d.round(0), [-3.0, 4.0, None]),
    (i.round(-1), [10, 0, None]),
    (i % 4, [3, -3, None]),
    (i ** 2, [49.0, 9.0, None]),
    (-d, [2.5, -3.75, None]),
    ((d.abs + 1).ln, [1.252762968495368, 1.55814461804655, None]),
    (i.hex, ['7', 'FFFFFFFFFFFFFFFD', None]),
    (d.cast(DataTypes.INT()), [-2, 3, None]),
    ((i > 0).cast(DataTypes.STRING()), ['TRUE', 'FALSE', None]),
    (d.cast(DataTypes.STRING()), ['-2.5', '3.75', None]),
    (lit('x').try_cast(DataTypes.INT()), [None, None, None]),
    (ts.extract(TimeIntervalUnit.YEAR), [2024, 1999, None]),
    (ts.floor(TimeIntervalUnit.HOUR), [datetime.datetime(2024, 3, 15, 10), datetime.datetime(1999, 12, 31, 23), None]),
    (date_format(ts, 'yyyy/MM/dd HH:mm'), ['2024/03/15 10:20', '1999/12/31 23:59', None]),
    (to_date(date_format(ts, 'yyyy-MM-dd')), [datetime.date(2024, 3, 15), datetime.date(1999, 12, 31), None]),
    (unix_timestamp(date_format(ts, 'yyyy-MM-dd HH:mm:ss')), [1710498030, 946684799, None]),
    (from_unixtime(i * 100), ['1970-01-01 00:11:40', '1969-12-31 23:55:00', None]),
    (array(i, 2).at(1), [7, -3, None]),
    (map_('k', i).at('k'), [7, -3, None]),
    (s.split(' ').cardinality, [2, 5, None]),
]
PYTHON_ONLY = [
    (s.init_cap, ['Hello World', '  Flink Sql ', None]),
    (d.truncate(0), [-2.0, 3.0, None]),
    (j.json_value('$.a.b[1]', DataTypes.INT()), [2, None, None]),
    (j.json_value('$.n'), ['1.5', None, None]),
    (j.json_value('lax $.x', DataTypes.STRING(), JsonValueOnEmptyOrError.DEFAULT, 'none'), ['none', 'none', None]),
    (j.json_value('$.x', DataTypes.STRING(), JsonValueOnEmptyOrError.DEFAULT, 'none'), [None, None, None]),
    (j.json_query('$.a'), ['{"b":[1,2]}', None, None]),
    (j.json_exists('$.a.b'), [True, False, None]),
    (j.is_json(), [True, True, False]),
]


def _columns(cases):
    return [expression.alias(f"c{n}") for n, (expression, _) in enumerate(cases)]


def _values(table) -> list:
    with table.execute().collect() as rows:
        return sorted((list(r) for r in rows), key=lambda r: r[0])


@pytest.fixture
def tables(env):
    env.set_parallelism(1)
    t_env = StreamTableEnvironment.create(env)
    row_type = DataTypes.ROW([DataTypes.FIELD(n, t) for n, t in zip(NAMES, TYPES)])
    spark_table = t_env.from_elements(ROWS, row_type)
    stream = env.from_collection(ROWS, Types.ROW_NAMED(NAMES, [t.type_info() for t in TYPES]))
    return spark_table, t_env.from_data_stream(stream)


def test_functions_give_flinks_values_as_spark_columns_and_in_python(tables):
    spark_table, python_table = tables
    spark_selected = spark_table.select(col('id'), *_columns(CASES))
    assert "[Spark SQL]" in spark_selected.explain()  # all in Spark's JVM operators
    expected = [[row[0]] + [values[n] for _, values in CASES] for n, row in enumerate(ROWS)]
    assert _values(spark_selected) == expected
    assert _values(python_table.select(col('id'), *_columns(CASES))) == expected


def test_functions_spark_computes_otherwise_run_in_python(tables):
    spark_table, _ = tables
    selected = spark_table.select(col('id'), *_columns(PYTHON_ONLY))
    assert "[Spark SQL]" not in selected.explain()
    assert _values(selected) == [[row[0]] + [values[n] for _, values in PYTHON_ONLY] for n, row in enumerate(ROWS)]


def test_sql_calls_the_same_functions(tables):
    spark_table, _ = tables
    t_env = spark_table._t_env
    t_env.create_temporary_view('texts', spark_table)
    result = t_env.sql_query(
        "SELECT id, UPPER(s), CHAR_LENGTH(s), TRIM(s), SUBSTRING(s, 2, 3), POSITION('o' IN s), INITCAP(s), "
        "COALESCE(s, 'none'), CASE WHEN i > 0 THEN 'pos' WHEN i < 0 THEN 'neg' END, s LIKE '%o%', ROUND(d, 1), "
        "CAST(i > 0 AS STRING), EXTRACT(YEAR FROM ts), DATE_FORMAT(ts, 'yyyy/MM/dd'), JSON_VALUE(j, '$.n'), "
        "s IS NOT NULL, TRY_CAST('x' AS INT), s || '!', SPLIT_INDEX(s, ' ', 1), MOD(i, 4), POWER(i, 2) FROM texts")
    assert _values(result) == [
        [1, 'HELLO WORLD', 11, 'Hello World', 'ell', 5, 'Hello World', 'Hello World', 'pos', True, -2.5, 'TRUE', 2024,
         '2024/03/15', '1.5', True, None, 'Hello World!', 'World', 3, 49.0],
        [2, '  FLINK SQL ', 12, 'flink sql', ' fl', 0, '  Flink Sql ', '  flink sql ', 'neg', False, 3.8, 'FALSE', 1999,
         '1999/12/31', None, True, None, '  flink sql !', '', -3, 9.0],
        [3, None, None, None, None, None, None, 'none', None, None, None, None, None, None, None, False, None, None,
         None, None, None]]


def test_bad_arguments_fail_naming_the_problem(tables):
    spark_table, _ = tables
    with pytest.raises(ValueError, match="cast to .* is not supported by Kindling yet"):
        s.cast(DataTypes.ARRAY(DataTypes.INT()))
    with pytest.raises(ValueError, match="extract takes a unit of"):
        ts.extract(TimeIntervalUnit.DAY_TO_HOUR)
    with pytest.raises(ValueError, match="Illegal jsonpath spec"):
        j.json_value('a.b')
    with pytest.raises(ValueError, match=r"get\('x'\): .* has no such field"):
        spark_table.select(col('s').get('x'))


SQL_CALLS = ("LOWER(s)", "REVERSE(s)", "LTRIM(s)", "RTRIM(s)", "TRIM(LEADING 'H' FROM s)", "TRIM(TRAILING ' ' FROM s)",
             "REPEAT(s, 2)", "REPLACE(s, 'o', '0')", "LEFT(s, 2)", "RIGHT(s, 2)", "RPAD(s, 3, '-')", "INSTR(s, 'l')",
             "LOCATE('l', s, 4)", "OVERLAY(s PLACING 'XY' FROM 2 FOR 1)", "REGEXP_EXTRACT(s, '(l+)', 1)",
             "SPLIT(s, ' ')", "CONCAT_WS('/', s, 'x')", "MD5(s)", "SHA2(s, 256)", "TO_BASE64(s)", "ASCII(s)",
             "CHR(i + 60)", "HEX(s)", "ABS(i)", "SIGN(d)", "FLOOR(d)", "CEIL(d)", "ROUND(d)",
             "SQRT(ABS(d))", "EXP(i)", "LN(ABS(d))", "LOG(2, ABS(d))", "LOG2(ABS(d))", "POWER(d, 2)", "MOD(i, 3)",
             "DEGREES(d)", "RADIANS(d)", "PI()", "NULLIF(i, 7)", "IF(i > 0, 'p', 'n')", "i BETWEEN 0 AND 10",
             "i NOT IN (7, 8)", "s NOT LIKE 'H%'", "s IS NOT NULL", "(i > 0) IS TRUE", "(i > 0) IS NOT FALSE",
             "CASE i WHEN 7 THEN 'seven' ELSE 'other' END", "CAST(d AS DECIMAL(5, 1))", "CAST(i AS STRING)",
             "CAST(ts AS DATE)", "EXTRACT(MONTH FROM ts)", "YEAR(ts)", "FLOOR(ts TO DAY)", "DATE_FORMAT(ts, 'HH:mm')",
             "TIMESTAMPDIFF(HOUR, ts, TIMESTAMP '2024-03-16 00:00:00')", "UNIX_TIMESTAMP('1970-01-01 00:00:10')",
             "FROM_UNIXTIME(i)", "TO_DATE('2024-01-02')", "ARRAY[i, 1][2]", "CARDINALITY(ARRAY[1, 2])", "MAP['a', i]['a']", "ROW(i, s)")


def test_sql_functions_agree_in_spark_and_python(tables):
    spark_table, python_table = tables
    t_env = spark_table._t_env
    t_env.create_temporary_view('spark_texts', spark_table)
    t_env.create_temporary_view('python_texts', python_table)
    query = "SELECT id, " + ", ".join(SQL_CALLS) + " FROM "
    in_spark = t_env.sql_query(query + 'spark_texts')
    assert "[Spark SQL]" in in_spark.explain()
    assert _values(in_spark) == _values(t_env.sql_query(query + 'python_texts'))


AGREEING = [s.translate('lo', 'L'), s.url_encode(), s.to_base64.from_base64, s.sha1, s.sha2(224), s.ascii,
            (i + 60).chr, s.hex.unhex, i.bin, s.regexp_count('l'), s.regexp_substr('o.'), s.regexp_instr('o'),
            s.regexp_extract_all('[a-z]'), s.starts_with('He'), s.encode('UTF-8').decode('UTF-8'),
            s.split(' ').array_append('x'), s.split(' ').array_prepend('x'), s.split(' ').array_concat(s.split(' ')),
            s.split(' ').array_except(s.split('o')), s.split(' ').array_intersect(s.split(' ')),
            s.split(' ').array_union(s.split(' ')), s.split(' ').array_position('World'),
            s.split(' ').array_remove(''), s.split(' ').array_max(), s.split(' ').array_min(),
            s.split(' ').array_join('|'), s.split(' ').array_contains('sql'), s.split(' ').array_reverse(),
            s.split(' ').array_distinct(), map_('k', i).map_keys, map_('k', i).map_values, map_('k', i).map_entries,
            array(i).element, (i * 1000).cast(DataTypes.BIGINT()), d.cot, s.like('H_l%'), s.similar('H(e|a)llo%'),
            s.if_null('x'), (i > 0).is_false, (i > 0).is_not_true, lit(2).elt(s, 'b'), s.regexp('W.r'), s.rtrim('d '),
            s.btrim(' H'), s.ltrim(' '), ts.extract(TimeIntervalUnit.QUARTER),
            ts.extract(TimeIntervalUnit.WEEK), ts.floor(TimeIntervalUnit.MONTH), s.printf()]


def test_more_functions_agree_as_spark_columns_and_in_python(tables):
    spark_table, python_table = tables
    in_spark = spark_table.select(col('id'), *[f.alias(f"c{n}") for n, f in enumerate(AGREEING)])
    assert "[Spark SQL]" in in_spark.explain()
    assert _values(in_spark) == _values(python_table.select(col('id'), *[f.alias(f"c{n}") for n, f in
                                                                        enumerate(AGREEING)]))
