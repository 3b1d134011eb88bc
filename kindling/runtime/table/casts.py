"""Flink's CAST between SQL types, as a function built once per cast (:func:`caster`): numbers, strings,
BOOLEAN, DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ values; a value that does not convert raises
ValueError (TRY_CAST makes it null)."""
from __future__ import annotations

import datetime
import decimal
from typing import Any, Callable, Optional

from kindling.common.formatting import java_number
from kindling.common.time import instant_of, timestamp_of
from kindling.runtime.table.dates import to_datetime

__all__ = ["INTEGRAL_BITS", "cast_value", "caster", "text_of", "wrapped"]

#: the integral types and their widths: Java's arithmetic wraps around at them, as Flink's does
INTEGRAL_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
_INTEGRAL = tuple(INTEGRAL_BITS)
_STRINGS = ("STRING", "VARCHAR", "CHAR")
_TRUE, _FALSE = {"t", "true", "y", "yes", "1"}, {"f", "false", "n", "no", "0"}


def cast_value(value: Any, source: Any, target: Any) -> Any:
    """``value`` of the type ``source`` (None: unknown) as a value of ``target``, as Flink's CAST
    converts it; ValueError when it does not convert."""
    return caster(source, target)(value)


def caster(source: Any, target: Any) -> Callable[[Any], Any]:
    """The function converting a (non-null) value of ``source`` (a DataType, None: unknown) to ``target``."""
    name = target.type_name
    if name in _INTEGRAL:
        bits = INTEGRAL_BITS[name]
        return lambda value: _integral(value, bits, name)
    if name == "FLOAT":
        import numpy

        return lambda value: float(numpy.float32(_number(value, float)))
    if name == "DOUBLE":
        return lambda value: float(_number(value, float))
    if name == "DECIMAL":  # a value with more integer digits than the type takes is null, as Flink makes it
        quantum = decimal.Decimal(1).scaleb(-target.scale)
        integer_digits = target.precision - target.scale

        def to_decimal(value):
            number = _number(value, decimal.Decimal)
            exact = decimal.Decimal(repr(number) if isinstance(number, float) else number)
            with decimal.localcontext(prec=80):
                rounded = exact.quantize(quantum, decimal.ROUND_HALF_UP)
            return None if rounded and rounded.adjusted() >= integer_digits else rounded
        return to_decimal
    if name in _STRINGS:
        return lambda value: text_of(value, source)
    if name == "BOOLEAN":
        return _boolean
    if name == "DATE":
        return lambda value: datetime.date.fromisoformat(value.strip()) if isinstance(value, str) else \
            to_datetime(value).date()
    if name == "TIME":
        return lambda value: datetime.time.fromisoformat(value.strip()) if isinstance(value, str) else \
            to_datetime(value).time()
    if name == "TIMESTAMP":
        return lambda value: datetime.datetime.fromisoformat(value.strip()) if isinstance(value, str) else \
            to_datetime(value) if isinstance(value, datetime.date) else timestamp_of(value)
    if name == "TIMESTAMP_LTZ":
        return lambda value: instant_of(datetime.datetime.fromisoformat(value.strip())) if isinstance(value, str) \
            else instant_of(to_datetime(value) if isinstance(value, datetime.date) else value)
    if name in ("ROW", "ARRAY", "MAP"):
        return _nested_caster(source, target)
    raise ValueError(f"cast to {target!r} is not supported by Kindling yet")


def _nested_caster(source: Any, target: Any) -> Callable[[Any], Any]:
    """A ROW cast field by field by position (its fields take the target's names), an ARRAY element
    by element, a MAP key and value by key and value, as Flink casts them; from its own kind only."""
    from kindling.common.types import _create_row

    name = target.type_name
    if source is not None and source.type_name != name:
        raise ValueError(f"cast from {source!r} to {target!r} is not supported by Kindling yet (a {name} casts "
                         f"from a {name} only)")

    def nullable(convert):
        return lambda value: None if value is None else convert(value)

    if name == "ROW":
        sources = source.fields if source is not None else [None] * len(target.fields)
        if len(sources) != len(target.fields):
            raise ValueError(f"cast from {source!r} to {target!r}: the rows have different numbers of fields")
        fields = [nullable(caster(None if s is None else s.data_type, t.data_type))
                  for s, t in zip(sources, target.fields)]
        names = [f.name for f in target.fields]
        return lambda value: _create_row(names, [f(v) for f, v in zip(fields, value)])
    if name == "ARRAY":
        element = nullable(caster(None if source is None else source.element_type, target.element_type))
        return lambda value: [element(v) for v in value]
    key = nullable(caster(None if source is None else source.key_type, target.key_type))
    value_of = nullable(caster(None if source is None else source.value_type, target.value_type))
    return lambda value: {key(k): value_of(v) for k, v in value.items()}


def wrapped(value: int, bits: int) -> int:
    """An integer wrapped around into ``bits`` bits, as Java's integer arithmetic and narrowing do."""
    low = -1 << (bits - 1)
    return value if low <= value < -low else (value - low) % (1 << bits) + low


def _integral(value: Any, bits: int, name: str) -> int:
    """Flink's CAST to an integral type: a string's number cut toward zero (failing beyond the type),
    a floating number saturated to the type (NaN: 0), an integral or DECIMAL one wrapped around."""
    if isinstance(value, str):
        number = int(decimal.Decimal(value.strip()))
        if wrapped(number, bits) != number:
            raise ValueError(f"CAST('{value}' AS {name}): the number overflows {name}")
        return number
    if isinstance(value, float):
        if value != value:
            return 0
        low = -1 << (bits - 1)
        return low if value <= low else -low - 1 if value >= -low else int(value)
    return wrapped(int(value), bits)


def _number(value: Any, kind: type) -> Any:
    if isinstance(value, str):
        return kind(value.strip())
    if isinstance(value, bool):
        return int(value)
    return value


def _boolean(value: Any) -> bool:
    if isinstance(value, str):
        text = value.strip().lower()
        if text not in _TRUE | _FALSE:
            raise ValueError(f"CAST('{value}' AS BOOLEAN): not a boolean")
        return text in _TRUE
    return bool(value)


def text_of(value: Any, source: Optional[Any]) -> str:
    """A value as Flink's CAST(... AS STRING) writes it (timestamps with their type's fraction digits)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return java_number(value, source is not None and source.type_name == "FLOAT")
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if hasattr(value, "to_epoch_milli"):
        value = timestamp_of(value)
    if isinstance(value, datetime.datetime):
        digits = (source.precision if source is not None else None) or 0
        text = value.strftime("%Y-%m-%d %H:%M:%S")
        return text + "." + f"{value.microsecond:06d}"[:digits].ljust(digits, "0") if digits else text
    return str(value)
