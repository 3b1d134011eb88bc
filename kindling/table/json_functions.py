"""Flink's JSON functions (``json_value``, ``json_query``, ``json_exists``, ``is_json``, ``json_string``,
``json_object``, ``json_array``, ...): calls by name whose JSON path is read here, as Flink reads it
(``$.a.b``, ``$['a']``, ``$.a[0]``, ``[*]``; strict unless prefixed ``lax``), so that a bad path fails
when the call is made. They are evaluated in Python with Flink's semantics
(kindling/runtime/table/json_values.py): Spark's ``get_json_object`` answers otherwise (objects as
text, no modes).

Example::

    table.select(col('data').json_value('$.addr.country', DataTypes.STRING()))
"""
from __future__ import annotations

import re
from typing import Any, List, Tuple

from kindling.table.builtins import builtin_call, literal
from kindling.table.types import DataType, DataTypes

__all__ = ["JsonMethods", "json", "json_array", "json_object", "json_string"]

_TOKEN = re.compile(r"\.([A-Za-z_$][\w$]*)|\.\*|\[\s*\*\s*\]|\[\s*(-?\d+)\s*\]|\[\s*'([^']*)'\s*\]|\[\s*\"([^\"]*)\"\s*\]")


def parse_path(path: str) -> Tuple[bool, Tuple[Any, ...]]:
    """(strict, steps) of a JSON path (strict unless it starts with ``lax``, as Flink reads it): a step
    is a key, an index, or ``None`` for ``*``."""
    text = path.strip()
    strict = not text.startswith("lax ")
    if text.startswith(("lax ", "strict ")):
        text = text.split(" ", 1)[1].strip()
    if not text.startswith("$"):
        raise ValueError(f"Illegal jsonpath spec: {path}, format of the spec should be: '<lax|strict> $'{{expr}}")
    steps, at = [], 1
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None:
            raise ValueError(f"Illegal jsonpath spec {path!r} at {text[at:]!r}")
        key, index, quoted, double = match.groups()
        steps.append(key if key is not None else int(index) if index is not None else
                     quoted if quoted is not None else double if double is not None else None)
        at = match.end()
    return strict, tuple(steps)


def _name(option: Any) -> Any:
    """An option's name (``JsonOnNull.NULL``: ``'NULL'``), None when not given."""
    return getattr(option, "name", option)


class JsonMethods:
    """The JSON functions PyFlink calls as Expression methods."""

    def json_value(self, path: str, returning_type: DataType = DataTypes.STRING(), on_empty: Any = None,
                   default_on_empty: Any = None, on_error: Any = None, default_on_error: Any = None):
        """The scalar at the JSON path of this JSON string, as ``returning_type`` (null when there is none,
        unless ``on_empty``/``on_error`` say otherwise)."""
        return builtin_call("jsonValue", (self,), (path, parse_path(path), returning_type, _name(on_empty),
                                                   literal(default_on_empty), _name(on_error),
                                                   literal(default_on_error)))

    def json_query(self, path: str, wrapping_behavior: Any = None, on_empty: Any = None, on_error: Any = None):
        """The JSON text of the object or array at the JSON path (wrapped in an array if asked)."""
        return builtin_call("jsonQuery", (self,), (path, parse_path(path), _name(wrapping_behavior), _name(on_empty),
                                                   _name(on_error)))

    def json_exists(self, path: str, on_error: Any = None):
        """Whether the JSON path finds a value in this JSON string."""
        return builtin_call("jsonExists", (self,), (path, parse_path(path), _name(on_error)))

    def is_json(self, json_type: Any = None):
        """Whether this string is JSON (of the ``json_type``: VALUE, SCALAR, ARRAY or OBJECT)."""
        return builtin_call("isJson", (self,), (_name(json_type),))

    def json_quote(self):
        """The string as a JSON string literal (quoted and escaped)."""
        return builtin_call("jsonQuote", (self,))

    def json_unquote(self):
        """The string a JSON string literal holds (the text itself when it is not one)."""
        return builtin_call("jsonUnquote", (self,))


def json(value: Any):
    """The JSON text ``value`` inserted as JSON into ``json_object``/``json_array``."""
    return builtin_call("json", (value,))


def json_string(value: Any):
    """The value as JSON text (null for null)."""
    return builtin_call("jsonString", (value,))


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
    return builtin_call("jsonObject", args, (on_null.name,))


def json_array(on_null: Any = None, *args: Any):
    """A JSON array of the values: ``json_array(JsonOnNull.ABSENT, v, ...)`` (nulls left out, or written with
    ``JsonOnNull.NULL``)."""
    from kindling.table.expression import JsonOnNull

    on_null = _on_null(on_null, JsonOnNull.ABSENT, "json_array")
    return builtin_call("jsonArray", args, (on_null.name,))
