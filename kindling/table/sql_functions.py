"""Flink SQL's built-in functions (``UPPER(s)``, ``JSON_VALUE(j, '$.a')``, ``CASE WHEN ...``) translated
from sqlglot's tree into the Table API's built-in functions (kindling/table/builtins.py), so SQL and the
Table API compute them one way. sqlglot's Spark dialect reads many calls into typed nodes (``Upper``,
``StrPosition``, ``TimeToStr`` with a strftime format); the others are ``Anonymous`` calls by name, which
call the function definition of that SQL name (kindling/table/planner/functions.py).
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from kindling.common.time import DEFAULT_TIMESTAMP_FORMAT
from kindling.table import builtins as fn
from kindling.table.planner.functions import by_sql_name

__all__ = ["check_arguments_kept", "named_calls", "sql_function"]

Translate = Callable[[Any], Any]


def sql_function(node: Any, translate: Translate) -> Optional[Any]:
    """The Table API expression of a SQL function call (``translate`` makes those of its arguments), or
    None when ``node`` is not a built-in function Kindling knows."""
    import sqlglot.expressions as exp

    handler = _NODES.get(type(node).__name__)
    if handler is not None:
        return handler(node, translate)
    if isinstance(node, exp.Anonymous):
        named = _NAMED.get(node.name.upper())
        if named is not None:
            return named(*[_argument(a, translate) for a in node.expressions])
        definition = by_sql_name(node.name)
        if definition is not None and definition.parameters is None:  # called as written: F(operands)
            return fn.builtin_call(definition.name, [translate(a) for a in node.expressions])
    return None


def named_calls(tree: Any) -> Any:
    """The tree with each call sqlglot reads into a typed node of its own (``Sin``, ``ArrayToString`` for
    ARRAY_JOIN) made a call of the built-in function by its Flink SQL name (_TYPED_CALLS), its operands
    in the order written; other nodes are kept."""
    import sqlglot.expressions as exp

    def named(node: Any) -> Any:
        name = _TYPED_CALLS.get(type(node).__name__)
        if name is None or isinstance(node, exp.Anonymous):
            return node
        keys = ("this", "expression") if name == "ARRAY_SORT" else node.arg_types  # not the dialect's nulls_first
        operands = [v for key in keys for v in _listed(node.args.get(key)) if isinstance(v, exp.Expression)]
        return exp.Anonymous(this=name, expressions=[named_calls(o) for o in operands])  # transform skips them
    return tree.transform(named)


def check_arguments_kept(statement: str) -> None:
    """Fails on a call whose arguments sqlglot would drop: ARRAY_SORT's third (nulls first)."""
    import sqlglot

    from kindling.table.ddl import DIALECT

    tokens = [t.text.upper() for t in sqlglot.tokenize(statement, read=DIALECT)]
    for start in (n for n, t in enumerate(tokens[:-1]) if t == "ARRAY_SORT" and tokens[n + 1] == "("):
        depth, commas = 0, 0
        for token in tokens[start + 1:]:
            depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(token, 0)
            commas += token == "," and depth == 1
            if depth == 0:
                break
        if commas > 1:
            raise ValueError("ARRAY_SORT(array, ascending, nulls_first) is not supported by Kindling's SQL yet "
                             "(its parser drops nulls_first): use ARRAY_SORT(array[, ascending]) or the Table "
                             "API's array_sort")


def _listed(value: Any) -> list:
    return value if isinstance(value, list) else [value]


#: the typed nodes sqlglot reads these Flink functions into, with their operands in the order written (a
#: call of one Kindling does not give fails naming it: kindling/table/udf.py)
_TYPED_CALLS = {
    **{name.capitalize(): name.upper() for name in ("sin", "cos", "tan", "cot", "sinh", "cosh", "tanh", "asin",
                                                    "acos", "atan", "atan2", "translate", "encode", "decode",
                                                    "elt")},
    "RegexpCount": "REGEXP_COUNT", "RegexpExtractAll": "REGEXP_EXTRACT_ALL", "RegexpInstr": "REGEXP_INSTR",
    "RegexpSubstr": "REGEXP_SUBSTR", "ParseUrl": "PARSE_URL", "StrToMap": "STR_TO_MAP", "MapKeys": "MAP_KEYS",
    "Map": "MAP_FROM_ARRAYS", "ArrayToString": "ARRAY_JOIN",
    # refused by name (planner/functions.py REFUSED)
    "ParseJSON": "PARSE_JSON", "Greatest": "GREATEST", "Least": "LEAST", "Typeof": "TYPEOF", "CumeDist": "CUME_DIST",
    "PercentRank": "PERCENT_RANK", "Ntile": "NTILE", "Quantile": "PERCENTILE", "Overlaps": "OVERLAPS",
    **{f"Array{part}": f"ARRAY_{part.upper()}" for part in ("Append", "Prepend", "Contains", "Distinct", "Position",
                                                          "Remove", "Reverse", "Slice", "Sort", "Concat", "Except",
                                                          "Intersect", "Max", "Min")},
}


def _argument(node: Any, translate: Translate) -> Any:
    """An argument: a unit keyword (``DAY``) as its name, anything else translated."""
    import sqlglot.expressions as exp

    return node.name.upper() if isinstance(node, exp.Var) else translate(node)


def _java_format(node: Any) -> Optional[str]:
    """A format argument sqlglot turned into strftime, as the Java pattern it was written as."""
    from sqlglot.dialects.dialect import Dialect
    from sqlglot.time import format_time

    from kindling.table.ddl import DIALECT

    if node is None:
        return None
    dialect = Dialect.get_or_raise(DIALECT)
    return format_time(node.name, dialect.INVERSE_TIME_MAPPING, dialect.INVERSE_TIME_TRIE)


def _arg(node: Any, key: str, translate: Translate) -> Any:
    value = node.args.get(key)
    return None if value is None else translate(value)


def _unary(method: str) -> Callable:
    return lambda node, t: getattr(t(node.this), method)


def _trim(node, t):
    position = (node.args.get("position") or "BOTH").upper()
    if "collation" in node.args:  # TRIM([BOTH|LEADING|TRAILING] [chars] FROM s)
        string, characters = node.this, node.args.get("expression")
    else:  # LTRIM(s[, chars]), RTRIM(s[, chars]): sqlglot swaps the two arguments
        string, characters = (node.args["expression"], node.this) if node.args.get("expression") else (node.this, None)
    method = {"BOTH": "trim", "LEADING": "trim_leading", "TRAILING": "trim_trailing"}[position]
    return getattr(t(string), method)(None if characters is None else t(characters))


def _position(node, t):
    start = node.args.get("position")
    needle = t(node.args["substr"])
    return needle.locate(t(node.this), t(start)) if start is not None else needle.position(t(node.this))


def _case(node, t):
    subject = node.this
    otherwise = node.args.get("default")
    branches = node.args["ifs"]
    result = t(otherwise) if otherwise is not None else None
    for branch in reversed(branches):
        condition = t(branch.this) if subject is None else t(subject) == t(branch.this)
        value = t(branch.args["true"])
        result = fn.if_then_else(condition, value, result if result is not None else _null_like(value))
    return result


def _null_like(value):
    return fn.builtin_call("null", (value,))


def _is(node, t):
    import sqlglot.expressions as exp

    subject, what = t(node.this), node.expression
    if isinstance(what, exp.Null):
        return subject.is_null
    if isinstance(what, exp.Boolean):
        return subject.is_true if what.this else subject.is_false
    if isinstance(what, exp.JSON):
        from kindling.table.expression import JsonType

        kind = what.this.upper() if isinstance(what.this, str) else getattr(what.this, "name", None)
        return subject.is_json(JsonType[kind] if kind else None)
    raise ValueError(f"sql: {node.sql()} is not supported by Kindling yet")


def _not(node, t):
    """NOT of IS NULL / IS TRUE / IS FALSE: Flink's IS NOT ... (never null)."""
    import sqlglot.expressions as exp

    inner = node.this
    if isinstance(inner, exp.Is):
        subject, what = t(inner.this), inner.expression
        if isinstance(what, exp.Null):
            return subject.is_not_null
        if isinstance(what, exp.Boolean):
            return subject.is_not_true if what.this else subject.is_not_false
    return None


def _like(node, t):
    like = t(node.this).like(t(node.expression))
    return like._negated() if node.args.get("negate") else like


def _bracket(node, t):
    import sqlglot.expressions as exp

    values = [t(v) for v in node.expressions]
    if isinstance(node.this, exp.Column) and node.this.name.upper() == "MAP" and not node.this.table:
        return fn.map_(*values)
    return t(node.this).at(values[0])


def _round(node, t):
    places = node.args.get("decimals")
    return t(node.this).round(t(places) if places is not None else 0)


def _floor(node, t, method: str = "floor"):
    unit = node.args.get("to")
    return getattr(t(node.this), method)(unit.name.upper() if unit is not None else None)


def _extract(node, t):
    return t(node.expression).extract(node.this.name.upper())


def _pad(node, t):
    method = "lpad" if node.args.get("is_left") else "rpad"
    return getattr(t(node.this), method)(t(node.expression), t(node.args["fill_pattern"]))


def _log(node, t):
    base = node.this if node.args.get("expression") is not None else None
    value = t(node.args.get("expression") if base is not None else node.this)
    if base is None:
        return value.ln
    named = {"10": "log10", "2": "log2"}.get(base.name) if base.is_int else None
    return getattr(value, named) if named else fn.log(value, t(base))


def _time_to_str(node, t):
    import sqlglot.expressions as exp

    moment = node.this.this if isinstance(node.this, exp.TimeStrToTime) else node.this
    return fn.date_format(t(moment), _java_format(node.args.get("format")))


def _str_to_time(node, t):
    return fn.to_timestamp(t(node.this), _java_format(node.args.get("format")))


def _to_date(node, t):
    pattern = _java_format(node.args.get("format"))
    return fn.to_date(t(node.this), pattern)


def _str_to_unix(node, t):
    import sqlglot.expressions as exp

    if isinstance(node.this, exp.CurrentTimestamp):  # UNIX_TIMESTAMP(): now
        return fn.unix_timestamp()
    pattern = _java_format(node.args.get("format"))
    return fn.unix_timestamp(t(node.this), None if pattern == DEFAULT_TIMESTAMP_FORMAT else pattern)


def _unix_to_str(node, t):
    pattern = _java_format(node.args.get("format"))
    return fn.from_unixtime(t(node.this), None if pattern == DEFAULT_TIMESTAMP_FORMAT else pattern)


def _timestamp_diff(node, t):
    return fn.timestamp_diff(node.args["unit"].name.upper(), t(node.expression), t(node.this))


def _timestamp_add(node, t):
    unit = node.args["unit"].name.upper()
    if unit not in ("YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND"):
        raise ValueError(f"sql: {node.sql()}: TIMESTAMPADD takes YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE or SECOND")
    return fn.builtin_call("timestampAdd", (t(node.expression), t(node.this)), (unit,))


def _part(unit: str):
    """YEAR(d), QUARTER(d), DAYOFWEEK(d)...: EXTRACT of a unit (sqlglot wraps some arguments in a date cast)."""
    return lambda n, t: t(n.this.this if type(n.this).__name__ == "TsOrDsToDate" else n.this).extract(unit)


def _regexp_extract(node, t):
    group = node.args.get("group")
    text = node.sql()
    explicit = text.count(",") >= 2  # sqlglot adds a default group of 1; Flink's default is the whole match
    return t(node.this).regexp_extract(t(node.expression), t(group) if explicit and group is not None else None)


def _split(node, t):
    return t(node.this).split(t(node.expression))


def _concat(node, t):
    return fn.concat(*[t(e) for e in node.expressions])


def _concat_ws(node, t):
    separator, *strings = node.expressions
    return fn.concat_ws(t(separator), *[t(s) for s in strings])


def _if(node, t):
    return fn.if_then_else(t(node.this), t(node.args["true"]), t(node.args.get("false")))


def _coalesce(node, t):
    return fn.coalesce(t(node.this), *[t(e) for e in node.expressions])


def _in(node, t):
    return t(node.this).in_(*[t(e) for e in node.expressions])


def _between(node, t):
    return t(node.this).between(t(node.args["low"]), t(node.args["high"]))


def _cast(node, t):
    """TO_TIMESTAMP(s) and the literal TIMESTAMP '...', which sqlglot reads as casts without CAST's format."""
    import sqlglot.expressions as exp

    if "format" in node.args or isinstance(node, exp.TryCast):
        return None  # a CAST: sql.py
    kind = node.to.this.name if hasattr(node.to.this, "name") else str(node.to.this)
    if kind == "TIMESTAMP":
        return fn.to_timestamp(t(node.this))
    if kind == "TIMESTAMPTZ" and isinstance(node.this, exp.Literal):
        from kindling.table.types import DataTypes

        fraction = node.this.name.partition(".")[2]
        return t(node.this).cast(DataTypes.TIMESTAMP(len(fraction)))
    return None


def _nullif(node, t):
    a, b = t(node.this), t(node.expression)
    return fn.if_then_else(a == b, _null_like(a), a)


def _json_value(text, path, *rest):
    return text.json_value(fn.literal(path))


def _json_query(text, path, *rest):
    return text.json_query(fn.literal(path))


def _json_exists(text, path, *rest):
    return text.json_exists(fn.literal(path))


_NODES = {
    "Upper": _unary("upper_case"), "Lower": _unary("lower_case"), "Length": _unary("char_length"),
    "Initcap": _unary("init_cap"), "Reverse": _unary("reverse"), "Abs": _unary("abs"), "Sqrt": _unary("sqrt"),
    "Exp": _unary("exp"), "Ln": _unary("ln"), "Sign": _unary("sign"), "Degrees": _unary("degrees"),
    "Radians": _unary("radians"), "MD5": _unary("md5"), "SHA": _unary("sha1"), "Hex": _unary("hex"),
    "Unhex": _unary("unhex"), "ToBase64": _unary("to_base64"), "FromBase64": _unary("from_base64"),
    "Ascii": _unary("ascii"),
    "Trim": _trim, "StrPosition": _position, "Case": _case, "Is": _is, "Not": _not, "Like": _like,
    "Bracket": _bracket, "Round": _round, "Floor": _floor, "Ceil": lambda n, t: _floor(n, t, "ceil"),
    "Extract": _extract, "Pad": _pad, "Log": _log, "TimeToStr": _time_to_str, "StrToTime": _str_to_time,
    "TsOrDsToDate": _to_date, "StrToUnix": _str_to_unix, "UnixToStr": _unix_to_str, "TimestampDiff": _timestamp_diff,
    "RegexpExtract": _regexp_extract, "RegexpSplit": _split, "Concat": _concat, "ConcatWs": _concat_ws,
    "DPipe": lambda n, t: fn.concat(t(n.this), t(n.expression)), "If": _if, "Coalesce": _coalesce, "In": _in,
    "Between": _between, "Nullif": _nullif, "Cast": _cast,
    "Substring": lambda n, t: t(n.this).substring(t(n.args["start"]), _arg(n, "length", t)),
    "Replace": lambda n, t: t(n.this).replace(t(n.expression), t(n.args["replacement"])),
    "RegexpReplace": lambda n, t: t(n.this).regexp_replace(t(n.expression), t(n.args["replacement"])),
    "SimilarTo": lambda n, t: t(n.this).similar(t(n.expression)),
    "Left": lambda n, t: t(n.this).left(t(n.expression)), "Right": lambda n, t: t(n.this).right(t(n.expression)),
    "Repeat": lambda n, t: t(n.this).repeat(t(n.args["times"])),
    "Pow": lambda n, t: t(n.this) ** t(n.expression), "Trunc": lambda n, t: t(n.this).truncate(
        _arg(n, "decimals", t) if n.args.get("decimals") is not None else 0),
    "SHA2": lambda n, t: t(n.this).sha2(int(n.args["length"].name) if n.args.get("length") is not None else 256),
    "StartsWith": lambda n, t: t(n.this).starts_with(t(n.expression)),
    "EndsWith": lambda n, t: t(n.this).ends_with(t(n.expression)),
    "Overlay": lambda n, t: t(n.this).overlay(t(n.expression), t(n.args["from_"]), _arg(n, "for_", t)),
    "Chr": lambda n, t: t(n.expressions[0]).chr,
    "Array": lambda n, t: fn.array(*[t(e) for e in n.expressions]),
    "Pi": lambda n, t: fn.pi(), "Uuid": lambda n, t: fn.uuid(), "Rand": lambda n, t: fn.rand(_arg(n, "this", t)),
    "CurrentDate": lambda n, t: fn.current_date(), "CurrentTimestamp": lambda n, t: fn.current_timestamp(),
    "CurrentDatabase": lambda n, t: fn.current_database(),  # a query's is its database (sql.py parse_query)
    "TimestampAdd": _timestamp_add,
    **{name: _part(unit) for name, unit in (("Year", "YEAR"), ("Quarter", "QUARTER"), ("Month", "MONTH"),
                                            ("Week", "WEEK"), ("DayOfMonth", "DAY"), ("DayOfWeek", "DOW"),
                                            ("DayOfYear", "DOY"), ("Hour", "HOUR"), ("Minute", "MINUTE"),
                                            ("Second", "SECOND"))},
}

def _aggregate(method: str) -> Callable:
    def translate(node, t):
        import sqlglot.expressions as exp

        argument = node.this
        if isinstance(argument, exp.Distinct):
            raise ValueError(f"sql: {node.sql()}: DISTINCT is supported by Kindling in COUNT/SUM/AVG/MIN/MAX only")
        return getattr(t(argument), method)
    return translate


_NODES.update({"StddevPop": _aggregate("stddev_pop"), "StddevSamp": _aggregate("stddev_samp"),
               "Stddev": _aggregate("stddev_samp"), "VariancePop": _aggregate("var_pop"),
               "Variance": _aggregate("var_samp"), "FirstValue": _aggregate("first_value"),
               "LastValue": _aggregate("last_value"), "ArrayAgg": _aggregate("array_agg"),
               "GroupConcat": lambda n, t: t(n.this).list_agg(_arg(n, "separator", t))})

def sql_row(values) -> Any:
    """SQL's ``ROW(a, b)`` and ``(a, b)``: Flink's planner names the fields ``EXPR$0``, ``EXPR$1``, ...
    (the Table API's ``row`` names them ``f0``, ...)."""
    return fn.builtin_call("row", values, ([f"EXPR${i}" for i in range(len(values))],))


#: the SQL functions sqlglot leaves unparsed whose Table API call differs from the definition's call
_NAMED = {"ROW": lambda *values: sql_row(values), "JSON_VALUE": _json_value, "JSON_QUERY": _json_query, "JSON_EXISTS": _json_exists,
          "E": fn.e, "TO_TIMESTAMP_LTZ": fn.to_timestamp_ltz, "BTRIM": lambda s, *c: s.btrim(*c)}
