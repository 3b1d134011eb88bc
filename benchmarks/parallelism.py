#!/usr/bin/env python
"""Whether an operator's parallelism spreads the work: a parallelism-1 collection source of
``--records`` elements, ``rebalance()``, a CPU-heavy map (about ``--micros`` us an element) at
parallelism 2 and at 1, on ``local[2]``, alternating in one process (one Spark session).
Prints each run's time and the speed-up of parallelism 2 over 1 (issue 26's target: >= 1.7x).

    .venv/bin/python benchmarks/parallelism.py [--records 200000] [--micros 50] [--rounds 2]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time

os.environ.setdefault("KINDLING_SPARK_MASTER", "local[2]")

from kindling.common import Configuration, Types  # noqa: E402
from kindling.datastream import MapFunction, StreamExecutionEnvironment  # noqa: E402


def _spin(loops: int, value: int) -> int:
    for _ in range(loops):
        value = (value * 31 + 7) % 1000003
    return value


def loops_for(micros: float) -> int:
    """How many loops of ``_spin`` take ``micros`` us here."""
    loops = 10000
    start = time.perf_counter()
    _spin(loops, 1)
    return max(1, round(loops * micros / ((time.perf_counter() - start) * 1e6)))


class Heavy(MapFunction):
    """The spinning map; each instance notes in ``timeline`` (a directory) when it got its first
    element and its latest (every 1,000 elements), so a run tells whether the instances overlapped."""

    def __init__(self, loops: int, timeline: str):
        self.loops = loops
        self.timeline = timeline

    def open(self, runtime_context):
        self.subtask = runtime_context.get_index_of_this_subtask()
        self.first = None
        self.count = 0

    def map(self, value):
        if self.first is None:
            self.first = time.time()
        self.count += 1
        if self.count % 1000 == 0:
            with open(os.path.join(self.timeline, f"{self.subtask}-{os.getpid()}"), "w") as f:
                f.write(f"{self.subtask} {self.first} {time.time()} {self.count}")
        return _spin(self.loops, value)


def run(records: int, parallelism: int, loops: int) -> tuple[float, str]:
    """The job's seconds, and when each map instance worked within them."""
    conf = Configuration()
    conf.set_boolean("kindling.progress", False)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    timeline = tempfile.mkdtemp(prefix="parallelism-")
    started, start = time.time(), time.perf_counter()
    out = env.from_collection(list(range(records)), type_info=Types.INT()).rebalance() \
        .map(Heavy(loops, timeline), Types.INT()).execute_and_collect()
    count = sum(1 for _ in out)
    elapsed = time.perf_counter() - start
    assert count == records, (count, records)
    instances = []
    for name in sorted(os.listdir(timeline)):
        with open(os.path.join(timeline, name)) as f:
            subtask, first, last, seen = f.read().split()
        instances.append(f"instance {subtask}: {float(first) - started:.1f}-{float(last) - started:.1f} s "
                         f"({int(seen):,} elements)")
    shutil.rmtree(timeline, ignore_errors=True)
    return elapsed, "; ".join(instances)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--micros", type=float, default=50.0)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    loops = loops_for(args.micros)
    run(1000, 2, loops)  # starts Spark and its Python workers
    times: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(args.rounds):
        for parallelism in (2, 1):
            seconds, instances = run(args.records, parallelism, loops)
            times[parallelism].append(seconds)
            print(f"parallelism {parallelism}: {seconds:.1f} s; {instances} (load {os.getloadavg()[0]:.1f})",
                  flush=True)
    one, two = statistics.median(times[1]), statistics.median(times[2])
    print(f"{args.records} records, ~{args.micros:g} us each, local[2]: parallelism 1 {one:.1f} s, "
          f"parallelism 2 {two:.1f} s, speed-up {one / two:.2f}x (load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
