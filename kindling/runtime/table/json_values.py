"""Flink's JSON functions on values, with Flink's semantics: JSON paths (parsed by the planner into
``(strict, steps)``: a step is a key, an index, or None for ``*``), a strict path finding nothing,
a non-scalar value or invalid JSON giving the ON ERROR behaviour, a lax one finding nothing the ON
EMPTY one; JSON text written as Flink writes it."""
from __future__ import annotations

import base64
import datetime
import decimal
import json as jsonlib
from typing import Any, Optional, Sequence, Tuple

from kindling.common.formatting import java_number
from kindling.common.types import Row

__all__ = ["Raw", "dumps", "is_json_of", "json_exists_of", "json_of", "json_query_of", "json_value_of"]

_MISSING = object()
Path = Tuple[bool, Sequence[Any]]


class JsonPathError(ValueError):
    """A path a strict path does not find, or a value it cannot take."""


class Raw:
    """A JSON text to insert as JSON (``json(...)``) into JSON_OBJECT/JSON_ARRAY, not as a string."""

    def __init__(self, text: str):
        self.text = text


def _found(document: Any, text: str, path: Path) -> Any:
    """The value the path finds in a parsed document (a list for wildcards), or ``_MISSING``; a strict
    path finding nothing raises :class:`JsonPathError`."""
    strict, steps = path
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
                raise JsonPathError(f"No results for path: {text}")
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
        return java_number(value)
    if isinstance(value, (dict, list)):
        return dumps(value)
    return str(value)


def _behave(behaviour: Optional[str], default: Any, error: Exception, empty_values: dict) -> Any:
    if behaviour == "ERROR":
        raise error
    if behaviour == "DEFAULT":
        return default
    return empty_values.get(behaviour)


def json_value_of(text: Any, path_text: str, path: Path, convert, on_empty: Optional[str] = None,
                  default_on_empty: Any = None, on_error: Optional[str] = None, default_on_error: Any = None) -> Any:
    """Flink's JSON_VALUE of one value; ``convert`` makes the RETURNING type's value of a scalar's
    (None: the scalar's text)."""
    strict = path[0]
    try:
        found = _found(_document(text), path_text, path)
        if found is _MISSING or found is None or (not strict and not _scalar(found)):
            return _behave(on_empty, default_on_empty, ValueError(f"Empty result of JSON_VALUE function is not "
                                                                  f"allowed for path {path_text}"), {})
        if not _scalar(found):
            raise JsonPathError(f"Strict jsonpath mode requires scalar value, and the actual value is: '{found}'")
        value = _text(found)
        return value if convert is None else convert(found if isinstance(found, (int, float, bool)) else value)
    except (ValueError, TypeError) as error:
        if isinstance(error, ValueError) and str(error).startswith("Empty result"):
            raise
        return _behave(on_error, default_on_error, error, {})


def json_query_of(text: Any, path_text: str, path: Path, wrapper: Optional[str] = None,
                  on_empty: Optional[str] = None, on_error: Optional[str] = None) -> Any:
    """Flink's JSON_QUERY of one value."""
    special = {"EMPTY_ARRAY": "[]", "EMPTY_OBJECT": "{}"}
    strict = path[0]
    try:
        found = _found(_document(text), path_text, path)
    except (ValueError, TypeError) as error:
        return _behave(on_error, None, error, special)
    wrapping = wrapper or "WITHOUT_ARRAY"
    value = None if found is _MISSING or found is None else [found] if wrapping == "UNCONDITIONAL_ARRAY" or (
        wrapping == "CONDITIONAL_ARRAY" and not isinstance(found, list)) else found
    if value is None or (not strict and _scalar(value)):
        return _behave(on_empty, None, ValueError(f"Empty result of JSON_QUERY function is not allowed for path "
                                                  f"{path_text}"), special)
    if _scalar(value):
        return _behave(on_error, None, JsonPathError(f"Strict jsonpath mode requires array or object value, and the "
                                                     f"actual value is: '{value}'"), special)
    return _text(value)


def json_exists_of(text: Any, path_text: str, path: Path, on_error: Optional[str] = None) -> Optional[bool]:
    """Flink's JSON_EXISTS of one value."""
    try:
        found = _found(_document(text), path_text, path)
    except (ValueError, TypeError) as error:
        name = on_error or "FALSE"
        if name == "ERROR":
            raise error
        return {"TRUE": True, "FALSE": False, "UNKNOWN": None}[name]
    return found is not _MISSING and found is not None


def is_json_of(text: Any, kind: Optional[str] = None) -> bool:
    """Flink's IS JSON [VALUE|SCALAR|ARRAY|OBJECT] of one value."""
    try:
        value = jsonlib.loads(text)
    except (ValueError, TypeError):
        return False
    name = kind or "VALUE"
    return name == "VALUE" or (name == "SCALAR" and _scalar(value)) or (name == "ARRAY" and isinstance(value, list)) \
        or (name == "OBJECT" and isinstance(value, dict))


def json_of(value: Any) -> Any:
    """A Python value of the table as a JSON value."""
    if isinstance(value, Raw):
        return jsonlib.loads(value.text)
    if isinstance(value, Row):
        return {name: json_of(v) for name, v in zip(value._fields or [], value._values)} if value._fields else \
            [json_of(v) for v in value._values]
    if isinstance(value, dict):
        return {str(k): json_of(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_of(v) for v in value]
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode()
    return value


def dumps(value: Any) -> str:
    """Compact JSON text, as Flink writes it."""
    return jsonlib.dumps(value, separators=(",", ":"), ensure_ascii=False)
