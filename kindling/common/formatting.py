"""Elements as text the way Flink prints them (``print()``, ``Encoder.simple_string_encoder``).

Untyped (pickled) elements print as Python's ``str``; typed elements as PyFlink prints
them: rows as ``+I[1,a]`` (a missing field as ``None``), tuples as ``(1,a)``, maps as
``{k=1}``, booleans as ``true``/``false``.
"""
from __future__ import annotations

import decimal
from typing import Any


def flink_string(value: Any, type_info: Any) -> str:
    """Flink's text for ``value`` of declared type ``type_info`` (None: untyped)."""
    return flink_strings([value], type_info)[0]


def flink_strings(values: list, type_info: Any) -> list[str]:
    """:func:`flink_string` of each of ``values``; strings and ints, a typed stream's usual
    elements, without the type dispatch per element."""
    if type_info is None:
        return [str(v) for v in values]
    from kindling.common.typeinfo import (
        ListTypeInfo,
        MapTypeInfo,
        PickledBytesTypeInfo,
        RowTypeInfo,
        TupleTypeInfo,
    )

    if isinstance(type_info, PickledBytesTypeInfo):
        return [str(v) for v in values]
    kinds = (RowTypeInfo, TupleTypeInfo, ListTypeInfo, MapTypeInfo)
    if isinstance(type_info, kinds):
        return [_java_string(v, type_info, kinds) for v in values]
    return [v if type(v) is str else str(v) if type(v) is int else _java_string(v, type_info, kinds)
            for v in values]


def _java_string(value: Any, type_info: Any, kinds: tuple) -> str:
    row_t, tuple_t, list_t, map_t = kinds
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(type_info, row_t):
        kind = getattr(value, "get_row_kind", None)
        short = kind().short_string() if kind is not None and hasattr(kind(), "short_string") else "+I"
        types = type_info.get_field_types()
        # PyFlink formats a row's fields in Python: composite ones as their repr
        return short + "[" + ",".join("None" if v is None else repr(v) if isinstance(t, kinds) else
                                      _java_string(v, t, kinds) for v, t in zip(value, types)) + "]"
    if isinstance(type_info, tuple_t):
        types = type_info.get_field_types()
        return "(" + ",".join(_java_row_string(v, t, kinds) if isinstance(t, row_t) else _java_string(v, t, kinds)
                              for v, t in zip(value, types)) + ")"
    if isinstance(type_info, list_t) or isinstance(value, (list, tuple)):
        elem = getattr(type_info, "elem_type", None)
        return "[" + ", ".join(_java_string(v, elem, kinds) for v in value) + "]"
    if isinstance(type_info, map_t) or isinstance(value, dict):
        return "{" + ", ".join(f"{_java_string(k, None, kinds)}={_java_string(v, None, kinds)}" for k, v in value.items()) + "}"
    return str(value)


def _java_row_string(value: Any, type_info: Any, kinds: tuple) -> str:
    """A Row as Java's ``Row.toString`` writes it (a row inside a tuple): ``+I[a, 1]``."""
    if value is None:
        return "null"
    short = value.get_row_kind().short_string() if hasattr(value, "get_row_kind") else "+I"
    return short + "[" + ", ".join(_java_string(v, t, kinds) for v, t in zip(value, type_info.get_field_types())) + "]"


def java_number(value: float, single: bool = False) -> str:
    """A FLOAT (``single``) or DOUBLE as Java's ``toString`` writes it: ``1.5``, ``1.0E20``."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if single:
        import numpy

        text = str(numpy.float32(value))
    else:
        text = repr(float(value))
    magnitude = abs(float(text))
    if magnitude == 0 or 1e-3 <= magnitude < 1e7:
        plain = format(decimal.Decimal(text), "f")
        return plain if "." in plain else plain + ".0"
    sign, digits, exponent = decimal.Decimal(text).as_tuple()
    mantissa = str(digits[0]) + "." + ("".join(map(str, digits[1:])).rstrip("0") or "0")
    return ("-" if sign else "") + f"{mantissa}E{len(digits) - 1 + exponent}"
