"""Flink's built-in scalar functions of the Table API (``col('s').upper_case``, ``concat(a, b)``) and of
SQL (``UPPER(s)``, kindling/table/sql_functions.py): each call is an Expression calling the function
by name. Its definition (kindling/table/planner/functions.py) types it and says whether Spark's JVM
operators compute it as Flink does; it runs there or in the table's Python pass
(kindling/runtime/table/functions.py).

:class:`BuiltinMethods` holds the functions PyFlink calls as Expression methods; the module functions are
re-exported by ``kindling.table.expressions`` under PyFlink's names.
"""
from __future__ import annotations

import math
from typing import Any, Callable, List, Sequence

from kindling.table.planner.functions import CASTABLE
from kindling.table.types import DataType, DataTypes

__all__ = ["BuiltinMethods", "array", "atan2", "builtin_call", "call_sql", "coalesce", "concat", "concat_ws",
           "current_database", "current_date", "current_timestamp", "date_format", "e", "from_unixtime",
           "if_then_else", "local_timestamp", "log", "map_", "map_from_arrays", "negative", "null_of", "pi", "rand",
           "rand_integer", "row", "timestamp_diff", "to_date", "to_timestamp", "to_timestamp_ltz", "unix_timestamp",
           "uuid"]


def builtin_call(function: str, operands: Sequence[Any], parameters: Sequence[Any] = (), display: str = None):
    """The call of the built-in function ``function`` (its definition's name) of ``operands`` (Python values
    are literals) and its constant ``parameters``, written ``display(operands)``."""
    from kindling.table.expressions import _expr, node

    arguments = tuple(_expr(o) for o in operands)
    return node("call", arguments, (function, tuple(parameters)),
                f"{display or function}({', '.join(a._text for a in arguments)})")


def call(name: str, args: Sequence[Any], result: Any, python: Callable[..., Any], spark: Callable = None,
         strict: bool = True, nullable: bool = None):
    """TRANSITION (until row_operations builds the whole row with ``row`` by name): the call of a Python
    function ``python`` of the arguments' values, typed by ``result`` (a DataType or a function of the
    arguments' types), computed in Python."""
    from kindling.table.expressions import _expr, node

    arguments = tuple(_expr(a) for a in args)

    def type_of(types: List[DataType], table_types) -> DataType:
        typed = result(types) if callable(result) else result
        null = nullable if nullable is not None else any(t._nullable for t in types) if strict else typed._nullable
        return typed.nullable() if null else typed.not_null()
    return node("closure", arguments, (python, spark, type_of, strict),
                f"{name}({', '.join(a._text for a in arguments)})")


def literal(expression: Any, default: Any = None) -> Any:
    """The value of a literal argument (a Python value or ``lit``), else ``default``."""
    from kindling.table.expressions import Expression

    if not isinstance(expression, Expression):
        return expression
    return expression._literal[0] if expression._literal else default


def _unit(unit: Any, what: str, allowed: Sequence[str]) -> str:
    name = getattr(unit, "name", unit)
    if name not in allowed:
        raise ValueError(f"{what} takes a unit of {list(allowed)}, got {unit!r}")
    return name


def _given(*arguments: Any) -> tuple:
    """The optional arguments given (up to the first one left out)."""
    given = []
    for argument in arguments:
        if argument is None:
            break
        given.append(argument)
    return tuple(given)


_TIME_UNITS = ["YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND"]


class BuiltinMethods:
    """Flink's built-in functions called as Expression methods and properties (PyFlink's names)."""

    def _call(self, function: str, *operands: Any, parameters: Sequence[Any] = (), display: str = None):
        return builtin_call(function, (self, *operands), parameters, display)

    # -- aggregates (beside expressions.py's count/sum/avg/min/max) ---------------------------------

    def _aggregate_call(self, kind: str, *parameters: Any):
        from kindling.table.expressions import aggregate_node

        return aggregate_node(kind, (self,), parameters=parameters, text=f"{kind}({self})")

    var_pop = property(lambda self: self._aggregate_call("var_pop"), doc="The population variance.")
    var_samp = property(lambda self: self._aggregate_call("var_samp"), doc="The sample variance.")
    stddev_pop = property(lambda self: self._aggregate_call("stddev_pop"), doc="The population standard deviation.")
    stddev_samp = property(lambda self: self._aggregate_call("stddev_samp"), doc="The sample standard deviation.")
    first_value = property(lambda self: self._aggregate_call("first_value"), doc="The first non-null value.")
    last_value = property(lambda self: self._aggregate_call("last_value"), doc="The last non-null value.")
    array_agg = property(lambda self: self._aggregate_call("array_agg"), doc="The values, as an array.")

    def percentile(self, percentage, frequency=None):
        """The exact ``percentage``-th percentile (0.0 to 1.0) of the values, each counted ``frequency`` times."""
        from kindling.table.expressions import aggregate_node

        value = literal(percentage)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ValueError(f"percentile takes a literal percentage between 0.0 and 1.0 (Kindling: not an array), "
                             f"got {percentage!r}")
        if not 0 <= value <= 1:
            raise ValueError(f"percentile: the percentage must be between 0.0 and 1.0, got {value}")
        operands = (self,) if frequency is None else (self, frequency)
        return aggregate_node("percentile", operands, parameters=(float(value),), text=f"percentile({self}, {value})")

    def list_agg(self, separator=None):
        """The non-null values as text between ``separator`` (default ``,``)."""
        return self._aggregate_call("list_agg", literal(separator))

    # -- comparison and logic ----------------------------------------------------------------------

    is_null = property(lambda self: self._call("isNull"), doc="Whether the value is null.")
    is_not_null = property(lambda self: self._call("isNotNull"), doc="Whether the value is not null.")
    is_true = property(lambda self: self._call("isTrue"), doc="Whether the value is true (not null).")
    is_false = property(lambda self: self._call("isFalse"), doc="Whether the value is false.")
    is_not_true = property(lambda self: self._call("isNotTrue"), doc="Whether the value is not true.")
    is_not_false = property(lambda self: self._call("isNotFalse"), doc="Whether the value is not false.")

    def between(self, lower_bound, upper_bound):
        """``lower_bound <= value <= upper_bound`` (null when one is null)."""
        return (self >= lower_bound) & (self <= upper_bound)

    def not_between(self, lower_bound, upper_bound):
        """``value < lower_bound or value > upper_bound``."""
        return (self < lower_bound) | (self > upper_bound)

    def in_(self, first_element_or_table, *remaining_elements):
        """Whether the value is one of the elements (SQL's IN: null when not found and an element is null)."""
        if hasattr(first_element_or_table, "get_schema"):
            raise ValueError("in_(table) (an IN subquery) is not supported by Kindling yet; join the table instead")
        return self._call("in", first_element_or_table, *remaining_elements)

    def like(self, pattern=None, escape=None):
        """Whether the string matches the SQL pattern (``%`` any text, ``_`` one character)."""
        return self._call("like", pattern, parameters=(literal(escape, "\\") or "\\",))

    def similar(self, pattern=None):
        """Whether the string matches the SQL SIMILAR TO pattern (``%``, ``_`` and regular expression operators)."""
        return self._call("similar", pattern)

    def if_null(self, null_replacement):
        """The value, or ``null_replacement`` when it is null."""
        return coalesce(self, null_replacement)

    def then(self, if_true, if_false):
        """``if_true`` when this condition is true, else ``if_false``."""
        return if_then_else(self, if_true, if_false)

    # -- math --------------------------------------------------------------------------------------

    def __neg__(self):
        return self._call("minusPrefix", display="-")

    def __abs__(self):
        return self.abs

    def __pow__(self, other):
        return self._call("power", other)

    def __rpow__(self, other):
        return builtin_call("power", (other, self))

    abs = property(lambda self: self._call("abs"), doc="The absolute value.")
    sqrt = property(lambda self: self._call("sqrt"), doc="The square root.")
    exp = property(lambda self: self._call("exp"), doc="e to the power of the value.")
    ln = property(lambda self: self._call("ln"), doc="The natural logarithm.")
    log10 = property(lambda self: self._call("log10"), doc="The base 10 logarithm.")
    log2 = property(lambda self: self._call("log2"), doc="The base 2 logarithm.")
    sin = property(lambda self: self._call("sin"), doc="The sine.")
    cos = property(lambda self: self._call("cos"), doc="The cosine.")
    tan = property(lambda self: self._call("tan"), doc="The tangent.")
    cot = property(lambda self: self._call("cot"), doc="The cotangent.")
    asin = property(lambda self: self._call("asin"), doc="The arc sine.")
    acos = property(lambda self: self._call("acos"), doc="The arc cosine.")
    atan = property(lambda self: self._call("atan"), doc="The arc tangent.")
    sinh = property(lambda self: self._call("sinh"), doc="The hyperbolic sine.")
    cosh = property(lambda self: self._call("cosh"), doc="The hyperbolic cosine.")
    tanh = property(lambda self: self._call("tanh"), doc="The hyperbolic tangent.")
    degrees = property(lambda self: self._call("degrees"), doc="Radians converted to degrees.")
    radians = property(lambda self: self._call("radians"), doc="Degrees converted to radians.")
    sign = property(lambda self: self._call("sign"),
                    doc="-1, 0 or 1 as the value is negative, zero or positive (of the value's type).")

    def log(self, base=None):
        """The natural logarithm, or the logarithm to ``base``."""
        if base is None:
            return self.ln
        return builtin_call("log", (base, self))

    def floor(self, time_interval_unit=None):
        """The largest integer not above the number, or a date/timestamp rounded down to ``time_interval_unit``."""
        return self._rounded("floor", time_interval_unit)

    def ceil(self, time_interval_unit=None):
        """The smallest integer not below the number, or a date/timestamp rounded up to ``time_interval_unit``."""
        return self._rounded("ceil", time_interval_unit)

    def _rounded(self, name: str, unit: Any):
        return self._call(name, parameters=() if unit is None else (_unit(unit, name, _TIME_UNITS),))

    def round(self, places):
        """The number rounded to ``places`` decimals, half away from zero."""
        return self._call("round", places)

    def truncate(self, n=0):
        """The number cut to ``n`` decimals (towards zero)."""
        return self._call("truncate", n)

    bin = property(lambda self: self._call("bin"), doc="The integer's binary digits (64-bit two's complement "
                                                       "for negatives).")
    hex = property(lambda self: self._call("hex"), doc="The integer's hexadecimal digits, or a string's bytes in "
                                                       "hexadecimal (upper case).")
    unhex = property(lambda self: self._call("unhex"), doc="The bytes of a hexadecimal string (null when it is "
                                                           "not one).")

    # -- strings -----------------------------------------------------------------------------------

    upper_case = property(lambda self: self._call("upper"), doc="The string in upper case.")
    lower_case = property(lambda self: self._call("lower"), doc="The string in lower case.")
    char_length = property(lambda self: self._call("charLength"), doc="The number of characters.")
    reverse = property(lambda self: self._call("reverse"), doc="The string reversed.")
    init_cap = property(lambda self: self._call("initCap"),
                        doc="Each word (a run of ASCII letters and digits) starting upper case, the rest lower case.")
    to_base64 = property(lambda self: self._call("toBase64"), doc="The string's UTF-8 bytes in base64.")
    from_base64 = property(lambda self: self._call("fromBase64"), doc="The string of base64 text (UTF-8).")
    md5 = property(lambda self: self._call("md5"), doc="The MD5 digest in hexadecimal.")
    sha1 = property(lambda self: self._call("sha1"), doc="The SHA-1 digest.")
    sha224 = property(lambda self: self._call("sha224"), doc="The SHA-224 digest.")
    sha256 = property(lambda self: self._call("sha256"), doc="The SHA-256 digest.")
    sha384 = property(lambda self: self._call("sha384"), doc="The SHA-384 digest.")
    sha512 = property(lambda self: self._call("sha512"), doc="The SHA-512 digest.")

    def sha2(self, hash_length):
        """The SHA-2 digest of ``hash_length`` bits (224, 256, 384 or 512)."""
        bits = literal(hash_length)
        if bits not in (224, 256, 384, 512):
            raise ValueError(f"sha2 takes a literal hash length of 224, 256, 384 or 512, got {hash_length!r}")
        return self._call("sha2", bits)

    ascii = property(lambda self: self._call("ascii"),
                     doc="The first UTF-8 byte of the string, signed (0 for an empty string).")
    chr = property(lambda self: self._call("chr"),
                   doc="The character of the code ``value % 256`` (empty for a negative value).")

    def trim(self, character=None):
        """The string without leading and trailing ``character`` (default: spaces)."""
        return self._call("trim", " " if character is None else character)

    def trim_leading(self, character=None):
        """The string without leading ``character`` (default: spaces)."""
        return self._call("trimLeading", " " if character is None else character)

    def trim_trailing(self, character=None):
        """The string without trailing ``character`` (default: spaces)."""
        return self._call("trimTrailing", " " if character is None else character)

    def btrim(self, trim_str=None):
        """The string without leading and trailing characters of ``trim_str`` (default: spaces)."""
        return self._call("btrim", " " if trim_str is None else trim_str)

    def ltrim(self, trim_str=None):
        """The string without leading characters of ``trim_str`` (default: spaces)."""
        return self._call("ltrim", " " if trim_str is None else trim_str)

    def rtrim(self, trim_str=None):
        """The string without trailing characters of ``trim_str`` (default: spaces)."""
        return self._call("rtrim", " " if trim_str is None else trim_str)

    def substring(self, begin_index, length=None):
        """``length`` characters (default: to the end) from the 1-based ``begin_index`` (null for a negative
        ``length``)."""
        return self._call("substring", begin_index, *_given(length))

    substr = substring

    def replace(self, search=None, replacement=None):
        """The string with every ``search`` replaced by ``replacement``."""
        return self._call("replace", search, replacement)

    def repeat(self, n):
        """The string ``n`` times."""
        return self._call("repeat", n)

    def lpad(self, length, pad):
        """The string left-padded with ``pad`` (or cut) to ``length`` characters (null for an empty ``pad``)."""
        return self._call("lpad", length, pad)

    def rpad(self, length, pad):
        """The string right-padded with ``pad`` (or cut) to ``length`` characters (null for an empty ``pad``)."""
        return self._call("rpad", length, pad)

    def overlay(self, new_string, starting, length=None):
        """The string with ``length`` characters (default: ``new_string``'s length) from ``starting`` replaced."""
        return self._call("overlay", new_string, starting, *_given(length))

    def position(self, haystack=None):
        """The 1-based position of this string in ``haystack`` (0 when absent)."""
        return self._call("position", haystack)

    def locate(self, s, pos=None):
        """The 1-based position of this string in ``s`` from position ``pos`` (0 when absent)."""
        return self._call("locate", s, *_given(pos))

    def instr(self, s):
        """The 1-based position of ``s`` in this string (0 when absent)."""
        return self._call("instr", s)

    def left(self, length):
        """The first ``length`` characters."""
        return self._call("left", length)

    def right(self, length):
        """The last ``length`` characters."""
        return self._call("right", length)

    def concat(self, other):
        """This string followed by ``other``."""
        return concat(self, other)

    def starts_with(self, start_expr):
        """Whether the string starts with ``start_expr``."""
        return self._call("startsWith", start_expr)

    def ends_with(self, end_expr):
        """Whether the string ends with ``end_expr``."""
        return self._call("endsWith", end_expr)

    def split_index(self, separator, index):
        """The ``index``-th (0-based) part of the string split at ``separator`` (null when there is none)."""
        return self._call("splitIndex", separator, index)

    def split(self, delimiter):
        """The array of the string's parts between ``delimiter`` (each character when it is empty)."""
        return self._call("split", delimiter)

    def regexp(self, regex):
        """Whether a part of the string matches the (Java) regular expression."""
        return self._call("regexp", regex)

    def regexp_replace(self, regex, replacement):
        """The string with each match of ``regex`` replaced by ``replacement`` (inserted as it is, as Flink does)."""
        return self._call("regexpReplace", regex, replacement)

    def regexp_extract(self, regex, extract_index=None):
        """The ``extract_index``-th group (default: the whole match) of the first match, null when none."""
        return self._call("regexpExtract", regex, *_given(extract_index))

    def regexp_count(self, regex):
        """How many times the regular expression matches."""
        return self._call("regexpCount", regex)

    def regexp_substr(self, regex):
        """The first match of the regular expression (null when none)."""
        return self._call("regexpSubstr", regex)

    def regexp_instr(self, regex):
        """The 1-based position of the first match (0 when none)."""
        return self._call("regexpInstr", regex)

    def regexp_extract_all(self, regex, extract_index=None):
        """The ``extract_index``-th group (default: the first) of every match."""
        return self._call("regexpExtractAll", regex, *_given(extract_index))

    def translate(self, from_str, to_str):
        """The string with each character of ``from_str`` replaced by the one at its place in ``to_str``
        (removed when ``to_str`` is shorter)."""
        return self._call("translate", from_str, to_str)

    def url_encode(self):
        """The string encoded for a URL's query (``application/x-www-form-urlencoded``)."""
        return self._call("urlEncode")

    def url_decode(self):
        """The string of URL-encoded text (null when it is not)."""
        return self._call("urlDecode")

    def encode(self, charset):
        """The string's bytes in ``charset``."""
        return self._call("encode", charset)

    def decode(self, charset):
        """The string of bytes in ``charset``."""
        return self._call("decode", charset)

    def elt(self, expr, *exprs):
        """The ``value``-th (1-based) of the expressions (null when out of range)."""
        return self._call("elt", expr, *exprs)

    # -- casts -------------------------------------------------------------------------------------

    def cast(self, data_type: DataType):
        """The value as ``data_type`` (a value that does not convert fails the job, as in Flink)."""
        return self._cast(data_type, False)

    def try_cast(self, data_type: DataType):
        """The value as ``data_type``, null when it does not convert."""
        return self._cast(data_type, True)

    def _cast(self, target: DataType, lenient: bool):
        from kindling.table.expressions import node

        if target.type_name not in CASTABLE:
            raise ValueError(f"cast to {target!r} is not supported by Kindling yet; cast to numbers, strings, "
                             "BOOLEAN, DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ, ROW, ARRAY or MAP")
        name = f"{self._name}-{target!r}" if self._kind == "column" and not lenient else None  # as the Table API
        return node("call", (self,), ("tryCast" if lenient else "cast", (target,)),
                    f"{'tryCast' if lenient else 'cast'}({self._text}, {target!r})", name)

    # -- dates and times ---------------------------------------------------------------------------

    def extract(self, time_interval_unit):
        """A field (YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND; SQL's DOW and DOY too) of a
        date or timestamp."""
        return self._call("extract", parameters=(_unit(time_interval_unit, "extract", [*_TIME_UNITS, "DOW", "DOY"]),))

    @property
    def to_date(self):
        """The string (``yyyy-MM-dd``) cast to DATE."""
        return self.cast(DataTypes.DATE())

    @property
    def to_timestamp(self):
        """The string (``yyyy-MM-dd HH:mm:ss[.SSS]``) cast to TIMESTAMP(3)."""
        return self.cast(DataTypes.TIMESTAMP(3))

    @property
    def to_time(self):
        """The string (``HH:mm:ss``) cast to TIME(0)."""
        return self.cast(DataTypes.TIME(0))

    # -- collections and rows ----------------------------------------------------------------------

    def at(self, index):
        """The array's element at the 1-based ``index``, or the map's value of the key ``index``."""
        return self._call("at", index)

    __getitem__ = at

    def get(self, name_or_index):
        """The field of a row, by name or 0-based index."""
        if not isinstance(name_or_index, (str, int)):
            raise ValueError(f"get takes a field name or index, got {name_or_index!r}")
        return self._call("get", parameters=(name_or_index,))

    cardinality = property(lambda self: self._call("cardinality"),
                           doc="The number of elements of an array or entries of a map.")
    element = property(lambda self: self._call("element"),
                       doc="The one element of an array (null when empty; an array of more fails).")

    def array_contains(self, needle):
        """Whether the array holds ``needle``."""
        return self._call("arrayContains", needle)

    def array_distinct(self):
        """The array without repeated elements (first ones kept)."""
        return self._call("arrayDistinct")

    def array_position(self, needle):
        """The 1-based position of ``needle`` in the array (0 when absent)."""
        return self._call("arrayPosition", needle)

    def array_remove(self, needle):
        """The array without the elements equal to ``needle``."""
        return self._call("arrayRemove", needle)

    def array_reverse(self):
        """The array in reverse order."""
        return self._call("arrayReverse")

    def array_slice(self, start_offset, end_offset=None):
        """The elements from ``start_offset`` to ``end_offset`` (1-based, inclusive; negative: from the end)."""
        return self._call("arraySlice", start_offset, *_given(end_offset))

    def array_union(self, array):
        """The distinct elements of both arrays."""
        return self._call("arrayUnion", array)

    def array_concat(self, *arrays):
        """The arrays' elements one after the other."""
        return self._call("arrayConcat", *arrays)

    def array_max(self):
        """The largest element (null when empty)."""
        return self._call("arrayMax")

    def array_min(self):
        """The smallest element (null when empty)."""
        return self._call("arrayMin")

    def array_join(self, delimiter, null_replacement=None):
        """The elements as text between ``delimiter`` (nulls left out, or as ``null_replacement``)."""
        return self._call("arrayJoin", delimiter, *_given(null_replacement))

    def array_append(self, addition):
        """The array with ``addition`` at the end."""
        return self._call("arrayAppend", addition)

    def array_prepend(self, addition):
        """The array with ``addition`` first."""
        return self._call("arrayPrepend", addition)

    def array_except(self, array):
        """The distinct elements of the array not in ``array``."""
        return self._call("arrayExcept", array)

    def array_intersect(self, array):
        """The distinct elements of the array also in ``array``."""
        return self._call("arrayIntersect", array)

    def array_sort(self, ascending_order=None, null_first=None):
        """The array sorted (ascending, nulls first, unless told otherwise)."""
        return self._call("arraySort", *_given(ascending_order, null_first))

    map_keys = property(lambda self: self._call("mapKeys"), doc="The map's keys, as an array.")
    map_values = property(lambda self: self._call("mapValues"), doc="The map's values, as an array.")
    map_entries = property(lambda self: self._call("mapEntries"),
                           doc="The map's entries, as an array of rows (``key``, ``value``).")

    def str_to_map(self, list_delimiter=None, key_value_delimiter=None):
        """The map of ``k=v`` pairs between ``,`` (or the delimiters, Java regular expressions) in the string;
        a repeated key keeps its last value."""
        return self._call("strToMap", *_given(list_delimiter, key_value_delimiter))

    def parse_url(self, part_to_extract, key=None):
        """A part (HOST, PATH, QUERY, REF, PROTOCOL, FILE, AUTHORITY, USERINFO) of the URL, or the value of
        ``key`` in its QUERY; null when there is none."""
        return self._call("parseUrl", part_to_extract, *_given(key))

    def printf(self, *obj):
        """This format string (Java's ``%s``, ``%d``, ``%.2f``, ...) filled with the values."""
        return self._call("printf", *obj)

    def inet_aton(self):
        """The number of an IPv4 address text (null when it is not one)."""
        return self._call("inetAton")

    def inet_ntoa(self):
        """The IPv4 address text of a number (null when out of range)."""
        return self._call("inetNtoa")

    def map_union(self, *maps):
        """The maps' entries, later maps' values for repeated keys."""
        return self._call("mapUnion", *maps)


# -- functions of pyflink.table.expressions --------------------------------------------------------

def if_then_else(condition, if_true, if_false):
    """``if_true`` when ``condition`` is true, else ``if_false``."""
    return builtin_call("if", (condition, if_true, if_false))


def coalesce(*args):
    """The first argument that is not null."""
    if not args:
        raise ValueError("coalesce takes at least one argument")
    return builtin_call("coalesce", args)


def concat(first, *others):
    """The strings one after the other (null when one is null)."""
    return builtin_call("concat", (first, *others))


def concat_ws(separator, first, *others):
    """The strings that are not null, between ``separator`` (null when it is null)."""
    return builtin_call("concat_ws", (separator, first, *others))


def negative(v):
    """The value negated."""
    from kindling.table.expressions import _expr

    return -_expr(v)


def log(v, base=None):
    """The natural logarithm of ``v``, or its logarithm to ``base`` (as PyFlink's ``log(v, base)``)."""
    if base is None:
        from kindling.table.expressions import _expr

        return _expr(v).ln
    return builtin_call("log", (base, v))


def atan2(y, x):
    """The angle of the point (``x``, ``y``)."""
    return builtin_call("atan2", (y, x))


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
    return builtin_call("rand", _given(seed))


def rand_integer(bound, seed=None):
    """A random integer in [0, ``bound``)."""
    return builtin_call("randInteger", (bound, *_given(seed)))


def uuid():
    """A random UUID text."""
    return builtin_call("uuid", ())


def null_of(data_type: DataType):
    """A null of ``data_type``."""
    return builtin_call("nullOf", (), (data_type,))


def current_database():
    """The TableEnvironment's current database when the query is planned (at ``execute``, as Flink's)."""
    return builtin_call("currentDatabase", (), display="CURRENT_DATABASE")


def call_sql(sql_expression: str):
    """The Table API expression of a SQL expression (``call_sql("UPPER(name)")``)."""
    from kindling.table.sql import sql_expression as parsed

    return parsed(sql_expression)


def current_date():
    """Today's date (UTC, Kindling's session time zone)."""
    return builtin_call("currentDate", ())


def current_timestamp():
    """The current time, a TIMESTAMP_LTZ(3)."""
    return builtin_call("currentTimestamp", ())


def local_timestamp():
    """The current time in the session time zone (UTC), a TIMESTAMP(3)."""
    return builtin_call("localTimestamp", ())


def current_time():
    """The current time of day (UTC), a TIME(0)."""
    return builtin_call("currentTime", ())


local_time = current_time


def convert_tz(date_str, tz_from, tz_to):
    """A ``yyyy-MM-dd HH:mm:ss`` time in time zone ``tz_from`` as the time in ``tz_to``."""
    return builtin_call("convertTz", (date_str, tz_from, tz_to))


def to_date(date_str, format=None):
    """The DATE of a string in ``format`` (default ``yyyy-MM-dd``); null when it does not fit."""
    return builtin_call("toDate", (date_str, *_given(format)))


def to_timestamp(timestamp_str, format=None):
    """The TIMESTAMP(3) of a string in ``format`` (default ``yyyy-MM-dd HH:mm:ss``); null when it does not fit."""
    return builtin_call("toTimestamp", (timestamp_str, *_given(format)))


def to_timestamp_ltz(*args):
    """The TIMESTAMP_LTZ(3) of epoch seconds (``precision`` 0) or milliseconds (3, the default):
    ``to_timestamp_ltz(numeric[, precision])``."""
    if not args or len(args) > 2:
        raise ValueError("to_timestamp_ltz takes a number of epoch seconds or milliseconds and a precision (0 or 3)")
    precision = literal(args[1]) if len(args) > 1 else 3
    if precision not in (0, 3):
        raise ValueError(f"to_timestamp_ltz: the precision is 0 (seconds) or 3 (milliseconds), got {args[1]!r}")
    return builtin_call("toTimestampLtz", args[:1], (precision,))


def unix_timestamp(date_str=None, format=None):
    """Epoch seconds of a ``yyyy-MM-dd HH:mm:ss`` string (or one in ``format``; the smallest BIGINT when it
    does not fit, as in Flink); now without one."""
    return builtin_call("unixTimestamp", _given(date_str, format))


def from_unixtime(unixtime, format=None):
    """Epoch seconds as text in ``format`` (default ``yyyy-MM-dd HH:mm:ss``), in UTC."""
    return builtin_call("fromUnixtime", (unixtime, *_given(format)))


def date_format(timestamp, format):
    """A date or timestamp as text in the Java date pattern ``format``."""
    return builtin_call("dateFormat", (timestamp, format))


def timestamp_diff(time_point_unit, time_point1, time_point2):
    """Whole ``time_point_unit`` units from ``time_point1`` to ``time_point2``."""
    unit = _unit(time_point_unit, "timestamp_diff", ["YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE",
                                                     "SECOND", "MILLISECOND", "MICROSECOND"])
    return builtin_call("timestampDiff", (time_point1, time_point2), (unit,))


def array(head, *tail):
    """An array of the values."""
    return builtin_call("array", (head, *tail))


def row(head, *tail):
    """A row of the values (fields ``f0``, ``f1``, ...)."""
    return builtin_call("row", (head, *tail))


def map_(key, value, *tail):
    """A map of the keys and values, alternating."""
    if len(tail) % 2:
        raise ValueError("map_ takes keys and values in pairs")
    return builtin_call("map", (key, value, *tail))


def map_from_arrays(key, value):
    """A map of an array of keys and an array of values."""
    return builtin_call("mapFromArrays", (key, value))


# -- column selections (``select(with_columns(range_(1, 3)))``), expanded by Table.select ------------

def selected(mode: str, items: tuple, names: List[str]) -> List[str]:
    """The column names a selection (``with``: ``items``; ``without``: all but ``items``; ``all``) picks."""
    if mode == "all":
        return list(names)
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
    return chosen if mode == "with" else [n for n in names if n not in chosen]


def _selection(mode: str, items: tuple, text: str):
    from kindling.table.expressions import node

    return node("selection", (), (mode, items), text)


def range_(start: Any, end: Any):
    """The columns from ``start`` to ``end`` (names or 1-based positions), for with_columns/without_columns."""
    from kindling.table.expressions import node

    return node("range", (), (start, end), f"range({start}, {end})")


def with_columns(head: Any, *tails: Any):
    """The columns named, numbered (1-based) or in ``range_``s, in a select."""
    return _selection("with", (head, *tails), f"withColumns({head}, ...)")


def without_columns(head: Any, *tails: Any):
    """The table's columns but those named, numbered or in ``range_``s, in a select."""
    return _selection("without", (head, *tails), f"withoutColumns({head}, ...)")


def with_all_columns():
    """All the table's columns, in a select."""
    return _selection("all", (), "withAllColumns()")


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
