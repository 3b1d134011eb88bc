"""Which Spark partition a keyed or exchanged row lands in: Flink's subtask of a key (key groups),
Spark's hash of a groupBy key (murmur3) and keys made to land in a chosen partition."""
from __future__ import annotations

import functools
from typing import Any

from kindling.runtime.key_groups import assign_key_to_parallel_operator, murmur3_bytes
from kindling.spark.rows import CONTROL_KEY_PREFIX


def key_subtask(key: Any, parallelism: int, max_parallelism: int | None = None, key_type: Any = None) -> int:
    """The subtask (0-based) PyFlink gives ``key`` in a keyed operator with ``parallelism`` and
    ``max_parallelism`` key groups (None: Flink's default for the parallelism)."""
    if parallelism <= 1:
        return 0
    try:
        return assign_key_to_parallel_operator(key, parallelism, max_parallelism, key_type=key_type)
    except Exception:  # a value the declared key_type cannot hash (it fails elsewhere with a clear error)
        return assign_key_to_parallel_operator(key, parallelism, max_parallelism)


def _mix_k1(k1: int) -> int:
    k1 = (k1 * 0xCC9E2D51) & 0xFFFFFFFF
    k1 = ((k1 << 15) | (k1 >> 17)) & 0xFFFFFFFF
    return (k1 * 0x1B873593) & 0xFFFFFFFF


def _mix_h1(h1: int, k1: int) -> int:
    h1 ^= k1
    h1 = ((h1 << 13) | (h1 >> 19)) & 0xFFFFFFFF
    return (h1 * 5 + 0xE6546B64) & 0xFFFFFFFF


def spark_hash(data: bytes, seed: int = 42) -> int:
    """Spark's ``hash()`` of a binary value (Murmur3_x86_32.hashUnsafeBytes, whose trailing
    bytes are mixed one by one as signed ints), which places a groupBy key in partition
    ``pmod(hash(key), numPartitions)``."""
    return murmur3_bytes(data, seed)


_INVERSE = {c: pow(c, -1, 1 << 32) for c in (5, 0xCC9E2D51, 0x1B873593, 0x85EBCA6B, 0xC2B2AE35)}  # mod 2**32


def _rotate_right(value: int, distance: int) -> int:
    return ((value >> distance) | (value << (32 - distance))) & 0xFFFFFFFF


def _unmix_final(h1: int) -> int:
    """The inverse of murmur3's final mix (fmix32)."""
    h1 ^= h1 >> 16
    h1 = (h1 * _INVERSE[0xC2B2AE35]) & 0xFFFFFFFF
    h1 ^= (h1 >> 13) ^ (h1 >> 26)
    h1 = (h1 * _INVERSE[0x85EBCA6B]) & 0xFFFFFFFF
    return h1 ^ (h1 >> 16)


@functools.lru_cache(maxsize=1 << 16)
def placed_key(blob: bytes, subtask: int) -> bytes:
    """``blob`` (a pickled key) padded to whole 4-byte blocks and followed by the block that makes
    Spark's hash of it equal ``subtask``: grouped by it, the key lands in Spark partition ``subtask``
    (modulo the partition count), where Flink's subtask of the key runs. ``pickle.loads`` ignores the
    bytes after a pickle, so the key reads back as it was."""
    padded = blob + bytes(-len(blob) % 4)
    h1 = 42
    for i in range(0, len(padded), 4):
        h1 = _mix_h1(h1, _mix_k1(int.from_bytes(padded[i:i + 4], "little")))
    wanted = _unmix_final(subtask & 0xFFFFFFFF) ^ (len(padded) + 4)
    # undo _mix_h1(h1, k1) == wanted, then _mix_k1(block) == k1
    k1 = _rotate_right(((wanted - 0xE6546B64) * _INVERSE[5]) & 0xFFFFFFFF, 13) ^ h1
    block = (_rotate_right((k1 * _INVERSE[0x1B873593]) & 0xFFFFFFFF, 15) * _INVERSE[0xCC9E2D51]) & 0xFFFFFFFF
    return padded + block.to_bytes(4, "little")


_partition_keys: dict[int, list[bytes]] = {}


def partition_keys(partitions: int) -> list[bytes]:
    """One binary key per partition of a Spark hash partitioning into ``partitions``, the i-th landing
    in partition i: an exchange sends a row to instance i with the i-th (``__part``); a keyed
    operator's control keys (``CONTROL_KEY_PREFIX`` + a suffix, sorted before every pickled key),
    sent with a row each, reach every partition of the operator."""
    keys = _partition_keys.get(partitions)
    if keys is None:
        found: dict[int, bytes] = {}
        suffix = 0
        while len(found) < partitions:
            key = CONTROL_KEY_PREFIX + suffix.to_bytes(4, "big")
            found.setdefault(spark_hash(key) % partitions, key)
            suffix += 1
        keys = _partition_keys[partitions] = [found[i] for i in range(partitions)]
    return keys
