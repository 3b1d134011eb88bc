"""Flink's built-in scalar functions of the Table API (``col('s').upper_case``, ``concat(a, b)``) and of
SQL (``UPPER(s)``, kindling/table/sql.py). Each call is an :class:`Expression` with a Spark column, where
Spark has the function with Flink's semantics (run in Spark's JVM operators over a scan), and a Python
evaluator giving the same values (run in the table's Python pass). A function Spark computes otherwise
(``INITCAP``'s words, ``TRUNCATE``, ``SPLIT_INDEX`` of a column separator) has only the Python evaluator:
it moves the table to its Python pass, as a Python function does.

:class:`BuiltinMethods` holds the functions PyFlink calls as Expression methods; the module functions are
re-exported by ``kindling.table.expressions`` under PyFlink's names.
"""
from __future__ import annotations

import base64
import datetime
import decimal
import hashlib
import math
import re
from typing import Any, Callable, List, Optional, Sequence, Union

from kindling.table.types import DataType, DataTypes

__all__ = ["BuiltinMethods", "array", "atan2", "call_sql", "coalesce", "concat", "concat_ws", "current_database",
           "current_date", "current_timestamp", "date_format", "e", "from_unixtime", "if_then_else", "local_timestamp",
           "log", "map_", "map_from_arrays", "negative", "null_of", "pi", "rand", "rand_integer", "row",
           "timestamp_diff", "to_date", "to_timestamp", "to_timestamp_ltz", "unix_timestamp", "uuid"]

TypeRule = Union[DataType, Callable[[List[DataType]], DataType]]
_STRINGS = ("STRING", "VARCHAR", "CHAR")


def _F():
    from pyspark.sql import functions

    return functions


def call(name: str, args: Sequence[Any], result: TypeRule, python: Callable[..., Any],
         spark: Optional[Callable[..., Any]] = None, strict: bool = True, nullable: Optional[bool] = None):
    """The call of the built-in function ``name``: ``spark`` makes its Spark column of the arguments'
    columns (None: evaluated in Python only), ``python`` its value of the arguments' values, null when
    one is null if ``strict``; ``result`` its type (of the arguments' types), nullable when an argument
    is (``strict``) or as ``nullable`` says."""
    from kindling.table.expressions import Expression, _expr

    arguments = tuple(_expr(a) for a in args)

    def data_type(columns):
        types = [a._data_type(columns) for a in arguments]
        typed = result(types) if callable(result) else result
        null = nullable if nullable is not None else any(t._nullable for t in types) if strict else typed._nullable
        return typed.nullable() if null else typed.not_null()

    def evaluate(env):
        values = [a._evaluate(env) for a in arguments]
        return None if strict and any(v is None for v in values) else python(*values)

    def column():
        return spark(*[a._column() for a in arguments])

    expression = Expression(column if spark is not None else _python_only, data_type,
                            f"{name}({', '.join(a._text for a in arguments)})", evaluate=evaluate,
                            children=arguments)
    if spark is None:
        expression._python_function = True
    return expression


def _python_only():
    raise AssertionError("this function is evaluated in Python, not as a Spark column")


def literal(expression: Any, default: Any = None) -> Any:
    """The value of a literal argument (a Python value or ``lit``), else ``default``."""
    from kindling.table.expressions import Expression

    if not isinstance(expression, Expression):
        return expression
    return expression._literal[0] if getattr(expression, "_literal", None) else default


def _is_literal(expression: Any) -> bool:
    from kindling.table.expressions import Expression

    return not isinstance(expression, Expression) or bool(getattr(expression, "_literal", None))


# -- types ------------------------------------------------------------------------------------------

def _string(types) -> DataType:
    return DataTypes.STRING()


def _first(types) -> DataType:
    return types[0]


def _boolean(types) -> DataType:
    return DataTypes.BOOLEAN()


def _int(types) -> DataType:
    return DataTypes.INT()


def _double(types) -> DataType:
    return DataTypes.DOUBLE()


def _bigint(types) -> DataType:
    return DataTypes.BIGINT()


def common_type(types: List[DataType], what: str) -> DataType:
    """The type values of ``types`` share (numbers: the widest; strings: STRING), nullable if one is."""
    from kindling.table.expressions import NUMERIC

    names = [t.type_name for t in types]
    if all(n in NUMERIC for n in names):
        widest = getattr(DataTypes, max(names, key=NUMERIC.index))()
    elif all(n in _STRINGS for n in names):  # CHAR(n)s of one length stay CHAR, other lengths make VARCHAR
        lengths = [int(t._name[t._name.index("(") + 1:-1]) if "(" in t._name else None for t in types]
        widest = DataTypes.STRING() if None in lengths else types[0] if len(set(t._name for t in types)) == 1 \
            else DataTypes.VARCHAR(max(lengths))
    elif len(set(n for n in names if n != "NULL")) == 1:
        widest = next(t for t in types if t.type_name != "NULL")
    else:
        raise ValueError(f"{what}: the arguments have no common type: {types}")
    return widest.nullable() if any(t._nullable for t in types) else widest.not_null()


# -- Java's semantics in Python ---------------------------------------------------------------------

def substring_sql(s: str, position: int, length: Optional[int] = None) -> str:
    """SQL's SUBSTRING (1-based; a negative position counts from the end), as Flink and Spark compute it."""
    start = position - 1 if position > 0 else len(s) + position if position < 0 else 0
    end = len(s) if length is None else start + length
    start = max(start, 0)
    return s[start:end] if start < end else ""


def _java_regex(pattern: str) -> str:
    """A Java regular expression for Python's ``re`` (the common syntax is the same; ``\\p{Alpha}``-style
    classes and possessive quantifiers are not translated)."""
    return pattern.replace("\\Q", "").replace("\\E", "") if "\\Q" in pattern else pattern


def _java_replacement(replacement: str) -> str:
    """Java's replacement text (``$1`` a group, ``\\$`` a dollar) for ``re.sub``."""
    out, i = [], 0
    while i < len(replacement):
        c = replacement[i]
        if c == "\\" and i + 1 < len(replacement):
            out.append(replacement[i + 1].replace("\\", "\\\\"))
            i += 2
        elif c == "$" and i + 1 < len(replacement) and replacement[i + 1].isdigit():
            j = i + 1
            while j < len(replacement) and replacement[j].isdigit():
                j += 1
            out.append(f"\\g<{replacement[i + 1:j]}>")
            i = j
        else:
            out.append("\\\\" if c == "\\" else c)
            i += 1
    return "".join(out)


def _like_regex(pattern: str, escape: Optional[str] = "\\", similar: bool = False) -> str:
    """The regex of a LIKE (or SIMILAR TO) pattern, matching the whole string."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if escape and c == escape and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if c == "%" else "." if c == "_" else c if similar else re.escape(c))
        i += 1
    return "(?s)" + "".join(out) + r"\Z"


def _to_places(value: Any, places: int, rounding: str) -> Any:
    """``value`` to ``places`` decimals with the decimal module's ``rounding``, on the decimal text of a double."""
    if isinstance(value, float):
        if value != value or value in (math.inf, -math.inf):
            return value
        return float(decimal.Decimal(repr(value)).quantize(decimal.Decimal(1).scaleb(-places), rounding))
    exact = decimal.Decimal(value).quantize(decimal.Decimal(1).scaleb(-places), rounding)
    return int(exact) if isinstance(value, int) else exact


def round_half_up(value: Any, places: int) -> Any:
    """ROUND as Flink computes it: half away from zero, on the decimal text of a double."""
    return _to_places(value, places, decimal.ROUND_HALF_UP)


def _truncate(value: Any, places: int) -> Any:
    """TRUNCATE as Flink computes it: toward zero, on the decimal text of a double."""
    return _to_places(value, places, decimal.ROUND_DOWN)


def _java_math(function: Callable[[float], float]) -> Callable[[float], float]:
    """A math function returning NaN/infinity where Python raises, as Java's Math does."""

    def compute(x):
        try:
            return function(float(x))
        except ValueError:
            return math.nan
        except ZeroDivisionError:
            return math.inf if x >= 0 else -math.inf
        except OverflowError:
            return math.inf
    return compute


def _java_power(x: float, y: float) -> float:
    try:
        return math.pow(x, y)
    except ValueError:
        return math.nan
    except (OverflowError, ZeroDivisionError):
        return math.inf


def _java_ln(x: float) -> float:
    return math.nan if x < 0 else -math.inf if x == 0 else math.log(x)


def _spark_ln(column, base: Optional[float] = None):
    """Java's logarithm as a Spark column (Spark's ``ln`` is null where Java's is NaN or -Infinity)."""
    F = _F()
    value = F.ln(column) if base is None else F.log10(column) if base == 10 else F.ln(column) / math.log(base)
    return F.when(column > 0, value).when(column == 0, F.lit(-math.inf)).when(column < 0, F.lit(math.nan))


def _init_cap(s: str) -> str:
    """Flink's INITCAP: the first letter or digit of each run of them upper case, the others lower."""
    out, start = [], True
    for c in s:
        if c.isalnum():
            out.append(c.upper() if start else c.lower())
            start = False
        else:
            out.append(c)
            start = True
    return "".join(out)


def _hex(value: Any) -> str:
    if isinstance(value, str):
        return value.encode().hex().upper()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex().upper()
    return format(int(value) & 0xFFFFFFFFFFFFFFFF, "X")


def _url_encode(s: str) -> str:
    from urllib.parse import quote_plus

    return quote_plus(s, safe="*").replace("~", "%7E")  # Java's URLEncoder


def _url_decode(s: str) -> Optional[str]:
    from urllib.parse import unquote_plus

    return unquote_plus(s, errors="strict")


def _split_index(s: str, separator: str, index: int) -> Optional[str]:
    parts = s.split(separator) if separator else [s]
    return parts[index] if 0 <= index < len(parts) else None


def _split(s: str, delimiter: str) -> list:
    return [] if s == "" else list(s) if delimiter == "" else s.split(delimiter)


def _java_quote(text: str) -> str:
    return "\\Q" + text.replace("\\E", "\\E\\\\E\\Q") + "\\E"


# -- dates and times --------------------------------------------------------------------------------

_JAVA_PATTERN = re.compile(r"'[^']*'|y+|M+|d+|H+|h+|m+|s+|S+|E+|a|D+|Z+|X+|.")
_STRFTIME = {"yyyy": "%Y", "yy": "%y", "MM": "%m", "MMM": "%b", "MMMM": "%B", "dd": "%d", "HH": "%H", "hh": "%I",
             "mm": "%M", "ss": "%S", "EEE": "%a", "EEEE": "%A", "a": "%p", "DDD": "%j"}


def _java_format(moment: Any, pattern: str) -> str:
    """A date or timestamp written with a Java date pattern (``yyyy-MM-dd HH:mm:ss.SSS``)."""
    out = []
    for token in _JAVA_PATTERN.findall(pattern):
        if token.startswith("'"):
            out.append(token[1:-1] or "'")
        elif token[0] == "S":
            out.append(f"{getattr(moment, 'microsecond', 0):06d}"[:len(token)].ljust(len(token), "0"))
        elif token in _STRFTIME:
            out.append(moment.strftime(_STRFTIME[token]))
        elif token in ("M", "d", "H", "m", "s", "y"):
            out.append(str(moment.strftime(_STRFTIME[token * 2 if token != "y" else "yyyy"])).lstrip("0") or "0")
        else:
            out.append(token)
    return "".join(out)


def _java_parse(text: str, pattern: str) -> datetime.datetime:
    """A timestamp read with a Java date pattern; ValueError when it does not fit."""
    regex, fields = [], []
    for token in _JAVA_PATTERN.findall(pattern):
        if token.startswith("'"):
            regex.append(re.escape(token[1:-1] or "'"))
        elif token[0] in "yMdHhmsS" and not (token[0] == "M" and len(token) >= 3):
            regex.append(r"(\d{4})" if token[0] == "y" and len(token) != 2 else
                         r"(\d{1,2})" if len(token) == 1 else r"(\d{%d})" % len(token))
            fields.append(token[0])
        else:
            regex.append(re.escape(token))
    match = re.fullmatch("".join(regex), text.strip())
    if match is None:
        raise ValueError(f"{text!r} does not fit the pattern {pattern!r}")
    parts = {"y": 1970, "M": 1, "d": 1, "H": 0, "h": 0, "m": 0, "s": 0, "S": "0"}
    for field, value in zip(fields, match.groups()):
        parts[field] = value if field == "S" else int(value)
    micro = int((parts["S"] + "000000")[:6])
    return datetime.datetime(int(parts["y"]), parts["M"], parts["d"], parts["H"] or parts["h"], parts["m"],
                             parts["s"], micro)


_DEFAULT_TIMESTAMP = "yyyy-MM-dd HH:mm:ss"


def _parse_timestamp(text: str, pattern: Optional[str] = None) -> Optional[datetime.datetime]:
    """Flink's TO_TIMESTAMP: with a pattern, null when the text does not fit; without one a date, a
    time to the second or a fraction (``T`` or a space between), else a ValueError (as Flink fails)."""
    if pattern is None:
        return datetime.datetime.fromisoformat(text.strip())
    try:
        return _java_parse(text, pattern)
    except ValueError:
        return None


#: what Flink's UNIX_TIMESTAMP gives for a text that does not fit its pattern
_UNPARSABLE = -2 ** 63


def _parse_date(text: str, pattern: Optional[str] = None) -> Optional[datetime.date]:
    """Flink's TO_DATE: the date of a text in ``pattern``, or (without one) of a ``yyyy-MM-dd`` text maybe
    followed by a time; null when it does not fit."""
    if pattern is None:
        match = re.fullmatch(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T].*)?\s*", text)
        try:
            return None if match is None else datetime.date(*map(int, match.groups()))
        except ValueError:
            return None
    moment = _parse_timestamp(text, pattern)
    return None if moment is None else moment.date()


def _to_datetime(value: Any) -> datetime.datetime:
    from kindling.table.expressions import to_timestamp

    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day)
    return to_timestamp(value)


def _epoch_seconds(moment: datetime.datetime) -> int:
    from kindling.table.expressions import epoch_millis

    return epoch_millis(moment) // 1000


_UNIT_MICROS = {"MICROSECOND": 1, "MILLISECOND": 1_000, "SECOND": 1_000_000, "MINUTE": 60_000_000,
                "HOUR": 3_600_000_000, "DAY": 86_400_000_000, "WEEK": 7 * 86_400_000_000}


def _timestamp_diff(unit: str, start: Any, end: Any) -> int:
    """Flink's TIMESTAMPDIFF: whole units from ``start`` to ``end`` (months: calendar months)."""
    a, b = _to_datetime(start), _to_datetime(end)
    if unit in _UNIT_MICROS:
        micros = (b - a) // datetime.timedelta(microseconds=1)
        return int(micros / _UNIT_MICROS[unit])
    months = (b.year - a.year) * 12 + b.month - a.month
    if months > 0 and (b.day, b.time()) < (a.day, a.time()):
        months -= 1
    elif months < 0 and (b.day, b.time()) > (a.day, a.time()):
        months += 1
    return int(months / {"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit])


def _extract(unit: str, value: Any) -> int:
    moment = _to_datetime(value)
    if unit == "QUARTER":
        return (moment.month - 1) // 3 + 1
    if unit == "WEEK":
        return moment.isocalendar()[1]
    if unit == "DOW":
        return moment.isoweekday() % 7 + 1
    if unit == "DOY":
        return moment.timetuple().tm_yday
    return getattr(moment, {"YEAR": "year", "MONTH": "month", "DAY": "day", "HOUR": "hour", "MINUTE": "minute",
                            "SECOND": "second"}[unit])


def _floor_time(unit: str, value: Any, ceil: bool = False) -> Any:
    moment = _to_datetime(value)
    if unit == "YEAR":
        floor = moment.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
    elif unit == "QUARTER":
        floor = moment.replace(month=(moment.month - 1) // 3 * 3 + 1, day=1, hour=0, minute=0, second=0,
                               microsecond=0)
    elif unit == "MONTH":
        floor = moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    elif unit == "WEEK":
        start = moment - datetime.timedelta(days=moment.isoweekday() % 7)
        floor = start.replace(hour=0, minute=0, second=0, microsecond=0)
    else:
        step = datetime.timedelta(microseconds=_UNIT_MICROS[unit])
        floor = datetime.datetime.min + (moment - datetime.datetime.min) // step * step
    if ceil and floor != moment:
        floor = _floor_time(unit, _add_unit(floor, unit))
    return floor.date() if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime) else floor


def _add_unit(moment: datetime.datetime, unit: str) -> datetime.datetime:
    if unit in _UNIT_MICROS:
        return moment + datetime.timedelta(microseconds=_UNIT_MICROS[unit])
    months = moment.month - 1 + {"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit]
    return moment.replace(year=moment.year + months // 12, month=months % 12 + 1)


_SPARK_UNITS = {"YEAR": "year", "QUARTER": "quarter", "MONTH": "month", "WEEK": "week", "DAY": "day",
                "HOUR": "hour", "MINUTE": "minute", "SECOND": "second"}


def _unit(unit: Any, what: str, allowed: Sequence[str]) -> str:
    name = getattr(unit, "name", unit)
    if name not in allowed:
        raise ValueError(f"{what} takes a unit of {list(allowed)}, got {unit!r}")
    return name


# -- casts -----------------------------------------------------------------------------------------

_TRUE, _FALSE = {"t", "true", "y", "yes", "1"}, {"f", "false", "n", "no", "0"}
_CASTABLE = ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "STRING", "VARCHAR", "CHAR",
             "BOOLEAN", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ")


def cast_value(value: Any, source: Optional[DataType], target: DataType) -> Any:
    """``value`` of the type ``source`` as a value of ``target``, as Flink's CAST converts it;
    ValueError when it does not convert."""
    from kindling.table.expressions import INTEGRAL, to_instant, to_timestamp

    name = target.type_name
    if name in INTEGRAL or name in ("FLOAT", "DOUBLE", "DECIMAL"):
        if isinstance(value, str):
            text = value.strip()
            number = decimal.Decimal(text) if name == "DECIMAL" else int(text) if name in INTEGRAL else float(text)
        elif isinstance(value, bool):
            number = int(value)
        else:
            number = value
        if name in INTEGRAL:
            return int(number)
        if name == "DECIMAL":
            scale = int(target._name.split(",")[1].strip(" )"))
            exact = decimal.Decimal(repr(number) if isinstance(number, float) else number)
            return exact.quantize(decimal.Decimal(1).scaleb(-scale), decimal.ROUND_HALF_UP)
        if name == "FLOAT":
            import numpy

            return float(numpy.float32(number))
        return float(number)
    if name in _STRINGS:
        return _text_of(value, source)
    if name == "BOOLEAN":
        if isinstance(value, str):
            text = value.strip().lower()
            if text not in _TRUE | _FALSE:
                raise ValueError(f"CAST('{value}' AS BOOLEAN): not a boolean")
            return text in _TRUE
        return bool(value)
    if name == "DATE":
        if isinstance(value, str):
            return datetime.date.fromisoformat(value.strip())
        return _to_datetime(value).date()
    if name == "TIME":
        if isinstance(value, str):
            return datetime.time.fromisoformat(value.strip())
        return _to_datetime(value).time()
    if name == "TIMESTAMP":
        if isinstance(value, str):
            return datetime.datetime.fromisoformat(value.strip())
        return _to_datetime(value) if isinstance(value, datetime.date) else to_timestamp(value)
    if name == "TIMESTAMP_LTZ":
        if isinstance(value, str):
            return to_instant(datetime.datetime.fromisoformat(value.strip()))
        return to_instant(_to_datetime(value) if isinstance(value, datetime.date) else value)
    raise ValueError(f"cast to {target!r} is not supported by Kindling yet")


def _text_of(value: Any, source: Optional[DataType]) -> str:
    """A value as Flink's CAST(... AS STRING) writes it (timestamps with their type's fraction digits)."""
    from kindling.table.formats import java_number

    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return java_number(value, source is not None and source.type_name == "FLOAT")
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if hasattr(value, "to_epoch_milli"):
        from kindling.table.expressions import to_timestamp

        value = to_timestamp(value)
    if isinstance(value, datetime.datetime):
        digits = (source.precision if source is not None else None) or 0
        text = value.strftime("%Y-%m-%d %H:%M:%S")
        return text + "." + f"{value.microsecond:06d}"[:digits].ljust(digits, "0") if digits else text
    return str(value)


def _cast(expression, target: DataType, lenient: bool):
    """``CAST`` (or ``TRY_CAST``, ``lenient``) of ``expression`` to ``target``."""
    from kindling.table.expressions import Expression

    if target.type_name not in _CASTABLE:
        raise ValueError(f"cast to {target!r} is not supported by Kindling yet; cast to numbers, strings, BOOLEAN, "
                         "DATE, TIMESTAMP or TIMESTAMP_LTZ")
    source: dict = {}  # the argument's type, known once the input's types are

    def data_type(columns):
        typed = source["type"] = expression._data_type(columns)
        return target.nullable() if typed._nullable or lenient else target.not_null()

    def evaluate(env):
        value = expression._evaluate(env)
        if value is None:
            return None
        try:
            return cast_value(value, source.get("type"), target)
        except (ValueError, ArithmeticError, TypeError):
            if lenient:
                return None
            raise

    def column():
        F, inner = _F(), expression._column()
        typed = source.get("type")
        if target.type_name in _STRINGS and typed is not None and typed.type_name == "BOOLEAN":
            return F.when(inner, F.lit("TRUE")).when(~inner, F.lit("FALSE"))
        if target.type_name in _STRINGS and typed is not None and typed.type_name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            digits = typed.precision or 0
            return F.date_format(inner, "yyyy-MM-dd HH:mm:ss" + ("." + "S" * digits if digits else ""))
        spark_type = target.type_info().to_spark_type()
        if target.type_name == "DECIMAL":  # rounded to the target's scale (the column type is a wider decimal)
            from pyspark.sql.types import DecimalType

            spark_type = DecimalType(*(int(p) for p in target._name[8:-1].split(",")))
        return inner.try_cast(spark_type) if lenient else inner.cast(spark_type)

    cast = Expression(column if target.type_name != "TIME" else _python_only, data_type,
                      f"{'tryCast' if lenient else 'cast'}({expression._text}, {target!r})", evaluate=evaluate,
                      children=(expression,))
    if target.type_name == "TIME":  # Spark has no TIME type: a Python pass
        cast._python_function = True
    if getattr(expression, "_is_column", False) and not lenient:
        cast._name = f"{expression._name}-{target!r}"  # as the Table API names a cast column
    return cast


def _parse_url(url: str, part: str, key: Optional[str] = None) -> Optional[str]:
    """Flink's PARSE_URL (java.net.URL's parts) of one URL."""
    from urllib.parse import parse_qsl, urlsplit

    try:
        split = urlsplit(url)
    except ValueError:
        return None
    if not split.scheme:
        return None
    netloc = split.netloc
    userinfo = netloc.rpartition("@")[0] if "@" in netloc else None
    parts = {"PROTOCOL": split.scheme, "HOST": split.hostname, "PATH": split.path, "QUERY": split.query or None,
             "REF": split.fragment or None, "AUTHORITY": netloc or None, "USERINFO": userinfo,
             "FILE": split.path + ("?" + split.query if split.query else "")}
    if part not in parts:
        return None
    if key is not None:
        if part != "QUERY":
            return None
        return dict(parse_qsl(split.query, keep_blank_values=True)).get(key)
    return parts[part]


def _java_printf(fmt: Optional[str], *values: Any) -> Optional[str]:
    """Java's String.format of the common conversions (``%s``, ``%d``, ``%f``, ``%x``, ``%e``, ``%n``, ``%%``)."""
    if fmt is None:
        return None
    converted = [("null" if v is None else "true" if v is True else "false" if v is False else v) for v in values]
    return fmt.replace("%n", "\n") % tuple(converted)


def _str_to_map(s: str, pairs: str = ",", key_value: str = "=") -> dict:
    result = {}
    for pair in re.split(_java_regex(pairs), s):
        parts = re.split(_java_regex(key_value), pair, maxsplit=1)
        result[parts[0]] = parts[1] if len(parts) > 1 else None
    return result


def _zoned(text: str, source: str, target: str) -> str:
    """CONVERT_TZ: a ``yyyy-MM-dd HH:mm:ss`` time in zone ``source`` as the time in ``target``."""
    from zoneinfo import ZoneInfo

    moment = datetime.datetime.fromisoformat(text.strip()).replace(tzinfo=ZoneInfo(source))
    return moment.astimezone(ZoneInfo(target)).strftime("%Y-%m-%d %H:%M:%S")


# -- collections -----------------------------------------------------------------------------------

def _array_type(types) -> DataType:
    return DataTypes.ARRAY(common_type(types, "array"))


def _element_type(types) -> DataType:
    container = types[0]
    element = getattr(container, "element_type", None) or getattr(container, "value_type", None)
    if element is None:
        raise ValueError(f"an element of {container!r}: the argument must be an ARRAY or a MAP")
    return element.nullable()


def _at(container: Any, index: Any) -> Any:
    if isinstance(container, dict):
        return container.get(index)
    if not isinstance(index, int) or index == 0:
        raise ValueError(f"Array element access needs an index starting at 1, got {index!r}")
    return container[index - 1] if 0 < index <= len(container) else None


def _distinct(values) -> list:
    seen, out = set(), []
    for v in values:
        key = (type(v).__name__, v) if not isinstance(v, (list, dict)) else repr(v)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def _slice(array: list, start: int, end: Optional[int] = None) -> list:
    n = len(array)
    first = start - 1 if start > 0 else n + start if start < 0 else 0
    last = n if end is None else end if end > 0 else n + end + 1 if end < 0 else 0
    return array[max(first, 0):max(last, 0)]


def _array_sort(array: list, ascending: bool = True, nulls_first: Optional[bool] = None) -> list:
    nulls_first = ascending if nulls_first is None else nulls_first
    values = sorted((v for v in array if v is not None), reverse=not ascending)
    nulls = [None] * (len(array) - len(values))
    return nulls + values if nulls_first else values + nulls


class BuiltinMethods:
    """Flink's built-in functions called as Expression methods and properties (PyFlink's names)."""

    def _call(self, name, args, result, python, spark=None, strict=True, nullable=None):
        return call(name, (self, *args), result, python, spark, strict, nullable)

    # -- aggregates (beside expressions.py's count/sum/avg/min/max) ---------------------------------

    def _aggregate_call(self, kind: str, separator=None):
        from kindling.table.aggregates import aggregate_call

        return aggregate_call(kind, self, separator)

    var_pop = property(lambda self: self._aggregate_call("var_pop"), doc="The population variance.")
    var_samp = property(lambda self: self._aggregate_call("var_samp"), doc="The sample variance.")
    stddev_pop = property(lambda self: self._aggregate_call("stddev_pop"), doc="The population standard deviation.")
    stddev_samp = property(lambda self: self._aggregate_call("stddev_samp"), doc="The sample standard deviation.")
    first_value = property(lambda self: self._aggregate_call("first_value"), doc="The first non-null value.")
    last_value = property(lambda self: self._aggregate_call("last_value"), doc="The last non-null value.")
    array_agg = property(lambda self: self._aggregate_call("array_agg"), doc="The values, as an array.")

    def percentile(self, percentage, frequency=None):
        """The exact ``percentage``-th percentile (0.0 to 1.0) of the values, each counted ``frequency`` times."""
        from kindling.table.aggregates import percentile_call

        return percentile_call(self, percentage, frequency)

    def list_agg(self, separator=None):
        """The non-null values as text between ``separator`` (default ``,``)."""
        return self._aggregate_call("list_agg", literal(separator))

    # -- comparison and logic ----------------------------------------------------------------------

    @property
    def is_null(self):
        """Whether the value is null."""
        return self._call("isNull", (), _boolean, lambda v: v is None, lambda c: c.isNull(), strict=False,
                          nullable=False)

    @property
    def is_not_null(self):
        """Whether the value is not null."""
        return self._call("isNotNull", (), _boolean, lambda v: v is not None, lambda c: c.isNotNull(), strict=False,
                          nullable=False)

    def _is(self, name: str, want: bool, negate: bool):
        def spark(c):
            F = _F()
            hit = F.coalesce(c if want else ~c, F.lit(False))
            return ~hit if negate else hit
        return self._call(name, (), _boolean, lambda v: (v is want) != negate, spark, strict=False, nullable=False)

    is_true = property(lambda self: self._is("isTrue", True, False), doc="Whether the value is true (not null).")
    is_false = property(lambda self: self._is("isFalse", False, False), doc="Whether the value is false.")
    is_not_true = property(lambda self: self._is("isNotTrue", True, True), doc="Whether the value is not true.")
    is_not_false = property(lambda self: self._is("isNotFalse", False, True), doc="Whether the value is not false.")

    def between(self, lower_bound, upper_bound):
        """``lower_bound <= value <= upper_bound`` (null when one is null)."""
        return (self >= lower_bound) & (self <= upper_bound)

    def not_between(self, lower_bound, upper_bound):
        """``value < lower_bound or value > upper_bound``."""
        return (self < lower_bound) | (self > upper_bound)

    def in_(self, first_element_or_table, *remaining_elements):
        """Whether the value is one of the elements (SQL's IN: null when not found and an element is null)."""
        from kindling.table.expressions import Expression

        if hasattr(first_element_or_table, "get_schema"):
            raise ValueError("in_(table) (an IN subquery) is not supported by Kindling yet; join the table instead")
        elements = [first_element_or_table, *remaining_elements]

        def python(value, *values):
            if value is None:
                return None
            if any(v == value for v in values if v is not None):
                return True
            return None if any(v is None for v in values) else False

        def spark(c, *columns):
            return c.isin(*columns)

        return self._call("in", elements, _boolean, python, spark, strict=False,
                          nullable=True if not all(isinstance(e, Expression) for e in elements) else None)

    def like(self, pattern=None, escape=None):
        """Whether the string matches the SQL pattern (``%`` any text, ``_`` one character)."""
        escape_char = literal(escape, "\\") or "\\"

        def spark(c, p, *rest):
            return _F().like(c, p, _F().lit(escape_char))
        return self._call("like", (pattern,), _boolean,
                          lambda s, p: re.match(_like_regex(p, escape_char), s) is not None, spark)

    def similar(self, pattern=None):
        """Whether the string matches the SQL SIMILAR TO pattern (``%``, ``_`` and regular expression operators)."""
        regex = literal(pattern)
        spark = None if regex is None else (lambda c, p: c.rlike("^" + _like_regex(regex, None, True)[4:-2] + "$"))
        return self._call("similar", (pattern,), _boolean,
                          lambda s, p: re.match(_like_regex(p, None, True), s) is not None, spark)

    def if_null(self, null_replacement):
        """The value, or ``null_replacement`` when it is null."""
        return coalesce(self, null_replacement)

    def then(self, if_true, if_false):
        """``if_true`` when this condition is true, else ``if_false``."""
        return if_then_else(self, if_true, if_false)

    # -- math --------------------------------------------------------------------------------------

    def __neg__(self):
        return self._call("-", (), _first, lambda v: -v, lambda c: -c)

    def __abs__(self):
        return self.abs

    def __pow__(self, other):
        return call("power", (self, other), _double, _java_power, lambda a, b: _F().pow(a, b))

    def __rpow__(self, other):
        return call("power", (other, self), _double, _java_power, lambda a, b: _F().pow(a, b))

    def _math(self, name: str, function: Callable, spark: Optional[Callable], result=_double):
        return self._call(name, (), result, _java_math(function), spark)

    abs = property(lambda self: self._call("abs", (), _first, abs, lambda c: _F().abs(c)), doc="The absolute value.")
    sqrt = property(lambda self: self._math("sqrt", math.sqrt, lambda c: _F().sqrt(c)), doc="The square root.")
    exp = property(lambda self: self._math("exp", math.exp, lambda c: _F().exp(c)), doc="e to the power of the value.")
    ln = property(lambda self: self._call("ln", (), _double, _java_ln, _spark_ln), doc="The natural logarithm.")
    log10 = property(lambda self: self._call("log10", (), _double, lambda x: math.log10(x) if x > 0 else _java_ln(x),
                                             lambda c: _spark_ln(c, 10)), doc="The base 10 logarithm.")
    log2 = property(lambda self: self._call("log2", (), _double, lambda x: _java_ln(x) / math.log(2),
                                            lambda c: _spark_ln(c, 2)), doc="The base 2 logarithm.")
    sin = property(lambda self: self._math("sin", math.sin, lambda c: _F().sin(c)), doc="The sine.")
    cos = property(lambda self: self._math("cos", math.cos, lambda c: _F().cos(c)), doc="The cosine.")
    tan = property(lambda self: self._math("tan", math.tan, lambda c: _F().tan(c)), doc="The tangent.")
    cot = property(lambda self: self._math("cot", lambda x: 1 / math.tan(x), lambda c: _F().cot(c)),
                   doc="The cotangent.")
    asin = property(lambda self: self._math("asin", math.asin, lambda c: _F().asin(c)), doc="The arc sine.")
    acos = property(lambda self: self._math("acos", math.acos, lambda c: _F().acos(c)), doc="The arc cosine.")
    atan = property(lambda self: self._math("atan", math.atan, lambda c: _F().atan(c)), doc="The arc tangent.")
    sinh = property(lambda self: self._math("sinh", math.sinh, lambda c: _F().sinh(c)), doc="The hyperbolic sine.")
    cosh = property(lambda self: self._math("cosh", math.cosh, lambda c: _F().cosh(c)), doc="The hyperbolic cosine.")
    tanh = property(lambda self: self._math("tanh", math.tanh, lambda c: _F().tanh(c)),
                    doc="The hyperbolic tangent.")
    degrees = property(lambda self: self._math("degrees", math.degrees, lambda c: _F().degrees(c)),
                       doc="Radians converted to degrees.")
    radians = property(lambda self: self._math("radians", math.radians, lambda c: _F().radians(c)),
                       doc="Degrees converted to radians.")

    @property
    def sign(self):
        """-1, 0 or 1 as the value is negative, zero or positive (of the value's type)."""
        def python(x):
            s = (x > 0) - (x < 0)
            return float(s) if isinstance(x, float) else s
        return self._call("sign", (), _first, python, lambda c: _F().signum(c))

    def log(self, base=None):
        """The natural logarithm, or the logarithm to ``base``."""
        if base is None:
            return self.ln
        return log(base, self)

    def floor(self, time_interval_unit=None):
        """The largest integer not above the number, or a date/timestamp rounded down to ``time_interval_unit``."""
        return self._rounded("floor", time_interval_unit, math.floor)

    def ceil(self, time_interval_unit=None):
        """The smallest integer not below the number, or a date/timestamp rounded up to ``time_interval_unit``."""
        return self._rounded("ceil", time_interval_unit, math.ceil)

    def _rounded(self, name: str, unit: Any, function: Callable):
        if unit is not None:
            unit = _unit(unit, name, ["YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND"])
            spark = (lambda c: _F().date_trunc(_SPARK_UNITS[unit], c)) if name == "floor" else None
            return self._call(name, (), _first, lambda v: _floor_time(unit, v, name == "ceil"), spark)

        def python(x):
            return x if isinstance(x, (int, decimal.Decimal)) else float(function(x)) if math.isfinite(x) else x
        return self._call(name, (), _first, python, lambda c: getattr(_F(), name)(c))

    def round(self, places):
        """The number rounded to ``places`` decimals, half away from zero."""
        places_value = literal(places)
        spark = None if places_value is None else (lambda c, p: _F().round(c, places_value))
        return self._call("round", (places,), _first, round_half_up, spark)

    def truncate(self, n=0):
        """The number cut to ``n`` decimals (towards zero)."""
        return self._call("truncate", (n,), _first, _truncate)

    @property
    def bin(self):
        """The integer's binary digits (64-bit two's complement for negatives)."""
        return self._call("bin", (), _string, lambda n: format(int(n) & 0xFFFFFFFFFFFFFFFF, "b"),
                          lambda c: _F().bin(c))

    @property
    def hex(self):
        """The integer's hexadecimal digits, or a string's bytes in hexadecimal (upper case)."""
        return self._call("hex", (), _string, _hex, lambda c: _F().hex(c))

    @property
    def unhex(self):
        """The bytes of a hexadecimal string (null when it is not one)."""
        def python(s):
            try:
                return bytes.fromhex(("0" + s) if len(s) % 2 else s)
            except ValueError:
                return None
        return self._call("unhex", (), lambda t: DataTypes.BYTES(), python, lambda c: _F().try_to_binary(c, _F().lit(
            "hex")), nullable=True)

    # -- strings -----------------------------------------------------------------------------------

    upper_case = property(lambda self: self._call("upper", (), _string, str.upper, lambda c: _F().upper(c)),
                          doc="The string in upper case.")
    lower_case = property(lambda self: self._call("lower", (), _string, str.lower, lambda c: _F().lower(c)),
                          doc="The string in lower case.")
    char_length = property(lambda self: self._call("charLength", (), _int, len, lambda c: _F().char_length(c)),
                           doc="The number of characters.")
    reverse = property(lambda self: self._call("reverse", (), _first, lambda s: s[::-1], lambda c: _F().reverse(c)),
                       doc="The string reversed.")
    init_cap = property(lambda self: self._call("initCap", (), _string, _init_cap),
                        doc="Each word (a run of letters and digits) starting upper case, the rest lower case.")
    to_base64 = property(lambda self: self._call("toBase64", (), _string,
                                                 lambda s: base64.b64encode(s.encode() if isinstance(s, str) else s)
                                                 .decode(), lambda c: _F().base64(c)),
                         doc="The string's UTF-8 bytes in base64.")
    from_base64 = property(lambda self: self._call("fromBase64", (), _string,
                                                   lambda s: base64.b64decode(s).decode(),
                                                   lambda c: _F().unbase64(c).cast("string")),
                           doc="The string of base64 text (UTF-8).")
    md5 = property(lambda self: self._digest("md5", 32, lambda c: _F().md5(c)), doc="The MD5 digest in hexadecimal.")
    sha1 = property(lambda self: self._digest("sha1", 40, lambda c: _F().sha1(c)), doc="The SHA-1 digest.")
    sha224 = property(lambda self: self._digest("sha224", 56, lambda c: _F().sha2(c, 224)), doc="The SHA-224 digest.")
    sha256 = property(lambda self: self._digest("sha256", 64, lambda c: _F().sha2(c, 256)), doc="The SHA-256 digest.")
    sha384 = property(lambda self: self._digest("sha384", 96, lambda c: _F().sha2(c, 384)), doc="The SHA-384 digest.")
    sha512 = property(lambda self: self._digest("sha512", 128, lambda c: _F().sha2(c, 512)), doc="The SHA-512 digest.")

    def _digest(self, algorithm: str, length: int, spark: Callable):
        def python(s):
            return hashlib.new(algorithm, s.encode() if isinstance(s, str) else s).hexdigest()
        return self._call(algorithm, (), lambda t: DataTypes.CHAR(length), python, spark)

    def sha2(self, hash_length):
        """The SHA-2 digest of ``hash_length`` bits (224, 256, 384 or 512)."""
        bits = literal(hash_length)
        if bits not in (224, 256, 384, 512):
            raise ValueError(f"sha2 takes a literal hash length of 224, 256, 384 or 512, got {hash_length!r}")
        return self._digest(f"sha{bits}", bits // 4, lambda c: _F().sha2(c, bits))

    @property
    def ascii(self):
        """The code of the first character (0 for an empty string)."""
        return self._call("ascii", (), _int, lambda s: ord(s[0]) if s else 0, lambda c: _F().ascii(c))

    @property
    def chr(self):
        """The character of the code ``value % 256`` (empty for a negative value)."""
        return self._call("chr", (), _string, lambda n: "" if n < 0 else chr(int(n) % 256), lambda c: _F().chr(c))

    def trim(self, character=None):
        """The string without leading and trailing ``character`` (default: spaces)."""
        return self._trim("trim", character, str.strip, "trim")

    def trim_leading(self, character=None):
        """The string without leading ``character`` (default: spaces)."""
        return self._trim("trimLeading", character, str.lstrip, "ltrim")

    def trim_trailing(self, character=None):
        """The string without trailing ``character`` (default: spaces)."""
        return self._trim("trimTrailing", character, str.rstrip, "rtrim")

    def btrim(self, trim_str=None):
        """The string without leading and trailing characters of ``trim_str`` (default: spaces)."""
        return self._trim("btrim", trim_str, str.strip, "trim")

    def ltrim(self, trim_str=None):
        """The string without leading characters of ``trim_str`` (default: spaces)."""
        return self._trim("ltrim", trim_str, str.lstrip, "ltrim")

    def rtrim(self, trim_str=None):
        """The string without trailing characters of ``trim_str`` (default: spaces)."""
        return self._trim("rtrim", trim_str, str.rstrip, "rtrim")

    def _trim(self, name: str, characters: Any, strip: Callable, spark_name: str):
        characters = " " if characters is None else characters
        return self._call(name, (characters,), _string, strip,
                          lambda c, chars: getattr(_F(), spark_name)(c, chars))

    def substring(self, begin_index, length=None):
        """``length`` characters (default: to the end) from the 1-based ``begin_index``."""
        arguments = (begin_index,) if length is None else (begin_index, length)

        def spark(c, begin, *rest):
            F = _F()
            return c.substr(begin, rest[0] if rest else F.lit(2147483647))
        return self._call("substring", arguments, _string, substring_sql, spark)

    substr = substring

    def replace(self, search=None, replacement=None):
        """The string with every ``search`` replaced by ``replacement``."""
        return self._call("replace", (search, replacement), _string, lambda s, a, b: s.replace(a, b),
                          lambda c, a, b: _F().replace(c, a, b))

    def repeat(self, n):
        """The string ``n`` times."""
        return self._call("repeat", (n,), _string, lambda s, k: s * max(k, 0), lambda c, k: _F().repeat(c, k))

    def lpad(self, length, pad):
        """The string left-padded with ``pad`` (or cut) to ``length`` characters."""
        return self._pad("lpad", length, pad, lambda s, fill: fill + s)

    def rpad(self, length, pad):
        """The string right-padded with ``pad`` (or cut) to ``length`` characters."""
        return self._pad("rpad", length, pad, lambda s, fill: s + fill)

    def _pad(self, name: str, length: Any, pad: Any, join: Callable):
        def python(s, n, p):
            if n < 0 or (p == "" and n > len(s)):
                return None
            if n <= len(s):
                return s[:n]
            return join(s, (p * n)[:n - len(s)])
        return self._call(name, (length, pad), _string, python, lambda c, n, p: getattr(_F(), name)(c, n, p),
                          nullable=True)

    def overlay(self, new_string, starting, length=None):
        """The string with ``length`` characters (default: ``new_string``'s length) from ``starting`` replaced."""
        def python(s, new, start, *rest):
            n = rest[0] if rest else len(new)
            return s[:start - 1] + new + s[start - 1 + n:]
        arguments = (new_string, starting) if length is None else (new_string, starting, length)
        return self._call("overlay", arguments, _string, python, lambda c, *a: _F().overlay(c, *a))

    def position(self, haystack=None):
        """The 1-based position of this string in ``haystack`` (0 when absent)."""
        return self._call("position", (haystack,), _int, lambda s, h: h.find(s) + 1,
                          lambda c, h: _F().position(c, h))

    def locate(self, s, pos=None):
        """The 1-based position of this string in ``s`` from position ``pos`` (0 when absent)."""
        def python(needle, haystack, start=1):
            return 0 if start < 1 else haystack.find(needle, start - 1) + 1
        arguments = (s,) if pos is None else (s, pos)
        return self._call("locate", arguments, _int, python, lambda c, h, *p: _F().position(c, h, *p))

    def instr(self, s):
        """The 1-based position of ``s`` in this string (0 when absent)."""
        return self._call("instr", (s,), _int, lambda h, n: h.find(n) + 1, lambda c, n: _F().position(n, c))

    def left(self, length):
        """The first ``length`` characters."""
        return self._call("left", (length,), _string, lambda s, n: s[:n] if n > 0 else "",
                          lambda c, n: _F().left(c, n))

    def right(self, length):
        """The last ``length`` characters."""
        return self._call("right", (length,), _string, lambda s, n: s[-n:] if n > 0 else "",
                          lambda c, n: _F().right(c, n))

    def concat(self, other):
        """This string followed by ``other``."""
        return concat(self, other)

    def starts_with(self, start_expr):
        """Whether the string starts with ``start_expr``."""
        return self._call("startsWith", (start_expr,), _boolean, lambda s, p: s.startswith(p),
                          lambda c, p: _F().startswith(c, p))

    def ends_with(self, end_expr):
        """Whether the string ends with ``end_expr``."""
        return self._call("endsWith", (end_expr,), _boolean, lambda s, p: s.endswith(p),
                          lambda c, p: _F().endswith(c, p))

    def split_index(self, separator, index):
        """The ``index``-th (0-based) part of the string split at ``separator`` (null when there is none)."""
        sep, at = literal(separator), literal(index)
        spark = None if sep is None or at is None or sep == "" else (
            lambda c, s, i: _F().try_element_at(_F().split(c, _java_quote(sep), -1), _F().lit(at + 1))
            if at >= 0 else _F().lit(None))
        return self._call("splitIndex", (separator, index), _string, _split_index, spark, nullable=True)

    def split(self, delimiter):
        """The array of the string's parts between ``delimiter`` (each character when it is empty)."""
        sep = literal(delimiter)

        def spark(c, d):
            F = _F()
            parts = F.split(c, _java_quote(sep), -1) if sep else F.split(c, "(?!$)", -1)
            return F.when(c == "", F.array().cast("array<string>")).otherwise(parts)
        spark = None if sep is None else spark
        return self._call("split", (delimiter,), lambda t: DataTypes.ARRAY(DataTypes.STRING()), _split, spark)

    def regexp(self, regex):
        """Whether a part of the string matches the regular expression."""
        return self._call("regexp", (regex,), _boolean, lambda s, r: re.search(_java_regex(r), s) is not None,
                          lambda c, r: _F().rlike(c, r))

    def regexp_replace(self, regex, replacement):
        """The string with each match of ``regex`` replaced (``$1`` names a group)."""
        return self._call("regexpReplace", (regex, replacement), _string,
                          lambda s, r, t: re.sub(_java_regex(r), _java_replacement(t), s),
                          lambda c, r, t: _F().regexp_replace(c, r, t))

    def regexp_extract(self, regex, extract_index=None):
        """The ``extract_index``-th group (default: the whole match) of the first match, null when none."""
        pattern, index = literal(regex), literal(extract_index, None if extract_index is not None else 0)

        def python(s, r, i=0):
            match = re.search(_java_regex(r), s)
            return None if match is None else match.group(i)
        spark = None if pattern is None or index is None else (
            lambda c, *a: _F().when(c.rlike(pattern), _F().regexp_extract(c, pattern, index)))
        arguments = (regex,) if extract_index is None else (regex, extract_index)
        return self._call("regexpExtract", arguments, _string, python, spark, nullable=True)

    def regexp_count(self, regex):
        """How many times the regular expression matches."""
        return self._call("regexpCount", (regex,), _int, lambda s, r: len(re.findall(_java_regex(r), s)),
                          lambda c, r: _F().regexp_count(c, r))

    def regexp_substr(self, regex):
        """The first match of the regular expression (null when none)."""
        def python(s, r):
            match = re.search(_java_regex(r), s)
            return None if match is None else match.group(0)
        return self._call("regexpSubstr", (regex,), _string, python, lambda c, r: _F().regexp_substr(c, r),
                          nullable=True)

    def regexp_instr(self, regex):
        """The 1-based position of the first match (0 when none)."""
        def python(s, r):
            match = re.search(_java_regex(r), s)
            return 0 if match is None else match.start() + 1
        return self._call("regexpInstr", (regex,), _int, python, lambda c, r: _F().regexp_instr(c, r))

    def regexp_extract_all(self, regex, extract_index=None):
        """The ``extract_index``-th group (default: the whole match) of every match."""
        index = literal(extract_index, None) if extract_index is not None else 0

        def python(s, r, i=0):
            return [m.group(i) for m in re.finditer(_java_regex(r), s)]
        spark = None if index is None else (lambda c, r, *i: _F().regexp_extract_all(c, r, _F().lit(index)))
        arguments = (regex,) if extract_index is None else (regex, extract_index)
        return self._call("regexpExtractAll", arguments, lambda t: DataTypes.ARRAY(DataTypes.STRING()), python, spark)

    def translate(self, from_str, to_str):
        """The string with each character of ``from_str`` replaced by the one at its place in ``to_str``
        (removed when ``to_str`` is shorter)."""
        def python(s, a, b):
            table = {}
            for i, c in enumerate(a):
                table.setdefault(ord(c), b[i] if i < len(b) else None)
            return s.translate(table)
        matching, replace = literal(from_str), literal(to_str)
        spark = None if matching is None or replace is None else (
            lambda c, a, b: _F().translate(c, matching, replace))
        return self._call("translate", (from_str, to_str), _string, python, spark)

    def url_encode(self):
        """The string encoded for a URL's query (``application/x-www-form-urlencoded``)."""
        return self._call("urlEncode", (), _string, _url_encode, lambda c: _F().url_encode(c))

    def url_decode(self):
        """The string of URL-encoded text."""
        return self._call("urlDecode", (), _string, _url_decode, lambda c: _F().url_decode(c))

    def encode(self, charset):
        """The string's bytes in ``charset``."""
        return self._call("encode", (charset,), lambda t: DataTypes.BYTES(), lambda s, cs: s.encode(cs),
                          lambda c, cs: _F().encode(c, literal(charset)))

    def decode(self, charset):
        """The string of bytes in ``charset``."""
        return self._call("decode", (charset,), _string, lambda b, cs: bytes(b).decode(cs),
                          lambda c, cs: _F().decode(c, literal(charset)))

    def elt(self, expr, *exprs):
        """The ``value``-th (1-based) of the expressions (null when out of range)."""
        def python(index, *values):
            return values[index - 1] if index is not None and 1 <= index <= len(values) else None
        return self._call("elt", (expr, *exprs), lambda t: common_type(t[1:], "elt"), python,
                          lambda c, *cs: _F().try_element_at(_F().array(*cs), c), strict=False, nullable=True)

    # -- casts -------------------------------------------------------------------------------------

    def cast(self, data_type: DataType):
        """The value as ``data_type`` (a value that does not convert fails the job, as in Flink)."""
        return _cast(self, data_type, False)

    def try_cast(self, data_type: DataType):
        """The value as ``data_type``, null when it does not convert."""
        return _cast(self, data_type, True)

    # -- dates and times ---------------------------------------------------------------------------

    def extract(self, time_interval_unit):
        """A field (YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND) of a date or timestamp."""
        unit = _unit(time_interval_unit, "extract", ["YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE",
                                                     "SECOND"])
        spark = {"YEAR": "year", "QUARTER": "quarter", "MONTH": "month", "WEEK": "weekofyear", "DAY": "dayofmonth",
                 "HOUR": "hour", "MINUTE": "minute", "SECOND": "second"}[unit]
        return self._call("extract", (), _bigint, lambda v: _extract(unit, v), lambda c: getattr(_F(), spark)(c))

    @property
    def to_date(self):
        """The string (``yyyy-MM-dd``) cast to DATE."""
        return self.cast(DataTypes.DATE())

    @property
    def to_timestamp(self):
        """The string (``yyyy-MM-dd HH:mm:ss[.SSS]``) cast to TIMESTAMP(3)."""
        return self.cast(DataTypes.TIMESTAMP(3))

    # -- collections and rows ----------------------------------------------------------------------

    def at(self, index):
        """The array's element at the 1-based ``index``, or the map's value of the key ``index``."""
        return self._call("at", (index,), _element_type, _at, lambda c, i: _F().try_element_at(c, i), nullable=True)

    __getitem__ = at

    def get(self, name_or_index):
        """The field of a row, by name or 0-based index."""
        resolved: dict = {}  # the field's name, known once the row's type is

        def field_type(types):
            row = types[0]
            names = [f.name for f in getattr(row, "fields", [])]
            key = name_or_index if isinstance(name_or_index, str) else names[name_or_index] if \
                isinstance(name_or_index, int) and 0 <= name_or_index < len(names) else None
            if key not in names:
                raise ValueError(f"get({name_or_index!r}): {row!r} has no such field; fields: {names}")
            resolved["name"] = key
            return row.fields[names.index(key)].data_type

        def python(row):
            return row[name_or_index]

        def spark(c):
            return c.getField(resolved.get("name", name_or_index))
        if not isinstance(name_or_index, (str, int)):
            raise ValueError(f"get takes a field name or index, got {name_or_index!r}")
        expression = self._call("get", (), field_type, python, spark, nullable=True)
        expression._field = name_or_index
        return expression

    @property
    def cardinality(self):
        """The number of elements of an array or entries of a map."""
        return self._call("cardinality", (), _int, len, lambda c: _F().size(c))

    @property
    def element(self):
        """The one element of an array (null when empty; an array of more fails)."""
        def python(array):
            if len(array) > 1:
                raise ValueError(f"element: the array has {len(array)} elements, not one")
            return array[0] if array else None
        return self._call("element", (), _element_type, python, lambda c: _F().when(
            _F().size(c) > 1, _F().raise_error(_F().lit("element: the array has more than one element"))).otherwise(
            _F().try_element_at(c, _F().lit(1))), nullable=True)

    def array_contains(self, needle):
        """Whether the array holds ``needle``."""
        return self._call("arrayContains", (needle,), _boolean, lambda a, n: n in a,
                          lambda c, n: _F().array_contains(c, n))

    def array_distinct(self):
        """The array without repeated elements (first ones kept)."""
        return self._call("arrayDistinct", (), _first, _distinct, lambda c: _F().array_distinct(c))

    def array_position(self, needle):
        """The 1-based position of ``needle`` in the array (0 when absent)."""
        return self._call("arrayPosition", (needle,), _int, lambda a, n: a.index(n) + 1 if n in a else 0,
                          lambda c, n: _F().array_position(c, n))

    def array_remove(self, needle):
        """The array without the elements equal to ``needle``."""
        return self._call("arrayRemove", (needle,), _first, lambda a, n: [v for v in a if v != n],
                          lambda c, n: _F().array_remove(c, n))

    def array_reverse(self):
        """The array in reverse order."""
        return self._call("arrayReverse", (), _first, lambda a: a[::-1], lambda c: _F().reverse(c))

    def array_slice(self, start_offset, end_offset=None):
        """The elements from ``start_offset`` to ``end_offset`` (1-based, inclusive; negative: from the end)."""
        arguments = (start_offset,) if end_offset is None else (start_offset, end_offset)
        return self._call("arraySlice", arguments, _first, _slice)

    def array_union(self, array):
        """The distinct elements of both arrays."""
        return self._call("arrayUnion", (array,), _first, lambda a, b: _distinct(a + b),
                          lambda c, d: _F().array_union(c, d))

    def array_concat(self, *arrays):
        """The arrays' elements one after the other."""
        return self._call("arrayConcat", arrays, _first, lambda *a: [v for x in a for v in x],
                          lambda *c: _F().concat(*c))

    def array_max(self):
        """The largest element (null when empty)."""
        return self._call("arrayMax", (), _element_type,
                          lambda a: max((v for v in a if v is not None), default=None),
                          lambda c: _F().array_max(c), nullable=True)

    def array_min(self):
        """The smallest element (null when empty)."""
        return self._call("arrayMin", (), _element_type,
                          lambda a: min((v for v in a if v is not None), default=None),
                          lambda c: _F().array_min(c), nullable=True)

    def array_join(self, delimiter, null_replacement=None):
        """The elements as text between ``delimiter`` (nulls left out, or as ``null_replacement``)."""
        def python(a, d, *r):
            return d.join(str(v) if v is not None else r[0] for v in a if v is not None or r)
        arguments = (delimiter,) if null_replacement is None else (delimiter, null_replacement)
        return self._call("arrayJoin", arguments, _string, python, lambda c, d, *r: _F().array_join(
            c, literal(delimiter), literal(null_replacement)))

    def array_append(self, addition):
        """The array with ``addition`` at the end."""
        return self._call("arrayAppend", (addition,), _first, lambda a, v: None if a is None else a + [v],
                          lambda c, v: _F().array_append(c, v), strict=False, nullable=True)

    def array_prepend(self, addition):
        """The array with ``addition`` first."""
        return self._call("arrayPrepend", (addition,), _first, lambda a, v: None if a is None else [v] + a,
                          lambda c, v: _F().array_prepend(c, v), strict=False, nullable=True)

    def array_except(self, array):
        """The distinct elements of the array not in ``array``."""
        return self._call("arrayExcept", (array,), _first, lambda a, b: _distinct(v for v in a if v not in b),
                          lambda c, d: _F().array_except(c, d))

    def array_intersect(self, array):
        """The distinct elements of the array also in ``array``."""
        return self._call("arrayIntersect", (array,), _first, lambda a, b: _distinct(v for v in a if v in b),
                          lambda c, d: _F().array_intersect(c, d))

    def array_sort(self, ascending_order=None, null_first=None):
        """The array sorted (ascending, nulls first, unless told otherwise)."""
        arguments = tuple(a for a in (ascending_order, null_first) if a is not None)
        return self._call("arraySort", arguments, _first, _array_sort)

    @property
    def map_keys(self):
        """The map's keys, as an array."""
        return self._call("mapKeys", (), lambda t: DataTypes.ARRAY(t[0].key_type), lambda m: list(m),
                          lambda c: _F().map_keys(c))

    @property
    def map_values(self):
        """The map's values, as an array."""
        return self._call("mapValues", (), lambda t: DataTypes.ARRAY(t[0].value_type), lambda m: list(m.values()),
                          lambda c: _F().map_values(c))

    @property
    def map_entries(self):
        """The map's entries, as an array of rows (``key``, ``value``)."""
        from kindling.common.types import Row

        def entry_type(types):
            return DataTypes.ARRAY(DataTypes.ROW([DataTypes.FIELD("key", types[0].key_type),
                                                  DataTypes.FIELD("value", types[0].value_type)]))

        def python(m):
            entries = []
            for k, v in m.items():
                entry = Row(k, v)
                entry.set_field_names(["key", "value"])
                entries.append(entry)
            return entries
        return self._call("mapEntries", (), entry_type, python, lambda c: _F().map_entries(c))

    def str_to_map(self, list_delimiter=None, key_value_delimiter=None):
        """The map of ``k=v`` pairs between ``,`` (or the delimiters, regular expressions) in the string;
        a repeated key keeps its last value."""
        arguments = tuple(a for a in (list_delimiter, key_value_delimiter) if a is not None)
        return self._call("strToMap", arguments, lambda t: DataTypes.MAP(DataTypes.STRING(), DataTypes.STRING()),
                          _str_to_map)

    def parse_url(self, part_to_extract, key=None):
        """A part (HOST, PATH, QUERY, REF, PROTOCOL, FILE, AUTHORITY, USERINFO) of the URL, or the value of
        ``key`` in its QUERY; null when there is none."""
        arguments = (part_to_extract,) if key is None else (part_to_extract, key)
        return self._call("parseUrl", arguments, _string, _parse_url, lambda c, *a: _F().try_parse_url(c, *a),
                          nullable=True)

    def printf(self, *obj):
        """This format string (Java's ``%s``, ``%d``, ``%.2f``, ...) filled with the values."""
        return self._call("printf", obj, _string, _java_printf, lambda c, *a: _F().printf(c, *a), strict=False,
                          nullable=True)

    def inet_aton(self):
        """The number of an IPv4 address text (null when it is not one)."""
        def python(s):
            import ipaddress

            try:
                return int(ipaddress.IPv4Address(s.strip()))
            except ValueError:
                return None
        return self._call("inetAton", (), _bigint, python, nullable=True)

    def inet_ntoa(self):
        """The IPv4 address text of a number (null when out of range)."""
        def python(n):
            import ipaddress

            return str(ipaddress.IPv4Address(n)) if 0 <= n < 2 ** 32 else None
        return self._call("inetNtoa", (), _string, python, nullable=True)

    @property
    def to_time(self):
        """The string (``HH:mm:ss``) cast to TIME(0)."""
        return self.cast(DataTypes.TIME(0))

    def map_union(self, *maps):
        """The maps' entries, later maps' values for repeated keys."""
        def python(*ms):
            merged: dict = {}
            for m in ms:
                merged.update(m)
            return merged
        return self._call("mapUnion", maps, _first, python)


# -- functions of pyflink.table.expressions --------------------------------------------------------

def if_then_else(condition, if_true, if_false):
    """``if_true`` when ``condition`` is true, else ``if_false``."""
    return call("if", (condition, if_true, if_false), lambda t: common_type(t[1:], "if_then_else"),
                lambda c, a, b: a if c is True else b, lambda c, a, b: _F().when(c, a).otherwise(b), strict=False,
                nullable=None)


def coalesce(*args):
    """The first argument that is not null."""
    if not args:
        raise ValueError("coalesce takes at least one argument")

    def result(types):
        typed = common_type(types, "coalesce")
        return typed.nullable() if all(t._nullable for t in types) else typed.not_null()
    return call("coalesce", args, result, lambda *vs: next((v for v in vs if v is not None), None),
                lambda *cs: _F().coalesce(*cs), strict=False)


def concat(first, *others):
    """The strings one after the other (null when one is null)."""
    return call("concat", (first, *others), _string, lambda *ss: "".join(ss), lambda *cs: _F().concat(*cs))


def concat_ws(separator, first, *others):
    """The strings that are not null, between ``separator`` (null when it is null)."""
    def python(sep, *ss):
        return None if sep is None else sep.join(s for s in ss if s is not None)

    def result(types):
        return DataTypes.STRING(any(t._nullable for t in types))
    return call("concat_ws", (separator, first, *others), result, python, lambda s, *cs: _F().concat_ws(
        literal(separator), *cs) if _is_literal(separator) else _F().when(s.isNotNull(), _F().array_join(
            _F().array(*cs), s)), strict=False)


def negative(v):
    """The value negated."""
    from kindling.table.expressions import _expr

    return -_expr(v)


def log(v, base=None):
    """The natural logarithm of ``v``, or (``log(base, v)``) its logarithm to ``base``."""
    if base is None:
        from kindling.table.expressions import _expr

        return _expr(v).ln
    return call("log", (v, base), _double, lambda b, x: _java_ln(x) / _java_ln(b) if _java_ln(b) else math.nan,
                lambda b, x: _spark_ln(x) / _spark_ln(b))


def atan2(y, x):
    """The angle of the point (``x``, ``y``)."""
    return call("atan2", (y, x), _double, lambda a, b: math.atan2(a, b), lambda a, b: _F().atan2(a, b))


def pi():
    """π."""
    from kindling.table.expressions import lit

    return lit(math.pi)


def e():
    """Euler's number."""
    from kindling.table.expressions import lit

    return lit(math.e)


def rand(seed=None):
    """A random number in [0, 1) (Spark's generator: other numbers than Flink's)."""
    import random

    seeded = literal(seed)
    return call("rand", () if seed is None else (seed,), _double, lambda *s: random.random(),
                lambda *c: _F().rand(seeded), nullable=False)


def rand_integer(bound, seed=None):
    """A random integer in [0, ``bound``)."""
    import random

    seeded = literal(seed)
    return call("randInteger", (bound,) if seed is None else (bound, seed), _int,
                lambda b, *s: random.randrange(b), lambda b, *c: _F().floor(_F().rand(seeded) * b))


def uuid():
    """A random UUID text."""
    import uuid as uuids

    return call("uuid", (), lambda t: DataTypes.CHAR(36), lambda: str(uuids.uuid4()), lambda: _F().uuid(),
                nullable=False)


def null_of(data_type: DataType):
    """A null of ``data_type``."""
    return call("nullOf", (), data_type, lambda: None, lambda: _F().lit(None), nullable=True)


def current_database():
    """The current database's name: ``default_database``."""
    from kindling.table.expressions import lit

    return lit("default_database")


def call_sql(sql_expression: str):
    """The Table API expression of a SQL expression (``call_sql("UPPER(name)")``)."""
    from kindling.table.sql import sql_expression as parsed

    return parsed(sql_expression)


def current_date():
    """Today's date (UTC, Kindling's session time zone)."""
    return call("currentDate", (), DataTypes.DATE(), lambda: datetime.datetime.utcnow().date(),
                lambda: _F().current_date(), nullable=False)


def current_timestamp():
    """The current time, a TIMESTAMP_LTZ(3)."""
    from kindling.common.time import Instant

    def python():
        return Instant.of_epoch_milli(int(datetime.datetime.now(datetime.timezone.utc).timestamp() * 1000))
    return call("currentTimestamp", (), DataTypes.TIMESTAMP_LTZ(3), python, lambda: _F().current_timestamp(),
                nullable=False)


def local_timestamp():
    """The current time in the session time zone (UTC), a TIMESTAMP(3)."""
    def python():
        now = datetime.datetime.utcnow()
        return now.replace(microsecond=now.microsecond // 1000 * 1000)
    return call("localTimestamp", (), DataTypes.TIMESTAMP(3), python, lambda: _F().localtimestamp(), nullable=False)


def current_time():
    """The current time of day (UTC), a TIME(0)."""
    return call("currentTime", (), DataTypes.TIME(0),
                lambda: datetime.datetime.utcnow().time().replace(microsecond=0), nullable=False)


local_time = current_time


def convert_tz(date_str, tz_from, tz_to):
    """A ``yyyy-MM-dd HH:mm:ss`` time in time zone ``tz_from`` as the time in ``tz_to``."""
    return call("convertTz", (date_str, tz_from, tz_to), _string, _zoned)


def to_date(date_str, format=None):
    """The DATE of a string in ``format`` (default ``yyyy-MM-dd``); null when it does not fit."""
    arguments = (date_str,) if format is None else (date_str, format)
    pattern = literal(format)
    spark = (lambda c: c.try_cast("date")) if format is None else None if pattern is None else (
        lambda c, f: _F().try_to_date(c, pattern))
    return call("toDate", arguments, DataTypes.DATE(), _parse_date, spark)


def to_timestamp(timestamp_str, format=None):
    """The TIMESTAMP(3) of a string in ``format`` (default ``yyyy-MM-dd HH:mm:ss``); null when it does not fit."""
    arguments = (timestamp_str,) if format is None else (timestamp_str, format)
    pattern = literal(format) if format is not None else None
    spark = None if format is not None and pattern is None else (
        lambda c, *f: _F().try_to_timestamp(c, _F().lit(pattern)) if pattern else _F().to_timestamp(c))

    def python(text, *f):
        moment = _parse_timestamp(text, *f)
        return None if moment is None else moment.replace(microsecond=moment.microsecond // 1000 * 1000)
    return call("toTimestamp", arguments, DataTypes.TIMESTAMP(3), python, spark)


def to_timestamp_ltz(*args):
    """The TIMESTAMP_LTZ(3) of epoch seconds (``precision`` 0) or milliseconds (3, the default):
    ``to_timestamp_ltz(numeric[, precision])``."""
    from kindling.common.time import Instant

    if not args or len(args) > 2:
        raise ValueError("to_timestamp_ltz takes a number of epoch seconds or milliseconds and a precision (0 or 3)")
    precision = literal(args[1]) if len(args) > 1 else 3
    if precision not in (0, 3):
        raise ValueError(f"to_timestamp_ltz: the precision is 0 (seconds) or 3 (milliseconds), got {args[1]!r}")
    factor = 1000 if precision == 0 else 1
    return call("toTimestampLtz", args[:1], DataTypes.TIMESTAMP_LTZ(3),
                lambda n: Instant.of_epoch_milli(int(n * factor)), lambda c: _F().timestamp_millis(
                    (c * factor).cast("long")))


def unix_timestamp(date_str=None, format=None):
    """Epoch seconds of a ``yyyy-MM-dd HH:mm:ss`` string (or one in ``format``; the smallest BIGINT when it
    does not fit, as in Flink); now without one."""
    if date_str is None:
        return call("unixTimestamp", (), DataTypes.BIGINT(), lambda: int(datetime.datetime.now().timestamp()),
                    lambda: _F().unix_timestamp(), nullable=False)
    pattern = literal(format) if format is not None else _DEFAULT_TIMESTAMP

    def python(text, *f):
        moment = _parse_timestamp(text, pattern)
        return _UNPARSABLE if moment is None else _epoch_seconds(moment)
    spark = None if pattern is None else (lambda c, *f: _F().when(c.isNotNull(), _F().coalesce(_F().unix_timestamp(
        _F().try_to_timestamp(c, _F().lit(pattern))), _F().lit(_UNPARSABLE))))
    return call("unixTimestamp", (date_str,) if format is None else (date_str, format), DataTypes.BIGINT(), python,
                spark, nullable=True)


def from_unixtime(unixtime, format=None):
    """Epoch seconds as text in ``format`` (default ``yyyy-MM-dd HH:mm:ss``), in UTC."""
    pattern = literal(format) if format is not None else _DEFAULT_TIMESTAMP

    def python(seconds, *f):
        from kindling.table.expressions import EPOCH

        return _java_format(EPOCH + datetime.timedelta(seconds=seconds), pattern)
    spark = None if pattern is None else (lambda c, *f: _F().from_unixtime(c, pattern))
    return call("fromUnixtime", (unixtime,) if format is None else (unixtime, format), _string, python, spark)


def date_format(timestamp, format):
    """A date or timestamp as text in the Java date pattern ``format``."""
    pattern = literal(format)
    spark = None if pattern is None else (lambda c, f: _F().date_format(c, pattern))
    return call("dateFormat", (timestamp, format), _string, lambda t, f: _java_format(_to_datetime(t), f), spark)


def timestamp_diff(time_point_unit, time_point1, time_point2):
    """Whole ``time_point_unit`` units from ``time_point1`` to ``time_point2``."""
    unit = _unit(time_point_unit, "timestamp_diff", ["YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE",
                                                     "SECOND", "MILLISECOND", "MICROSECOND"])
    spark = None if unit not in ("DAY", "HOUR", "MINUTE", "SECOND") else (
        lambda a, b: _F().timestamp_diff(unit, a, b))
    return call("timestampDiff", (time_point1, time_point2), _int, lambda a, b: _timestamp_diff(unit, a, b), spark)


def array(head, *tail):
    """An array of the values."""
    return call("array", (head, *tail), _array_type, lambda *vs: list(vs), lambda *cs: _F().array(*cs),
                strict=False, nullable=False)


def row(head, *tail):
    """A row of the values (fields ``f0``, ``f1``, ...)."""
    from kindling.common.types import Row

    values = (head, *tail)
    names = [f"f{i}" for i in range(len(values))]

    def result(types):
        return DataTypes.ROW([DataTypes.FIELD(n, t) for n, t in zip(names, types)])

    def python(*vs):
        made = Row(*vs)
        made.set_field_names(names)
        return made
    return call("row", values, result, python, lambda *cs: _F().struct(*[c.alias(n) for c, n in zip(cs, names)]),
                strict=False, nullable=False)


def map_(key, value, *tail):
    """A map of the keys and values, alternating."""
    values = (key, value, *tail)
    if len(values) % 2:
        raise ValueError("map_ takes keys and values in pairs")

    def result(types):
        return DataTypes.MAP(common_type(types[::2], "map_ keys"), common_type(types[1::2], "map_ values"))
    return call("map", values, result, lambda *vs: dict(zip(vs[::2], vs[1::2])), lambda *cs: _F().create_map(*cs),
                strict=False, nullable=False)


def map_from_arrays(key, value):
    """A map of an array of keys and an array of values."""
    return call("mapFromArrays", (key, value), lambda t: DataTypes.MAP(_element_type(t[:1]), _element_type(t[1:])),
                lambda k, v: dict(zip(k, v)), lambda k, v: _F().map_from_arrays(k, v))


# -- column selections (``select(with_columns(range_(1, 3)))``), expanded by Table.select ------------

def _selected(items: tuple, names: List[str]) -> List[str]:
    """The column names ``items`` (names, 1-based positions, ``range_``s) select."""
    chosen: List[str] = []
    for item in items:
        selection = getattr(item, "_range", None)
        if selection is not None:
            start, end = (names.index(b) + 1 if isinstance(b, str) else int(b) for b in selection)
            chosen += names[start - 1:end]
        elif isinstance(item, int):
            chosen.append(names[item - 1])
        else:
            name = getattr(item, "_name", item)
            if name not in names:
                raise ValueError(f"Column '{name}' not found in the table; columns: {names}")
            chosen.append(name)
    return chosen


def _column_selection(text: str, pick):
    from kindling.table.expressions import Expression

    selection = Expression(_unexpanded, _unexpanded, text)
    selection._columns = pick
    return selection


def _unexpanded(*args):
    raise ValueError("with_columns/without_columns/range_ select columns of a table: use them in select, "
                     "add_columns, group_by, ... of a table")


def range_(start: Any, end: Any):
    """The columns from ``start`` to ``end`` (names or 1-based positions), for with_columns/without_columns."""
    from kindling.table.expressions import Expression

    selection = Expression(_unexpanded, _unexpanded, f"range({start}, {end})")
    selection._range = (start, end)
    return selection


def with_columns(head: Any, *tails: Any):
    """The columns named, numbered (1-based) or in ``range_``s, in a select."""
    return _column_selection(f"withColumns({head}, ...)", lambda names: _selected((head, *tails), names))


def without_columns(head: Any, *tails: Any):
    """The table's columns but those named, numbered or in ``range_``s, in a select."""
    def pick(names):
        dropped = _selected((head, *tails), names)
        return [n for n in names if n not in dropped]
    return _column_selection(f"withoutColumns({head}, ...)", pick)


def with_all_columns():
    """All the table's columns, in a select."""
    return _column_selection("withAllColumns()", lambda names: list(names))



# -- PyFlink's functions Kindling does not have (yet): each raises a clear error (docs/api-gaps.txt) ----

_BITMAP = "Flink's BITMAP type (a RoaringBitmap) has no Spark counterpart in Kindling"
_MONTHS = "intervals of months (INTERVAL YEAR TO MONTH) are not there; use days, hours, minutes, seconds or millis"
_STRUCTURED = "structured (class-backed) types are not there; use ROW"


def _refuse(name: str, reason: str, method: bool = True) -> Callable:
    """A PyFlink function Kindling lacks: calling it raises UnsupportedError naming it and ``reason``."""
    from kindling.common.unsupported import unsupported

    def stub(*args, **kwargs):
        pass
    stub.__name__, stub.__qualname__ = name, f"Expression.{name}" if method else name
    return unsupported(reason)(stub)


for _name in ("bitmap_and", "bitmap_and_agg", "bitmap_and_cardinality_agg", "bitmap_andnot", "bitmap_build",
              "bitmap_build_agg", "bitmap_build_cardinality_agg", "bitmap_cardinality", "bitmap_from_bytes",
              "bitmap_or", "bitmap_or_agg", "bitmap_or_cardinality_agg", "bitmap_to_array", "bitmap_to_bytes",
              "bitmap_to_string", "bitmap_xor", "bitmap_xor_agg", "bitmap_xor_cardinality_agg"):
    setattr(BuiltinMethods, _name, _refuse(_name, _BITMAP))
for _name in ("month", "months", "quarter", "quarters", "year", "years"):
    setattr(BuiltinMethods, _name, property(_refuse(_name, _MONTHS)))
del _name
BuiltinMethods.week = BuiltinMethods.weeks = property(lambda self: self._interval(7 * 86_400_000),
                                                      doc="An interval of weeks (``lit(2).weeks``).")
BuiltinMethods.proctime = property(_refuse("proctime", "from_data_stream takes a Schema, not field expressions; "
                                           "declare a column_by_expression('pt', 'PROCTIME()')"))
BuiltinMethods.as_argument = _refuse("as_argument", "process table functions (PTFs) are not there")
BuiltinMethods.object_update = _refuse("object_update", _STRUCTURED)
BuiltinMethods.collect = property(_refuse("collect", "the MULTISET type is not there; use array_agg"))
BuiltinMethods.flatten = property(_refuse("flatten", "select a composite column's fields with get('name')"))

current_watermark = _refuse("current_watermark", "an operator's watermark is not readable in expressions", False)
source_watermark = _refuse("source_watermark", "a Schema watermark takes SQL text: watermark('ts', "
                                               "'SOURCE_WATERMARK()')", False)
descriptor = _refuse("descriptor", "window table-valued functions are SQL only: TABLE(TUMBLE(TABLE t, "
                                   "DESCRIPTOR(ts), ...)) in sql_query", False)
temporal_overlaps = _refuse("temporal_overlaps", "arithmetic of time points and intervals is not there", False)
json_array_agg = _refuse("json_array_agg", "JSON aggregate functions are not there; use array_agg", False)
json_object_agg = _refuse("json_object_agg", "JSON aggregate functions are not there", False)
lag = _refuse("lag", "OVER windows compute aggregates only (no LAG/LEAD)", False)
lead = _refuse("lead", "OVER windows compute aggregates only (no LAG/LEAD)", False)
object_of = _refuse("object_of", _STRUCTURED, False)
