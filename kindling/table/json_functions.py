"""Flink's JSON functions (``json_value``, ``json_query``, ``json_exists``, ``is_json``, ``json_string``,
``json_object``, ``json_array``, ...), evaluated in Python with Flink's semantics: JSON paths as Flink
reads them (``$.a.b``, ``$['a']``, ``$.a[0]``, ``[*]``; strict unless prefixed ``lax``), a strict path
finding nothing, a non-scalar value or invalid JSON giving the ON ERROR behaviour, a lax one finding
nothing the ON EMPTY one. Spark's
``get_json_object`` answers otherwise (objects as text, no modes), so these run in the table's Python pass.

Example::

    table.select(col('data').json_value('$.addr.country', DataTypes.STRING()))
"""
from __future__ import annotations

import json as jsonlib
import re
from typing import Any, List, Optional, Tuple

from kindling.table.builtins import call, literal
from kindling.table.types import DataType, DataTypes

__all__ = ["JsonMethods", "json", "json_array", "json_object", "json_string"]

_MISSING = object()
_TOKEN = re.compile(r"\.([A-Za-z_$][\w$]*)|\.\*|\[\s*\*\s*\]|\[\s*(-?\d+)\s*\]|\[\s*'([^']*)'\s*\]|\[\s*\"([^\"]*)\"\s*\]")


class JsonPathError(ValueError):
    """A JSON path that cannot be read, or one a strict path does not find."""


def parse_path(path: str) -> Tuple[bool, List[Any]]:
    """(strict, steps) of a JSON path (strict unless it starts with ``lax``, as Flink reads it): a step
    is a key, an index, or ``None`` for ``*``."""
    text = path.strip()
    strict = not text.startswith("lax ")
    if text.startswith(("lax ", "strict ")):
        text = text.split(" ", 1)[1].strip()
    if not text.startswith("$"):
        raise JsonPathError(f"Illegal jsonpath spec: {path}, format of the spec should be: '<lax|strict> $'{{expr}}")
    steps, at = [], 1
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None:
            raise JsonPathError(f"Illegal jsonpath spec {path!r} at {text[at:]!r}")
        key, index, quoted, double = match.groups()
        steps.append(key if key is not None else int(index) if index is not None else
                     quoted if quoted is not None else double if double is not None else None)
        at = match.end()
    return strict, steps


def evaluate_path(document: Any, path: str, strict: bool, steps: List[Any]) -> Any:
    """The value the path (``strict`` and ``steps`` its :func:`parse_path`) finds in a parsed document (a
    list for wildcards), or ``_MISSING``; a strict path finding nothing raises :class:`JsonPathError`."""
    values, wildcard = [document], False
    for step in steps:
        found = []
        for value in values:
            if step is None:
                found += list(value.values()) if isinstance(value, dict) else list(value) if \
                    isinstance(value, list) else []
            elif isinstance(step, int) and isinstance(value, list) and -len(value) <= step < len(value):
                found.append(value[step])
            elif isinstance(step, str) and isinstance(value, dict) and step in value:
                found.append(value[step])
            elif strict:
                raise JsonPathError(f"No results for path: {path}")
        wildcard = wildcard or step is None
        values = found
    if wildcard:
        return values
    return values[0] if values else _MISSING


def _document(text: Any) -> Any:
    if not isinstance(text, str):
        raise JsonPathError(f"not a JSON text: {text!r}")
    return jsonlib.loads(text)


def _scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _text(value: Any) -> str:
    """A JSON value as Flink writes it (compact JSON; strings without quotes at the top)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        from kindling.table.formats import java_number

        return java_number(value)
    if isinstance(value, (dict, list)):
        return jsonlib.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return str(value)


def _behave(behaviour: Any, default: Any, error: Exception, empty_values: dict) -> Any:
    name = getattr(behaviour, "name", "NULL")
    if name == "ERROR":
        raise error
    if name == "DEFAULT":
        return default
    return empty_values.get(name)


def json_value_of(text: Any, path: str, parsed: Tuple[bool, List[Any]], returning: DataType, on_empty: Any = None,
                  default_on_empty: Any = None, on_error: Any = None, default_on_error: Any = None) -> Any:
    """Flink's JSON_VALUE of one value (``parsed`` the path's :func:`parse_path`)."""
    from kindling.table.builtins import cast_value

    strict = parsed[0]
    try:
        found = evaluate_path(_document(text), path, *parsed)
        if found is _MISSING or found is None or (not strict and not _scalar(found)):
            return _behave(on_empty, default_on_empty, ValueError(f"Empty result of JSON_VALUE function is not "
                                                                  f"allowed for path {path}"), {})
        if not _scalar(found):
            raise JsonPathError(f"Strict jsonpath mode requires scalar value, and the actual value is: '{found}'")
        value = _text(found)
        return value if returning.type_name in ("STRING", "VARCHAR", "CHAR") else \
            cast_value(found if isinstance(found, (int, float, bool)) else value, None, returning)
    except (ValueError, TypeError) as error:
        if isinstance(error, ValueError) and str(error).startswith("Empty result"):
            raise
        return _behave(on_error, default_on_error, error, {})


def json_query_of(text: Any, path: str, parsed: Tuple[bool, List[Any]], wrapper: Any = None, on_empty: Any = None,
                  on_error: Any = None) -> Any:
    """Flink's JSON_QUERY of one value (``parsed`` the path's :func:`parse_path`)."""
    special = {"EMPTY_ARRAY": "[]", "EMPTY_OBJECT": "{}"}
    strict = parsed[0]
    try:
        found = evaluate_path(_document(text), path, *parsed)
    except (ValueError, TypeError) as error:
        return _behave(on_error, None, error, special)
    wrapping = getattr(wrapper, "name", "WITHOUT_ARRAY")
    value = None if found is _MISSING or found is None else [found] if wrapping == "UNCONDITIONAL_ARRAY" or (
        wrapping == "CONDITIONAL_ARRAY" and not isinstance(found, list)) else found
    if value is None or (not strict and _scalar(value)):
        return _behave(on_empty, None, ValueError(f"Empty result of JSON_QUERY function is not allowed for path "
                                                  f"{path}"), special)
    if _scalar(value):
        return _behave(on_error, None, JsonPathError(f"Strict jsonpath mode requires array or object value, and the "
                                                     f"actual value is: '{value}'"), special)
    return _text(value)


def json_exists_of(text: Any, path: str, parsed: Tuple[bool, List[Any]], on_error: Any = None) -> Optional[bool]:
    """Flink's JSON_EXISTS of one value (``parsed`` the path's :func:`parse_path`)."""
    try:
        found = evaluate_path(_document(text), path, *parsed)
    except (ValueError, TypeError) as error:
        name = getattr(on_error, "name", "FALSE")
        if name == "ERROR":
            raise error
        return {"TRUE": True, "FALSE": False, "UNKNOWN": None}[name]
    return found is not _MISSING and found is not None


def is_json_of(text: Any, kind: Any = None) -> bool:
    """Flink's IS JSON [VALUE|SCALAR|ARRAY|OBJECT] of one value."""
    try:
        value = jsonlib.loads(text)
    except (ValueError, TypeError):
        return False
    name = getattr(kind, "name", "VALUE")
    return name == "VALUE" or (name == "SCALAR" and _scalar(value)) or (name == "ARRAY" and isinstance(value, list)) \
        or (name == "OBJECT" and isinstance(value, dict))


class _Raw:
    """A JSON text to insert as JSON (``json(...)``), not as a string."""

    def __init__(self, text: str):
        self.text = text


def _json_of(value: Any) -> Any:
    """A Python value of the table as a JSON value."""
    import datetime
    import decimal

    from kindling.common.types import Row

    if isinstance(value, _Raw):
        return jsonlib.loads(value.text)
    if isinstance(value, Row):
        return {name: _json_of(v) for name, v in zip(value._fields or [], value._values)} if value._fields else \
            [_json_of(v) for v in value._values]
    if isinstance(value, dict):
        return {str(k): _json_of(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_of(v) for v in value]
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        import base64

        return base64.b64encode(bytes(value)).decode()
    return value


def _dumps(value: Any) -> str:
    return jsonlib.dumps(value, separators=(",", ":"), ensure_ascii=False)


class JsonMethods:
    """The JSON functions PyFlink calls as Expression methods."""

    def json_value(self, path: str, returning_type: DataType = DataTypes.STRING(), on_empty: Any = None,
                   default_on_empty: Any = None, on_error: Any = None, default_on_error: Any = None):
        """The scalar at the JSON path of this JSON string, as ``returning_type`` (null when there is none,
        unless ``on_empty``/``on_error`` say otherwise)."""
        parsed = parse_path(path)
        defaults = (literal(default_on_empty), literal(default_on_error))
        return call("jsonValue", (self,), returning_type,
                    lambda text: json_value_of(text, path, parsed, returning_type, on_empty, defaults[0], on_error,
                                               defaults[1]), nullable=True)

    def json_query(self, path: str, wrapping_behavior: Any = None, on_empty: Any = None, on_error: Any = None):
        """The JSON text of the object or array at the JSON path (wrapped in an array if asked)."""
        parsed = parse_path(path)
        return call("jsonQuery", (self,), DataTypes.STRING(),
                    lambda text: json_query_of(text, path, parsed, wrapping_behavior, on_empty, on_error),
                    nullable=True)

    def json_exists(self, path: str, on_error: Any = None):
        """Whether the JSON path finds a value in this JSON string."""
        parsed = parse_path(path)
        return call("jsonExists", (self,), DataTypes.BOOLEAN(),
                    lambda text: json_exists_of(text, path, parsed, on_error), nullable=True)

    def is_json(self, json_type: Any = None):
        """Whether this string is JSON (of the ``json_type``: VALUE, SCALAR, ARRAY or OBJECT)."""
        return call("isJson", (self,), DataTypes.BOOLEAN(), lambda text: is_json_of(text, json_type), strict=False,
                    nullable=False)

    def json_quote(self):
        """The string as a JSON string literal (quoted and escaped)."""
        return call("jsonQuote", (self,), DataTypes.STRING(), lambda s: jsonlib.dumps(s, ensure_ascii=False))

    def json_unquote(self):
        """The string a JSON string literal holds (the text itself when it is not one)."""
        def python(s):
            try:
                value = jsonlib.loads(s)
            except ValueError:
                return s
            return value if isinstance(value, str) else s
        return call("jsonUnquote", (self,), DataTypes.STRING(), python)


def json(value: Any):
    """The JSON text ``value`` inserted as JSON into ``json_object``/``json_array``."""
    return call("json", (value,), DataTypes.STRING(), _Raw)


def json_string(value: Any):
    """The value as JSON text (null for null)."""
    return call("jsonString", (value,), DataTypes.STRING(), lambda v: _dumps(_json_of(v)))


def _on_null(on_null: Any, default: Any, what: str) -> Any:
    from kindling.table.expression import JsonOnNull

    if on_null is None:
        return default
    if not isinstance(on_null, JsonOnNull):
        raise TypeError(f"{what} takes a JsonOnNull before the values: {what}(JsonOnNull.NULL, ...), got {on_null!r}")
    return on_null


def json_object(on_null: Any = None, *args: Any):
    """A JSON object of the keys and values, alternating: ``json_object(JsonOnNull.NULL, 'k', v, ...)`` (a null
    value written, or left out with ``JsonOnNull.ABSENT``)."""
    from kindling.table.expression import JsonOnNull

    on_null = _on_null(on_null, JsonOnNull.NULL, "json_object")
    if len(args) % 2:
        raise ValueError("json_object takes keys and values in pairs")

    def python(*values):
        pairs = zip(values[::2], values[1::2])
        return _dumps({str(k): _json_of(v) for k, v in pairs if v is not None or on_null is JsonOnNull.NULL})
    return call("jsonObject", args, DataTypes.STRING(), python, strict=False, nullable=False)


def json_array(on_null: Any = None, *args: Any):
    """A JSON array of the values: ``json_array(JsonOnNull.ABSENT, v, ...)`` (nulls left out, or written with
    ``JsonOnNull.NULL``)."""
    from kindling.table.expression import JsonOnNull

    on_null = _on_null(on_null, JsonOnNull.ABSENT, "json_array")

    def python(*values):
        return _dumps([_json_of(v) for v in values if v is not None or on_null is JsonOnNull.NULL])
    return call("jsonArray", args, DataTypes.STRING(), python, strict=False, nullable=False)
