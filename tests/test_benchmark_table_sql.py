"""benchmarks/table_sql.py times the same work on every side: on 2,000 events each query's final rows
are the same on Kindling (STREAMING) and on hand-written PySpark, and Kindling's GROUP BY emits Flink's
changelog (+I, then -U/+U per row). (BATCH mode's answers are the conformance programs' *_batch.)"""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks.process_cpu import TreeCpu  # noqa: E402
from benchmarks.table_sql import (PARTS, QUERIES, _micro_mode, check, differences,  # noqa: E402
                                  make_inputs, run, split_inputs)

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
    assert _micro_mode("groupby", parts) == _micro_mode("join", parts) == "micro:2"  # files, as Spark's side
    assert _micro_mode("groupby", parts, mini_batch=True) == "micro:2:mini-batch"


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_mini_batch_side_changes_a_group_once_per_micro_batch(tmp_path):
    """10,000 events of 1,000 keys in 5 micro-batches of 2,000 (each key twice a batch): the per-row
    side gives +I, then -U/+U per further row; the mini-batch side once per key and batch; the same
    final rows."""
    parts = split_inputs(make_inputs(str(tmp_path), 10_000))
    results = {}
    for side in ("kindling-micro", "kindling-mini-batch"):
        took, why, stdout, cpu = run(side, ["groupby"], parts, str(tmp_path), "/nonexistent", check=True)
        assert took is not None and not why, why
        assert cpu is None or cpu > 0
        results[side] = next(line.split()[2:] for line in stdout.splitlines() if line.startswith("CHECK"))
    assert results["kindling-micro"][:2] == results["kindling-mini-batch"][:2] and results["kindling-micro"][0] == "1000"
    assert results["kindling-micro"][2] == str(2 * 10_000 - KEYS)
    assert results["kindling-mini-batch"][2] == str(KEYS + 2 * KEYS * 4)


def test_the_cpu_of_a_process_tree_counts_a_grandchild_no_one_waits_for():
    """As the JVM a job's process starts: the process exits without waiting for it, so ``getrusage``
    misses its CPU."""
    import subprocess

    grandchild = ("import time; sum(i * i for i in range(3_000_000)); print(time.process_time(), flush=True); "
                  "time.sleep(2)")
    child = (f"import os, subprocess, sys, time; p = subprocess.Popen([sys.executable, '-c', {grandchild!r}], "
             "stdout=subprocess.PIPE, text=True); print(p.stdout.readline(), end='', flush=True); time.sleep(0.5); "
             "os._exit(0)")
    with subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True) as process:
        cpu = TreeCpu(process.pid, every=0.05)
        own = float(process.stdout.read())
    assert cpu.stop() >= 0.9 * own  # /proc counts whole clock ticks
