"""Flink's subtasks of Table keys (kindling.runtime.table.key_groups): the binary row of the key
fields, hashed as Flink's Table runtime hashes it.

The expected subtasks in test_table_key_groups_pyflink.json were recorded from PyFlink 2.3 by
tools/record_table_key_groups.py (a GROUP BY of each key type at parallelism 2, printing to the
print connector, whose ``n> `` prefix is the aggregation's subtask of the group).
"""
import datetime
import decimal
import json
import os

import pytest

from kindling.common.time import Instant
from kindling.runtime.key_groups import assign_key_to_parallel_operator
from kindling.runtime.table.key_groups import TableKeyType, binary_row, hash_by_words, table_key_hash_code

_RECORDED = os.path.join(os.path.dirname(__file__), "test_table_key_groups_pyflink.json")


def _recorded():
    with open(_RECORDED, encoding="utf-8") as f:
        return json.load(f)


def _field_type(sql: str) -> tuple:
    name, _, rest = sql.partition("(")
    numbers = [int(n) for n in rest.rstrip(")").split(",")] if rest else []
    precision = numbers[0] if numbers else {"TIMESTAMP": 6, "TIMESTAMP_LTZ": 6, "DECIMAL": 10}.get(name, 0)
    return name, precision, numbers[1] if len(numbers) > 1 else 0


def _value(name: str, text):
    """The Python value Kindling's Table runtime holds for a value of type ``name`` written ``text``."""
    if text is None:
        return None
    if name in ("STRING", "VARCHAR", "CHAR"):
        return text
    if name == "BYTES":
        return bytes.fromhex(text)
    if name == "BOOLEAN":
        return text == "TRUE"
    if name in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
        return int(text)
    if name in ("FLOAT", "DOUBLE"):
        return float(text)
    if name == "DECIMAL":
        return decimal.Decimal(text)
    if name == "DATE":
        return datetime.date.fromisoformat(text)
    if name == "TIME":
        return datetime.time.fromisoformat(text)
    moment = datetime.datetime.fromisoformat(text[:26])  # Kindling's timestamps hold microseconds
    if name == "TIMESTAMP_LTZ":
        return Instant.of_epoch_milli(0) if moment is None else _instant(moment)
    return moment


def _instant(moment: datetime.datetime) -> Instant:
    micros = (moment - datetime.datetime(1970, 1, 1)) // datetime.timedelta(microseconds=1)
    seconds, rest = divmod(micros, 1_000_000)
    return Instant(seconds, rest * 1000)


def _beyond_microseconds(entry) -> bool:
    return any(t.startswith("TIMESTAMP") and v is not None and len(v.partition(".")[2]) > 6
               for t, v in zip(entry["types"], entry["key"]))


_CASES = sorted({e["case"] for e in _recorded()})


@pytest.mark.parametrize("case", _CASES)
def test_subtasks_match_pyflink(case):
    entries = [e for e in _recorded() if e["case"] == case and not _beyond_microseconds(e)]
    assert len(entries) >= 2
    key_type = TableKeyType(tuple(_field_type(t) for t in entries[0]["types"]))
    wrong = []
    for entry in entries:
        values = tuple(_value(f[0], v) for f, v in zip(key_type.fields, entry["key"]))
        key = values[0] if len(values) == 1 else values
        subtask = assign_key_to_parallel_operator(key, 2, key_type=key_type)
        if subtask != entry["subtask"]:
            wrong.append((entry["key"], entry["subtask"], subtask))
    assert wrong == [], "(key, PyFlink's subtask, Kindling's)"


def test_every_case_holds_both_subtasks():
    for case in _CASES:
        if case != "boolean":
            assert {e["subtask"] for e in _recorded() if e["case"] == case} == {0, 1}, case


def test_binary_row_layout():
    """One INT and one long STRING: the header word, two slots, the string padded to 8 bytes."""
    key_type = TableKeyType((("INT", 0, 0), ("STRING", 0, 0)))
    row = binary_row(key_type, (7, "abcdefghij"))
    assert len(row) == 8 + 16 + 16
    assert row[:8] == bytes(8)
    assert row[8:16] == (7).to_bytes(8, "little")
    assert row[16:24] == ((24 << 32) | 10).to_bytes(8, "little")
    assert row[24:] == b"abcdefghij" + bytes(6)
    short = binary_row(TableKeyType((("STRING", 0, 0),)), ("abc",))
    assert short[8:] == b"abc" + bytes(4) + bytes([0x83])
    null = binary_row(key_type, (None, None))
    assert null[1] == 0b11 and null[8:] == bytes(16)


def test_null_timestamp_and_decimal_keep_their_room():
    row = binary_row(TableKeyType((("TIMESTAMP", 6, 0), ("DECIMAL", 20, 2))), (None, None))
    assert len(row) == 8 + 16 + 8 + 16
    assert row[8:16] == (24 << 32).to_bytes(8, "little") and row[16:24] == (32 << 32).to_bytes(8, "little")


def test_hash_by_words_is_murmur3_of_words():
    assert hash_by_words(b"") == 142593372  # murmur3_32 of nothing, seed 42
    assert table_key_hash_code("k1", TableKeyType((("STRING", 0, 0),))) == hash_by_words(
        bytes(8) + b"k1" + bytes(5) + bytes([0x82]))


def test_reproducible_types():
    assert TableKeyType((("STRING", 0, 0), ("TIMESTAMP_LTZ", 9, 0))).reproducible()
    assert not TableKeyType((("ARRAY", 0, 0),)).reproducible()
    assert not TableKeyType(()).reproducible()
