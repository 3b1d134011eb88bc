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
import statistics
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
    def __init__(self, loops: int):
        self.loops = loops

    def map(self, value):
        return _spin(self.loops, value)


def run(records: int, parallelism: int, loops: int) -> float:
    conf = Configuration()
    conf.set_boolean("kindling.progress", False)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    start = time.perf_counter()
    out = env.from_collection(list(range(records)), type_info=Types.INT()).rebalance() \
        .map(Heavy(loops), Types.INT()).execute_and_collect()
    count = sum(1 for _ in out)
    elapsed = time.perf_counter() - start
    assert count == records, (count, records)
    return elapsed


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
            times[parallelism].append(run(args.records, parallelism, loops))
            print(f"parallelism {parallelism}: {times[parallelism][-1]:.1f} s", flush=True)
    one, two = statistics.median(times[1]), statistics.median(times[2])
    print(f"{args.records} records, ~{args.micros:g} us each, local[2]: parallelism 1 {one:.1f} s, "
          f"parallelism 2 {two:.1f} s, speed-up {one / two:.2f}x (load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
