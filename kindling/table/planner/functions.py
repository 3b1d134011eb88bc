"""Flink's built-in functions, each defined once: its name (Flink's Table API name, which calls and
plans use), its SQL names, its result type of the operands' types, whether a null operand makes a
null result (strict), whether it is deterministic, and whether Spark's own function gives Flink's
answer (where it does, Spark's JVM operators may compute it; else it runs in the table's Python pass).

Every definition has a Python implementation (kindling/runtime/table/functions.py) and, where
``spark`` allows, a Spark one (kindling/spark/table/functions.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from kindling.table.planner.types import MAX_DECIMAL_PRECISION, NUMERIC, arithmetic_type, common_type, precision_scale
from kindling.table.types import DataType, DataTypes

__all__ = ["AGGREGATES", "BUILTINS", "CASTABLE", "NOT_LITERAL", "REFUSED", "AggregateDefinition",
           "FunctionDefinition", "by_sql_name", "element_type", "field_name", "refusal"]

#: what a spark predicate sees for an operand that is not a literal
NOT_LITERAL = type("NotLiteral", (), {"__repr__": lambda self: "NOT_LITERAL"})()

#: a result type of the operands' types and the call's parameters
TypeRule = Callable[[List[DataType], Tuple[Any, ...]], DataType]
#: whether Spark computes a call as Flink does, of its operands' literal values (NOT_LITERAL for
#: the others) and its parameters
SparkRule = Callable[[Tuple[Any, ...], Tuple[Any, ...]], bool]


@dataclass(frozen=True)
class FunctionDefinition:
    """A built-in scalar function. ``parameters``: what its calls' constant parameters are (a time unit,
    a JSON path: no expressions), None when it takes none; ``nullable``: whether the result may be null
    (None: when an operand may, for a ``strict`` function, else as ``result`` types it); ``check``: a
    problem with the operands' types and texts, or None; ``places``: the position of the literal operand
    whose number of decimal places sets a DECIMAL result's scale (ROUND, TRUNCATE: 0 when absent)."""
    name: str
    result: TypeRule
    sql: Tuple[str, ...] = ()
    parameters: Optional[str] = None
    strict: bool = True
    nullable: Optional[bool] = None
    spark: Union[bool, SparkRule] = True
    deterministic: bool = True
    check: Optional[Callable[[List[DataType], Tuple[Any, ...], Sequence[str]], Optional[str]]] = None
    places: Optional[int] = None

    def result_type(self, types: List[DataType], parameters: Tuple[Any, ...], literals: Tuple[Any, ...] = ()) -> DataType:
        """The call's type, nullable as the definition says (``literals``: the operands' literal values,
        NOT_LITERAL for the others)."""
        typed = self.result(types, parameters)
        if self.places is not None and typed.type_name == "DECIMAL":
            places = literals[self.places] if self.places < len(literals) else 0
            typed = typed if places is NOT_LITERAL else _rounded_decimal(typed, places)
        null = self.nullable if self.nullable is not None else \
            any(t._nullable for t in types) if self.strict else typed._nullable
        return typed.nullable() if null else typed.not_null()

    def in_spark(self, literals: Tuple[Any, ...], parameters: Tuple[Any, ...]) -> bool:
        """Whether Spark's function gives Flink's answer for a call of these literal operands
        (NOT_LITERAL for others) and parameters."""
        return self.spark if isinstance(self.spark, bool) else self.spark(literals, parameters)


@dataclass(frozen=True)
class AggregateDefinition:
    """A built-in aggregate function: its result type of its argument's type (failing on a wrong one)."""
    name: str
    result: Callable[[DataType, Tuple[Any, ...]], DataType]
    sql: Tuple[str, ...] = ()


# -- type rules ---------------------------------------------------------------------------------

def _rounded_decimal(decimal: DataType, places: int) -> DataType:
    """A DECIMAL rounded to ``places`` decimal places, typed as Flink types it (ROUND, TRUNCATE)."""
    precision, scale = precision_scale(decimal)
    if places >= scale:
        return decimal
    kept = max(places, 0)
    return DataTypes.DECIMAL(min(MAX_DECIMAL_PRECISION, 1 + precision - scale + kept), kept)


def _whole(types, parameters) -> DataType:
    """FLOOR or CEIL: a DECIMAL loses its decimal places (Flink keeps its precision); others keep their type."""
    typed = types[0]
    return DataTypes.DECIMAL(precision_scale(typed)[0], 0) if typed.type_name == "DECIMAL" and not parameters \
        else typed


def _fixed(data_type: DataType) -> TypeRule:
    return lambda types, parameters: data_type


_STRING, _BOOLEAN, _INT, _BIGINT, _DOUBLE = (_fixed(DataTypes.STRING()), _fixed(DataTypes.BOOLEAN()),
                                             _fixed(DataTypes.INT()), _fixed(DataTypes.BIGINT()),
                                             _fixed(DataTypes.DOUBLE()))


def _first(types, parameters) -> DataType:
    return types[0]


def element_type(types: List[DataType], parameters: Tuple = ()) -> DataType:
    """The (nullable) element type of an ARRAY or the value type of a MAP, the first operand."""
    container = types[0]
    element = getattr(container, "element_type", None) or getattr(container, "value_type", None)
    if element is None:
        raise ValueError(f"an element of {container!r}: the argument must be an ARRAY or a MAP")
    return element.nullable()


def _of_rest(what: str) -> TypeRule:
    return lambda types, parameters: common_type(types[1:], what)


def _coalesced(types, parameters) -> DataType:
    typed = common_type(types, "coalesce")
    return typed.nullable() if all(t._nullable for t in types) else typed.not_null()


def _array(types, parameters) -> DataType:
    return DataTypes.ARRAY(common_type(types, "array"))


def _row(types, parameters) -> DataType:
    names = parameters[0] if parameters else [f"f{i}" for i in range(len(types))]
    return DataTypes.ROW([DataTypes.FIELD(n, t) for n, t in zip(names, types)])


def _map(types, parameters) -> DataType:
    return DataTypes.MAP(common_type(types[::2], "map_ keys"), common_type(types[1::2], "map_ values"))


def _field(types, parameters) -> DataType:
    row, key = types[0], parameters[0]
    names = [f.name for f in getattr(row, "fields", [])]
    name = field_name(row, key)
    if name is None:
        raise ValueError(f"get({key!r}): {row!r} has no such field; fields: {names}")
    return row.fields[names.index(name)].data_type


def field_name(row: DataType, key: Union[str, int]) -> Optional[str]:
    """The name of a ROW's field by name or 0-based index (None when there is none)."""
    names = [f.name for f in getattr(row, "fields", [])]
    name = key if isinstance(key, str) else names[key] if isinstance(key, int) and 0 <= key < len(names) else None
    return name if name in names else None


def _map_entries(types, parameters) -> DataType:
    return DataTypes.ARRAY(DataTypes.ROW([DataTypes.FIELD("key", types[0].key_type),
                                          DataTypes.FIELD("value", types[0].value_type)]))


def _arithmetic(symbol: str) -> TypeRule:
    return lambda types, parameters: arithmetic_type(symbol, types[0], types[1], "negation" in parameters)


def _numeric_operands(symbol: str):
    def check(types, parameters, texts) -> Optional[str]:
        names = [t.type_name for t in types]
        if all(t in NUMERIC or t == "DECIMAL" for t in names):
            return None
        return f"'{texts[0]} {symbol} {texts[1]}': {symbol} needs numeric operands, got {' and '.join(names)}"
    return check


#: the time units whose TIMESTAMPADD to a DATE gives a DATE
_DATE_UNITS = ("YEAR", "QUARTER", "MONTH", "WEEK", "DAY")


def _shifted_time(types, parameters) -> DataType:
    """A time moved by TIMESTAMPADD or by an interval keeps its type; a DATE moved by hours or less with
    TIMESTAMPADD becomes a TIMESTAMP(6) (an interval added to a DATE adds its whole days), as in Flink."""
    time = types[1]
    if time.type_name == "DATE" and parameters[0] not in _DATE_UNITS and "interval" not in parameters:
        return DataTypes.TIMESTAMP(6)
    return time


def _time_shift(types, parameters, texts) -> Optional[str]:
    names = [t.type_name for t in types]
    if names[0] not in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
        return f"TIMESTAMPADD({parameters[0]}, {texts[0]}, {texts[1]}): the amount must be an integer, got {names[0]}"
    if names[1] not in ("DATE", "TIMESTAMP", "TIMESTAMP_LTZ"):
        return f"TIMESTAMPADD({parameters[0]}, {texts[0]}, {texts[1]}): the time must be a DATE, TIMESTAMP or " \
               f"TIMESTAMP_LTZ, got {names[1]}"
    return None


# -- which calls Spark computes as Flink does ----------------------------------------------------

def _literal(*positions: int) -> SparkRule:
    """Spark gives Flink's answer when the operands at ``positions`` (those given) are literals."""
    return lambda literals, parameters: all(literals[p] is not NOT_LITERAL for p in positions if p < len(literals))


def _split_index_in_spark(literals, parameters) -> bool:
    return literals[1] is not NOT_LITERAL and literals[2] is not NOT_LITERAL and literals[1] != ""


def _distinct_literal_keys(literals, parameters) -> bool:
    """Spark fails on a repeated map key (Flink keeps the last value): keys known to differ only."""
    keys = literals[::2]
    return all(k is not NOT_LITERAL for k in keys) and len(set(keys)) == len(keys)


def _time_unit_in_spark(literals, parameters) -> bool:
    return parameters[0] in ("DAY", "HOUR", "MINUTE", "SECOND")


# -- the definitions ----------------------------------------------------------------------------

_DEFINITIONS: List[FunctionDefinition] = []


def _define(name: str, result: TypeRule, *sql: str, **properties: Any) -> None:
    _DEFINITIONS.append(FunctionDefinition(name, result, tuple(sql), **properties))


# logic and comparison (Flink types them BOOLEAN, nullable)
for _name, _sql in (("equals", "="), ("notEquals", "<>"), ("lessThan", "<"), ("lessThanOrEqual", "<="),
                    ("greaterThan", ">"), ("greaterThanOrEqual", ">=")):
    _define(_name, _BOOLEAN, _sql, nullable=True)
_define("and", _BOOLEAN, "AND", strict=False, nullable=True)
_define("or", _BOOLEAN, "OR", strict=False, nullable=True)
_define("not", _BOOLEAN, "NOT", nullable=True)
for _name, _sql in (("isNull", "IS NULL"), ("isNotNull", "IS NOT NULL"), ("isTrue", "IS TRUE"),
                    ("isFalse", "IS FALSE"), ("isNotTrue", "IS NOT TRUE"), ("isNotFalse", "IS NOT FALSE")):
    _define(_name, _BOOLEAN, _sql, strict=False, nullable=False)
_define("in", _BOOLEAN, "IN", strict=False, nullable=True)
_define("like", _BOOLEAN, "LIKE", parameters="(escape,)")
_define("similar", _BOOLEAN, "SIMILAR TO", spark=_literal(1))
_define("if", _of_rest("if_then_else"), "IF", strict=False)
_define("coalesce", _coalesced, "COALESCE", strict=False)
_define("null", _first, strict=False, nullable=True)  # a null of its operand's type
_define("nullOf", lambda types, parameters: parameters[0], parameters="(type,)", strict=False, nullable=True)

# arithmetic
for _name, _symbol in (("plus", "+"), ("minus", "-"), ("times", "*"), ("divide", "/"), ("mod", "%")):
    _define(_name, _arithmetic(_symbol), _symbol, *(("MOD",) if _symbol == "%" else ()),
            parameters="() or ('negation',): SQL's unary minus, written 0 - x" if _name == "minus" else None,
            check=_numeric_operands(_symbol))
_define("minusPrefix", _first, "-")
_define("abs", _first, "ABS")
_define("power", _DOUBLE, "POWER", "POW")
for _name in ("sqrt", "exp", "sin", "cos", "tan", "cot", "asin", "acos", "atan", "sinh", "cosh", "tanh", "degrees",
              "radians", "ln", "log10", "log2"):
    _define(_name, _DOUBLE, _name.upper())
_define("log", _DOUBLE, "LOG")  # of (base, value)
_define("atan2", _DOUBLE, "ATAN2")
_define("sign", _first, "SIGN")
_define("floor", _whole, "FLOOR", parameters="() or (time unit,)")
_define("ceil", _whole, "CEIL", "CEILING", parameters="() or (time unit,)",
        spark=lambda literals, parameters: not parameters)
_define("round", _first, "ROUND", spark=_literal(1), places=1)
_define("truncate", _first, "TRUNCATE", spark=False, places=1)
_define("bin", _STRING, "BIN")
_define("hex", _STRING, "HEX")
_define("unhex", _fixed(DataTypes.BYTES()), "UNHEX", nullable=True)
_define("rand", _DOUBLE, "RAND", nullable=False, deterministic=False, spark=_literal(0))
_define("randInteger", _INT, "RAND_INTEGER", deterministic=False, spark=_literal(1))
_define("uuid", _fixed(DataTypes.CHAR(36)), "UUID", nullable=False, deterministic=False)

# strings
_define("upper", _STRING, "UPPER", "UCASE")
_define("lower", _STRING, "LOWER", "LCASE")
_define("charLength", _INT, "CHAR_LENGTH", "CHARACTER_LENGTH", "LENGTH")
_define("reverse", _first, "REVERSE")
_define("initCap", _STRING, "INITCAP", spark=False)
_define("toBase64", _STRING, "TO_BASE64")
_define("fromBase64", _STRING, "FROM_BASE64")
for _name, _length in (("md5", 32), ("sha1", 40), ("sha224", 56), ("sha256", 64), ("sha384", 96), ("sha512", 128)):
    _define(_name, _fixed(DataTypes.CHAR(_length)), _name.upper())
_define("sha2", _fixed(DataTypes.VARCHAR(128)), spark=_literal(1))  # of (string, bits): 224, 256, 384 or 512
_define("ascii", _INT, "ASCII")
_define("chr", _STRING, "CHR")
_define("trim", _STRING, "TRIM")
_define("trimLeading", _STRING)
_define("trimTrailing", _STRING)
_define("btrim", _STRING, "BTRIM")
_define("ltrim", _STRING, "LTRIM")
_define("rtrim", _STRING, "RTRIM")
_define("substring", _STRING, "SUBSTRING", "SUBSTR")
_define("replace", _STRING, "REPLACE")
_define("repeat", _STRING, "REPEAT")
_define("lpad", _STRING, "LPAD", nullable=True)
_define("rpad", _STRING, "RPAD", nullable=True)
_define("overlay", _STRING, "OVERLAY")
_define("position", _INT, "POSITION")
_define("locate", _INT, "LOCATE")
_define("instr", _INT, "INSTR")
_define("left", _STRING, "LEFT")
_define("right", _STRING, "RIGHT")
_define("concat", _STRING, "CONCAT", "||")
_define("concat_ws", lambda types, parameters: DataTypes.STRING(any(t._nullable for t in types)), "CONCAT_WS",
        strict=False)
_define("startsWith", _BOOLEAN, "STARTSWITH")
_define("endsWith", _BOOLEAN, "ENDSWITH")
_define("splitIndex", _STRING, "SPLIT_INDEX", nullable=True, spark=_split_index_in_spark)
_define("split", _fixed(DataTypes.ARRAY(DataTypes.STRING())), "SPLIT", spark=_literal(1))
_define("regexp", _BOOLEAN, "REGEXP")
_define("regexpReplace", _STRING, "REGEXP_REPLACE")
_define("regexpExtract", _STRING, "REGEXP_EXTRACT", nullable=True, spark=_literal(1, 2))
_define("regexpCount", _INT, "REGEXP_COUNT", nullable=True)
_define("regexpSubstr", _STRING, "REGEXP_SUBSTR", nullable=True)
_define("regexpInstr", _INT, "REGEXP_INSTR", nullable=True)
_define("regexpExtractAll", _fixed(DataTypes.ARRAY(DataTypes.STRING())), "REGEXP_EXTRACT_ALL", nullable=True,
        spark=_literal(1, 2))
_define("translate", _STRING, "TRANSLATE", spark=_literal(1, 2))
_define("urlEncode", _STRING, "URL_ENCODE")
_define("urlDecode", _STRING, "URL_DECODE", nullable=True)
_define("encode", _fixed(DataTypes.BYTES()), "ENCODE", spark=_literal(1))
_define("decode", _STRING, "DECODE", spark=_literal(1))
_define("elt", _of_rest("elt"), "ELT", strict=False, nullable=True)
_define("printf", _STRING, "PRINTF", strict=False, nullable=True)
_define("parseUrl", _STRING, "PARSE_URL", nullable=True)
_define("strToMap", _fixed(DataTypes.MAP(DataTypes.STRING(), DataTypes.STRING())), "STR_TO_MAP", spark=False)
_define("isAlpha", _BOOLEAN, "IS_ALPHA", strict=False, nullable=False, spark=False)
_define("isDigit", _BOOLEAN, "IS_DIGIT", strict=False, nullable=False, spark=False)
_define("greatest", lambda types, parameters: common_type(types, "greatest"), "GREATEST", spark=False)
_define("least", lambda types, parameters: common_type(types, "least"), "LEAST", spark=False)
_define("inetAton", _BIGINT, "INET_ATON", nullable=True, spark=False)
_define("inetNtoa", _STRING, "INET_NTOA", nullable=True, spark=False)

# casts: the target type is the parameter
#: the types Kindling casts to
CASTABLE = ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "STRING", "VARCHAR", "CHAR",
            "BOOLEAN", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ", "ROW", "ARRAY", "MAP")
#: what Spark casts as Flink does: not TIME (Spark has none), nested types only in Python (a ROW,
#: ARRAY or MAP cast converts its fields and elements with Flink's rules)


def _cast_type(types: list, parameters: tuple) -> DataType:
    source, target = types[0], parameters[0]
    if target.type_name in ("ROW", "ARRAY", "MAP") and source.type_name not in (target.type_name, "NULL"):
        raise ValueError(f"cast from {source!r} to {target!r} is not supported by Kindling yet (a {target.type_name} "
                         f"casts from a {target.type_name} only)")
    return target


_define("cast", _cast_type, "CAST", parameters="(target type,)",
        spark=lambda literals, parameters: parameters[0].type_name not in ("TIME", "ROW", "ARRAY", "MAP"))
_define("tryCast", _cast_type, "TRY_CAST", parameters="(target type,)", nullable=True,
        spark=lambda literals, parameters: parameters[0].type_name not in ("TIME", "ROW", "ARRAY", "MAP"))

# dates and times (time units are parameters)
_define("extract", _BIGINT, "EXTRACT", parameters="(time unit,)")
_define("dateFormat", _STRING, "DATE_FORMAT", spark=_literal(1))
_define("toDate", _fixed(DataTypes.DATE()), "TO_DATE", spark=_literal(1))
_define("toTimestamp", _fixed(DataTypes.TIMESTAMP(3)), "TO_TIMESTAMP", spark=_literal(1))
_define("toTimestampLtz", _fixed(DataTypes.TIMESTAMP_LTZ(3)), "TO_TIMESTAMP_LTZ", parameters="(precision,)")
_define("unixTimestamp", lambda types, parameters: DataTypes.BIGINT(bool(types)), "UNIX_TIMESTAMP", strict=False,
        spark=_literal(1), deterministic=False)
_define("fromUnixtime", _STRING, "FROM_UNIXTIME", spark=_literal(1))
_define("timestampDiff", _INT, "TIMESTAMPDIFF", parameters="(time unit,)", spark=_time_unit_in_spark)
_define("timestampAdd", _shifted_time, "TIMESTAMPADD", parameters="(time unit,) or (time unit, 'interval'): an "
        "interval of milliseconds added by + or -", check=_time_shift)
_define("convertTz", _STRING, "CONVERT_TZ", spark=False)
#: bound by the planner to the TableEnvironment's current database (kindling/table/planner/rules.py)
_define("currentDatabase", _fixed(DataTypes.STRING()), "CURRENT_DATABASE", nullable=False, spark=False,
        deterministic=False)
_define("currentDate", _fixed(DataTypes.DATE()), "CURRENT_DATE", nullable=False, deterministic=False)
_define("currentTimestamp", _fixed(DataTypes.TIMESTAMP_LTZ(3)), "CURRENT_TIMESTAMP", "NOW", nullable=False,
        deterministic=False)
_define("localTimestamp", _fixed(DataTypes.TIMESTAMP(3)), "LOCALTIMESTAMP", nullable=False, deterministic=False)
_define("currentTime", _fixed(DataTypes.TIME(0)), "CURRENT_TIME", "LOCALTIME", nullable=False, deterministic=False,
        spark=False)

# collections and rows
_define("array", _array, "ARRAY", strict=False, nullable=False)
_define("row", _row, "ROW", parameters="() or (field names,)", strict=False, nullable=False)
_define("map", _map, "MAP", strict=False, nullable=False, spark=_distinct_literal_keys)
_define("mapFromArrays", lambda types, parameters: DataTypes.MAP(types[0].element_type, types[1].element_type),
        "MAP_FROM_ARRAYS", spark=False)  # Spark fails on a repeated key, Flink keeps the last
_define("at", element_type, "ITEM", nullable=True)
_define("get", _field, parameters="(field name or index,)", nullable=True)
_define("cardinality", _INT, "CARDINALITY")
_define("element", element_type, "ELEMENT", nullable=True)
_define("arrayContains", _BOOLEAN, "ARRAY_CONTAINS", strict=False)  # a null needle finds a null element
_define("arrayDistinct", _first, "ARRAY_DISTINCT")
_define("arrayPosition", _INT, "ARRAY_POSITION")
_define("arrayRemove", _first, "ARRAY_REMOVE")
_define("arrayReverse", _first, "ARRAY_REVERSE")
_define("arraySlice", _first, "ARRAY_SLICE", spark=False)
_define("arrayUnion", _first, "ARRAY_UNION")
_define("arrayConcat", _first, "ARRAY_CONCAT")
_define("arrayMax", element_type, "ARRAY_MAX", nullable=True)
_define("arrayMin", element_type, "ARRAY_MIN", nullable=True)
_define("arrayJoin", _STRING, "ARRAY_JOIN", spark=_literal(1, 2))
_define("arrayAppend", _first, "ARRAY_APPEND", strict=False, nullable=True)
_define("arrayPrepend", _first, "ARRAY_PREPEND", strict=False, nullable=True)
_define("arrayExcept", _first, "ARRAY_EXCEPT")
_define("arrayIntersect", _first, "ARRAY_INTERSECT")
_define("arraySort", _first, "ARRAY_SORT", spark=False)
_define("mapKeys", lambda types, parameters: DataTypes.ARRAY(types[0].key_type), "MAP_KEYS")
_define("mapValues", lambda types, parameters: DataTypes.ARRAY(types[0].value_type), "MAP_VALUES")
_define("mapEntries", _map_entries, "MAP_ENTRIES")
_define("mapUnion", _first, "MAP_UNION", spark=False)

# JSON (Spark's get_json_object answers otherwise: all in Python)
_define("jsonValue", lambda types, parameters: parameters[2], "JSON_VALUE", nullable=True, spark=False,
        parameters="(path, parsed path, returning type, on empty, default, on error, default)")
_define("jsonQuery", _STRING, "JSON_QUERY", nullable=True, spark=False,
        parameters="(path, parsed path, wrapper, on empty, on error)")
_define("jsonExists", _BOOLEAN, "JSON_EXISTS", parameters="(path, parsed path, on error)", nullable=True,
        spark=False)
_define("isJson", _BOOLEAN, "IS JSON", parameters="(kind,)", strict=False, nullable=False, spark=False)
_define("jsonQuote", _STRING, "JSON_QUOTE", spark=False)
_define("jsonUnquote", _STRING, "JSON_UNQUOTE", spark=False)
_define("json", _STRING, "JSON", spark=False)
_define("jsonString", _STRING, "JSON_STRING", spark=False)
_define("jsonObject", _STRING, "JSON_OBJECT", parameters="(on null,)", strict=False, nullable=False, spark=False)
_define("jsonArray", _STRING, "JSON_ARRAY", parameters="(on null,)", strict=False, nullable=False, spark=False)

#: the built-in scalar functions by name
BUILTINS: Dict[str, FunctionDefinition] = {d.name: d for d in _DEFINITIONS}
del _name, _sql, _symbol, _length, _DEFINITIONS


#: Flink's built-in functions (and forms of them) Kindling does not give, by the name of Flink's list
#: (tests/table/flink_builtin_functions.txt), with why; a call of one fails naming it
REFUSED: Dict[str, str] = {
    "IS DISTINCT FROM": "not translated yet: write (a <> b OR a IS NULL <> b IS NULL) or COALESCE",
    "IS NOT DISTINCT FROM": "not translated yet",
    "BETWEEN SYMMETRIC": "not translated yet",
    "LIKE ESCAPE": "SQL's ESCAPE clause is not translated yet (the Table API's like(pattern, escape) is given)",
    "INTERVAL": "intervals of a range of units (DAY TO SECOND) are not there; intervals of one unit are",
    "LOCALTIME": "the current time of day is not given yet (TIME values are)",
    "CURRENT_TIME": "the current time of day is not given yet (TIME values are)",
    "LOCALTIMESTAMP": "SQL's LOCALTIMESTAMP is read as a column (the Table API's local_timestamp() is given)",
    "CURRENT_ROW_TIMESTAMP": "not there yet (CURRENT_TIMESTAMP is)",
    "OVERLAPS": "arithmetic of time points and intervals in a predicate is not there",
    "CURRENT_WATERMARK": "an operator's watermark is not readable in expressions",
    "IS_DECIMAL": "not there yet",
    "TYPEOF": "not there yet (print_schema shows types)",
    "JSON_OBJECT": "not translated in SQL yet (the Table API's json_object is given)",
    "JSON_ARRAY": "not translated in SQL yet (the Table API's json_array is given)",
    "JSON": "not translated in SQL yet (the Table API's json is given)",
    "PARSE_JSON": "the VARIANT type is not there", "TRY_PARSE_JSON": "the VARIANT type is not there",
    "composite.*": "flattening a composite column is not there: select its fields with get('name')",
    "OBJECT_OF": "structured types are not there", "OBJECT_UPDATE": "structured types are not there",
    **{f"BITMAP_{name}": "the BITMAP type is not there" for name in (
        "BUILD", "AND", "ANDNOT", "OR", "XOR", "CARDINALITY", "FROM_BYTES", "TO_BYTES", "TO_ARRAY", "TO_STRING",
        "BUILD_AGG", "BUILD_CARDINALITY_AGG", "AND_AGG", "AND_CARDINALITY_AGG", "OR_AGG", "OR_CARDINALITY_AGG",
        "XOR_AGG", "XOR_CARDINALITY_AGG")},
    "COLLECT": "the MULTISET type is not there: use ARRAY_AGG",
    "CUME_DIST": "not there yet (RANK, DENSE_RANK, ROW_NUMBER are)",
    "PERCENT_RANK": "not there yet (RANK, DENSE_RANK, ROW_NUMBER are)",
    "NTILE": "not there yet (RANK, DENSE_RANK, ROW_NUMBER are)",
    "JSON_OBJECTAGG": "JSON aggregate functions are not there: use ARRAY_AGG",
    "JSON_ARRAYAGG": "JSON aggregate functions are not there: use ARRAY_AGG",
    "PERCENTILE": "not translated in SQL yet (the Table API's percentile is given)",
}


#: the names of Flink's built-in functions (PyFlink 2.3's CoreModule), lowercased: an unqualified call of
#: one calls the built-in, not a temporary (catalog) function of that name (a temporary system one, yes)
FLINK_BUILT_IN_NAMES = frozenset((
    "abs acos agg_decimal_minus agg_decimal_plus and array array_agg array_append array_concat "
    "array_contains array_distinct array_except array_intersect array_join array_max array_min "
    "array_position array_prepend array_remove array_reverse array_slice array_sort array_union as asc ascii "
    "asin assignment at atan atan2 avg between bin bitmap_and bitmap_and_agg bitmap_and_cardinality_agg "
    "bitmap_andnot bitmap_build bitmap_build_agg bitmap_build_cardinality_agg bitmap_cardinality "
    "bitmap_from_bytes bitmap_or bitmap_or_agg bitmap_or_cardinality_agg bitmap_to_array bitmap_to_bytes "
    "bitmap_to_string bitmap_xor bitmap_xor_agg bitmap_xor_cardinality_agg btrim cardinality cast ceil "
    "charlength chr coalesce collect concat concat_ws converttz cos cosh cot count current_watermark "
    "currentdatabase currentdate currentrowtimestamp currenttime currenttimestamp dateformat decode default "
    "degrees desc distinct divide e element elt encode end endswith equals exp extract first_value flatten "
    "floor from_changelog frombase64 fromunixtime get greaterthan greaterthanorequal greatest hex "
    "hive_agg_decimal_plus ifnull ifthenelse in inet_aton inet_ntoa initcap instr is_json isfalse isnotfalse "
    "isnotnull isnottrue isnull istrue json json_array json_arrayagg_absent_on_null "
    "json_arrayagg_null_on_null json_exists json_object json_objectagg_absent_on_null "
    "json_objectagg_null_on_null json_query json_quote json_string json_unquote json_value lag last_value "
    "lead least left lessthan lessthanorequal like listagg ln localtime localtimestamp locate log log10 log2 "
    "lower lowercase lpad ltrim map map_entries map_from_arrays map_keys map_union map_values max md5 min "
    "minus minusprefix ml_predict mod not notbetween notequals now object_of object_update or over overlay "
    "parse_json parseurl percentile pi plus position power printf proctime radians rand randinteger rangeto "
    "regexp regexp_count regexp_extract_all regexp_instr regexp_substr regexpextract regexpreplace "
    "reinterpretcast repeat replace reverse right round row rowtime rpad rtrim sha1 sha2 sha224 sha256 "
    "sha384 sha512 sign similar sin sinh source_watermark split splitindex sqrt start startswith stddevpop "
    "stddevsamp streamrecordtimestamp strtomap substr substring sum sum0 tan tanh temporaloverlaps times "
    "timestampdiff to_changelog to_timestamp_ltz tobase64 todate totimestamp translate3 trim truncate "
    "try_cast try_parse_json typeof unhex unixtimestamp upper uppercase url_decode url_encode uuid varpop "
    "varsamp withcolumns withoutcolumns "
).split())


def refusal(name: str) -> Optional[str]:
    """Why a Flink built-in function Kindling does not give is not there (None for other names)."""
    reason = REFUSED.get(name.upper())
    return None if reason is None else f"{name.upper()} is a Flink built-in function Kindling does not give: {reason}"


def by_sql_name(name: str) -> Optional[FunctionDefinition]:
    """The definition a SQL function name (``CHAR_LENGTH``) calls, or None."""
    return _SQL_NAMES.get(name.upper())


_SQL_NAMES = {sql: d for d in BUILTINS.values() for sql in d.sql}


# -- aggregates ---------------------------------------------------------------------------------

def _compared(argument: DataType, parameters) -> DataType:
    typed = getattr(DataTypes, argument.type_name)() if argument.type_name in NUMERIC else argument
    return typed.nullable()


def _sum(kind: str) -> Callable[[DataType, Tuple], DataType]:
    def result(argument: DataType, parameters) -> DataType:
        if argument.type_name == "DECIMAL" and kind in ("sum", "sum0", "avg"):  # as Flink's, whatever the precision
            scale = precision_scale(argument)[1]
            typed = DataTypes.DECIMAL(MAX_DECIMAL_PRECISION, max(6, scale) if kind == "avg" else scale)
        elif argument.type_name == "DECIMAL":
            raise ValueError(f"{kind.upper()} of a DECIMAL is not supported by Kindling yet: cast the argument to "
                             "DOUBLE")
        elif argument.type_name not in NUMERIC:
            raise ValueError(f"{kind.upper()} needs a numeric argument, got {argument!r}")
        else:
            typed = getattr(DataTypes, argument.type_name)()
        return typed.not_null() if kind == "sum0" else typed
    return result


def _offset(argument: DataType, parameters) -> DataType:
    """LAG and LEAD (``parameters``: offset, default): a row's value ``offset`` rows away, else the
    default (NOT NULL when a default is given, as Flink types it)."""
    return argument.not_null() if parameters[1] is not None else argument.nullable()


def _percentile(argument: DataType, parameters) -> DataType:
    if argument.type_name not in NUMERIC + ["DECIMAL"]:
        raise ValueError(f"PERCENTILE needs a numeric argument, got {argument!r}")
    return DataTypes.DOUBLE()


#: the built-in aggregate functions by name (Kindling's names: ``count``, ``stddev_pop``, ...)
AGGREGATES: Dict[str, AggregateDefinition] = {d.name: d for d in [
    AggregateDefinition("count", lambda argument, parameters: DataTypes.BIGINT().not_null(), ("COUNT",)),
    AggregateDefinition("sum", _sum("sum"), ("SUM",)),
    AggregateDefinition("sum0", _sum("sum0"), ("SUM0",)),
    AggregateDefinition("avg", _sum("avg"), ("AVG",)),
    AggregateDefinition("min", _compared, ("MIN",)),
    AggregateDefinition("max", _compared, ("MAX",)),
    *[AggregateDefinition(kind, _sum(kind), (kind.upper(),)) for kind in
      ("var_pop", "var_samp", "stddev_pop", "stddev_samp")],
    AggregateDefinition("first_value", lambda argument, parameters: argument.nullable(), ("FIRST_VALUE",)),
    AggregateDefinition("last_value", lambda argument, parameters: argument.nullable(), ("LAST_VALUE",)),
    AggregateDefinition("list_agg", lambda argument, parameters: DataTypes.STRING(), ("LISTAGG",)),
    AggregateDefinition("array_agg", lambda argument, parameters: DataTypes.ARRAY(argument), ("ARRAY_AGG",)),
    AggregateDefinition("percentile", _percentile, ("PERCENTILE",)),
    AggregateDefinition("lag", _offset, ("LAG",)),
    AggregateDefinition("lead", _offset, ("LEAD",)),
]}
