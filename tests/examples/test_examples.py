"""The examples do what they say."""
from __future__ import annotations

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import fraud_detection  # noqa: E402
import word_count  # noqa: E402

from kindling.testing import KeyedProcessFunctionTestHarness  # noqa: E402


def test_fraud_detector_in_the_harness():
    with KeyedProcessFunctionTestHarness(fraud_detection.FraudDetector(), key_selector=lambda t: t[0]) as h:
        h.process_element((1, 0.5, 0), timestamp=0)
        h.process_element((1, 900.0, 10), timestamp=10)
        assert h.extract_output_values() == ["ALERT account 1: 900.00 right after a small transaction"]
        assert h.num_event_time_timers() == 0  # the alert cleaned the flag and deleted its timer
        h.process_element((2, 0.5, 20), timestamp=20)
        h.process_watermark(70_000)
        h.process_element((2, 900.0, 80_000), timestamp=80_000)
        assert len(h.extract_output_values()) == 1  # the flag of account 2 expired first


def test_word_count_writes_counts(spark, tmp_path):
    word_count.word_count(word_count.DEFAULT_INPUT, str(tmp_path))
    lines = [line for p in tmp_path.rglob("counts-*.txt") for line in p.read_text().splitlines()]
    counts = dict(line.strip("()").rsplit(",", 1) for line in lines)
    from collections import Counter

    with open(word_count.DEFAULT_INPUT) as f:
        expected = Counter(word for line in f for word in word_count.split(line))
    assert counts == {w: str(n) for w, n in expected.items()} and counts["to"] == "13"
    assert len(counts) == len(lines)  # BATCH mode: one final count per word


def test_fraud_detection_alerts(spark, capsys):
    fraud_detection.main()
    # print() at the default parallelism (the cores) writes Flink's `n> ` subtask prefix first
    alerts = [re.sub(r"^\d+> ", "", line) for line in capsys.readouterr().out.splitlines() if "ALERT" in line]
    # As PyFlink: the watermark is emitted every 200 ms, and these 11 transactions are read
    # before the first emission, so account 4's flag (expiring at 100 s) is still set at 200 s.
    assert sorted(alerts) == ["ALERT account 1: 650.00 right after a small transaction",
                              "ALERT account 2: 712.00 right after a small transaction",
                              "ALERT account 4: 900.00 right after a small transaction"]
