"""The driver side of processing-time timers in event-time operators (``TimerWakes``) and the
wake source's reader, without Spark: reports become wake files when due, a wake source offset
covers them, each due key once."""
from __future__ import annotations

import os
import pickle
import time

from kindling.spark.sources import WAKE_RUN, TimerWakes, WakePlan, _TimerReportParam, _WakeReader


class _Accumulator:
    """A stand-in for a Spark accumulator on the driver."""

    def __init__(self):
        self.param = _TimerReportParam()
        self.value = self.param.zero(None)

    def add(self, term):
        self.value = self.param.addInPlace(self.value, term)


def _wakes(tmp_path) -> tuple[TimerWakes, _Accumulator, WakePlan]:
    wakes = TimerWakes(str(tmp_path))
    accumulator = _Accumulator()
    directory = tmp_path / "op"
    directory.mkdir()
    wakes.operators["job/1"] = (accumulator, str(directory))
    wakes.seq["job/1"] = 0
    return wakes, accumulator, WakePlan(str(directory))


def _delivered(plan: WakePlan, seq: int) -> None:
    """Waits until the timer thread has written wake file ``seq``."""
    reader = _WakeReader(plan)
    deadline = time.time() + 30
    while reader.latestOffset()["seq"] < seq and time.time() < deadline:
        time.sleep(0.01)


def _keys(reader: _WakeReader, start: dict, end: dict) -> list:
    return sorted(k for part in reader.partitions(start, end) for k, _ in part.keys)


def test_reports_fold_and_later_reports_win():
    param = _TimerReportParam()
    acc = param.addInPlace(param.zero(None), {b"a": 5, b"b": 7})
    assert param.addInPlace(acc, {b"a": None}) == {b"a": None, b"b": 7}


def test_due_keys_are_handed_to_the_wake_source_once(tmp_path):
    wakes, accumulator, plan = _wakes(tmp_path)
    reader = _WakeReader(plan)
    start = reader.initialOffset()
    now = int(time.time() * 1000)
    accumulator.add({b"due": now - 10, b"deleted": now - 5, b"later": now + 3_600_000})
    accumulator.add({b"deleted": None})  # the key deleted its timer later in the batch
    wakes.after_batch(0)
    assert accumulator.value == {}  # read and reset
    _delivered(plan, 1)  # the due timer is delivered at once
    end = reader.latestOffset(start)
    assert end == {"run": plan.run, "seq": 1}
    assert _keys(reader, start, end) == [b"due"]
    # the later one waits on the timer thread; nothing more is handed over now
    assert reader.latestOffset(end) == end
    with wakes.lock:
        assert wakes.scheduled == now + 3_600_000
    batch = next(iter(reader.read(reader.partitions(start, end)[0])))
    assert batch.column("__elements").to_pylist() == [WAKE_RUN]
    assert batch.column("__ts").to_pylist() == [now - 10]
    reader.commit(end)
    assert not os.path.exists(os.path.join(plan.directory, "wake-1"))
    wakes.close()


def test_a_moved_timer_wakes_at_its_new_time_only(tmp_path):
    wakes, accumulator, plan = _wakes(tmp_path)
    now = int(time.time() * 1000)
    accumulator.add({b"k": now + 3_600_000})
    wakes.after_batch(0)
    accumulator.add({b"k": now - 1})  # registered an earlier timer
    wakes.after_batch(1)
    _delivered(plan, 1)
    reader = _WakeReader(plan)
    start = reader.initialOffset()
    end = reader.latestOffset(start)
    assert _keys(reader, start, end) == [b"k"]
    # the stale heap entry of the hour-later timer is dropped, not delivered
    with wakes.lock:
        assert wakes.due == {}
        wakes._schedule()
        assert wakes.heap == []
    wakes.close()


def test_an_earlier_runs_offsets_read_nothing(tmp_path):
    _, _, plan = _wakes(tmp_path)
    with open(os.path.join(plan.directory, "wake-1"), "wb") as f:
        pickle.dump([(b"k", 1)], f)
    reader = _WakeReader(plan)
    assert reader.partitions({"run": "old", "seq": 3}, {"run": "old", "seq": 5}) == []
    assert reader.latestOffset({"run": "old", "seq": 5}) == {"run": plan.run, "seq": 0}
