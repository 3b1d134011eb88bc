"""The planner's expressions without Spark: every built-in function defined once with a Python
implementation, resolved types (DECIMAL arithmetic as Flink derives it), Java regular expressions
translated for Python, patterns prepared once per compiled expression, and the Python values of
string functions' edge cases as PyFlink 2.3 computes them (recorded from /tmp/pf)."""
from __future__ import annotations

import decimal
import re

import pytest

from kindling.runtime.table import dates
from kindling.runtime.table import functions as python_functions
from kindling.runtime.table.evaluate import compile_expression
from kindling.runtime.table.java_regex import UntranslatableRegex, capturing_groups, java_pattern
from kindling.table.expressions import col, concat, lit
from kindling.table.planner.expressions import Call, InputRef, Literal, python_only, resolve
from kindling.table.planner.functions import BUILTINS
from kindling.table.types import DataTypes

NAMES = ["s", "i", "big", "d", "f", "p", "q"]
TYPES = [DataTypes.STRING(), DataTypes.INT(), DataTypes.BIGINT(), DataTypes.DOUBLE(), DataTypes.FLOAT(),
         DataTypes.DECIMAL(10, 2), DataTypes.DECIMAL(38, 10).not_null()]


def _resolved(expression):
    return resolve(expression, NAMES, TYPES)


def _value(expression, **row):
    """The Python path's value of ``expression`` on a row of the given columns (others null)."""
    return compile_expression(_resolved(expression))([row.get(n) for n in NAMES])


def test_every_definition_has_a_python_implementation():
    assert sorted(set(BUILTINS) - set(python_functions.PYTHON)) == []
    assert sorted(set(python_functions.PYTHON) - set(BUILTINS)) == []


def test_every_definition_spark_may_compute_has_a_spark_implementation():
    from kindling.spark.table.functions import SPARK

    computable = {n for n, d in BUILTINS.items() if d.spark is not False}
    assert sorted(computable - set(SPARK)) == []
    assert sorted(set(SPARK) - computable) == []


def test_resolved_nodes_are_typed_data():
    resolved = _resolved(col("p") * 2)
    two = Literal(2, DataTypes.INT().not_null())
    assert resolved == Call("times", (InputRef(5, "p", DataTypes.DECIMAL(10, 2)), two), DataTypes.DECIMAL(21, 2))
    assert _resolved(col("s").upper_case.alias("u")).type == DataTypes.STRING()  # an alias names, it is no node


@pytest.mark.parametrize("expression, data_type", [
    (col("i") + col("big"), DataTypes.BIGINT()),
    (col("i") + col("d"), DataTypes.DOUBLE()),
    (col("f") * col("i"), DataTypes.FLOAT()),
    (col("big") % col("i"), DataTypes.INT()),  # MOD: the divisor's type, as Calcite types it
    (lit(1) + lit(2), DataTypes.INT().not_null()),
    (col("p") + col("p"), DataTypes.DECIMAL(11, 2)),
    (col("p") - col("i"), DataTypes.DECIMAL(13, 2)),
    (col("p") * col("p"), DataTypes.DECIMAL(21, 4)),
    (col("p") / col("p"), DataTypes.DECIMAL(23, 13)),
    (col("p") % col("i"), DataTypes.DECIMAL(10, 2)),
    (col("q") * col("q"), DataTypes.DECIMAL(38, 6).not_null()),  # cut to 38 digits, keeping 6 after the point
    (col("q") / col("p"), DataTypes.DECIMAL(38, 8)),
    (col("q") + col("q"), DataTypes.DECIMAL(38, 9).not_null()),
    (col("p") * col("d"), DataTypes.DOUBLE()),  # a DOUBLE operand makes a DOUBLE
    (col("p")._arithmetic(0, "-", reverse=True, negation=True), DataTypes.DECIMAL(10, 2)),  # SQL's -p: 0 - p
])
def test_arithmetic_types_as_flink_derives_them(expression, data_type):
    assert _resolved(expression).type == data_type


def test_decimal_results_are_rounded_to_their_type_scale():
    third = col("p") / 3
    assert _resolved(third).type == DataTypes.DECIMAL(21, 13)
    assert _value(third, p=decimal.Decimal("1.00")) == decimal.Decimal("0.3333333333333")
    assert _value(col("p") * col("p"), p=decimal.Decimal("1.25")) == decimal.Decimal("1.5625")
    assert _value(col("p") + 1, p=decimal.Decimal("-1.25")) == decimal.Decimal("-0.25")
    with pytest.raises(ZeroDivisionError):
        _value(col("p") / 0, p=decimal.Decimal("1.00"))


def test_resolving_names_the_expression_and_the_problem():
    with pytest.raises(ValueError, match=r"Column 'x' not found in the table; columns: \['s', 'i'"):
        _resolved(col("x") + 1)
    with pytest.raises(ValueError, match=r"'s \+ 1': \+ needs numeric operands, got STRING and INT"):
        _resolved(col("s") + 1)
    with pytest.raises(ValueError, match="SUM needs a numeric argument"):
        _resolved(col("s").sum)


def test_what_spark_computes_follows_the_definitions():
    assert python_only(_resolved(col("s").upper_case)) is None
    assert python_only(_resolved(col("s").init_cap)) == "initCap, which Spark computes otherwise than Flink"
    assert python_only(_resolved(col("s").split_index(col("s"), 1))) is not None  # a separator of a column
    assert python_only(_resolved(concat(col("s"), col("s").json_quote()))) is not None


def test_a_literal_like_pattern_is_compiled_once(monkeypatch):
    compiled = []
    real = re.compile
    monkeypatch.setattr(python_functions.re, "compile", lambda *a: compiled.append(a) or real(*a))
    evaluate = compile_expression(_resolved(col("s").like("a%")))
    assert [evaluate([f"a{n}"] + [None] * 6) for n in range(1000)] == [True] * 1000
    assert len(compiled) == 1


def test_patterns_of_columns_are_compiled_once_per_distinct_pattern(monkeypatch):
    compiled = []
    real = re.compile
    monkeypatch.setattr(python_functions.re, "compile", lambda *a: compiled.append(a) or real(*a))
    evaluate = compile_expression(resolve(col("s").like(col("t")), ["s", "t"], [DataTypes.STRING()] * 2))
    assert [evaluate(["ab", "a%" if n % 2 else "b%"]) for n in range(100)] == [n % 2 == 1 for n in range(100)]
    assert len(compiled) == 2


def test_the_facade_evaluates_a_literal_pattern_compiled_once(monkeypatch):
    compiled = []
    real = re.compile
    monkeypatch.setattr(python_functions.re, "compile", lambda *a: compiled.append(a) or real(*a))
    like = col("s").like("%b")
    like._data_type({"s": DataTypes.STRING()})
    assert sum(like.evaluate({"s": "ab" * n}) for n in range(1, 500)) == 499
    assert len(compiled) == 1


def test_a_literal_date_format_is_read_once():
    dates.java_formatter.cache_clear()
    evaluate = compile_expression(resolve(col("t").cast(DataTypes.TIMESTAMP(3)), ["t"], [DataTypes.STRING()]))
    written = compile_expression(resolve(lit("2024-03-15 10:20:30").to_timestamp, [], []))
    from kindling.table.expressions import date_format

    formatted = compile_expression(resolve(date_format(col("t"), "yyyy/MM/dd"), ["t"], [DataTypes.TIMESTAMP(3)]))
    moment = evaluate(["2024-03-15 10:20:30"])
    assert written([]) == moment
    assert {formatted([moment]) for _ in range(200)} == {"2024/03/15"}
    assert dates.java_formatter.cache_info().misses == 1


# -- Java regular expressions -------------------------------------------------------------------

@pytest.mark.parametrize("java, text, matches", [
    (r"\Q.*\E", "a.*b", [".*"]),                     # quoted text
    (r"\p{Alpha}+", "ab12", ["ab"]),                 # POSIX classes are ASCII
    (r"\p{Digit}+", "ab12", ["12"]),
    (r"\p{Lu}", "aÉb", ["É"]),                       # Unicode general categories
    (r"\p{javaUpperCase}", "aÉb", ["É"]),            # java.lang.Character classes
    (r"a*+a", "aaa", []),                            # possessive quantifiers keep what they took
    (r"[\w&&[^b]]", "abc", ["a", "c"]),              # class intersection
    (r"[a-c[x-z]]", "bxq", ["b", "x"]),              # class union
    (r"(?<first>a)\k<first>", "aab", ["aa"]),        # named groups
    (r"a(?i)b", "aB AB", ["aB"]),                    # flags from the middle of a pattern
    (r".", "a\rb", ["a", "b"]),                      # '.' stops at every Java line terminator
    (r"\w+", "héllo", ["h", "llo"]),                 # \w is ASCII unless (?U)
    (r"(?U)\w+", "héllo", ["héllo"]),
    (r"(?i)é", "É", []),                             # case folding is ASCII unless (?u)
    (r"(?iu)é", "É", ["É"]),
    (r"a$", "a\r\n", ["a"]),                         # '$' before a final \r\n
    (r"\x41\u0042", "AB", ["AB"]),
])
def test_java_regex_matches_what_java_matches(java, text, matches):
    assert [m.group(0) for m in java_pattern(java).finditer(text)] == matches


@pytest.mark.parametrize("java, construct", [(r"\p{IsAlphabetic}", "IsAlphabetic"), (r"\p{InGreek}", "InGreek"),
                                             (r"\Ga", r"\\G"), (r"[^a&&b]", "negated class intersection")])
def test_java_regex_constructs_without_python_equivalent_are_refused_by_name(java, construct):
    with pytest.raises(UntranslatableRegex, match=construct):
        java_pattern(java)


def test_capturing_groups_are_counted_in_java_syntax():
    assert [capturing_groups(p) for p in ("[a-z]", r"(a)(?:b)(?<n>c)(?=d)", r"\(x\)[(]", r"\Q(\E(a)")] == [0, 2, 0, 1]


# -- string functions' edge cases, as PyFlink 2.3 computes them --------------------------------------

@pytest.mark.parametrize("expression, expected", [
    (lit("abcabc").regexp_replace("(b)", "[$1]"), "a[$1]ca[$1]c"),  # Flink inserts the replacement as it is
    (lit("abcabc").regexp_replace("(b)", "\\$1"), "a\\$1ca\\$1c"),
    (lit("ab12").regexp_replace("\\p{Alpha}", "_"), "__12"),
    (lit("a.b.c").regexp_replace("\\Q.\\E", "-"), "a-b-c"),
    (lit("ab").regexp_replace("[", "x"), None),  # a regex that is not valid: null, as Flink returns
    (lit("ab").regexp("["), False),
    (lit("a1b22").regexp_extract_all("\\d+"), None),  # the default group is 1
    (lit("a1b22").regexp_extract_all("(\\d+)"), ["1", "22"]),
    (lit("abc").regexp_extract("b", 2), None),
    (lit("aaa").regexp_count("a*"), 2),
    (lit("hello").substring(2, -1), None),
    (lit("hello").substring(-10, 3), ""),
    (lit("hi").lpad(5, ""), None),
    (lit("hi").lpad(2, ""), None),
    (lit("hi").rpad(5, "xy"), "hixyx"),
    (lit("b").locate("abc", 0), 2),
    (lit("").locate("abc", 2), 1),
    (lit("c").locate("abc", 4), 0),
    (lit("abcdef").overlay("XY", 2, 0), "aXY"),
    (lit("abc").overlay("XY", 4), "abc"),
    (lit("abc").overlay("XY", 3), "abXY"),
    (lit("élan ÉLAN").init_cap, "éLan ÉLan"),
    (lit("hello wORLD-foo_bar 1ab").init_cap, "Hello World-Foo_Bar 1ab"),
    (lit("é").ascii, -61),
    (lit("").ascii, 0),
    (lit("4").unhex, b"\x00"),
    (lit("123").unhex, b"\x00#"),
    (lit("zz").unhex, None),
    (lit("a b").split_index("", 1), "b"),
    (lit("").split_index(",", 0), None),
    (lit("%zz").url_decode(), None),
    (lit("a b&c=d/é~*").url_encode(), "a+b%26c%3Dd%2F%C3%A9%7E*"),
    (lit(321).chr, "A"),
    (lit("%5.2f").printf(3.14159), " 3.14"),
    (lit("%b").printf(True), "true"),
    (lit("a=1,b=2,a=3").str_to_map(), {"a": "3", "b": "2"}),
    (lit("a:1;b").str_to_map(";", ":"), {"a": "1", "b": None}),
])
def test_string_functions_give_pyflinks_values(expression, expected):
    assert compile_expression(resolve(expression, [], []))([]) == expected


def test_log_of_a_value_to_a_base_as_pyflink():
    from kindling.table.expressions import log

    assert _value(log(lit(8.0), lit(2.0))) == 3.0
    assert _value(lit(8.0).log(2.0)) == 3.0


def test_the_facade_keeps_todays_callers_working():
    from kindling.table.expressions import unaliased

    total = col("i").sum
    field = (total + 1).alias("t")
    assert field._name == "t" and str(field) == "(sum(i) + 1) AS t" and unaliased(field)._text == "(sum(i) + 1)"
    assert field.aggregates() == [total] and field.columns() == [] and not field.needs_python()
    assert field._data_type({"i": DataTypes.INT()}) == DataTypes.INT()
    assert field.evaluate({id(total): 41}) == 42  # today's env: aggregates' results by their id
    assert (col("a") == col("b"))._equals and ((col("a") > 1) & (col("b") > 1))._and
    assert lit(5).seconds._interval_ms == 5000 and col("w").start._window_which == "start"
    assert col("v").sum.over(col("w"))._over_window == "w"
    assert col("s").cast(DataTypes.INT())._name == "s-INT"


@pytest.mark.parametrize("expression, expected", [
    (lit(2147483647) + 1, -2147483648),  # Java's integers wrap around, as Flink's arithmetic does
    (lit(2147483647) * 2, -2),
    (lit(-2147483648).abs, -2147483648),
    (-lit(-2147483648), -2147483648),
    (lit(9223372036854775807) + lit(1, DataTypes.BIGINT()), -9223372036854775808),
    (lit(2147483647).round(-1), -2147483646),
    (lit(-7) % 3, -1),
    (lit(-7) / 2, -3),
    (lit(3000000000).cast(DataTypes.INT()), -1294967296),
    (lit(1e20).cast(DataTypes.INT()), 2147483647),  # a floating number saturates
    (lit(float("nan")).cast(DataTypes.INT()), 0),
    (lit(" 1.5 ").cast(DataTypes.INT()), 1),
    (lit("3000000000").try_cast(DataTypes.INT()), None),
    (lit(123.456).cast(DataTypes.DECIMAL(4, 2)), None),  # beyond the DECIMAL's digits
    (lit(12.35).cast(DataTypes.DECIMAL(3, 1)), decimal.Decimal("12.4")),
    (lit("%5s|%-5d|%05.1f").printf("a", 3, 2.25), "    a|3    |002.3"),  # Java's Formatter, half up
    (lit("%s-%d").printf(lit("x").try_cast(DataTypes.INT()), lit("x").try_cast(DataTypes.INT())), "null-null"),
    (lit("%x %o %c").printf(255, 8, 65), "ff 10 A"),
])
def test_numbers_and_casts_as_pyflink_computes_them(expression, expected):
    assert compile_expression(resolve(expression, [], []))([]) == expected


def test_a_string_overflowing_an_integer_fails_its_cast():
    with pytest.raises(ValueError, match="overflows INT"):
        compile_expression(resolve(lit("3000000000").cast(DataTypes.INT()), [], []))([])


@pytest.mark.parametrize("start, end, unit, expected", [
    ("2024-01-31 00:00:00", "2024-02-29 00:00:00", "MONTH", 1),  # as PyFlink: to the shorter month's last day
    ("2024-01-31 10:00:00", "2024-02-29 09:00:00", "MONTH", 0),
    ("2024-02-29 00:00:00", "2024-01-31 00:00:00", "MONTH", -1),
    ("2023-03-01 00:00:00", "2024-02-29 00:00:00", "YEAR", 0),
    ("2024-03-01 00:00:00", "2024-02-28 12:00:00", "DAY", -1),
])
def test_timestamp_diff_as_pyflink_counts(start, end, unit, expected):
    from kindling.table.expression import TimePointUnit
    from kindling.table.expressions import timestamp_diff

    diff = timestamp_diff(TimePointUnit[unit], lit(start).to_timestamp, lit(end).to_timestamp)
    assert compile_expression(resolve(diff, [], []))([]) == expected
