"""benchmarks/table_sql.py times the same work on every side: on 2,000 events each query's final rows
are the same on Kindling (STREAMING) and on hand-written PySpark, and Kindling's GROUP BY emits Flink's
changelog (+I, then -U/+U per row). (BATCH mode's answers are the conformance programs' *_batch.)"""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks.table_sql import QUERIES, check, differences  # noqa: E402

EVENTS, KEYS = 2_000, 1_000


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_every_side_computes_the_same_rows(tmp_path):
    results = check(["kindling", "spark"], QUERIES, EVENTS, str(tmp_path))

    assert differences(results) == []
    assert set(results["kindling"]) == set(results["spark"]) == set(QUERIES)
    assert results["kindling"]["groupby"].changes == 2 * EVENTS - KEYS
    assert results["spark"]["groupby"].rows == KEYS
