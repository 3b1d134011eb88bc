"""benchmarks/table_sql.py times the same work on every side: on 2,000 events each query's final rows
are the same on Kindling (STREAMING) and on hand-written PySpark, and Kindling's GROUP BY emits Flink's
changelog (+I, then -U/+U per row). (BATCH mode's answers are the conformance programs' *_batch.)"""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks.table_sql import (PARTS, QUERIES, _micro_mode, check, differences, make_inputs,  # noqa: E402
                                  split_inputs)

EVENTS, KEYS = 2_000, 1_000


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_every_side_computes_the_same_rows(tmp_path):
    results = check(["kindling", "spark"], QUERIES, EVENTS, str(tmp_path))

    assert differences(results) == []
    assert set(results["kindling"]) == set(results["spark"]) == set(QUERIES)
    assert results["kindling"]["groupby"].changes == 2 * EVENTS - KEYS
    assert results["spark"]["groupby"].rows == KEYS


def test_the_micro_batch_sides_read_every_input_line_in_parts_two_files_a_batch(tmp_path):
    inputs = make_inputs(str(tmp_path), 100)
    parts = split_inputs(inputs)
    for path, directory in zip(inputs, parts):
        assert len(os.listdir(directory)) == PARTS
        lines = [line for name in sorted(os.listdir(directory)) for line in open(os.path.join(directory, name))]
        assert lines == open(path).readlines()
    assert split_inputs(inputs) == parts  # made once
    assert _micro_mode("groupby", parts) == "micro:20" and _micro_mode("join", parts) == "micro:10"
