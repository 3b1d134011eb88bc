"""Flink's built-in functions give the same values as Spark columns (a table of elements, run in Spark's
JVM operators) and in Python (a table from a DataStream, run in the Python pass), nulls included, as
PyFlink computes them (tests/conformance/programs/table_*_functions.py compare the printed tables).
"""
from __future__ import annotations

import datetime
import decimal

import pytest

from table_support import runs_in

from kindling.common import Types
from kindling.table import DataTypes, StreamTableEnvironment
from kindling.table.expression import JsonValueOnEmptyOrError, TimeIntervalUnit, TimePointUnit
from kindling.table.expressions import (array, atan2, call_sql, coalesce, col, concat, concat_ws, date_format,
                                        from_unixtime, if_then_else, lit, map_, map_from_arrays, null_of, row,
                                        timestamp_diff, to_date, to_timestamp, to_timestamp_ltz, unix_timestamp)

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
    assert runs_in(spark_selected) == "Spark JVM"  # all in Spark's JVM operators
    expected = [[row[0]] + [values[n] for _, values in CASES] for n, row in enumerate(ROWS)]
    assert _values(spark_selected) == expected
    assert _values(python_table.select(col('id'), *_columns(CASES))) == expected


def test_functions_spark_computes_otherwise_run_in_python(tables):
    spark_table, _ = tables
    selected = spark_table.select(col('id'), *_columns(PYTHON_ONLY))
    assert runs_in(selected) == "Python"
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
        s.cast(DataTypes.BYTES())
    with pytest.raises(ValueError, match=r"cast from STRING to ARRAY<INT> is not supported by Kindling yet"):
        spark_table.select(s.cast(DataTypes.ARRAY(DataTypes.INT())))
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
             "CAST(ts AS DATE)", "EXTRACT(MONTH FROM ts)", "YEAR(ts)", "QUARTER(ts)", "DAYOFWEEK(ts)",
             "DAYOFYEAR(ts)", "HOUR(ts)", "ts + INTERVAL '90' MINUTE", "TIMESTAMPADD(MONTH, -1, ts)",
             "TIMESTAMPADD(HOUR, 1, CAST(ts AS DATE))", "CAST(ts AS DATE) - INTERVAL '1' YEAR", "3 * 2.55", "FLOOR(ts TO DAY)", "DATE_FORMAT(ts, 'HH:mm')",
             "TIMESTAMPDIFF(HOUR, ts, TIMESTAMP '2024-03-16 00:00:00')", "UNIX_TIMESTAMP('1970-01-01 00:00:10')",
             "FROM_UNIXTIME(i)", "TO_DATE('2024-01-02')", "ARRAY[i, 1][2]", "CARDINALITY(ARRAY[1, 2])", "MAP['a', i]['a']", "ROW(i, s)")


def test_sql_functions_agree_in_spark_and_python(tables):
    spark_table, python_table = tables
    t_env = spark_table._t_env
    t_env.create_temporary_view('spark_texts', spark_table)
    t_env.create_temporary_view('python_texts', python_table)
    query = "SELECT id, " + ", ".join(SQL_CALLS) + " FROM "
    in_spark = t_env.sql_query(query + 'spark_texts')
    assert runs_in(in_spark) == "Spark JVM"
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
    assert runs_in(in_spark) == "Spark JVM"
    assert _values(in_spark) == _values(python_table.select(col('id'), *[f.alias(f"c{n}") for n, f in
                                                                        enumerate(AGREEING)]))


# -- every function Spark computes, on edge values: the Python path and the Spark path agree --------

EDGE_NAMES = ['s', 'i', 'big', 'd', 'p', 'ts', 'b', 'arr', 'm']
EDGE_TYPES = [DataTypes.STRING(), DataTypes.INT(), DataTypes.BIGINT(), DataTypes.DOUBLE(), DataTypes.DECIMAL(10, 2),
              DataTypes.TIMESTAMP(3), DataTypes.BOOLEAN(), DataTypes.ARRAY(DataTypes.STRING()),
              DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())]
EDGE_ROWS = [
    ('Hello World', 7, 3000000000, -2.5, decimal.Decimal('1.25'), datetime.datetime(2024, 2, 29, 10, 20, 30, 123000),
     True, ['a', 'b'], {'k': 1}),
    ('', 0, 0, 0.0, decimal.Decimal('0.00'), datetime.datetime(1970, 1, 1), False, [], {}),
    (None, None, None, None, None, None, None, None, None),
    ('  a,b,,c  ', -3, -1, 1e20, decimal.Decimal('-99999999.99'), datetime.datetime(1999, 12, 31, 23, 59, 59), None,
     ['x', None], {'k': None}),
    ('ÉLAN é %_', 2147483647, 9223372036854775807, 3.75, decimal.Decimal('0.05'),
     datetime.datetime(2024, 1, 31, 0, 0, 0, 999000), True, ['b', 'b', 'a'], {'a': -1, 'k': 2}),
    ('ab12AB', -2147483648, -9223372036854775808, -0.5, decimal.Decimal('12.34'),
     datetime.datetime(2024, 12, 30, 23, 0), False, [''], {'': 0}),
]
s, i, big, d, p, ts, b, arr, m = (col(n) for n in EDGE_NAMES)
TEXT = lit('x y')
#: per function Spark may compute, calls of it on the edge columns
EDGE_CALLS = {
    'equals': [s == 'ab12AB', i == big], 'notEquals': [s != '', d != 0.5],
    'lessThan': [i < big, ts < lit('2000-01-01').to_timestamp], 'lessThanOrEqual': [p <= 1, s <= 'b'],
    'greaterThan': [d > i, b > False], 'greaterThanOrEqual': [big >= 0, p >= d],
    'and': [b & (i > 0)], 'or': [b | (i > 0)], 'not': [~b],
    'isNull': [s.is_null], 'isNotNull': [arr.is_not_null], 'isTrue': [b.is_true], 'isFalse': [b.is_false],
    'isNotTrue': [b.is_not_true], 'isNotFalse': [b.is_not_false],
    'in': [i.in_(0, 7, null_of(DataTypes.INT())), s.in_('', 'x')],
    'like': [s.like('%a%'), s.like('\\%%'), s.like('%!_', '!')], 'similar': [s.similar('(a|H)%')],
    'if': [if_then_else(b, s, 'no')], 'coalesce': [coalesce(s, 'none'), coalesce(i, big)],
    'null': [call_sql("NULLIF(i, 7)")], 'nullOf': [null_of(DataTypes.INT())],
    'plus': [i + 1, big + 1, p + p, i + d], 'minus': [i - 1, big - i, p - 1], 'times': [i * 2, big * 3, p * p],
    'divide': [i / 2, d / 2, p / 3, i / d], 'mod': [i % 3, big % -7, p % 2], 'minusPrefix': [-i, -big, -d, -p],
    'abs': [i.abs, big.abs, d.abs, p.abs], 'power': [d ** 2, i ** 0.5], 'sqrt': [d.sqrt], 'exp': [d.exp],
    'sin': [d.sin], 'cos': [d.cos], 'tan': [d.tan], 'cot': [d.cot], 'asin': [d.asin], 'acos': [d.acos],
    'atan': [d.atan], 'sinh': [d.sinh], 'cosh': [d.cosh], 'tanh': [d.tanh], 'degrees': [d.degrees],
    'radians': [d.radians], 'ln': [d.ln], 'log10': [d.log10], 'log2': [d.log2], 'log': [d.log(2)],
    'atan2': [atan2(d, i)], 'sign': [d.sign, i.sign], 'floor': [d.floor(), p.floor(), ts.floor(TimeIntervalUnit.DAY)],
    'ceil': [d.ceil(), p.ceil()], 'round': [d.round(0), p.round(1), i.round(-1)], 'bin': [i.bin, big.bin],
    'hex': [big.hex, s.hex], 'unhex': [s.unhex, lit('4142').unhex, lit('123').unhex],
    'upper': [s.upper_case], 'lower': [s.lower_case], 'charLength': [s.char_length], 'reverse': [s.reverse],
    'toBase64': [s.to_base64], 'fromBase64': [s.to_base64.from_base64], 'md5': [s.md5], 'sha1': [s.sha1],
    'sha224': [s.sha224], 'sha2': [s.sha2(512)], 'sha256': [s.sha256], 'sha384': [s.sha384], 'sha512': [s.sha512], 'ascii': [s.ascii],
    'chr': [i.chr], 'trim': [s.trim(), s.trim('a ')], 'trimLeading': [s.trim_leading()],
    'trimTrailing': [s.trim_trailing('c ')], 'btrim': [s.btrim(' a')], 'ltrim': [s.ltrim()], 'rtrim': [s.rtrim()],
    'substring': [s.substring(2, 3), s.substring(-2), s.substring(i, 2), s.substring(1, i)],
    'replace': [s.replace('a', '$'), s.replace('', '-')], 'repeat': [s.repeat(2), s.repeat(i % 5)],
    'lpad': [s.lpad(4, '*'), s.lpad(i % 20, 'xy'), s.lpad(3, '')], 'rpad': [s.rpad(4, '*'), s.rpad(i % 20, '')],
    'overlay': [s.overlay('XY', 2), s.overlay('XY', 2, 0), s.overlay('Z', i)],
    'position': [lit('a').position(s), lit('').position(s)], 'locate': [lit('a').locate(s, i), lit('b').locate(s)],
    'instr': [s.instr('b')], 'left': [s.left(2), s.left(i)], 'right': [s.right(3), s.right(i)],
    'concat': [concat(s, '!', s)], 'concat_ws': [concat_ws('-', s, 'z', s), concat_ws(s, 'a', 'b')],
    'startsWith': [s.starts_with('He')], 'endsWith': [s.ends_with('')],
    'splitIndex': [s.split_index(',', 1), s.split_index(' ', 0), s.split_index(',', -1)],
    'split': [s.split(','), s.split('')], 'regexp': [s.regexp('[a-z]+'), s.regexp('\\d')],
    'regexpReplace': [s.regexp_replace('([a-z])', '$1$'), s.regexp_replace('l+', '\\')],
    'regexpExtract': [s.regexp_extract('([a-z])([a-z])', 2), s.regexp_extract('[a-z]'), s.regexp_extract('a', 1)],
    'regexpCount': [s.regexp_count('[a-z]')], 'regexpSubstr': [s.regexp_substr('\\d+')],
    'regexpInstr': [s.regexp_instr('b')],
    'regexpExtractAll': [s.regexp_extract_all('([a-z])'), s.regexp_extract_all('[a-z]', 0),
                         s.regexp_extract_all('[a-z]')],
    'translate': [s.translate('al', 'A')], 'urlEncode': [s.url_encode()], 'urlDecode': [s.url_encode().url_decode(),
                                                                                         s.url_decode()],
    'encode': [s.encode('UTF-8')], 'decode': [s.encode('UTF-8').decode('UTF-8')], 'elt': [i.elt(s, 'b')],
    'printf': [lit('%s-%d').printf(s, i)], 'parseUrl': [lit('http://h/p?k=v').parse_url('QUERY', 'k'),
                                                       s.parse_url('HOST')],
    'cast': [d.cast(DataTypes.INT()), big.cast(DataTypes.INT()), s.cast(DataTypes.STRING()),
             b.cast(DataTypes.STRING()), ts.cast(DataTypes.STRING()), ts.cast(DataTypes.DATE()),
             p.cast(DataTypes.DECIMAL(5, 1)), i.cast(DataTypes.DOUBLE()), d.cast(DataTypes.DECIMAL(10, 1)),
             p.cast(DataTypes.INT()), big.cast(DataTypes.SMALLINT()), lit(' 12 ').cast(DataTypes.INT())],
    'tryCast': [s.try_cast(DataTypes.INT()), s.try_cast(DataTypes.BOOLEAN()), d.try_cast(DataTypes.BIGINT()),
                lit(' 1.5 ').try_cast(DataTypes.INT()), lit('3000000000').try_cast(DataTypes.INT())],
    'extract': [ts.extract(TimeIntervalUnit.WEEK), ts.extract(TimeIntervalUnit.QUARTER), ts.extract('DOW'),
                ts.extract('DOY'), ts.extract(TimeIntervalUnit.SECOND)],
    'dateFormat': [date_format(ts, 'yyyy-M-d H:m:s.SSS EEE a'), date_format(ts, 'hh:mm')],
    'toDate': [to_date(s), to_date(date_format(ts, 'yyyy/MM/dd'), 'yyyy/MM/dd')],
    'toTimestamp': [to_timestamp(date_format(ts, 'yyyy-MM-dd HH:mm:ss')),
                    to_timestamp(date_format(ts, 'dd.MM.yyyy'), 'dd.MM.yyyy'), to_timestamp(s, 'yyyy')],
    'toTimestampLtz': [to_timestamp_ltz(big / 1000000), to_timestamp_ltz(i, 0)],
    'unixTimestamp': [unix_timestamp(date_format(ts, 'yyyy-MM-dd HH:mm:ss')), unix_timestamp(s)],
    'fromUnixtime': [from_unixtime(i), from_unixtime(i, 'yyyy')],
    'timestampDiff': [timestamp_diff(TimePointUnit.DAY, ts, lit('2024-03-01 00:00:00').to_timestamp),
                      timestamp_diff(TimePointUnit.HOUR, lit('2024-03-01 00:00:00').to_timestamp, ts)],
    'timestampAdd': [ts + lit(90).minutes, lit(2).days + ts, ts - lit(1).months, ts + lit(1).years,
                     ts.cast(DataTypes.DATE()) - lit(25).hours, ts.cast(DataTypes.DATE()) + lit(1).quarters],
    'array': [array(s, 'x')], 'row': [row(s, i)], 'map': [map_('k', i)], 'mapFromArrays': [map_from_arrays(arr, arr)],
    'at': [arr.at(1), arr.at(3), m.at('k')], 'get': [row(s, i).get(1), row(s, i).get('f0')],
    'cardinality': [arr.cardinality, m.cardinality], 'element': [array(s).element],
    'arrayContains': [arr.array_contains('a')], 'arrayDistinct': [arr.array_distinct()],
    'arrayPosition': [arr.array_position('b')], 'arrayRemove': [arr.array_remove('b')],
    'arrayReverse': [arr.array_reverse()], 'arrayUnion': [arr.array_union(array('a', 'z'))],
    'arrayConcat': [arr.array_concat(arr)], 'arrayMax': [arr.array_max()], 'arrayMin': [arr.array_min()],
    'arrayJoin': [arr.array_join('|'), arr.array_join('|', 'NULL')], 'arrayAppend': [arr.array_append(s)],
    'arrayPrepend': [arr.array_prepend('z')], 'arrayExcept': [arr.array_except(array('a'))],
    'arrayIntersect': [arr.array_intersect(array('b', 'x'))], 'mapKeys': [m.map_keys], 'mapValues': [m.map_values],
    'mapEntries': [m.map_entries],
}
#: functions whose values differ between calls (now, random numbers)
NONDETERMINISTIC = {'rand', 'randInteger', 'uuid', 'currentDate', 'currentTimestamp', 'localTimestamp'}


def _comparable(value):
    """A value of either path in one form: Rows and tuples as lists, bytes, datetimes of Instants, floats to
    12 digits (Java's Math and C's libm may differ in the last bit)."""
    import math

    from kindling.common.time import Instant, timestamp_of

    if isinstance(value, float):
        return 'NaN' if math.isnan(value) else float(f"{value:.12g}")
    if isinstance(value, Instant):
        return timestamp_of(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, dict):
        return {_comparable(k): _comparable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or hasattr(value, '_values'):
        return [_comparable(v) for v in (value._values if hasattr(value, '_values') else value)]
    return value


def _outcome(compute):
    try:
        return _comparable(compute())
    except Exception:  # noqa: BLE001 -- both paths failing on a value is agreement
        return 'fails'


def _spark_values(frame, columns: list) -> list:
    """The Spark path's values of the columns on the edge rows (per column a list of a value per row,
    'fails' for a value Spark fails on: the columns are halved until that column's rows are computed one by one)."""
    try:
        rows = sorted(frame.select('__row', *columns).collect())
        return [[_comparable(row[n + 1]) for row in rows] for n in range(len(columns))]
    except Exception:  # noqa: BLE001 -- one failing value fails the query: find it
        if len(columns) > 1:
            return _spark_values(frame, columns[:len(columns) // 2]) + _spark_values(frame, columns[len(columns) // 2:])
        return [[_outcome(lambda: frame.where(frame.__row == n).select(columns[0]).first()[0])
                 for n in range(len(EDGE_ROWS))]]


def test_every_function_spark_computes_has_edge_cases():
    from kindling.table.planner.functions import BUILTINS

    in_spark = {name for name, definition in BUILTINS.items() if definition.spark is not False}
    assert sorted(in_spark - NONDETERMINISTIC - set(EDGE_CALLS)) == []


def test_python_and_spark_agree_on_edge_values(spark):
    assert disagreements(spark, [e for calls in EDGE_CALLS.values() for e in calls]) == []


def disagreements(spark, expressions: list) -> list:
    """Where the Spark path (a Spark column) and the Python path (the evaluator) give different values of
    the expressions on the edge rows; expressions Spark cannot compute (a call kept in Python) are left out."""
    from pyspark.sql.types import IntegerType, StructField, StructType

    from kindling.runtime.table.evaluate import compile_expression
    from kindling.spark.table.columns import column
    from kindling.spark.type_mapping import spark_type_of
    from kindling.table.planner.expressions import python_only, resolve

    schema = StructType([StructField('__row', IntegerType())] +
                        [StructField(n, spark_type_of(t.type_info())) for n, t in zip(EDGE_NAMES, EDGE_TYPES)])
    frame = spark.createDataFrame([(n, *row) for n, row in enumerate(EDGE_ROWS)], schema)
    resolved = [resolve(e, EDGE_NAMES, EDGE_TYPES) for e in expressions]
    resolved = [r for r in resolved if python_only(r) is None]  # others keep a call in Python (a regex of a column)
    in_python = [[_outcome(lambda: evaluate(list(row))) for row in EDGE_ROWS]
                 for evaluate in map(compile_expression, resolved)]
    in_spark = _spark_values(frame, [column(r).cast(spark_type_of(r.type.type_info())) for r in resolved])
    return [f'{r}: Spark {s}, Python {p}' for r, s, p in zip(resolved, in_spark, in_python) if s != p]
