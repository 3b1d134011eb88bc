"""examples/kafka_windows.py end to end against the test broker (bounded)."""
from __future__ import annotations

import json
import os
import random
import sys
from collections import Counter

from kafka_support import consume_all

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import kafka_windows  # noqa: E402


def test_kafka_windows_example(spark, kafka_broker, new_topic):
    from kindling.common import Configuration
    from kindling.datastream import StreamExecutionEnvironment

    readings, totals = new_topic(2), new_topic(1)
    kafka_windows.produce(kafka_broker, readings, 300, start_ms=1_000_000)
    conf = Configuration()
    conf.set_boolean("kindling.progress", False)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    kafka_windows.build(env, kafka_broker, readings, totals, bounded=True)
    env.execute("kafka windows example")

    rng = random.Random(7)
    expected = Counter()
    for i in range(300):
        expected[(f"s{i % 3}", (1_000_000 + i * 100) // 10_000 * 10_000 + 10_000)] += rng.randint(0, 9)
    records = consume_all(kafka_broker, totals, len(expected), isolation="read_committed")
    got = {}
    for _, key, value in records:
        row = json.loads(value)
        assert key == row["sensor"].encode()
        got[(row["sensor"], row["window_end"])] = row["total"]
    assert got == dict(expected) and len(records) == len(expected)
