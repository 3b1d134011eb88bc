"""Proof by killing (``benchmarks/chaos.py``): a keyed, event-time windowed job over 250,000
generated records whose driver process is SIGKILLed 5 times at random moments and restarted from
the same checkpoint, and one of whose Python workers kills itself mid-batch; the same job over
every other bounded source kind (sequence, collection, files, Kafka) killed once; at the end no
record is lost, none duplicated, every window sum is exact."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from benchmarks.chaos import SOURCES, WINDOW_MS, expected_windows, run_chaos, verify  # noqa: E402


def _write(out, lines: list[str], name: str = "part-x-0-0") -> None:
    out.mkdir(exist_ok=True)
    (out / name).write_text("".join(f"{line}\n" for line in lines))


def test_verify_counts_lost_duplicated_and_wrong_sums(tmp_path):
    expected = expected_windows(3 * WINDOW_MS)  # three windows per key
    lines = [f"{k},{s},{c},{q},{v}" for (k, s), (c, q, v) in sorted(expected.items())]
    _write(tmp_path / "ok", lines)
    assert verify(str(tmp_path / "ok"), 3 * WINDOW_MS).exact

    key, start, count, seqs, vals = (int(x) for x in lines[0].split(","))
    broken = [f"{key},{start},{count - 2},{seqs},{vals}"] + lines[1:] + [lines[1]]  # 2 lost; a window twice
    _write(tmp_path / "bad", broken[:-2])
    _write(tmp_path / "bad", broken[-2:], "part-x-1-0")
    v = verify(str(tmp_path / "bad"), 3 * WINDOW_MS)
    assert (v.records_lost, v.windows_repeated, v.records_duplicated, v.wrong_sums, v.windows_missing) == \
        (2, 1, expected[tuple(int(x) for x in lines[1].split(",")[:2])][0], 1, 0)
    assert not v.exact


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_driver_killed_five_times_and_a_worker_once_loses_and_doubles_nothing(tmp_path):
    # 20 micro-batches of 12,500 records: every restart makes progress (its first new output comes
    # before the kill) and the job is still far from its end after the fifth kill; the worker dies
    # in the fifth micro-batch. What is tested is where the kills land (between micro-batches of
    # many windows, after recoveries), not the number of records (1,000,000 until 2026-11-28, then
    # 500,000: the same 20 micro-batches and kills, with more records in each).
    report = run_chaos(str(tmp_path), 250_000, kills=5, batch_records=12_500, kill_worker_at=25_000,
                       master="local[2,4]", timeout_s=1400)
    v = report.verdict
    assert report.kills == 5
    assert report.worker_killed  # a Python worker died mid-batch ...
    assert report.query_restarts == 0  # ... and Spark ran its task again (local[2,4]): no query restart
    assert v.exact, (v.records_lost, v.records_duplicated, v.wrong_sums, v.problems[:10])


@pytest.mark.slow
@pytest.mark.timeout(1500)
@pytest.mark.parametrize("source", [pytest.param(s, marks=[pytest.mark.kafka] if s == "kafka" else [])
                                    for s in SOURCES if s != "datagen"])
def test_driver_killed_once_loses_and_doubles_nothing_whatever_the_source(tmp_path, request, source):
    # 30,000 records in micro-batches of 5,000 (60,000 in 10,000 until 2026-11-28: the same six
    # micro-batches and parts of each split): each split read in several parts, the kill lands
    # between them (a Kafka topic written first, its end offsets given, not asked for); repeated
    # kills are the five-kill run's

    servers = request.getfixturevalue("kafka_broker") if source == "kafka" else ""
    report = run_chaos(str(tmp_path), 30_000, kills=1, batch_records=5_000, master="local[2]", timeout_s=1400,
                       source=source, kafka_servers=servers)
    v = report.verdict
    assert report.kills == 1
    assert v.exact, (v.records_lost, v.records_duplicated, v.wrong_sums, v.problems[:10])
