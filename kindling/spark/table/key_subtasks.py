"""Flink's subtask of a Table key as Spark Columns, evaluated in the JVM: the rows an aggregation or
OVER Spark computed reach the Spark partition of the subtask Flink's keyed operator would have made
them in, so a print sink after it writes Flink's ``n> `` prefixes.

The key's binary row (kindling/runtime/table/key_groups.py) is built as a Spark binary value and
hashed by Spark's ``hash``, whose murmur3 over whole 4-byte blocks (a binary row's length is a
multiple of 8) is Flink's ``hashUnsafeBytesByWords``; Flink's spread of that hash into a key group
(``MathUtils.murmurHash``) follows in 32-bit arithmetic kept within a long. FLOAT, DOUBLE and
DECIMAL of a precision over 18 have no Spark expression of their bytes: :func:`has_expression` says
so, and such keys keep Spark's placement (a difference of the prefix, listed in docs/table.md).
"""
from __future__ import annotations

from typing import Sequence

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from kindling.graph.parallelism import parallelism_of
from kindling.graph.specs import PrintSinkSpec
from kindling.graph.transformation import SinkTransformation, Transformation
from kindling.runtime.key_groups import compute_default_max_parallelism
from kindling.runtime.table.key_groups import TableKeyType
from kindling.spark.key_placement import partition_keys

_MASK = 0xFFFF_FFFF
_INTEGRAL = {"BOOLEAN": None, "TINYINT": 0xFF, "SMALLINT": 0xFFFF, "INT": _MASK, "INTEGER": _MASK, "DATE": _MASK,
             "TIME": _MASK, "BIGINT": None}
_TEXT = ("CHAR", "VARCHAR", "STRING", "BINARY", "VARBINARY", "BYTES")


def has_expression(key_type: TableKeyType | None) -> bool:
    """Whether the key's subtask has a Spark expression here."""
    if key_type is None or not key_type.reproducible():
        return False
    return all(name in _INTEGRAL or name in _TEXT or (name == "DECIMAL" and precision <= 18)
               or name in ("TIMESTAMP", "TIMESTAMP_LTZ") for name, precision, _ in key_type.fields)


def printed_in_parallel(sinks: Sequence[Transformation], default_parallelism: int) -> bool:
    """Whether one of ``sinks`` prints with ``n> `` prefixes (a print sink of parallelism over 1): the
    one sink where the subtask that made a row can be seen, so the one worth placing rows for."""
    return any(isinstance(s, SinkTransformation) and isinstance(s.sink, PrintSinkSpec)
               and parallelism_of(s, default_parallelism) > 1 for s in sinks)


def _zeros(n: Column | int) -> Column:
    return F.unhex(F.repeat(F.lit("00"), n if isinstance(n, Column) else F.lit(n)))


def _little_endian(value: Column) -> Column:
    """The 8 bytes of a long, least significant first."""
    return F.unhex(F.concat(*[F.lpad(F.hex(F.shiftright(value, 8 * i).bitwiseAND(F.lit(0xFF))), 2, "0")
                              for i in range(8)]))


def _micros(column: Column) -> Column:
    return F.unix_micros(column)


def _floor_div(value: Column, divisor: int) -> Column:
    return (value - F.pmod(value, F.lit(divisor))).cast("long") / divisor


def _row_bytes(columns: Sequence[Column], key_type: TableKeyType) -> Column:
    """The key's binary row (RowKind INSERT) as a Spark binary value."""
    arity = len(key_type.fields)
    header_words = (arity + 63 + 8) // 64
    words = [F.lit(0).cast("long") for _ in range(header_words)]
    slots, variable = [], []
    offset: Column = F.lit(header_words * 8 + 8 * arity).cast("long")
    for i, ((name, precision, _), value) in enumerate(zip(key_type.fields, columns)):
        bit = i + 8
        words[bit // 64] = words[bit // 64].bitwiseOR(
            F.when(value.isNull(), F.shiftleft(F.lit(1).cast("long"), bit % 64)).otherwise(F.lit(0).cast("long")))
        piece, size = None, None
        if name in _INTEGRAL:
            long_value = value.cast("long")
            if name == "DATE":
                long_value = F.unix_date(value).cast("long")
            elif name == "TIME":  # Spark carries microseconds of the day, Flink milliseconds
                long_value = F.floor(value / 1000).cast("long")
            elif name == "BOOLEAN":
                long_value = value.cast("int").cast("long")
            mask = _INTEGRAL[name]
            slot = _little_endian(long_value if mask is None else long_value.bitwiseAND(F.lit(mask)))
        elif name == "DECIMAL":  # compact: the unscaled long
            scale = key_type.fields[i][2]
            slot = _little_endian((value * F.lit(10 ** scale)).cast("decimal(38,0)").cast("long"))
        elif name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            micros = _micros(value)
            millis = _floor_div(micros, 1000).cast("long")
            if precision <= 3:
                slot = _little_endian(millis)
            else:
                nano_of_milli = F.pmod(micros, F.lit(1000)) * 1000
                slot = _little_endian(F.shiftleft(offset, 32).bitwiseOR(F.coalesce(nano_of_milli, F.lit(0))))
                piece, size = F.coalesce(_little_endian(millis), _zeros(8)), F.lit(8)
        else:  # a string or binary value: inline up to 7 bytes, else in the variable part
            data = value if name in ("BINARY", "VARBINARY", "BYTES") else F.encode(value, "UTF-8")
            length = F.octet_length(data).cast("long")
            rounded = F.floor((length + 7) / 8).cast("long") * 8
            inline = F.concat(data, _zeros(F.lit(7) - length), F.unhex(F.hex(length + 128)))
            slot = F.when(length <= 7, inline).otherwise(_little_endian(F.shiftleft(offset, 32).bitwiseOR(length)))
            piece = F.when(length <= 7, _zeros(0)).otherwise(F.concat(data, _zeros(rounded - length)))
            size = F.when(length <= 7, F.lit(0).cast("long")).otherwise(rounded)
        slots.append(F.coalesce(slot, _zeros(8)) if piece is None or name not in _TEXT else
                     F.when(value.isNull(), _zeros(8)).otherwise(slot))
        if piece is not None:
            if name in _TEXT:  # a null string has no variable part
                piece, size = F.coalesce(piece, _zeros(0)), F.coalesce(size, F.lit(0).cast("long"))
            variable.append(piece)
            offset = offset + size
    return F.concat(*[_little_endian(w) for w in words], *slots, *variable)


def _mul32(value: Column, constant: int) -> Column:
    """``value * constant`` modulo 2**32 (``value`` below 2**32), without overflowing a long."""
    low, high = constant & 0xFFFF, constant >> 16
    return (value * low + F.shiftleft((value * high).bitwiseAND(F.lit(0xFFFF)), 16)).bitwiseAND(F.lit(_MASK))


def _rotl32(value: Column, distance: int) -> Column:
    return F.shiftleft(value, distance).bitwiseOR(F.shiftright(value, 32 - distance)).bitwiseAND(F.lit(_MASK))


def _xor(a: Column, b: Column) -> Column:
    return a.bitwiseXOR(b)


def with_flink_subtask(frame: DataFrame, keys: Sequence[str], key_type: TableKeyType, parallelism: int,
                       name: str, max_parallelism: int | None = None) -> DataFrame:
    """``frame`` with the column ``name``: the Spark partition key (``partition_keys``) that sends each
    row, by the columns ``keys`` (of ``key_type``), to partition ``s`` of a repartition into
    ``parallelism``, ``s`` Flink's subtask of the key in an operator of that parallelism (and
    ``max_parallelism`` key groups, None: Flink's default)."""
    max_parallelism = max_parallelism or compute_default_max_parallelism(parallelism)
    h = F.col(name)
    steps = [
        F.hash(_row_bytes([F.col(f"`{k}`") for k in keys], key_type)).cast("long").bitwiseAND(F.lit(_MASK)),
        _mul32(_rotl32(_mul32(h, 0xCC9E2D51), 15), 0x1B873593),  # MathUtils.murmurHash of the hash code
        _xor((_mul32(_rotl32(h, 13), 5) + 0xE6546B64).bitwiseAND(F.lit(_MASK)), F.lit(4)),
        _mul32(_xor(h, F.shiftright(h, 16)), 0x85EBCA6B),
        _mul32(_xor(h, F.shiftright(h, 13)), 0xC2B2AE35),
        _xor(h, F.shiftright(h, 16)),
        # as a Java int, its absolute value (MIN_VALUE: 0), then its key group and subtask
        F.when(h >= 1 << 31, F.when(h == 1 << 31, F.lit(0)).otherwise((1 << 32) - h)).otherwise(h),
        F.floor(F.pmod(h, F.lit(max_parallelism)) * parallelism / max_parallelism).cast("int"),
        F.element_at(F.array(*[F.lit(k) for k in partition_keys(parallelism)]), h + 1),
    ]
    for step in steps:  # one projection each: a step reads the one before twice, not its expression
        frame = frame.withColumn(name, step)
    return frame
