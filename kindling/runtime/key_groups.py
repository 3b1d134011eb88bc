"""Which parallel subtask Flink gives a key: key groups, as PyFlink assigns them.

Flink partitions a keyed stream in two steps (``KeyGroupRangeAssignment``): the key's Java
``hashCode()`` is spread by a murmur hash into one of ``max_parallelism`` key groups (128 for
any parallelism up to 85), and the key groups are cut into ``parallelism`` contiguous ranges,
one per subtask. PyFlink keys a stream by ``Row(key)``: without a ``key_type`` the key is the
``cloudpickle`` bytes of the Python key (``Types.PICKLED_BYTE_ARRAY()``); with one, the Java
value of that type. Reproducing the Java hash codes here lets Kindling print the same ``n> ``
subtask prefixes and report the same ``get_index_of_this_subtask()`` as PyFlink.
"""
from __future__ import annotations

import pickle
import struct
from functools import lru_cache
from operator import mul
from typing import Any

import cloudpickle

DEFAULT_MAX_PARALLELISM = 128
UPPER_BOUND_MAX_PARALLELISM = 1 << 15

_MASK = 0xFFFFFFFF
# PyFlink's coder for PICKLED_BYTE_ARRAY fields calls cloudpickle.dumps, whose default protocol is 5.
_PICKLE_PROTOCOL = 5
# Values whose plain pickle is byte for byte cloudpickle's, and much faster to produce.
_PLAIN_PICKLE_TYPES = (str, int, float, bool, type(None), bytes)


def _int32(value: int) -> int:
    value &= _MASK
    return value - 0x1_0000_0000 if value & 0x8000_0000 else value


def _rotate_left(value: int, distance: int) -> int:
    value &= _MASK
    return ((value << distance) | (value >> (32 - distance))) & _MASK


def murmur3_bytes(data: bytes, seed: int = 42) -> int:
    """Murmur3_x86_32 of ``data`` as a Java int: Spark's ``hash()`` of a binary value (trailing bytes mixed
    one by one as signed ints) and, for data of whole 4-byte words, Flink's ``hashUnsafeBytesByWords``."""
    h1 = seed
    aligned = len(data) - len(data) % 4
    for i in range(0, aligned, 4):
        h1 = _murmur_mix(h1, int.from_bytes(data[i:i + 4], "little"))
    for b in data[aligned:]:
        h1 = _murmur_mix(h1, (b - 256 if b > 127 else b) & 0xFFFFFFFF)
    h1 ^= len(data)
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & 0xFFFFFFFF
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & 0xFFFFFFFF
    h1 ^= h1 >> 16
    return _int32(h1)


def _murmur_mix(h1: int, k1: int) -> int:
    k1 = (k1 * 0xCC9E2D51) & 0xFFFFFFFF
    k1 = ((k1 << 15) | (k1 >> 17)) & 0xFFFFFFFF
    h1 ^= (k1 * 0x1B873593) & 0xFFFFFFFF
    h1 = ((h1 << 13) | (h1 >> 19)) & 0xFFFFFFFF
    return (h1 * 5 + 0xE6546B64) & 0xFFFFFFFF


def murmur_hash(code: int) -> int:
    """Flink's ``MathUtils.murmurHash(int)``: a non-negative spread of a Java hash code."""
    code = _rotate_left(code * 0xCC9E2D51, 15)
    code = _rotate_left(code * 0x1B873593, 13)
    code = ((code * 5 + 0xE6546B64) & _MASK) ^ 4
    # bitMix (the finaliser of murmur3)
    code ^= code >> 16
    code = (code * 0x85EBCA6B) & _MASK
    code ^= code >> 13
    code = (code * 0xC2B2AE35) & _MASK
    code ^= code >> 16
    signed = _int32(code)
    if signed >= 0:
        return signed
    return -signed if signed != -0x8000_0000 else 0


def compute_default_max_parallelism(parallelism: int) -> int:
    """Flink's default max parallelism of an operator: 1.5 x parallelism rounded up to a power of
    two, at least 128 and at most 32768."""
    wanted = parallelism + parallelism // 2
    power = 1
    while power < wanted:
        power <<= 1
    return min(max(power, DEFAULT_MAX_PARALLELISM), UPPER_BOUND_MAX_PARALLELISM)


def compute_key_group_for_key_hash(key_hash: int, max_parallelism: int) -> int:
    """The key group (0-based) of a key whose Java ``hashCode()`` is ``key_hash``."""
    return murmur_hash(key_hash) % max_parallelism


def compute_operator_index_for_key_group(max_parallelism: int, parallelism: int, key_group: int) -> int:
    """The subtask (0-based) that owns ``key_group``: key groups are split into equal ranges."""
    return key_group * parallelism // max_parallelism


_POWERS_OF_31: list[int] = [1]  # 31**i mod 2**32
_HIGH_BIT = bytes(1 if b > 127 else 0 for b in range(256))


def java_bytes_hash_code(data: bytes) -> int:
    """Java's ``Arrays.hashCode(byte[])`` (bytes are signed in Java): 31**n + sum(b[i] * 31**(n-1-i))."""
    n = len(data)
    while len(_POWERS_OF_31) <= n:
        _POWERS_OF_31.append((_POWERS_OF_31[-1] * 31) & _MASK)
    weights = _POWERS_OF_31[n - 1::-1] if n else []
    unsigned = sum(map(mul, data, weights))
    negative = sum(map(mul, data.translate(_HIGH_BIT), weights))  # a signed byte is 256 less
    return _int32(_POWERS_OF_31[n] + unsigned - 256 * negative)


def java_string_hash_code(text: str) -> int:
    """Java's ``String.hashCode()``: over UTF-16 code units."""
    units = text.encode("utf-16-be", "surrogatepass")
    h = 0
    for i in range(0, len(units), 2):
        h = h * 31 + ((units[i] << 8) | units[i + 1])
    return _int32(h)


def _long_hash_code(value: int) -> int:
    value &= 0xFFFF_FFFF_FFFF_FFFF
    return _int32(value ^ (value >> 32))


def _big_integer_hash_code(value: int) -> int:
    magnitude = abs(value)
    words = []
    while magnitude:
        words.append(magnitude & _MASK)
        magnitude >>= 32
    h = 0
    # Java's BigInteger.hashCode runs over the 32-bit words of the magnitude, most significant first.
    for word in reversed(words):
        h = _int32(31 * h + word)
    return _int32(h * (1 if value > 0 else -1 if value < 0 else 0))


def _double_hash_code(value: float) -> int:
    if value != value:
        bits = 0x7FF8_0000_0000_0000  # Double.doubleToLongBits folds every NaN into this one
    else:
        bits = struct.unpack(">q", struct.pack(">d", value))[0]
    return _long_hash_code(bits)


def _float_hash_code(value: float) -> int:
    if value != value:
        return 0x7FC0_0000
    return struct.unpack(">i", struct.pack(">f", value))[0]


def pickled_key(key: Any) -> bytes:
    """The bytes PyFlink sends to Java for a key of a stream keyed without ``key_type``."""
    if type(key) in _PLAIN_PICKLE_TYPES or (type(key) is tuple and all(type(v) in _PLAIN_PICKLE_TYPES for v in key)):
        return pickle.dumps(key, protocol=_PICKLE_PROTOCOL)
    return cloudpickle.dumps(key, protocol=_PICKLE_PROTOCOL)


def _basic_hash_code(name: str, value: Any) -> int | None:
    if name in ("STRING",):
        return java_string_hash_code(value)
    if name in ("INT", "SHORT", "BYTE"):
        return _int32(int(value))
    if name == "LONG":
        return _long_hash_code(int(value))
    if name == "BOOLEAN":
        return 1231 if value else 1237
    if name == "DOUBLE":
        return _double_hash_code(float(value))
    if name == "FLOAT":
        return _float_hash_code(float(value))
    if name == "CHAR":
        return ord(value) if isinstance(value, str) else int(value)
    if name == "BIG_INT":
        return _big_integer_hash_code(int(value))
    return None


def _field_hash_code(value: Any, type_info: Any) -> int:
    """Java ``hashCode()`` of ``value`` as Flink holds it for ``type_info`` (None: pickled bytes)."""
    if value is None:
        return 0
    if type_info is None or type(type_info).__name__ == "PickledBytesTypeInfo":
        return java_bytes_hash_code(pickled_key(value))
    kind = type(type_info).__name__
    if kind in ("BasicTypeInfo",):
        code = _basic_hash_code(type_info._basic_type.name, value)
        if code is not None:
            return code
    elif kind == "RowTypeInfo":
        return _row_hash_code(list(value), type_info.get_field_types())
    elif kind == "TupleTypeInfo":
        h = 0
        for i, (field, field_type) in enumerate(zip(value, type_info.get_field_types())):
            code = _field_hash_code(field, field_type)
            h = code if i == 0 else _int32(31 * h + code)
        return h
    # A type whose Java hash Kindling does not reproduce: a stable stand-in (its pickled bytes).
    return java_bytes_hash_code(pickled_key(value))


def _row_hash_code(fields: list, field_types: list) -> int:
    """Flink's ``Row.hashCode()`` of an INSERT row (``RowUtils.deepHashCodeRow``)."""
    h = 1
    for field, field_type in zip(fields, field_types):
        # deepHashCodeInternal wraps a non-array field as Arrays.deepHashCode(new Object[]{field}).
        inner = 0 if field is None else _int32(31 + _field_hash_code(field, field_type))
        h = _int32(31 * h + inner)
    return h  # 31 * RowKind.INSERT.toByteValue() (0) + the fields' hash


def key_hash_code(key: Any, key_type: Any = None) -> int:
    """The Java hash code of the ``Row(key)`` PyFlink partitions a keyed stream by."""
    return _row_hash_code([key], [key_type])


@lru_cache(maxsize=1 << 16)
def _pickled_key_group(data: bytes, max_parallelism: int) -> int:
    # Row(byte[]).hashCode(): 31 * (31 * 1 + (31 + Arrays.hashCode(bytes))), see _row_hash_code
    return compute_key_group_for_key_hash(_int32(62 + java_bytes_hash_code(data)), max_parallelism)


def assign_to_key_group(key: Any, max_parallelism: int = DEFAULT_MAX_PARALLELISM, key_type: Any = None) -> int:
    """The key group PyFlink assigns ``key`` (as returned by the user's key selector); a Table
    operator's key (``key_type`` a :class:`~kindling.runtime.table.key_groups.TableKeyType`) as
    Flink's Table runtime does."""
    if type(key_type).__name__ == "TableKeyType":
        from kindling.runtime.table.key_groups import table_key_hash_code

        return compute_key_group_for_key_hash(table_key_hash_code(key, key_type), max_parallelism)
    if key_type is None or type(key_type).__name__ == "PickledBytesTypeInfo":
        if key is not None:
            return _pickled_key_group(pickled_key(key), max_parallelism)
    return compute_key_group_for_key_hash(key_hash_code(key, key_type), max_parallelism)


def assign_key_to_parallel_operator(key: Any, parallelism: int, max_parallelism: int | None = None,
                                    key_type: Any = None) -> int:
    """The 0-based subtask of a keyed operator with ``parallelism`` that PyFlink gives ``key``.

    ``max_parallelism`` defaults to Flink's default for that parallelism (128 up to parallelism 85).
    """
    if parallelism < 1:
        raise ValueError(f"parallelism must be at least 1, got {parallelism}")
    if max_parallelism is None:
        max_parallelism = compute_default_max_parallelism(parallelism)
    if parallelism == 1:
        return 0
    key_group = assign_to_key_group(key, max_parallelism, key_type)
    return compute_operator_index_for_key_group(max_parallelism, parallelism, key_group)
