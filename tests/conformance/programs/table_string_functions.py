"""Built-in string, conditional and comparison functions of the Table API (expressions and Expression
methods) and the same in SQL, with their column types (print_schema)."""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col, concat, concat_ws, if_then_else, lit, coalesce

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
words = t_env.from_elements(
    [(1, 'Hello World', 'x'), (2, '  flink sql ', None), (3, 'a-b_c', 'abc')],
    DataTypes.ROW([DataTypes.FIELD('id', DataTypes.BIGINT()), DataTypes.FIELD('s', DataTypes.STRING()),
                   DataTypes.FIELD('n', DataTypes.STRING())]))
s, n = col('s'), col('n')
strings = words.select(
    col('id'), s.upper_case, s.lower_case, s.char_length, s.trim(), s.trim_leading(), s.trim_trailing(),
    s.trim('a'), s.substring(2, 3), s.substr(3), s.replace('l', 'L'), s.repeat(2), s.lpad(13, '*'),
    s.rpad(4, '*'), s.reverse, s.init_cap, lit('o').position(s), s.locate('o'), s.locate('l', 4),
    s.instr('l'), s.left(3), s.right(3), concat(s, '!', n), concat_ws('-', s, n, 'z'), s.starts_with('He'),
    s.ends_with('c'), s.split_index(' ', 1), s.regexp_replace('[aeiou]', '#'), s.regexp_extract('([a-z]+)', 1),
    s.to_base64, s.md5, s.overlay('XX', 2, 3), s.ltrim(), s.rtrim(), s.btrim())
strings.print_schema()
strings.execute().print()
conditions = words.select(
    col('id'), s.like('%o%'), s.like('_-%'), s.regexp('l+'), n.is_null, n.is_not_null, n.if_null('none'),
    coalesce(n, s), col('id').between(1, 2), col('id').not_between(1, 2), col('id').in_(1, 3),
    n.in_('x', 'y'), if_then_else(col('id') > 1, s, n), (col('id') > 1).then(s, n),
    (col('id') == 2).is_true, (n == 'x').is_not_true, (n == 'x').is_false, (n == 'x').is_not_false)
conditions.print_schema()
conditions.execute().print()
t_env.create_temporary_view('words', words)
t_env.execute_sql(
    "SELECT id, UPPER(s), LOWER(s), CHAR_LENGTH(s), TRIM(s), SUBSTRING(s, 2, 3), SUBSTRING(s FROM 3), "
    "REPLACE(s, 'l', 'L'), CONCAT(s, '!', n), CONCAT_WS('-', s, n), LPAD(s, 13, '*'), INITCAP(s), "
    "POSITION('o' IN s), s LIKE '%o%', n IS NULL, COALESCE(n, s), IFNULL(n, 'none'), id BETWEEN 1 AND 2, "
    "id IN (1, 3), CASE WHEN id > 1 THEN 'big' ELSE 'small' END, IF(id > 1, s, n), REGEXP_REPLACE(s, '[aeiou]', '#'), "
    "SPLIT_INDEX(s, ' ', 1), LEFT(s, 3), RIGHT(s, 3), REVERSE(s), s || n FROM words").print()
