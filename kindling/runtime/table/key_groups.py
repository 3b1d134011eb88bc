"""Which parallel subtask Flink gives a Table key: the key as the binary row Flink's Table runtime
keys its operators by.

A Table keyed operator (GROUP BY, window aggregation, OVER, join, Top-N, ...) is keyed by a
``BinaryRowData`` of the key fields, not by a DataStream key: its Java hash code is murmur3 (seed 42)
over the row's bytes, 4-byte little-endian words at a time, then the key groups of
:mod:`kindling.runtime.key_groups` place it. The row's bytes are a header (the RowKind byte, then one
null bit per field, in whole 8-byte words), one 8-byte slot per field (a value of up to 8 bytes in
the slot, little-endian; a string or binary of up to 7 bytes inline with its length in the top byte;
anything longer in the variable part after the slots, the slot holding its offset and length) and
the variable part, each piece padded to 8 bytes.

Key types this reproduces: (VAR)CHAR/STRING, BINARY/(VAR)BYTES, BOOLEAN, TINYINT, SMALLINT, INT,
BIGINT, FLOAT, DOUBLE, DECIMAL, DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ of any precision.
:func:`reproducible` says whether a key type is among them.
"""
from __future__ import annotations

import dataclasses
import datetime
import decimal
import struct
from functools import lru_cache
from typing import Any, Sequence

from kindling.runtime.key_groups import murmur3_bytes

#: the key field types whose binary-row layout is reproduced (Kindling's DataType.type_name)
REPRODUCED = frozenset({"CHAR", "VARCHAR", "STRING", "BINARY", "VARBINARY", "BYTES", "BOOLEAN", "TINYINT",
                        "SMALLINT", "INT", "INTEGER", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "DATE", "TIME",
                        "TIMESTAMP", "TIMESTAMP_LTZ"})
_FIXED = {"BOOLEAN": "<?", "TINYINT": "<b", "SMALLINT": "<h", "INT": "<i", "INTEGER": "<i", "BIGINT": "<q",
          "FLOAT": "<f", "DOUBLE": "<d"}
_MAX_INLINE = 7  # bytes of a string or binary value kept in its field's slot
_MAX_COMPACT_DECIMAL = 18  # precision up to which a DECIMAL is its unscaled long in the slot
_MAX_COMPACT_TIMESTAMP = 3  # precision up to which a TIMESTAMP is its epoch milliseconds in the slot
_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_DATE = datetime.date(1970, 1, 1)
_MASK64 = 0xFFFF_FFFF_FFFF_FFFF


@dataclasses.dataclass(frozen=True)
class TableKeyType:
    """The logical types of a Table key's fields, ``(type_name, precision, scale)`` each: a keyed
    operator of the Table runtime places such a key as Flink does (its key selector gives the one
    field's value, or a tuple of several)."""

    fields: tuple

    @staticmethod
    def of(data_types: Sequence[Any]) -> "TableKeyType":
        """The key type of Kindling ``DataType`` fields."""
        return TableKeyType(tuple((t.type_name, t.precision or 0, t.scale or 0) for t in data_types))

    def reproducible(self) -> bool:
        """Whether Flink's binary-row hash of every field type is reproduced."""
        return bool(self.fields) and all(name in REPRODUCED for name, _, _ in self.fields)

    def values(self, key: Any) -> tuple:
        """The key's field values (``key`` itself for a key of one field)."""
        return (key,) if len(self.fields) == 1 else tuple(key)


def _header_bytes(arity: int) -> int:
    return ((arity + 63 + 8) // 64) * 8


def _utf8(value: Any) -> bytes:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return str(value).encode("utf-8", "surrogatepass")


_DECIMALS = decimal.Context(prec=80)  # room for any DECIMAL(38, s) (the default context keeps 28 digits)


def _unscaled(value: Any, scale: int) -> int:
    return int(_DECIMALS.scaleb(decimal.Decimal(value), scale).to_integral_value(
        rounding=decimal.ROUND_HALF_UP, context=_DECIMALS))


def _big_integer_bytes(n: int) -> bytes:
    """Java's ``BigInteger.toByteArray()``: two's complement, big-endian, fewest bytes."""
    bits = n.bit_length() if n >= 0 else (~n).bit_length()
    return n.to_bytes(bits // 8 + 1, "big", signed=True)


def _micros_since_epoch(value: Any) -> int:
    """A TIMESTAMP value (naive datetime, UTC) or TIMESTAMP_LTZ value (Instant, aware datetime)."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        delta = value - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if hasattr(value, "seconds") and hasattr(value, "nanos"):  # kindling.common.time.Instant
        return value.seconds * 1_000_000 + value.nanos // 1000
    return int(value) * 1000  # epoch milliseconds


def _nanos_since_epoch(value: Any) -> int:
    if hasattr(value, "seconds") and hasattr(value, "nanos") and not isinstance(value, datetime.datetime):
        return value.seconds * 1_000_000_000 + value.nanos
    return _micros_since_epoch(value) * 1000


def _int_value(name: str, value: Any) -> int:
    if name == "DATE" and isinstance(value, datetime.date):
        return (value - _EPOCH_DATE).days
    if name == "TIME" and isinstance(value, datetime.time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
    return int(value)


def binary_row(key_type: TableKeyType, values: Sequence[Any]) -> bytes:
    """The bytes of the ``BinaryRowData`` (RowKind INSERT) Flink keys a Table operator by."""
    arity = len(key_type.fields)
    header = _header_bytes(arity)
    fixed = bytearray(header + 8 * arity)
    variable = bytearray()

    def append(data: bytes, reserved: int) -> int:
        offset = len(fixed) + len(variable)
        variable.extend(data.ljust(reserved, b"\0"))
        return offset

    for i, ((name, precision, scale), value) in enumerate(zip(key_type.fields, values)):
        slot = header + 8 * i
        if value is None:
            bit = i + 8
            fixed[bit >> 3] |= 1 << (bit & 7)
            # a DECIMAL or TIMESTAMP kept outside the slot keeps its room (and offset) when null
            if name == "DECIMAL" and precision > _MAX_COMPACT_DECIMAL:
                fixed[slot:slot + 8] = (append(b"", 16) << 32).to_bytes(8, "little")
            elif name in ("TIMESTAMP", "TIMESTAMP_LTZ") and precision > _MAX_COMPACT_TIMESTAMP:
                fixed[slot:slot + 8] = (append(b"", 8) << 32).to_bytes(8, "little")
            continue
        if name in _FIXED:
            packed = struct.pack(_FIXED[name], value if name in ("FLOAT", "DOUBLE", "BOOLEAN") else int(value))
        elif name in ("DATE", "TIME"):
            packed = struct.pack("<i", _int_value(name, value))
        elif name == "DECIMAL":
            unscaled = _unscaled(value, scale)
            if precision <= _MAX_COMPACT_DECIMAL:
                packed = struct.pack("<q", unscaled)
            else:
                data = _big_integer_bytes(unscaled)
                packed = ((append(data, 16) << 32) | len(data)).to_bytes(8, "little")
        elif name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            nanos = _nanos_since_epoch(value)
            millis, nano_of_milli = divmod(nanos, 1_000_000)
            if precision <= _MAX_COMPACT_TIMESTAMP:
                packed = struct.pack("<q", millis)
            else:
                offset = append(struct.pack("<q", millis), 8)
                packed = ((offset << 32) | nano_of_milli).to_bytes(8, "little")
        elif name in REPRODUCED:  # a string or binary value
            data = _utf8(value)
            if len(data) <= _MAX_INLINE:
                packed = data.ljust(7, b"\0") + bytes([0x80 | len(data)])
            else:
                packed = ((append(data, -(-len(data) // 8) * 8) << 32) | len(data)).to_bytes(8, "little")
        else:
            raise ValueError(f"Flink's hash of a Table key of type {name} is not reproduced by Kindling")
        fixed[slot:slot + len(packed)] = packed
    return bytes(fixed + variable)


def hash_by_words(data: bytes, seed: int = 42) -> int:
    """Flink's ``MurmurHashUtil.hashUnsafeBytesByWords``: murmur3 over 4-byte little-endian words
    (``data``'s length a multiple of 4), as a Java int."""
    return murmur3_bytes(data, seed)


@lru_cache(maxsize=1 << 16)
def table_key_hash_code(key: Any, key_type: TableKeyType) -> int:
    """``BinaryRowData.hashCode()`` of the key row of ``key`` (as the key selector gives it)."""
    return hash_by_words(binary_row(key_type, key_type.values(key)))
