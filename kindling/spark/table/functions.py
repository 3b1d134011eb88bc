"""Spark implementations of Flink's built-in functions, by the names of their definitions
(kindling/table/planner/functions.py): ``SPARK[name](call, *operand_columns)`` is the Spark Column of
a resolved call. Where Spark's own function answers otherwise than Flink on some values, the column
says what Flink says (LPAD with an empty pad is null, LOCATE from a position below 1 searches from
the start, ...); a function Spark cannot compute as Flink does has no entry here and a definition
that keeps it in Python (``spark`` False or a rule of its literal operands).
"""
from __future__ import annotations

import decimal
import math
import operator
from typing import Any, Callable, Dict

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql.types import DecimalType

from kindling.common.time import DEFAULT_TIMESTAMP_FORMAT
from kindling.runtime.table.casts import INTEGRAL_BITS
from kindling.runtime.table.dates import UNPARSABLE
from kindling.runtime.table.functions import like_regex
from kindling.runtime.table.java_regex import capturing_groups
from kindling.spark.type_mapping import spark_type_of

__all__ = ["SPARK", "aggregate_column"]

#: the Spark Column of each built-in function's call, of the call and its operands' columns
SPARK: Dict[str, Callable[..., Column]] = {}
_INTEGRAL_PRECISION = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}  # as DECIMALs, in Flink
_LONGEST = 2147483647


def _plain(name: str, make: Callable[..., Column]) -> None:
    """A function whose column needs nothing of its call."""
    SPARK[name] = lambda call, *columns: make(*columns)


def _literal(call: Any, position: int) -> Any:
    """The value of the call's literal operand at ``position`` (its definition keeps calls whose operand
    is no literal in Python)."""
    return call.operands[position].value


# -- logic and comparison -----------------------------------------------------------------------

for _name, _operate in (("equals", operator.eq), ("notEquals", operator.ne), ("lessThan", operator.lt),
                        ("lessThanOrEqual", operator.le), ("greaterThan", operator.gt),
                        ("greaterThanOrEqual", operator.ge), ("and", operator.and_), ("or", operator.or_)):
    _plain(_name, _operate)
_plain("not", operator.invert)
_plain("isNull", lambda c: c.isNull())
_plain("isNotNull", lambda c: c.isNotNull())
_plain("isTrue", lambda c: F.coalesce(c, F.lit(False)))
_plain("isFalse", lambda c: F.coalesce(~c, F.lit(False)))
_plain("isNotTrue", lambda c: ~F.coalesce(c, F.lit(False)))
_plain("isNotFalse", lambda c: ~F.coalesce(~c, F.lit(False)))
_plain("in", lambda c, *elements: c.isin(*elements))
SPARK["like"] = lambda call, c, p: F.like(c, p, F.lit(call.parameters[0] if call.parameters else "\\"))
SPARK["similar"] = lambda call, c, p: c.rlike("^" + like_regex(_literal(call, 1), None, True)[4:-2] + "$")
_plain("if", lambda condition, a, b: F.when(condition, a).otherwise(b))
_plain("coalesce", F.coalesce)
_plain("null", lambda c: F.lit(None))
_plain("nullOf", lambda: F.lit(None))


# -- numbers ------------------------------------------------------------------------------------

#: integers exactly, beyond 64 bits: where Java's wrapping around of integers is computed
_WIDE = DecimalType(38, 0)
_TRY = {"plus": F.try_add, "minus": F.try_subtract, "times": F.try_multiply}


def _decimal(data_type: Any) -> DecimalType:
    if data_type.type_name == "DECIMAL":
        return DecimalType(data_type.precision, data_type.scale)
    return DecimalType(_INTEGRAL_PRECISION[data_type.type_name], 0)


def _wrapped(exact: Column, data_type: Any) -> Column:
    """An exact integer (a DECIMAL column) wrapped around into an integral type, as Java's integers
    wrap (Spark fails on overflow)."""
    bits = INTEGRAL_BITS[data_type.type_name]
    low = decimal.Decimal(-(1 << (bits - 1)))
    wrapped = F.pmod(exact - F.lit(low), F.lit(decimal.Decimal(1 << bits))) + F.lit(low)
    return wrapped.cast(spark_type_of(data_type.type_info()))


def _truncated(c: Column) -> Column:
    """A number cut toward zero, as an exact integer."""
    return F.when(c >= 0, F.floor(c)).otherwise(F.ceil(c)).cast(_WIDE)


def _java_divide(a: Column, b: Column) -> Column:
    """Java's floating division: by zero an infinity, or NaN (Spark fails)."""
    return F.when(a.isNull() | b.isNull(), F.lit(None)).when(b != 0, a / b).when(
        a > 0, F.lit(math.inf)).when(a < 0, F.lit(-math.inf)).otherwise(F.lit(math.nan))


def _arithmetic(name: str, compute: Callable[[Column, Column], Column]) -> Callable[..., Column]:
    def column(call, a, b):
        result = call.type
        if result.type_name == "DECIMAL":  # Spark computes in the operands' own precision and scale, as Flink
            left, right = call.operands
            return compute(a.cast(_decimal(left.type)), b.cast(_decimal(right.type)))
        if result.type_name in INTEGRAL_BITS and name != "mod":  # wrapping around on overflow, as Java
            if name == "divide":  # Java's integer division, exactly
                return _wrapped(_truncated(a.cast(_WIDE) / b.cast(_WIDE)), result)
            spark_type = spark_type_of(result.type_info())
            exact = _wrapped(compute(a.cast(_WIDE), b.cast(_WIDE)), result)
            return F.coalesce(_TRY[name](a, b).cast(spark_type), exact)
        return _java_divide(a, b) if name == "divide" else compute(a, b)
    return column


for _name, _operate in (("plus", operator.add), ("minus", operator.sub), ("times", operator.mul),
                        ("divide", operator.truediv), ("mod", operator.mod)):
    SPARK[_name] = _arithmetic(_name, _operate)


def _integral_edge(compute: Callable[[Column], Column]) -> Callable[..., Column]:
    """A function of an integral type whose value of the type's smallest number overflows in Spark: that
    number kept, as Java's wrapping around gives it (negation, ABS)."""
    def column(call, c):
        if call.type.type_name not in INTEGRAL_BITS:
            return compute(c)
        smallest = -(1 << (INTEGRAL_BITS[call.type.type_name] - 1))
        return F.when(c == F.lit(smallest), c).otherwise(compute(c))
    return column


def _round(call, c, places) -> Column:
    if call.type.type_name in INTEGRAL_BITS:  # wrapping around, as Java's integers
        return _wrapped(F.round(c.cast(_WIDE), _literal(call, 1)), call.type)
    return F.round(c, _literal(call, 1))


def _whole(spark_function: Callable[[Column], Column]) -> Callable[..., Column]:
    """FLOOR or CEIL: of a floating number a floating number (Spark's is a BIGINT, failing beyond it)."""
    def column(call, c):
        if call.operands[0].type.type_name in ("FLOAT", "DOUBLE"):
            return F.when(F.abs(c) < 2 ** 52, spark_function(c)).otherwise(c)
        return spark_function(c)
    return column


def _floor(call, c) -> Column:
    if call.parameters:  # of a date or timestamp, to a time unit
        return F.date_trunc(call.parameters[0].lower(), c)
    return _whole(F.floor)(call, c)


def _ln(column: Column, base: float = math.e) -> Column:
    """Java's logarithm (Spark's is null where Java's is NaN or -Infinity)."""
    value = F.ln(column) if base == math.e else F.log10(column) if base == 10 else F.ln(column) / math.log(base)
    return F.when(column > 0, value).when(column == 0, F.lit(-math.inf)).when(column < 0, F.lit(math.nan))


def _unhex(c: Column) -> Column:
    """Flink's UNHEX: of an odd length the first byte is 0 (its first character a hex digit)."""
    odd = F.length(c) % 2 == 1
    rest = F.try_to_binary(F.substring(c, 2, _LONGEST), F.lit("hex"))
    first_valid = F.substring(c, 1, 1).rlike("^[0-9a-fA-F]$")
    return F.when(~odd, F.try_to_binary(c, F.lit("hex"))).when(first_valid, F.concat(F.unhex(F.lit("00")), rest))


SPARK["minusPrefix"] = _integral_edge(operator.neg)
SPARK["abs"] = _integral_edge(F.abs)
_plain("power", F.pow)
for _name in ("sqrt", "exp", "sin", "cos", "tan", "cot", "asin", "acos", "atan", "sinh", "cosh", "tanh", "degrees",
              "radians"):
    _plain(_name, getattr(F, _name))
_plain("ln", _ln)
_plain("log10", lambda c: _ln(c, 10))
_plain("log2", lambda c: _ln(c, 2))
_plain("log", lambda base, c: _ln(c) / _ln(base))
_plain("atan2", F.atan2)
_plain("sign", F.signum)
SPARK["floor"] = _floor
SPARK["ceil"] = _whole(F.ceil)
SPARK["round"] = _round
_plain("bin", F.bin)
_plain("hex", F.hex)
_plain("unhex", _unhex)
SPARK["rand"] = lambda call, *seed: F.rand(_literal(call, 0) if seed else None)
SPARK["randInteger"] = lambda call, bound, *seed: F.floor(F.rand(_literal(call, 1) if seed else None) * bound)
_plain("uuid", F.uuid)


# -- strings ------------------------------------------------------------------------------------

def _ascii(c: Column) -> Column:
    """Flink's ASCII: the first UTF-8 byte, signed (Spark's is the first code point)."""
    byte = F.conv(F.hex(F.substring(F.encode(c, "UTF-8"), 1, 1)), 16, 10).cast("int")
    return F.when(c == "", F.lit(0)).when(byte >= 128, byte - 256).otherwise(byte)


def _substring(c: Column, begin: Column, *length: Column) -> Column:
    if not length:
        return c.substr(begin, F.lit(_LONGEST))
    return F.when(length[0] >= 0, c.substr(begin, length[0]))


def _quoted_replacement(replacement: Column) -> Column:
    """A replacement inserted as it is by Java's replaceAll (its ``\\`` and ``$`` escaped)."""
    return F.regexp_replace(replacement, r"([\\$])", r"\\$1")


def _replace(c: Column, search: Column, replacement: Column) -> Column:
    """Flink's REPLACE: an empty search inserts the replacement between all characters (Spark's leaves
    the string as it is)."""
    return F.when(search == "", F.regexp_replace(c, F.lit(""), _quoted_replacement(replacement))).otherwise(
        F.replace(c, search, replacement))


def _pad(spark_pad: Callable) -> Callable[..., Column]:
    return lambda c, n, fill: F.when((n >= 0) & (fill != ""), spark_pad(c, n, fill))


def _overlay(c: Column, new: Column, start: Column, *length: Column) -> Column:
    """Flink's OVERLAY: a start outside the string leaves it; a length of 0 or past the end drops the rest."""
    n = length[0] if length else F.length(new)
    rest = F.when((start + n <= F.length(c)) & (n > 0), c.substr(start + n, F.lit(_LONGEST))).otherwise(F.lit(""))
    return F.when((start <= 0) | (start > F.length(c)), c).otherwise(
        F.concat(c.substr(F.lit(1), start - 1), new, rest))


def _locate(needle: Column, haystack: Column, *start: Column) -> Column:
    """Flink's LOCATE: from a position below 1 it searches from the start; an empty needle is at 1."""
    position = F.greatest(start[0], F.lit(1)) if start else F.lit(1)
    return F.when(needle == "", F.lit(1)).otherwise(F.position(needle, haystack, position))


def _split_index(call, c, separator, index) -> Column:
    at = _literal(call, 2)
    if at < 0:
        return F.lit(None).cast("string")
    return F.when(c != "", F.try_element_at(F.split(c, _java_quote(_literal(call, 1)), -1), F.lit(at + 1)))


def _split(call, c, delimiter) -> Column:
    separator = _literal(call, 1)
    parts = F.split(c, _java_quote(separator), -1) if separator else F.split(c, "(?!$)", -1)
    return F.when(c == "", F.array().cast("array<string>")).otherwise(parts)


def _java_quote(text: str) -> str:
    return "\\Q" + text.replace("\\E", "\\E\\\\E\\Q") + "\\E"


def _regexp_extract(call, c, regex, *index) -> Column:
    pattern, group = _literal(call, 1), _literal(call, 2) if index else 0
    if not 0 <= group <= capturing_groups(pattern):  # Flink: null; Spark fails
        return F.lit(None).cast("string")
    return F.when(c.rlike(pattern), F.regexp_extract(c, pattern, group))


def _regexp_extract_all(call, c, regex, *index) -> Column:
    pattern, group = _literal(call, 1), _literal(call, 2) if index else 1
    if not 0 <= group <= capturing_groups(pattern):  # Flink: null; Spark fails
        return F.lit(None).cast("array<string>")
    return F.regexp_extract_all(c, regex, F.lit(group))


_plain("upper", F.upper)
_plain("lower", F.lower)
_plain("charLength", F.char_length)
_plain("reverse", F.reverse)
_plain("toBase64", F.base64)
_plain("fromBase64", lambda c: F.unbase64(c).cast("string"))
_plain("md5", F.md5)
_plain("sha1", F.sha1)
for _name, _bits in (("sha224", 224), ("sha256", 256), ("sha384", 384), ("sha512", 512)):
    _plain(_name, lambda c, bits=_bits: F.sha2(c, bits))
SPARK["sha2"] = lambda call, c, bits: F.sha2(c, _literal(call, 1))
_plain("ascii", _ascii)
_plain("chr", F.chr)
for _name, _trim in (("trim", F.trim), ("trimLeading", F.ltrim), ("trimTrailing", F.rtrim), ("btrim", F.trim),
                     ("ltrim", F.ltrim), ("rtrim", F.rtrim)):
    _plain(_name, _trim)
_plain("substring", _substring)
_plain("replace", _replace)
_plain("repeat", F.repeat)
_plain("lpad", _pad(F.lpad))
_plain("rpad", _pad(F.rpad))
_plain("overlay", _overlay)
_plain("position", lambda needle, haystack: F.position(needle, haystack))
_plain("locate", _locate)
_plain("instr", lambda haystack, needle: F.position(needle, haystack))
_plain("left", F.left)
_plain("right", F.right)
_plain("concat", F.concat)
_plain("concat_ws", lambda separator, *strings: F.call_function("concat_ws", separator, *strings))
_plain("startsWith", F.startswith)
_plain("endsWith", F.endswith)
SPARK["splitIndex"] = _split_index
SPARK["split"] = _split
_plain("regexp", F.rlike)
_plain("regexpReplace", lambda c, regex, replacement: F.regexp_replace(c, regex, _quoted_replacement(replacement)))
SPARK["regexpExtract"] = _regexp_extract
_plain("regexpCount", F.regexp_count)
_plain("regexpSubstr", F.regexp_substr)
_plain("regexpInstr", F.regexp_instr)
SPARK["regexpExtractAll"] = _regexp_extract_all
SPARK["translate"] = lambda call, c, matching, replacing: F.translate(c, _literal(call, 1), _literal(call, 2))
_plain("urlEncode", F.url_encode)
_plain("urlDecode", F.try_url_decode)
SPARK["encode"] = lambda call, c, charset: F.encode(c, _literal(call, 1))
SPARK["decode"] = lambda call, c, charset: F.decode(c, _literal(call, 1))
_plain("elt", lambda index, *values: F.when(index >= 1, F.try_element_at(F.array(*values), index)))
_plain("printf", F.printf)
_plain("parseUrl", F.try_parse_url)


# -- casts --------------------------------------------------------------------------------------

def _cast(call, c) -> Column:
    source, target = call.operands[0].type, call.parameters[0]
    if target.type_name in ("STRING", "VARCHAR", "CHAR") and source.type_name == "BOOLEAN":
        return F.when(c, F.lit("TRUE")).when(~c, F.lit("FALSE"))
    if target.type_name in ("STRING", "VARCHAR", "CHAR") and source.type_name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        digits = source.precision or 0
        return F.date_format(c, "yyyy-MM-dd HH:mm:ss" + ("." + "S" * digits if digits else ""))
    if target.type_name in ("STRING", "VARCHAR", "CHAR") and source.type_name == "TIME":
        return _time_text(c, source.precision or 0)
    numeric = source.type_name not in ("STRING", "VARCHAR", "CHAR")
    if target.type_name in INTEGRAL_BITS:
        return _to_integral(c, source, target) if numeric else _text_to_integral(c, target, call.function == "tryCast")
    spark_type = _decimal(target) if target.type_name == "DECIMAL" else spark_type_of(target.type_info())
    if call.function == "tryCast" or (target.type_name == "DECIMAL" and numeric):  # Flink: null beyond a DECIMAL
        return c.try_cast(spark_type)
    return c.cast(spark_type)


def _time_text(micros: Column, digits: int) -> Column:
    """A TIME (its microseconds of the day, as Spark carries it) as Flink writes it: ``HH:mm:ss`` and
    ``digits`` digits of the second's fraction."""
    seconds = F.floor(micros / 1_000_000)
    text = F.format_string("%02d:%02d:%02d", F.floor(seconds / 3600), F.floor(seconds / 60) % 60, seconds % 60)
    if not digits:
        return text
    fraction = F.floor((micros % 1_000_000) / 10 ** (6 - digits))
    return F.concat(text, F.format_string(f".%0{digits}d", fraction))


def _text_to_integral(c: Column, target: Any, lenient: bool) -> Column:
    """A text's number cut toward zero, as Flink casts a text to an integral type (Spark takes no
    fraction); beyond the type it fails (null for TRY_CAST)."""
    number = _truncated(c.try_cast(DecimalType(38, 10)) if lenient else c.cast(DecimalType(38, 10)))
    largest = (1 << (INTEGRAL_BITS[target.type_name] - 1)) - 1
    fits = F.when((number <= largest) & (number >= -largest - 1), number.cast(spark_type_of(target.type_info())))
    if lenient:
        return fits
    return F.when(number.isNull(), F.lit(None)).otherwise(F.coalesce(fits, F.raise_error(F.concat(
        F.lit("CAST: the number of '"), c, F.lit(f"' overflows {target.type_name}")))))


def _to_integral(c: Column, source: Any, target: Any) -> Column:
    """A number cast to an integral type as Java casts it: a floating one saturated (NaN 0), others cut
    toward zero and wrapped around (Spark fails beyond the type)."""
    spark_type = spark_type_of(target.type_info())
    if source.type_name in ("FLOAT", "DOUBLE"):
        largest = (1 << (INTEGRAL_BITS[target.type_name] - 1)) - 1
        return F.when(F.isnan(c), F.lit(0)).when(c >= largest, F.lit(largest)).when(
            c <= -largest - 1, F.lit(-largest - 1)).otherwise(c.cast(spark_type)).cast(spark_type)
    if INTEGRAL_BITS.get(source.type_name, 65) <= INTEGRAL_BITS[target.type_name]:  # widening: every value fits
        return c.cast(spark_type)
    exact = _truncated(c) if source.type_name == "DECIMAL" else c.cast(_WIDE)
    return F.coalesce(c.try_cast(spark_type), _wrapped(exact, target))


SPARK["cast"] = SPARK["tryCast"] = _cast


# -- dates and times ----------------------------------------------------------------------------

_EXTRACTED = {"YEAR": F.year, "QUARTER": F.quarter, "MONTH": F.month, "WEEK": F.weekofyear, "DAY": F.dayofmonth,
              "HOUR": F.hour, "MINUTE": F.minute, "SECOND": F.second, "DOW": F.dayofweek, "DOY": F.dayofyear}


def _unix_timestamp(call, *columns) -> Column:
    if not columns:
        return F.unix_timestamp()
    pattern = _literal(call, 1) if len(columns) > 1 else DEFAULT_TIMESTAMP_FORMAT
    c = columns[0]
    return F.when(c.isNotNull(), F.coalesce(F.unix_timestamp(F.try_to_timestamp(c, F.lit(pattern))),
                                            F.lit(UNPARSABLE)))


SPARK["extract"] = lambda call, c: _EXTRACTED[call.parameters[0]](c)
SPARK["dateFormat"] = lambda call, c, pattern: F.date_format(c, _literal(call, 1))
SPARK["toDate"] = lambda call, c, *pattern: F.try_to_date(c, _literal(call, 1)) if pattern else c.try_cast("date")
SPARK["toTimestamp"] = lambda call, c, *pattern: F.try_to_timestamp(c, F.lit(_literal(call, 1))) if pattern else \
    F.to_timestamp(c)
SPARK["toTimestampLtz"] = lambda call, c: F.timestamp_millis(
    ((c.cast("long") if call.operands[0].type.type_name in INTEGRAL_BITS else c.cast("double")) *
     (1000 if call.parameters[0] == 0 else 1)).cast("long"))
SPARK["unixTimestamp"] = _unix_timestamp
SPARK["fromUnixtime"] = lambda call, c, *pattern: F.from_unixtime(c, _literal(call, 1) if pattern else
                                                                  DEFAULT_TIMESTAMP_FORMAT)
SPARK["timestampDiff"] = lambda call, a, b: F.timestamp_diff(call.parameters[0], a, b)


def _timestamp_add(call, amount: Column, time: Column) -> Column:
    unit = call.parameters[0]
    if call.type.type_name != "DATE":
        return F.timestamp_add(unit, amount, time)
    if unit == "MILLISECOND":  # an interval added to a DATE adds its whole days
        return F.date_add(time, (amount / F.lit(86_400_000)).cast("int"))
    if unit in ("DAY", "WEEK"):
        return F.date_add(time, (amount * F.lit(7 if unit == "WEEK" else 1)).cast("int"))
    return F.add_months(time, (amount * F.lit({"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit])).cast("int"))


SPARK["timestampAdd"] = _timestamp_add
_plain("currentDate", F.current_date)
_plain("currentTimestamp", F.current_timestamp)
_plain("localTimestamp", F.localtimestamp)


# -- collections and rows -----------------------------------------------------------------------

def _element(c: Column) -> Column:
    return F.when(F.size(c) > 1, F.raise_error(F.lit("element: the array has more than one element"))).otherwise(
        F.try_element_at(c, F.lit(1)))


def _get(call, c) -> Column:
    key = call.parameters[0]
    row = call.operands[0].type
    return c.getField(key if isinstance(key, str) else row.fields[key].name)


_plain("array", F.array)
SPARK["row"] = lambda call, *columns: F.struct(*[c.alias(n) for c, n in zip(columns, call.type.field_names())])
_plain("map", F.create_map)
_plain("at", F.try_element_at)
SPARK["get"] = _get
_plain("cardinality", F.size)
_plain("element", _element)
_plain("arrayContains", lambda c, needle: F.when(c.isNotNull(), F.exists(  # a null needle finds a null element
    c, lambda element: F.coalesce(element == needle, F.lit(False)) | (element.isNull() & needle.isNull()))))
_plain("arrayDistinct", F.array_distinct)
_plain("arrayPosition", F.array_position)
_plain("arrayRemove", F.array_remove)
_plain("arrayReverse", F.reverse)
_plain("arrayUnion", F.array_union)
_plain("arrayConcat", F.concat)
_plain("arrayMax", F.array_max)
_plain("arrayMin", F.array_min)
SPARK["arrayJoin"] = lambda call, c, *delimiters: F.array_join(c, _literal(call, 1), _literal(call, 2)
                                                               if len(delimiters) > 1 else None)
_plain("arrayAppend", F.array_append)
_plain("arrayPrepend", F.array_prepend)
_plain("arrayExcept", F.array_except)
_plain("arrayIntersect", F.array_intersect)
_plain("mapKeys", F.map_keys)
_plain("mapValues", F.map_values)
_plain("mapEntries", F.map_entries)

del _name, _operate, _bits, _trim


# -- aggregates ---------------------------------------------------------------------------------

def aggregate_column(function: str, distinct: bool, argument: Column) -> Column:
    """Spark's aggregate of a built-in COUNT, SUM, SUM0, AVG, MIN or MAX."""
    if distinct:
        return {"count": F.count_distinct, "sum": F.sum_distinct}[function](argument)
    if function == "sum0":
        return F.coalesce(F.sum(argument), F.lit(0))
    return {"count": F.count, "sum": F.sum, "avg": F.avg, "min": F.min, "max": F.max}[function](argument)
