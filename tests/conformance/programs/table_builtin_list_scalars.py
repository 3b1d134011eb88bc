"""Flink's built-in scalar functions that the other table_*_functions programs leave out, on edge values
(NULLs, empty strings, INT and BIGINT extremes, a leap day, the epoch), in SQL, with their column types
(print_schema); the list of every function is tests/table/flink_builtin_functions.txt."""
import datetime
import decimal

from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
edge = t_env.from_elements(
    [(1, 'Hello World', 7, 3000000000, -2.5, decimal.Decimal('1.25'),
      datetime.datetime(2024, 2, 29, 10, 20, 30, 123000), True, ['a', 'b'], {'k': 1}),
     (2, '', 0, 0, 0.0, decimal.Decimal('0.00'), datetime.datetime(1970, 1, 1), False, [], {}),
     (3, None, None, None, None, None, None, None, None, None),
     (4, '  a,b,,c  ', -3, -1, 1e20, decimal.Decimal('-99999999.99'), datetime.datetime(1999, 12, 31, 23, 59, 59),
      None, ['x', None], {'k': 5}),
     (5, 'ÉLAN é %_', 2147483647, 9223372036854775807, 3.75, decimal.Decimal('0.05'),
      datetime.datetime(2024, 1, 31, 0, 0, 0, 999000), True, ['b', 'b', 'a'], {'a': -1}),
     (6, 'ab12AB', -2147483648, -9223372036854775808, -0.5, decimal.Decimal('12.34'),
      datetime.datetime(2024, 12, 30, 23, 0), False, [''], {'': 0})],
    DataTypes.ROW([DataTypes.FIELD('id', DataTypes.BIGINT()), DataTypes.FIELD('s', DataTypes.STRING()),
                   DataTypes.FIELD('i', DataTypes.INT()), DataTypes.FIELD('big', DataTypes.BIGINT()),
                   DataTypes.FIELD('d', DataTypes.DOUBLE()), DataTypes.FIELD('p', DataTypes.DECIMAL(10, 2)),
                   DataTypes.FIELD('ts', DataTypes.TIMESTAMP(3)), DataTypes.FIELD('b', DataTypes.BOOLEAN()),
                   DataTypes.FIELD('arr', DataTypes.ARRAY(DataTypes.STRING())),
                   DataTypes.FIELD('m', DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))]))
t_env.create_temporary_view('e', edge)
CALLS = [
    # comparison, logic, arithmetic (overflow wraps as Java's)
    ["i = big", "s <> ''", "d > i", "p <= 1", "s SIMILAR TO '(a|H)%'", "b IS NOT TRUE", "b OR i > 0",
     "NOT b"],
    ["i + 1", "i - 1", "big + 1", "big * 3", "i * 2", "p / 3", "i / 2", "big % -7", "- i", "- p"],
    ["SIN(d)", "COS(d)", "TAN(d)", "COT(d)", "SINH(d)", "COSH(d)", "TANH(d)", "ASIN(d)", "ACOS(d)", "ATAN(d)",
     "ATAN2(d, i)"],
    ["CEIL(p)", "FLOOR(p)", "ROUND(p, 1)", "ROUND(d, 0)", "TRUNCATE(p, 1)", "SIGN(d)", "ABS(i)", "BIN(big)",
     "HEX(big)", "UNHEX(s)"],
    # strings
    ["CHARACTER_LENGTH(s)", "REGEXP_COUNT(s, '[a-z]')", "REGEXP_EXTRACT_ALL(s, '([a-z])')",
     "REGEXP_INSTR(s, 'b')", "REGEXP_SUBSTR(s, '[0-9]+')", "TRANSLATE(s, 'al', 'A')"],
    ["ASCII(s)", "CHR(i)", "ENCODE(s, 'UTF-8')", "DECODE(ENCODE(s, 'UTF-16LE'), 'UTF-16LE')", "URL_ENCODE(s)",
     "URL_DECODE(s)", "ELT(i, s, 'b')"],
    ["CARDINALITY(STR_TO_MAP(s))", "STR_TO_MAP(s)['a']", "JSON_QUOTE(s)", "JSON_UNQUOTE(s)", "PRINTF('%s-%d', s, i)", "s || '!'",
     "LOCATE('a', s, 2)", "SPLIT_INDEX(s, ',', 1)"],
    ["SHA1(s)", "SHA224(s)", "SHA256(s)"],
    ["SHA384(s)", "SHA512(s)"],
    ["SHA2(s, 224)", "INET_ATON(s)", "INET_NTOA(big)", "NULLIF(i, 7)"],
    ["IS_ALPHA(s)", "IS_DIGIT(s)", "IS_DIGIT(SUBSTRING(s, 3, 2))", "GREATEST(i, 2)", "LEAST(s, 'b')"],
    # time
    ["WEEK(ts)", "DAYOFYEAR(ts)", "DAYOFMONTH(ts)", "DAYOFWEEK(ts)", "TIMESTAMPADD(MONTH, -1, ts)",
     "TIMESTAMPADD(DAY, i % 100, ts)", "ts + INTERVAL '2' YEAR", "ts - INTERVAL '25' HOUR"],
    ["FLOOR(ts TO DAY)", "CEIL(ts TO HOUR)", "EXTRACT(DOY FROM ts)",
     "TIMESTAMPDIFF(DAY, ts, TIMESTAMP '2024-03-01 00:00:00')",
     "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss.SSS EEE')"],
    # collections
    ["ARRAY_APPEND(arr, s)", "ARRAY_PREPEND(arr, 'z')", "ARRAY_SLICE(arr, 2)", "ARRAY_SORT(arr)",
     "ARRAY_UNION(arr, ARRAY['a', 'z'])", "ARRAY_CONCAT(arr, arr)"],
    ["ARRAY_EXCEPT(arr, ARRAY['a'])", "ARRAY_INTERSECT(arr, ARRAY['b', 'x'])", 
     "MAP_ENTRIES(m)", "MAP_FROM_ARRAYS(ARRAY['a', 'b'], ARRAY[i, 2])", "ARRAY_JOIN(arr, '|', 'NULL')"],
]
for calls in CALLS:
    table = t_env.sql_query(f"SELECT id, {', '.join(calls)} FROM e")
    table.print_schema()
    table.execute().print()
