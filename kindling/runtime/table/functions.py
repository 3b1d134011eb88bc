"""The Python implementations of Flink's built-in functions, by the names of their definitions
(kindling/table/planner/functions.py), computing what Flink computes (checked against PyFlink, not
against Python's own string and number functions).

``PYTHON[name](call)`` makes the function of a resolved call's operand values, once per compiled
expression: what the call fixes (a literal LIKE pattern or regular expression, a date pattern, a
cast's types, a time unit) is prepared then, not per row. A strict function gets no null operand
(the evaluator returns null for it).
"""
from __future__ import annotations

import base64
import datetime
import decimal
import functools
import hashlib
import json
import math
import operator
import random
import re
import uuid as uuids
from typing import Any, Callable, Dict, List, Optional

from kindling.common.formatting import java_number
from kindling.common.time import DEFAULT_TIMESTAMP_FORMAT, EPOCH, epoch_millis, instant_of
from kindling.common.types import Row
from kindling.runtime.table import dates, json_values
from kindling.runtime.table.casts import INTEGRAL_BITS, caster, wrapped
from kindling.runtime.table.java_regex import java_pattern

__all__ = ["PYTHON", "divide", "like_regex", "round_half_up"]

Factory = Callable[[Any], Callable[..., Any]]
#: the Python implementation of each built-in function: a function of the resolved call making the
#: function of its operand values
PYTHON: Dict[str, Factory] = {}
_VARIABLE = object()


def _implements(*names: str) -> Callable[[Factory], Factory]:
    def register(factory: Factory) -> Factory:
        for name in names:
            PYTHON[name] = factory
        return factory
    return register


def _plain(name: str, function: Callable[..., Any]) -> None:
    """A function that needs nothing of its call."""
    PYTHON[name] = lambda call: function


def _literal(call: Any, position: int) -> Any:
    """The value of the call's literal operand at ``position``, else ``_VARIABLE``."""
    operands = call.operands
    if position < len(operands) and type(operands[position]).__name__ == "Literal":
        return operands[position].value
    return _VARIABLE


def _prepared(call: Any, position: int, prepare: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``prepare`` of the operand at ``position``: once when it is a literal, else once per distinct value."""
    value = _literal(call, position)
    if value is not _VARIABLE and value is not None:
        prepared = prepare(value)
        return lambda _: prepared
    return functools.lru_cache(maxsize=64)(prepare)


# -- logic and comparison -----------------------------------------------------------------------

for _name, _compare in (("equals", operator.eq), ("notEquals", operator.ne), ("lessThan", operator.lt),
                        ("lessThanOrEqual", operator.le), ("greaterThan", operator.gt),
                        ("greaterThanOrEqual", operator.ge)):
    _plain(_name, _compare)
# SQL's three-valued AND and OR: false (true) wins over null
_plain("and", lambda a, b: False if a is False or b is False else None if a is None or b is None else True)
_plain("or", lambda a, b: True if a is True or b is True else None if a is None or b is None else False)
_plain("not", operator.not_)
_plain("isNull", lambda v: v is None)
_plain("isNotNull", lambda v: v is not None)
_plain("isTrue", lambda v: v is True)
_plain("isFalse", lambda v: v is False)
_plain("isNotTrue", lambda v: v is not True)
_plain("isNotFalse", lambda v: v is not False)
_plain("if", lambda condition, if_true, if_false: if_true if condition is True else if_false)
_plain("coalesce", lambda *values: next((v for v in values if v is not None), None))
_plain("null", lambda value: None)
_plain("nullOf", lambda: None)


@_implements("in")
def _in(call):
    def contains(value, *values):  # SQL's IN: null when not found and an element is null
        if value is None:
            return None
        if any(v == value for v in values if v is not None):
            return True
        return None if any(v is None for v in values) else False
    return contains


def like_regex(pattern: str, escape: Optional[str] = "\\", similar: bool = False) -> str:
    """The Python regex of a LIKE (or SIMILAR TO) pattern, matching the whole string."""
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


@_implements("like")
def _like(call):
    escape = call.parameters[0] if call.parameters else "\\"
    regex = _prepared(call, 1, lambda p: re.compile(like_regex(p, escape)))
    return lambda s, p: regex(p).match(s) is not None


@_implements("similar")
def _similar(call):
    regex = _prepared(call, 1, lambda p: re.compile(like_regex(p, None, True)))
    return lambda s, p: regex(p).match(s) is not None


# -- numbers ------------------------------------------------------------------------------------

_MAX_PRECISION = 38


def divide(a: Any, b: Any, integral: bool) -> Any:
    """``a / b`` as Java divides: integers truncated toward zero (failing on zero), doubles to infinity
    or NaN."""
    if b == 0 and integral:
        raise ZeroDivisionError(f"Division by zero: {a} / 0")
    if integral:
        quotient = abs(a) // abs(b)
        return quotient if (a >= 0) == (b >= 0) else -quotient
    return a / b if b else (float("nan") if a == 0 else float("inf") * (1 if a > 0 else -1))


def _python_divide(a, b):
    return divide(a, b, isinstance(a, int) and isinstance(b, int))


def _python_modulo(a, b):
    # Java's remainder takes the dividend's sign
    return a - b * divide(a, b, True) if isinstance(a, int) and isinstance(b, int) else math.fmod(a, b)


_OPERATORS = {"plus": operator.add, "minus": operator.sub, "times": operator.mul, "divide": _python_divide,
              "mod": _python_modulo}
_DECIMAL_OPERATORS = {"plus": operator.add, "minus": operator.sub, "times": operator.mul,
                      "divide": operator.truediv, "mod": operator.mod}


@_implements(*_OPERATORS)
def _arithmetic(call):
    if call.type.type_name == "DECIMAL":  # rounded half up to the result's scale, as Flink rounds
        exact, quantum = _DECIMAL_OPERATORS[call.function], decimal.Decimal(1).scaleb(-call.type.scale)
        name = call.function

        def decimal_arithmetic(a, b):
            with decimal.localcontext(prec=2 * _MAX_PRECISION + 2):
                a, b = decimal.Decimal(a), decimal.Decimal(b)
                if name in ("divide", "mod") and b == 0:
                    raise ZeroDivisionError(f"Division by zero: {a} {'/' if name == 'divide' else '%'} 0")
                return exact(a, b).quantize(quantum, decimal.ROUND_HALF_UP)
        return decimal_arithmetic
    compute = _OPERATORS[call.function]
    if call.type.type_name in INTEGRAL_BITS:  # wrapping around on overflow, as Java's integers do
        bits = INTEGRAL_BITS[call.type.type_name]
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

        def integral(a, b):
            value = compute(a, b)
            return value if low <= value <= high else wrapped(value, bits)
        return integral
    return lambda a, b: compute(float(a) if isinstance(b, float) else a, float(b) if isinstance(a, float) else b)


def _integral(function: Callable[..., Any]) -> Factory:
    """A function of numbers whose integral results wrap around at their type's width, as in Java."""
    def make(call):
        if call.type.type_name not in INTEGRAL_BITS:
            return function
        bits = INTEGRAL_BITS[call.type.type_name]
        return lambda *values: wrapped(function(*values), bits)
    return make


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


def _sign(x):
    s = (x > 0) - (x < 0)
    return float(s) if isinstance(x, float) else s


def _rounded(function: Callable) -> Callable:
    def compute(x):
        if isinstance(x, int):
            return x
        if isinstance(x, decimal.Decimal):
            return decimal.Decimal(function(x))
        return float(function(x)) if math.isfinite(x) else x
    return compute


@_implements("floor", "ceil")
def _floor(call):
    if call.parameters:  # of a date or timestamp, to a time unit
        unit, ceil = call.parameters[0], call.function == "ceil"
        return lambda value: dates.floor_time(unit, value, ceil)
    return _rounded(math.floor if call.function == "floor" else math.ceil)


def _hex(value: Any) -> str:
    if isinstance(value, str):
        return value.encode().hex().upper()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex().upper()
    return format(int(value) & 0xFFFFFFFFFFFFFFFF, "X")


def _hex_digit(byte: int) -> int:
    return int(chr(byte), 16) if byte < 128 and chr(byte) in "0123456789abcdefABCDEF" else -1


def _unhex(text: str) -> Optional[bytes]:
    """Flink's UNHEX: pairs of hex digits from the end; of an odd length the first byte is 0 (its first
    character must be a hex digit); null when a character is not one."""
    data = text.encode()
    out = bytearray((len(data) + 1) // 2)
    i, j = len(data) - 2, len(out) - 1
    while i >= 0:
        high, low = _hex_digit(data[i]), _hex_digit(data[i + 1])
        if high < 0 or low < 0:
            return None
        out[j] = high << 4 | low
        i, j = i - 2, j - 1
    if i == -1 and _hex_digit(data[0]) < 0:
        return None
    return bytes(out)


PYTHON["minusPrefix"] = _integral(operator.neg)
PYTHON["abs"] = _integral(abs)
_plain("power", _java_power)
for _name, _function in (("sqrt", math.sqrt), ("exp", math.exp), ("sin", math.sin), ("cos", math.cos),
                         ("tan", math.tan), ("cot", lambda x: 1 / math.tan(x)), ("asin", math.asin),
                         ("acos", math.acos), ("atan", math.atan), ("sinh", math.sinh), ("cosh", math.cosh),
                         ("tanh", math.tanh), ("degrees", math.degrees), ("radians", math.radians)):
    _plain(_name, _java_math(_function))
_plain("ln", _java_ln)
_plain("log10", lambda x: math.log10(x) if x > 0 else _java_ln(x))
_plain("log2", lambda x: _java_ln(x) / math.log(2))
_plain("log", lambda base, x: _java_ln(x) / _java_ln(base) if _java_ln(base) else math.nan)
_plain("atan2", math.atan2)
_plain("sign", _sign)
PYTHON["round"] = _integral(round_half_up)
_plain("truncate", lambda value, places: _to_places(value, places, decimal.ROUND_DOWN))
_plain("bin", lambda n: format(int(n) & 0xFFFFFFFFFFFFFFFF, "b"))
_plain("hex", _hex)
_plain("unhex", _unhex)
_plain("rand", lambda *seed: random.random())
_plain("randInteger", lambda bound, *seed: random.randrange(bound))
_plain("uuid", lambda: str(uuids.uuid4()))


# -- strings ------------------------------------------------------------------------------------

def _init_cap(s: str) -> str:
    """Flink's INITCAP: each run of ASCII letters and digits starts upper case, the rest lower case;
    other characters (non-ASCII letters too) separate the runs and stay as they are."""
    out, start = [], True
    for c in s:
        if c.isascii() and c.isalnum():
            out.append(c.upper() if start else c.lower())
            start = False
        else:
            out.append(c)
            start = True
    return "".join(out)


def _ascii(s: str) -> int:
    """Flink's ASCII: the first UTF-8 byte of the string as a signed byte (0 for an empty string)."""
    if not s:
        return 0
    byte = s.encode()[0]
    return byte - 256 if byte >= 128 else byte


def _chr(n: int) -> str:
    return "" if n < 0 else chr(int(n) & 255)


def _substring(s: str, position: int, length: Optional[int] = None) -> Optional[str]:
    """SQL's SUBSTRING as Flink computes it (1-based; a negative position counts from the end; a
    negative length is null)."""
    if length is not None and length < 0:
        return None
    start = position - 1 if position > 0 else len(s) + position if position < 0 else 0
    end = len(s) if length is None else start + length
    start = max(start, 0)
    return s[start:end] if start < end else ""


def _pad(join: Callable[[str, str], str]) -> Callable[[str, int, str], Optional[str]]:
    def pad(s: str, n: int, fill: str) -> Optional[str]:
        if n < 0 or fill == "":
            return None
        if n <= len(s):
            return s[:n]
        return join(s, (fill * n)[:n - len(s)])
    return pad


def _overlay(s: str, new: str, start: int, length: Optional[int] = None) -> str:
    """Flink's OVERLAY: a start outside the string leaves it as it is; a length of 0 or reaching past
    the end drops the rest."""
    n = len(new) if length is None else length
    if start <= 0 or start > len(s):
        return s
    rest = s[start - 1 + n:] if start + n <= len(s) and n > 0 else ""
    return s[:start - 1] + new + rest


def _locate(needle: str, haystack: str, start: int = 1) -> int:
    """Flink's LOCATE: the 1-based position of ``needle`` from ``start`` (below 1: from the start); 1
    for an empty needle."""
    if needle == "":
        return 1
    return haystack.find(needle, max(start - 1, 0)) + 1


def _whitespace_split(s: str) -> List[str]:
    """The parts of ``s`` between whitespace characters, empty ones kept (Flink's SPLIT_INDEX with an
    empty separator)."""
    parts, current = [], []
    for c in s:
        if c.isspace():
            parts.append("".join(current))
            current = []
        else:
            current.append(c)
    return parts + ["".join(current)]


def _split_index(s: str, separator: str, index: int) -> Optional[str]:
    if index < 0 or s == "":
        return None
    parts = s.split(separator) if separator else _whitespace_split(s)
    return parts[index] if index < len(parts) else None


def _split(s: str, delimiter: str) -> list:
    return [] if s == "" else list(s) if delimiter == "" else s.split(delimiter)


def _translate(s: str, matching: str, replacing: str) -> str:
    table: Dict[int, Optional[str]] = {}
    for i, c in enumerate(matching):
        table.setdefault(ord(c), replacing[i] if i < len(replacing) else None)
    return s.translate(table)


def _url_encode(s: str) -> str:
    from urllib.parse import quote_plus

    return quote_plus(s, safe="*").replace("~", "%7E")  # Java's URLEncoder


_URL_ESCAPE = re.compile(r"%(?![0-9a-fA-F]{2})")


def _url_decode(s: str) -> Optional[str]:
    """Java's URLDecoder: null (Flink catches the error) for a ``%`` without two hex digits or bytes
    that are no UTF-8."""
    from urllib.parse import unquote_plus

    if _URL_ESCAPE.search(s):
        return None
    try:
        return unquote_plus(s, errors="strict")
    except UnicodeDecodeError:
        return None


def _elt(index, *values):
    return values[index - 1] if index is not None and 1 <= index <= len(values) else None


_SPECIFIER = re.compile(r"%(\d+\$)?([-#+ 0,(]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])")


def _java_text(value: Any) -> str:
    """``String.valueOf`` of a value as Flink passes it to Java."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_number(value)
    return "null" if value is None else str(value)


def _java_conversion(value: Any, flags: str, width: Optional[str], precision: Optional[str], conversion: str,
                     bits: int) -> str:
    """One ``%`` conversion of Java's Formatter (ValueError where Java fails)."""
    kind = conversion.lower()
    if kind == "b":
        text = "false" if value is None or value is False else "true"
    elif value is None or kind in "sh":
        text = _java_text(value) if kind != "h" else format(hash(value) & 0xFFFFFFFF, "x")
    elif kind == "c":
        text = chr(value) if isinstance(value, int) and not isinstance(value, bool) else value
    elif kind in "dxo":
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"%{conversion} takes an integer, got {value!r}")
        if kind == "d":
            spec = ("+" if "+" in flags else " " if " " in flags else "") + ("," if "," in flags else "")
            text = format(abs(value) if "(" in flags else value, spec + "d")
            text = f"({text})" if "(" in flags and value < 0 else text
        else:
            text = format(value if value >= 0 else value + (1 << bits), "x" if kind == "x" else "o")
            text = ("0x" if kind == "x" else "0") + text if "#" in flags else text
    elif kind in "feg":
        if not isinstance(value, float):  # Java's Formatter takes no DECIMAL as Flink passes it
            raise ValueError(f"%{conversion} takes a floating number, got {value!r}")
        digits = 6 if precision is None else int(precision)
        sign = "+" if "+" in flags else " " if " " in flags else ""
        if value != value or value in (math.inf, -math.inf):
            text = java_number(value)
        elif kind == "f":  # Java rounds half up
            with decimal.localcontext(prec=400, rounding=decimal.ROUND_HALF_UP):
                text = format(decimal.Decimal(repr(value)), sign + ("," if "," in flags else "") + f".{digits}f")
        else:
            text = format(value, sign + f".{digits}{kind}")
    else:
        raise ValueError(f"%{conversion} is not a conversion Kindling formats")
    if conversion.isupper():
        text = text.upper()
    if width is not None and len(text) < int(width):
        fill = int(width) - len(text)
        if "-" in flags:
            text += " " * fill
        elif "0" in flags and kind in "dxofeg":
            sign = text[0] if text[:1] in "+- " else ""
            text = sign + "0" * fill + text[len(sign):]
        else:
            text = " " * fill + text
    return text


@_implements("printf")
def _printf(call):
    """Java's String.format, as Flink's PRINTF; null where Java fails."""
    bits = [INTEGRAL_BITS.get(o.type.type_name, 64) for o in call.operands[1:]]

    def formatted(fmt: Optional[str], *values: Any) -> Optional[str]:
        if fmt is None:
            return None
        out, at, next_value = [], 0, 0
        try:
            for match in _SPECIFIER.finditer(fmt):
                out.append(fmt[at:match.start()])
                at = match.end()
                position, flags, width, precision, conversion = match.groups()
                if conversion in "%n":
                    out.append("%" if conversion == "%" else "\n")
                    continue
                index = int(position[:-1]) - 1 if position else next_value
                next_value += 0 if position else 1
                out.append(_java_conversion(values[index], flags, width, precision, conversion, bits[index]))
        except (IndexError, ValueError, TypeError):
            return None
        return "".join(out) + fmt[at:]
    return formatted


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


def java_split(pattern: "re.Pattern", text: str, limit: int = 0) -> List[str]:
    """Java's ``String.split(regex, limit)``: no leading empty part from a match at the start, trailing
    empty parts dropped (limit 0)."""
    parts, at = [], 0
    for match in pattern.finditer(text):
        if limit > 0 and len(parts) == limit - 1:
            break
        if match.end() == 0:
            continue  # a zero-width match at the start makes no leading empty part
        parts.append(text[at:match.start()])
        at = match.end()
    parts.append(text[at:])
    if limit == 0:
        while parts and parts[-1] == "":
            parts.pop()
    return parts


@_implements("strToMap")
def _str_to_map(call):
    pairs = _prepared(call, 1, java_pattern)
    key_value = _prepared(call, 2, java_pattern)

    def to_map(s: str, pair_delimiter: str = ",", key_value_delimiter: str = "=") -> dict:
        if s == "":
            return {}
        result = {}
        for pair in java_split(pairs(pair_delimiter), s):
            parts = java_split(key_value(key_value_delimiter), pair, 2)
            result[parts[0]] = parts[1] if len(parts) > 1 else None
        return result
    return to_map


def _inet_aton(s: str) -> Optional[int]:
    import ipaddress

    try:
        return int(ipaddress.IPv4Address(s.strip()))
    except ValueError:
        return None


def _inet_ntoa(n: int) -> Optional[str]:
    import ipaddress

    return str(ipaddress.IPv4Address(n)) if 0 <= n < 2 ** 32 else None


def _digest(algorithm: str) -> Callable[[Any], str]:
    return lambda s: hashlib.new(algorithm, s.encode() if isinstance(s, str) else s).hexdigest()


_plain("upper", str.upper)
_plain("lower", str.lower)
_plain("charLength", len)
_plain("reverse", lambda s: s[::-1])
_plain("initCap", _init_cap)
_plain("toBase64", lambda s: base64.b64encode(s.encode() if isinstance(s, str) else s).decode())
_plain("fromBase64", lambda s: base64.b64decode(s).decode())
for _name in ("md5", "sha1", "sha224", "sha256", "sha384", "sha512"):
    _plain(_name, _digest(_name))
_plain("sha2", lambda s, bits: _digest(f"sha{bits}")(s))
_plain("ascii", _ascii)
_plain("chr", _chr)
for _name, _strip in (("trim", str.strip), ("trimLeading", str.lstrip), ("trimTrailing", str.rstrip),
                      ("btrim", str.strip), ("ltrim", str.lstrip), ("rtrim", str.rstrip)):
    _plain(_name, _strip)
_plain("substring", _substring)
_plain("replace", str.replace)
_plain("repeat", lambda s, k: s * max(k, 0))
_plain("lpad", _pad(lambda s, fill: fill + s))
_plain("rpad", _pad(lambda s, fill: s + fill))
_plain("overlay", _overlay)
_plain("position", lambda needle, haystack: haystack.find(needle) + 1)
_plain("locate", _locate)
_plain("instr", lambda haystack, needle: haystack.find(needle) + 1)
_plain("left", lambda s, n: s[:n] if n > 0 else "")
_plain("right", lambda s, n: s[-n:] if n > 0 else "")
_plain("concat", lambda *strings: "".join(strings))
_plain("concat_ws", lambda separator, *strings: None if separator is None else
       separator.join(s for s in strings if s is not None))
_plain("startsWith", str.startswith)
_plain("endsWith", str.endswith)
_plain("splitIndex", _split_index)
_plain("split", _split)
_plain("translate", _translate)
_plain("urlEncode", _url_encode)
_plain("urlDecode", _url_decode)
_plain("encode", lambda s, charset: s.encode(charset))
_plain("decode", lambda b, charset: bytes(b).decode(charset))
_plain("elt", _elt)
_plain("parseUrl", _parse_url)
_plain("isAlpha", lambda s: s is not None and s.isalpha())  # Java's letters: Unicode's L categories
_plain("isDigit", lambda s: s is not None and s.isdecimal())  # Java's digits: Unicode's Nd
_plain("greatest", lambda *values: max(values))
_plain("least", lambda *values: min(values))
_plain("inetAton", _inet_aton)
_plain("inetNtoa", _inet_ntoa)


# -- regular expressions (Java's syntax: kindling/runtime/table/java_regex.py) -----------------------

def _regex(call: Any) -> Callable[[str], Optional["re.Pattern"]]:
    """The compiled pattern of the call's regex operand (its second), None for one that is not valid
    (Flink's REGEXP functions return null, or false, for it); an untranslatable one fails."""
    from kindling.runtime.table.java_regex import UntranslatableRegex

    def compiled(regex: str) -> Optional["re.Pattern"]:
        try:
            return java_pattern(regex)
        except UntranslatableRegex:
            raise
        except ValueError:
            return None
    return _prepared(call, 1, compiled)


@_implements("regexp")
def _regexp(call):
    regex = _regex(call)

    def matches(s: str, r: str) -> bool:
        pattern = regex(r) if r else None
        return pattern is not None and pattern.search(s) is not None
    return matches


def _on_pattern(compute: Callable[..., Any]) -> Factory:
    """A REGEXP function: ``compute(pattern, s, *rest)`` of the compiled regex (null for a regex that is not
    valid, as Flink returns)."""
    def make(call):
        regex = _regex(call)

        def computed(s: str, r: str, *rest: Any) -> Any:
            pattern = regex(r)
            return None if pattern is None else compute(pattern, s, *rest)
        return computed
    return make


def _extracted(pattern: "re.Pattern", s: str, index: int, every: bool) -> Any:
    """The group ``index`` of the first match (or of every match); null for a group the regex does not have."""
    if not 0 <= index <= pattern.groups:
        return None
    if every:
        return [m.group(index) for m in pattern.finditer(s)]
    match = pattern.search(s)
    return None if match is None else match.group(index)


@_implements("regexpReplace")
def _regexp_replace(call):
    regex = _regex(call)
    template = _prepared(call, 2, lambda text: text.replace("\\", "\\\\"))  # inserted as it is, as Flink

    def replaced(s: str, r: str, replacement: str) -> Optional[str]:
        pattern = regex(r)
        return None if pattern is None else pattern.sub(template(replacement), s)
    return replaced


PYTHON["regexpExtract"] = _on_pattern(lambda pattern, s, index=0: _extracted(pattern, s, index, False))
PYTHON["regexpExtractAll"] = _on_pattern(lambda pattern, s, index=1: _extracted(pattern, s, index, True))
PYTHON["regexpCount"] = _on_pattern(lambda pattern, s: sum(1 for _ in pattern.finditer(s)))
PYTHON["regexpSubstr"] = _on_pattern(lambda pattern, s: _extracted(pattern, s, 0, False))
PYTHON["regexpInstr"] = _on_pattern(lambda pattern, s: 0 if (match := pattern.search(s)) is None else match.start() + 1)


# -- casts --------------------------------------------------------------------------------------

@_implements("cast", "tryCast")
def _cast(call):
    convert, lenient = caster(call.operands[0].type, call.parameters[0]), call.function == "tryCast"

    def cast(value):
        try:
            return convert(value)
        except (ValueError, ArithmeticError, TypeError):
            if lenient:
                return None
            raise
    return cast


# -- dates and times ----------------------------------------------------------------------------

@_implements("extract")
def _extract(call):
    unit = call.parameters[0]
    return lambda value: dates.extract(unit, value)


@_implements("dateFormat")
def _date_format(call):
    formatter = _prepared(call, 1, dates.java_formatter)
    return lambda moment, pattern: formatter(pattern)(moment)


@_implements("toDate")
def _to_date(call):
    parser = _prepared(call, 1, dates.java_parser)

    def to_date(text, pattern=None):
        if pattern is None:
            return dates.parse_date(text)
        moment = parser(pattern)(text)
        return None if moment is None else moment.date()
    return to_date


def _to_millis(moment: Optional[datetime.datetime]) -> Optional[datetime.datetime]:
    return None if moment is None else moment.replace(microsecond=moment.microsecond // 1000 * 1000)


@_implements("toTimestamp")
def _to_timestamp(call):
    parser = _prepared(call, 1, dates.java_parser)
    return lambda text, pattern=None: _to_millis(dates.parse_timestamp(text) if pattern is None else
                                                 parser(pattern)(text))


@_implements("toTimestampLtz")
def _to_timestamp_ltz(call):
    factor = 1000 if call.parameters[0] == 0 else 1
    return lambda n: instant_of(int(n * factor))


@_implements("unixTimestamp")
def _unix_timestamp(call):
    parser = _prepared(call, 1, dates.java_parser)

    def seconds(*arguments):
        if not arguments:
            return int(datetime.datetime.now().timestamp())
        text, pattern = arguments[0], arguments[1] if len(arguments) > 1 else DEFAULT_TIMESTAMP_FORMAT
        if text is None or pattern is None:
            return None
        moment = parser(pattern)(text)
        return dates.UNPARSABLE if moment is None else dates.epoch_seconds(moment)
    return seconds


@_implements("fromUnixtime")
def _from_unixtime(call):
    formatter = _prepared(call, 1, dates.java_formatter)

    def written(seconds, pattern=DEFAULT_TIMESTAMP_FORMAT):
        return formatter(pattern)(EPOCH + datetime.timedelta(seconds=seconds))
    return written


@_implements("timestampDiff")
def _timestamp_diff(call):
    unit = call.parameters[0]
    return lambda start, end: dates.timestamp_diff(unit, start, end)


@_implements("timestampAdd")
def _timestamp_add(call):
    unit, of_type = call.parameters[0], call.operands[1].type.type_name
    if call.type.type_name == "DATE":
        if unit == "MILLISECOND":  # an interval added to a DATE adds its whole days
            return lambda millis, day: day + datetime.timedelta(days=int(millis / 86_400_000))
        return lambda amount, day: dates.timestamp_add(unit, amount, datetime.datetime.combine(day, datetime.time())).date()
    if of_type == "TIMESTAMP_LTZ":
        return lambda amount, instant: instant_of(epoch_millis(dates.timestamp_add(unit, amount, dates.to_datetime(instant))))
    return lambda amount, moment: dates.timestamp_add(unit, amount, dates.to_datetime(moment))


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


_plain("convertTz", dates.zoned)
_plain("currentDate", lambda: _now().date())


def _unplanned_database():
    raise RuntimeError("CURRENT_DATABASE() reached an operator unplanned: the planner gives it the "
                       "TableEnvironment's current database (kindling/table/planner/rules.py)")


_plain("currentDatabase", _unplanned_database)
_plain("currentTimestamp", lambda: instant_of(int(datetime.datetime.now(datetime.timezone.utc).timestamp() * 1000)))
_plain("localTimestamp", lambda: _to_millis(_now()))
_plain("currentTime", lambda: _now().time().replace(microsecond=0))


# -- collections and rows -----------------------------------------------------------------------

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


def _element(array: list) -> Any:
    if len(array) > 1:
        raise ValueError(f"element: the array has {len(array)} elements, not one")
    return array[0] if array else None


def _array_join(array: list, delimiter: str, *null_replacement: str) -> str:
    return delimiter.join(str(v) if v is not None else null_replacement[0] for v in array
                          if v is not None or null_replacement)


def _named_row(names: List[str], values: List[Any]) -> Row:
    made = Row(*values)
    made.set_field_names(names)
    return made


@_implements("row")
def _row(call):
    names = call.type.field_names()
    return lambda *values: _named_row(names, list(values))


@_implements("get")
def _get(call):
    key = call.parameters[0]
    return lambda row: row[key]


def _map_union(*maps: dict) -> dict:
    merged: dict = {}
    for m in maps:
        merged.update(m)
    return merged


_plain("array", lambda *values: list(values))
_plain("map", lambda *values: dict(zip(values[::2], values[1::2])))
_plain("mapFromArrays", lambda keys, values: dict(zip(keys, values)))
_plain("at", _at)
_plain("cardinality", len)
_plain("element", _element)
_plain("arrayContains", lambda array, needle: None if array is None else needle in array)
_plain("arrayDistinct", _distinct)
_plain("arrayPosition", lambda array, needle: array.index(needle) + 1 if needle in array else 0)
_plain("arrayRemove", lambda array, needle: [v for v in array if v != needle])
_plain("arrayReverse", lambda array: array[::-1])
_plain("arraySlice", _slice)
_plain("arrayUnion", lambda a, b: _distinct(a + b))
_plain("arrayConcat", lambda *arrays: [v for array in arrays for v in array])
_plain("arrayMax", lambda array: max((v for v in array if v is not None), default=None))
_plain("arrayMin", lambda array: min((v for v in array if v is not None), default=None))
_plain("arrayJoin", _array_join)
_plain("arrayAppend", lambda array, value: None if array is None else array + [value])
_plain("arrayPrepend", lambda array, value: None if array is None else [value] + array)
_plain("arrayExcept", lambda a, b: _distinct(v for v in a if v not in b))
_plain("arrayIntersect", lambda a, b: _distinct(v for v in a if v in b))
_plain("arraySort", _array_sort)
_plain("mapKeys", lambda m: list(m))
_plain("mapValues", lambda m: list(m.values()))
_plain("mapEntries", lambda m: [_named_row(["key", "value"], [k, v]) for k, v in m.items()])
_plain("mapUnion", _map_union)


# -- JSON (kindling/runtime/table/json_values.py) ------------------------------------------------

@_implements("jsonValue")
def _json_value(call):
    path_text, path, returning, on_empty, default_on_empty, on_error, default_on_error = call.parameters
    convert = None if returning.type_name in ("STRING", "VARCHAR", "CHAR") else caster(None, returning)
    return lambda text: json_values.json_value_of(text, path_text, path, convert, on_empty, default_on_empty,
                                                  on_error, default_on_error)


@_implements("jsonQuery")
def _json_query(call):
    path_text, path, wrapper, on_empty, on_error = call.parameters
    return lambda text: json_values.json_query_of(text, path_text, path, wrapper, on_empty, on_error)


@_implements("jsonExists")
def _json_exists(call):
    path_text, path, on_error = call.parameters
    return lambda text: json_values.json_exists_of(text, path_text, path, on_error)


@_implements("isJson")
def _is_json(call):
    kind = call.parameters[0] if call.parameters else None
    return lambda text: json_values.is_json_of(text, kind)


def _json_unquote(s: str) -> str:
    try:
        value = json.loads(s)
    except ValueError:
        return s
    return value if isinstance(value, str) else s


@_implements("jsonObject")
def _json_object(call):
    keep_nulls = call.parameters[0] == "NULL"

    def written(*values):
        pairs = zip(values[::2], values[1::2])
        return json_values.dumps({str(k): json_values.json_of(v) for k, v in pairs if v is not None or keep_nulls})
    return written


@_implements("jsonArray")
def _json_array(call):
    keep_nulls = call.parameters[0] == "NULL"
    return lambda *values: json_values.dumps([json_values.json_of(v) for v in values if v is not None or keep_nulls])


_plain("jsonQuote", json.dumps)  # escaping all but ASCII, as Flink
_plain("jsonUnquote", _json_unquote)
_plain("json", json_values.Raw)
_plain("jsonString", lambda value: json_values.dumps(json_values.json_of(value)))

del _name, _compare, _function, _strip
