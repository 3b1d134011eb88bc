"""Built-in arithmetic and math functions of the Table API and SQL, and casts between numbers, strings and
booleans, with their column types. (Trigonometric functions are left out: Java's Math may differ in the
last digit between its interpreter and its compiled code.)"""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col, e, lit, log, negative, pi

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
numbers = t_env.from_elements(
    [(1, -2.5, 7), (2, 3.75, -3), (3, 0.0, 0)],
    DataTypes.ROW([DataTypes.FIELD('id', DataTypes.BIGINT()), DataTypes.FIELD('d', DataTypes.DOUBLE()),
                   DataTypes.FIELD('i', DataTypes.INT())]))
d, i = col('d'), col('i')
math = numbers.select(
    col('id'), d.abs, i.abs, d.floor(), d.ceil(), i.floor(), d.round(1), d.round(0), i.round(-1), d.truncate(0),
    d.sign, i.sign, (d * d).sqrt, d.exp, (d.abs + 1).ln, (d.abs + 1).log10, (d.abs + 1).log2,
    (d.abs + 1).log(3), log(lit(8.0)), i ** 2, d.degrees,
    d.radians, pi(), e(), -d, negative(i), i.bin, i.hex, i % 4, i / 2, d / 2, i.cast(DataTypes.STRING()),
    d.cast(DataTypes.INT()), d.cast(DataTypes.STRING()), i.cast(DataTypes.DOUBLE()), (i > 0).cast(DataTypes.STRING()),
    lit('12').cast(DataTypes.INT()), lit('x').try_cast(DataTypes.INT()), d.cast(DataTypes.DECIMAL(5, 1)))
math.print_schema()
math.execute().print()
t_env.create_temporary_view('numbers', numbers)
t_env.execute_sql(
    "SELECT id, ABS(d), FLOOR(d), CEIL(d), ROUND(d, 1), TRUNCATE(d, 0), SIGN(i), SQRT(d * d), POWER(i, 2), "
    "MOD(i, 4), LN(ABS(d) + 1), LOG10(ABS(d) + 1), EXP(d), PI(), CAST(i AS STRING), CAST(d AS INT), "
    "TRY_CAST('x' AS INT), CAST('12' AS INT), BIN(i), HEX(i), DEGREES(d) FROM numbers").print()
