"""Flink's subtask of a Table key as Spark Columns (kindling/spark/table/key_subtasks.py): the same
subtask as kindling.runtime.table.key_groups (checked against PyFlink in
tests/runtime/test_table_key_groups.py), computed in the JVM, and the rows land in that partition."""
import datetime
import decimal
import json
import os
import random

import pytest
from pyspark.sql import functions as F
from pyspark.sql import types as st

from kindling.common.time import Instant
from kindling.runtime.key_groups import assign_key_to_parallel_operator
from kindling.runtime.table.key_groups import TableKeyType
from kindling.spark.key_placement import partition_keys
from kindling.spark.table.key_subtasks import has_expression, with_flink_subtask

_RECORDED = os.path.join(os.path.dirname(__file__), "..", "runtime", "test_table_key_groups_pyflink.json")
_SPARK_TYPES = {"STRING": st.StringType(), "VARCHAR": st.StringType(), "BYTES": st.BinaryType(),
                "BOOLEAN": st.BooleanType(), "TINYINT": st.ByteType(), "SMALLINT": st.ShortType(),
                "INT": st.IntegerType(), "BIGINT": st.LongType(), "DATE": st.DateType(), "TIME": st.LongType(),
                "TIMESTAMP": st.TimestampType(), "TIMESTAMP_LTZ": st.TimestampType()}


def _field_type(sql: str) -> tuple:
    name, _, rest = sql.partition("(")
    numbers = [int(n) for n in rest.rstrip(")").split(",")] if rest else []
    return name, numbers[0] if numbers else 0, numbers[1] if len(numbers) > 1 else 0


def _values(name: str, text):
    """(the Python runtime's value, the Spark column's value) of ``text``."""
    if text is None:
        return None, None
    if name in ("STRING", "VARCHAR"):
        return text, text
    if name == "BYTES":
        return bytes.fromhex(text), bytearray.fromhex(text)
    if name == "BOOLEAN":
        return text == "TRUE", text == "TRUE"
    if name in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
        return int(text), int(text)
    if name == "DECIMAL":
        return decimal.Decimal(text), decimal.Decimal(text)
    if name == "DATE":
        return datetime.date.fromisoformat(text), datetime.date.fromisoformat(text)
    if name == "TIME":
        t = datetime.time.fromisoformat(text)
        return t, ((t.hour * 60 + t.minute) * 60 + t.second) * 1_000_000 + t.microsecond
    moment = datetime.datetime.fromisoformat(text[:26])
    aware = moment.replace(tzinfo=datetime.timezone.utc)
    if name == "TIMESTAMP_LTZ":
        micros = (moment - datetime.datetime(1970, 1, 1)) // datetime.timedelta(microseconds=1)
        return Instant(micros // 1_000_000, micros % 1_000_000 * 1000), aware
    return moment, aware


def _subtasks(spark, key_type: TableKeyType, keys: list, parallelism: int, shuffled: bool = True) -> list:
    """Each key's subtask as the Spark columns give it (``shuffled``: checking it is the partition the
    key lands in), in order."""
    names = [f"c{i}" for i in range(len(key_type.fields))]
    schema = st.StructType([st.StructField(n, st.DecimalType(p, s) if name == "DECIMAL" else _SPARK_TYPES[name])
                            for n, (name, p, s) in zip(names, key_type.fields)]
                           + [st.StructField("i", st.IntegerType())])
    frame = spark.createDataFrame([(*k, i) for i, k in enumerate(keys)], schema)
    placed = with_flink_subtask(frame, names, key_type, parallelism, "__place")
    back = {bytes(k): s for s, k in enumerate(partition_keys(parallelism))}
    if not shuffled:
        return [back[bytes(r["__place"])] for r in sorted(placed.select("i", "__place").collect())]
    placed = placed.repartition(parallelism, "__place")
    rows = placed.select("i", "__place", F.spark_partition_id().alias("p")).collect()
    found = sorted((r["i"], r["p"], back[bytes(r["__place"])]) for r in rows)
    assert all(p == s for _, p, s in found), "each row in the partition of its subtask"
    return [s for _, _, s in found]


def _recorded():
    with open(_RECORDED, encoding="utf-8") as f:
        return [e for e in json.load(f) if not any(
            t.startswith("TIMESTAMP") and v is not None and len(v.partition(".")[2]) > 6
            for t, v in zip(e["types"], e["key"]))]


def test_recorded_keys_land_in_pyflinks_subtasks(spark):
    by_case = {}
    for entry in _recorded():
        by_case.setdefault(entry["case"], []).append(entry)
    checked = 0
    for case, entries in by_case.items():
        key_type = TableKeyType(tuple(_field_type(t) for t in entries[0]["types"]))
        if not has_expression(key_type):
            continue
        keys = [tuple(_values(f[0], v)[1] for f, v in zip(key_type.fields, e["key"])) for e in entries]
        got = _subtasks(spark, key_type, keys, 2, shuffled=False)
        assert [(e["key"], s) for e, s in zip(entries, got) if s != e["subtask"]] == [], case
        checked += 1
    assert checked >= 18


@pytest.mark.parametrize("parallelism", [2, 3, 4])
def test_random_keys_match_the_python_hash(spark, parallelism):
    rng = random.Random(7)
    key_type = TableKeyType((("STRING", 0, 0), ("BIGINT", 0, 0), ("TIMESTAMP", 6, 0), ("DECIMAL", 12, 3),
                             ("BOOLEAN", 0, 0), ("VARCHAR", 20, 0), ("TIMESTAMP_LTZ", 3, 0)))
    alphabet = "abcxyzé日 0123456789"
    python_keys, spark_keys = [], []
    for _ in range(300):
        texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 30))) for _ in range(2)]
        micros = rng.randrange(-10**15, 3 * 10**15)
        moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=micros)
        amount = decimal.Decimal(rng.randrange(-10**12, 10**12)).scaleb(-3)
        fields = [(t, t) for t in texts[:1]] + [(micros // 7, micros // 7), (moment, moment.replace(
            tzinfo=datetime.timezone.utc)), (amount, amount), (micros % 2 == 0,) * 2, (texts[1],) * 2,
            (Instant(micros // 10**6, micros % 10**6 // 1000 * 10**6), datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
             + datetime.timedelta(milliseconds=micros // 1000))]
        fields = [(None, None) if rng.random() < 0.15 else f for f in fields]
        python_keys.append(tuple(p for p, _ in fields))
        spark_keys.append(tuple(s for _, s in fields))
    expected = [assign_key_to_parallel_operator(k, parallelism, key_type=key_type) for k in python_keys]
    assert _subtasks(spark, key_type, spark_keys, parallelism) == expected
    assert set(expected) == set(range(parallelism))


def test_types_without_an_expression():
    assert not has_expression(TableKeyType((("DOUBLE", 0, 0),)))
    assert not has_expression(TableKeyType((("DECIMAL", 20, 2),)))
    assert not has_expression(None)
    assert has_expression(TableKeyType((("DECIMAL", 18, 2), ("TIME", 0, 0), ("DATE", 0, 0))))
