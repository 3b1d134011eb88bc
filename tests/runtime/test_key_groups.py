"""Key groups and subtasks as PyFlink assigns them (kindling.runtime.key_groups).

The expected subtasks in test_key_groups_pyflink.json were recorded from PyFlink 2.3 by
tools/record_key_groups.py (keyed process functions reporting get_index_of_this_subtask()).
"""
import ast
import json
import os
import pickle

import cloudpickle
import pytest

from kindling.common.typeinfo import Types
from kindling.runtime.key_groups import (
    assign_key_to_parallel_operator,
    assign_to_key_group,
    compute_default_max_parallelism,
    compute_operator_index_for_key_group,
    java_string_hash_code,
    key_hash_code,
    murmur_hash,
    pickled_key,
)

_RECORDED = os.path.join(os.path.dirname(__file__), "test_key_groups_pyflink.json")


def _recorded():
    with open(_RECORDED, encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.parametrize("parallelism", [2, 4])
@pytest.mark.parametrize("key_type", ["PICKLED", "STRING", "INT", "LONG"])
def test_subtasks_match_pyflink(parallelism, key_type):
    entries = [e for e in _recorded() if e["parallelism"] == parallelism and e["key_type"] == key_type]
    assert len(entries) > 40
    type_info = None if key_type == "PICKLED" else getattr(Types, key_type)()
    wrong = [(e["key"], e["subtask"], assign_key_to_parallel_operator(ast.literal_eval(e["key"]), parallelism,
                                                                      key_type=type_info))
             for e in entries]
    wrong = [w for w in wrong if w[1] != w[2]]
    assert wrong == [], "(key, PyFlink's subtask, Kindling's)"


def test_murmur_hash_matches_flink():
    # Values of org.apache.flink.util.MathUtils.murmurHash(int) printed by Flink 2.3's JVM.
    assert [murmur_hash(c) for c in (0, -1, 123456789)] == [593689054, 1982413648, 1088346449]
    assert all(murmur_hash(c) >= 0 for c in (-2 ** 31, -1, 1, 2 ** 31 - 1, 123456789))


def test_java_string_hash_code():
    assert java_string_hash_code("") == 0
    assert java_string_hash_code("Alice") == 63350368  # "Alice".hashCode() in Java
    assert java_string_hash_code("hello world, a longer string") == _java_hash("hello world, a longer string")
    assert java_string_hash_code("\U0001F600") == 31 * 0xD83D + 0xDE00  # two UTF-16 code units


def _java_hash(text):
    h = 0
    for ch in text:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def test_default_max_parallelism_follows_flink():
    assert compute_default_max_parallelism(1) == 128
    assert compute_default_max_parallelism(85) == 128
    assert compute_default_max_parallelism(86) == 256
    assert compute_default_max_parallelism(100_000) == 32768


def test_key_groups_are_contiguous_ranges_per_subtask():
    owners = [compute_operator_index_for_key_group(128, 3, g) for g in range(128)]
    assert owners == sorted(owners) and set(owners) == {0, 1, 2}
    assert owners.count(0) in (42, 43)


def test_java_hash_codes_of_typed_values():
    # BigInteger("-123456789012345678901234567890").hashCode(), Double(-2.25), Float(1.5f) in Java
    assert key_hash_code(-123456789012345678901234567890, Types.BIG_INT()) == 62 + -1915528825
    assert key_hash_code(-2.25, Types.DOUBLE()) == 62 + -1073610752
    assert key_hash_code(1.5, Types.FLOAT()) == 62 + 1069547520


def test_parallelism_one_and_bad_parallelism():
    assert assign_key_to_parallel_operator(["any", {"key": 1}], 1) == 0
    with pytest.raises(ValueError, match="parallelism"):
        assign_key_to_parallel_operator("a", 0)


def test_fast_pickle_path_is_cloudpickle_byte_for_byte():
    for key in ["", "Alice", "中文", 0, -1, 2 ** 70, 1.5, float("nan"), True, None, b"\x00\xff", ("a", 1, 2.0), ()]:
        assert pickled_key(key) == cloudpickle.dumps(key, protocol=5), key
    assert pickled_key(["a"]) == cloudpickle.dumps(["a"], protocol=5)
    assert pickled_key(("a", 1)) == pickle.dumps(("a", 1), protocol=5)


def test_unhashable_and_nested_keys_are_assigned():
    for key in ([1, 2], {"k": [1]}, (("a", 1), ("b", 2))):
        assert 0 <= assign_to_key_group(key) < 128


def test_typed_row_and_tuple_keys_hash_their_fields():
    row_type = Types.ROW([Types.STRING(), Types.INT()])
    assert key_hash_code(("a", 1), row_type) != key_hash_code(("a", 2), row_type)
    tuple_type = Types.TUPLE([Types.STRING(), Types.INT()])
    # Flink's Tuple2.hashCode: 31 * f0.hashCode() + f1.hashCode(), inside Row(key).
    assert key_hash_code(("a", 1), tuple_type) == 3070  # Row.of(Tuple2.of("a", 1)).hashCode() in Java
    assert key_hash_code(None, Types.STRING()) == 31  # Row(null): the null field hashes to 0
