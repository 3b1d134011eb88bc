#!/usr/bin/env python
"""How long a small job takes from ``python job.py`` to exit, and where the time goes.

Runs a job of PyFlink's ``basic_operations`` size (a dozen elements: map, key_by, reduce,
print; the script configures logging to stdout at INFO as PyFlink's examples do) as a
subprocess, with ``KINDLING_TIMING=1`` so that Kindling prints its phase times on stderr,
and prints the breakdown. When ``/opt/pyflink-venv`` exists (or ``--pyflink PYTHON``), the
same job runs on PyFlink too, for its wall time.

    .venv/bin/python benchmarks/small_job.py [--rounds N] [--no-pyflink]
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

JOB = '''import logging
import sys

from {package}.common import Types
from {package}.datastream import StreamExecutionEnvironment


def main():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    ds = env.from_collection([(i % 3, i) for i in range(12)], type_info=Types.TUPLE([Types.INT(), Types.INT()]))
    ds.map(lambda t: (t[0], t[1] * 10), output_type=Types.TUPLE([Types.INT(), Types.INT()])) \\
      .key_by(lambda t: t[0]) \\
      .reduce(lambda a, b: (a[0], a[1] + b[1])) \\
      .print()
    env.execute()


if __name__ == "__main__":
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(message)s")
    main()
'''



def _expected() -> list[str]:
    """The rolling sums the job prints, sorted (parallel output interleaves)."""
    sums: dict[int, int] = {}
    lines = []
    for i in range(12):
        sums[i % 3] = sums.get(i % 3, 0) + 10 * i
        lines.append(f"({i % 3},{sums[i % 3]})")
    return sorted(lines)


EXPECTED = _expected()

PHASES = [  # (label, from mark(s), to mark): the first "from" mark the run printed counts
    ("interpreter start, imports", None, "kindling imported"),
    ("JVM start", "kindling imported", "JVM started"),
    ("SparkSession", "JVM started", "SparkSession ready"),
    ("planning (compile, source registration)", "SparkSession ready", "job compiled"),
    # the micro-batch path (unbounded or checkpointed jobs, or kindling.bounded.one-step false)
    ("query start", "job compiled", "query started"),
    ("first trigger: source, state set-up, planning", "query started", "batch 0: planned"),
    ("batch 0 (first Python workers)", "batch 0: planned", "batch 0: written"),
    ("end-of-input rounds (batches 1..)", "batch 0: written", "query ended"),
    ("job end", ("query ended", "batch 0: written"), "job 'Flink Streaming Job' ended"),
]

MARK = re.compile(r"^\[kindling\] timing\s+([\d.]+) s\s+(.*)$")


def run(python: str, package: str, directory: str, env: dict) -> tuple[float, str, str]:
    path = os.path.join(directory, f"{package}_job.py")
    with open(path, "w") as f:
        f.write(JOB.format(package=package))
    started = time.perf_counter()
    done = subprocess.run([python, path], cwd=directory, env=env, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{package} job failed ({done.returncode}):\n{done.stderr[-4000:]}")
    return wall, done.stdout, done.stderr


def results(stdout: str) -> list[str]:
    return sorted(line.split("> ", 1)[-1].replace(" ", "") for line in stdout.splitlines() if line.strip())


def breakdown(stderr: str, wall: float) -> list[tuple[str, float]]:
    marks: dict[str, float] = {}
    for line in stderr.splitlines():
        m = MARK.match(line)
        if m:
            marks.setdefault(m.group(2), float(m.group(1)))
    rows = []
    one_step = "query started" not in marks
    for label, starts, end in PHASES:
        if one_step and label.startswith("batch 0"):
            label = "the job in one Spark step (first Python workers)"
        start = next((s for s in ((starts,) if isinstance(starts, str) else starts or ()) if s in marks), None)
        if end in marks and (starts is None or start is not None):
            rows.append((label, marks[end] - (marks[start] if start else 0.0)))
    last = max(marks.values(), default=0.0)
    rows.append(("exit (Spark shutdown)", max(wall - last, 0.0)))
    rows.append(("total wall", wall))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--no-pyflink", action="store_true")
    parser.add_argument("--pyflink", default="/opt/pyflink-venv/bin/python")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"small job (12 elements, map/key_by/reduce/print), {os.cpu_count()} cores, load {load:.1f}")
    with tempfile.TemporaryDirectory(prefix="kindling-small-job-") as directory:
        env = dict(os.environ, KINDLING_TIMING="1", PYTHONPATH=os.pathsep.join(
            p for p in (root, os.environ.get("PYTHONPATH")) if p))
        tables, walls = [], []
        for _ in range(args.rounds):
            wall, out, err = run(sys.executable, "kindling", directory, env)
            if results(out) != EXPECTED:
                print(f"unexpected output on stdout:\n{out}", file=sys.stderr)
                return 1
            tables.append(breakdown(err, wall))
            walls.append(wall)
        print(f"\nKindling ({args.rounds} round(s), median s)")
        for i, (label, _) in enumerate(tables[0]):
            values = [t[i][1] for t in tables if i < len(t) and t[i][0] == label]
            print(f"  {label:<48} {statistics.median(values):7.1f}")
        if not args.no_pyflink and os.path.exists(args.pyflink):
            bin_dir = os.path.dirname(args.pyflink)
            flink_env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK", "KINDLING"))}
            flink_env["PATH"] = bin_dir + os.pathsep + flink_env.get("PATH", "")
            flink_env.pop("PYTHONPATH", None)
            flink_walls = []
            for _ in range(args.rounds):
                wall, out, _ = run(args.pyflink, "pyflink", directory, flink_env)
                if results(out) != EXPECTED:
                    print(f"PyFlink printed something else:\n{out}", file=sys.stderr)
                flink_walls.append(wall)
            print(f"\nPyFlink ({args.pyflink}): total wall {statistics.median(flink_walls):.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
