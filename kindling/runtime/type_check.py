"""Checks that Python values fit a TypeInformation, as PyFlink's serializers would demand.

``checker_for(type_info)`` returns a predicate ``value -> bool``, or None when every value fits
(no type, ``Types.PICKLED_BYTE_ARRAY()``, or a type Kindling does not know). Composite values
may hold None in their fields and elements (PyFlink's types are nullable).
"""
from __future__ import annotations

import datetime
import decimal
from typing import Any, Callable, Optional

Checker = Callable[[Any], bool]

_RANGES = {
    'BYTE': (-(2 ** 7), 2 ** 7 - 1),
    'SHORT': (-(2 ** 15), 2 ** 15 - 1),
    'INT': (-(2 ** 31), 2 ** 31 - 1),
    'LONG': (-(2 ** 63), 2 ** 63 - 1),
}


def _int_checker(lo: int, hi: int) -> Checker:
    def check(v) -> bool:
        if type(v) is int:
            return lo <= v <= hi
        return isinstance(v, int) and lo <= v <= hi
    return check


def _is_float(v) -> bool:
    return type(v) is float or isinstance(v, (int, float))


def _is_str(v) -> bool:
    return type(v) is str or isinstance(v, str)


def _is_char(v) -> bool:
    return isinstance(v, str) and len(v) == 1


def _is_bool(v) -> bool:
    return v is True or v is False


def _is_big_int(v) -> bool:
    return isinstance(v, int)


def _is_big_dec(v) -> bool:
    return isinstance(v, (decimal.Decimal, int))


def _is_instant(v) -> bool:
    from kindling.common.time import Instant
    return isinstance(v, (Instant, datetime.datetime))


def _is_date(v) -> bool:
    return isinstance(v, datetime.date)


def _is_time(v) -> bool:
    return isinstance(v, datetime.time)


def _is_datetime(v) -> bool:
    return isinstance(v, datetime.datetime)


def _nullable(check: Optional[Checker]) -> Optional[Checker]:
    if check is None:
        return None
    return lambda v: v is None or check(v)


def checker_for(type_info) -> Optional[Checker]:
    """A predicate telling whether a (non-None) value fits ``type_info``; None accepts all."""
    if type_info is None:
        return None
    try:
        from kindling.common import typeinfo as ti
    except ImportError:  # pragma: no cover - common layer not importable
        return None
    if isinstance(type_info, ti.PickledBytesTypeInfo):
        return None
    if isinstance(type_info, ti.InstantTypeInfo):
        return _is_instant
    if isinstance(type_info, ti.BasicTypeInfo):
        name = type_info.basic_type.name
        if name in _RANGES:
            return _int_checker(*_RANGES[name])
        return {
            'STRING': _is_str,
            'CHAR': _is_char,
            'BOOLEAN': _is_bool,
            'FLOAT': _is_float,
            'DOUBLE': _is_float,
            'BIG_INT': _is_big_int,
            'BIG_DEC': _is_big_dec,
        }.get(name)
    if isinstance(type_info, ti.DateTypeInfo):
        return _is_date
    if isinstance(type_info, ti.TimeTypeInfo):
        return _is_time
    if isinstance(type_info, ti.TimestampTypeInfo):
        return _is_datetime
    if isinstance(type_info, ti.LocalTimeTypeInfo):
        tt = type_info._time_type
        if tt is ti.LocalTimeTypeInfo.TimeType.LOCAL_DATE:
            return _is_date
        if tt is ti.LocalTimeTypeInfo.TimeType.LOCAL_TIME:
            return _is_time
        return _is_datetime
    if isinstance(type_info, ti.PrimitiveArrayTypeInfo) and \
            isinstance(type_info.element_type, ti.BasicTypeInfo) and \
            type_info.element_type.basic_type is ti.BasicType.BYTE:
        return lambda v: isinstance(v, (bytes, bytearray))
    if isinstance(type_info, ti._ElementTypeInfo):
        elem = _nullable(checker_for(type_info.element_type))
        if elem is None:
            return lambda v: isinstance(v, (list, tuple))
        return lambda v: isinstance(v, (list, tuple)) and all(elem(e) for e in v)
    if isinstance(type_info, ti.MapTypeInfo):
        kc = checker_for(type_info.get_key_type())
        vc = _nullable(checker_for(type_info.get_value_type()))
        kc = kc or (lambda k: True)
        vc = vc or (lambda v: True)
        return lambda v: isinstance(v, dict) and all(kc(a) and vc(b) for a, b in v.items())
    if isinstance(type_info, ti.RowTypeInfo):
        from kindling.common.types import Row
        names = type_info.get_field_names()
        fields = [_nullable(checker_for(t)) for t in type_info.get_field_types()]
        arity = len(fields)

        def check_row(v) -> bool:
            if isinstance(v, dict):
                values = [v.get(n) for n in names]
            elif isinstance(v, (Row, tuple, list)):
                if len(v) != arity:
                    return False
                values = v
            else:
                return False
            return all(c is None or c(x) for c, x in zip(fields, values))
        return check_row
    if isinstance(type_info, ti.TupleTypeInfo):
        fields = [_nullable(checker_for(t)) for t in type_info.get_field_types()]
        arity = len(fields)

        def check_tuple(v) -> bool:
            if not isinstance(v, (tuple, list)) or len(v) != arity:
                return False
            return all(c is None or c(x) for c, x in zip(fields, v))
        return check_tuple
    return None


def type_error(state_name: str, value: Any, type_info, what: str = "value") -> TypeError:
    """The error raised when ``value`` does not fit the type of state ``state_name``."""
    text = repr(value)
    if len(text) > 200:
        text = text[:200] + '...'
    return TypeError("state '%s': %s %s of Python type %s does not fit the declared type %r"
                     % (state_name, what, text, type(value).__name__, type_info))
