"""A small benchmark harness: Kindling pipelines against hand-written PySpark.

Every workload has two sides that compute the same thing on the same source:

* ``kindling(spark, records)``: the pipeline written with Kindling's DataStream API
  (``kindling.datastream``), run with ``env.execute()``;
* ``handwritten(spark, records)``: what a competent PySpark user would write by hand.

Both return a *result* (usually a count) that must be equal, or the run fails. All
workloads run in one Python process on one shared SparkSession. For each workload the
harness runs one warm-up round (both sides, not timed) and then ``rounds`` timed rounds,
alternating the two sides, and reports the median throughput of each side in input
records per second.
"""
from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import statistics
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

DEFAULT_MASTER = "local[2]"
PARALLELISM = 2


@dataclass
class Workload:
    """One benchmark.

    ``kindling`` and ``handwritten`` are called as ``fn(spark, records)`` and return a
    comparable result (e.g. a count); ``records`` is the number of *input* records, which
    throughput is computed from. ``target_ratio`` is the minimum Kindling/hand-written
    throughput ratio aimed at (None: no target). ``check``, if given, is called with
    ``(records, result)`` to validate the result itself (not only that both sides agree).
    ``handwritten`` may be None: only Kindling's throughput is reported (no ratio).
    ``notes``, if given, is called once after the timed rounds as ``notes(spark, records)`` and
    returns text printed after the table (e.g. state sizes).
    """

    name: str
    records: int
    kindling: Callable[[Any, int], Any]
    handwritten: Optional[Callable[[Any, int], Any]]
    target_ratio: Optional[float] = 0.9
    description: str = ""
    check: Optional[Callable[[int, Any], None]] = None
    notes: Optional[Callable[[Any, int], str]] = None


@dataclass
class Measurement:
    workload: Workload
    records: int
    kindling_seconds: list = field(default_factory=list)
    handwritten_seconds: list = field(default_factory=list)
    result: Any = None
    notes: str = ""

    @property
    def kindling_rate(self) -> float:
        return self.records / statistics.median(self.kindling_seconds)

    @property
    def handwritten_rate(self) -> Optional[float]:
        if not self.handwritten_seconds:
            return None
        return self.records / statistics.median(self.handwritten_seconds)

    @property
    def ratio(self) -> Optional[float]:
        h = self.handwritten_rate
        return None if h is None else self.kindling_rate / h

    @property
    def meets_target(self) -> Optional[bool]:
        t = self.workload.target_ratio
        return None if t is None or self.ratio is None else self.ratio >= t


class ResultMismatch(AssertionError):
    """The Kindling and hand-written sides of a workload computed different results."""


#: ``--one-step``: Kindling runs the bounded jobs as users' run by default, in one Spark step
ONE_STEP = False


def kindling_configuration():
    """The Configuration benchmarks give Kindling environments: progress lines off, and bounded
    jobs on the micro-batch path, the execution the hand-written transformWithState side has
    (small bounded jobs run in one Spark step otherwise: benchmarks/small_job.py measures that),
    unless ``--one-step``."""
    from kindling.common import Configuration

    conf = Configuration()
    conf.set_boolean("kindling.progress", False)
    conf.set_boolean("kindling.bounded.one-step", ONE_STEP)
    return conf


def spark_session():
    """The one SparkSession all workloads share (local[2] unless KINDLING_SPARK_MASTER says otherwise)."""
    os.environ.setdefault("KINDLING_SPARK_MASTER", DEFAULT_MASTER)
    from kindling.spark.session import get_spark

    return get_spark(kindling_configuration(), PARALLELISM)


def discover(package: str = "benchmarks.workloads") -> list[Workload]:
    """Workloads of every module of ``package``: its ``WORKLOAD`` and/or ``WORKLOADS`` (a list)."""
    pkg = importlib.import_module(package)
    found: list[Workload] = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        if hasattr(module, "WORKLOAD"):
            found.append(module.WORKLOAD)
        found.extend(getattr(module, "WORKLOADS", []))
    names = [w.name for w in found]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise ValueError(f"duplicate workload names: {sorted(duplicates)}")
    return found


def _timed(fn: Callable[[Any, int], Any], spark, records: int) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn(spark, records)
    return time.perf_counter() - start, result


def _agree(workload: Workload, records: int, kindling_result: Any, handwritten_result: Any) -> None:
    if workload.handwritten is not None and kindling_result != handwritten_result:
        raise ResultMismatch(f"workload {workload.name!r}: Kindling returned {kindling_result!r}, "
                             f"hand-written returned {handwritten_result!r}")
    if workload.check is not None:
        workload.check(records, kindling_result)


def measure(workload: Workload, spark, rounds: int = 3, records: Optional[int] = None,
            log: Callable[[str], None] = lambda s: None) -> Measurement:
    """Warm-up round, then ``rounds`` timed rounds alternating Kindling and hand-written.

    The side that goes first alternates too, so that neither always benefits from a warm JVM/page cache.
    """
    n = records or workload.records
    m = Measurement(workload, n)
    log(f"{workload.name}: warm-up")
    sides = [("kindling", workload.kindling)]
    if workload.handwritten is not None:
        sides.append(("handwritten", workload.handwritten))
    for _, fn in sides:
        fn(spark, n)
    for r in range(rounds):
        order = list(sides)
        if r % 2:
            order.reverse()
        results = {}
        for side, fn in order:
            seconds, results[side] = _timed(fn, spark, n)
            (m.kindling_seconds if side == "kindling" else m.handwritten_seconds).append(seconds)
            log(f"{workload.name}: round {r + 1} {side} {seconds:.2f}s ({n / seconds:,.0f} records/s)")
        _agree(workload, n, results["kindling"], results.get("handwritten"))
        m.result = results["kindling"]
    if workload.notes is not None:
        log(f"{workload.name}: notes")
        m.notes = workload.notes(spark, n)
    return m


def format_table(measurements: list[Measurement]) -> str:
    header = ["workload", "records", "Kindling rec/s", "hand-written rec/s", "ratio K/H", "target", "ok"]
    rows = []
    for m in measurements:
        t = m.workload.target_ratio
        ok = {None: "-", True: "yes", False: "NO"}[m.meets_target]
        h = m.handwritten_rate
        rows.append([m.workload.name, f"{m.records:,}", f"{m.kindling_rate:,.0f}", "-" if h is None else f"{h:,.0f}",
                     "-" if h is None else f"{m.ratio:.2f}x", "-" if t is None else f">= {t:.2f}x", ok])
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    lines = [" | ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip(),
             "-+-".join("-" * w for w in widths)]
    for row in rows:
        lines.append(" | ".join(c.rjust(w) if i in (1, 2, 3, 4) else c.ljust(w)
                                for i, (c, w) in enumerate(zip(row, widths))).rstrip())
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Kindling vs hand-written PySpark benchmarks")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="run only this workload (repeatable; a name or a prefix such as 'stateless')")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds after the warm-up (default 3)")
    parser.add_argument("--records", type=int, default=None, help="override every workload's record count")
    parser.add_argument("--list", action="store_true", help="list the workloads and exit")
    parser.add_argument("--one-step", action="store_true",
                        help="Kindling runs bounded jobs in one Spark step (its default; the micro-batch path otherwise)")
    parser.add_argument("--quiet", action="store_true", help="print only the table")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be >= 1")
    if args.one_step:
        global ONE_STEP
        ONE_STEP = True

    workloads = discover()
    if args.list:
        for w in workloads:
            print(f"{w.name:30} {w.records:>12,}  {w.description}")
        return 0
    if args.only:
        selected = [w for w in workloads if any(w.name == o or w.name.startswith(o) for o in args.only)]
        if not selected:
            parser.error(f"no workload matches {args.only}; known: {', '.join(w.name for w in workloads)}")
        workloads = selected

    log = (lambda s: None) if args.quiet else (lambda s: print(f"[bench] {s}", file=sys.stderr, flush=True))
    started = time.perf_counter()
    spark = spark_session()
    log(f"SparkSession {spark.sparkContext.master}, Spark {spark.version}, ready in {time.perf_counter() - started:.1f}s")
    measurements = []
    failed = False
    for w in workloads:
        try:
            measurements.append(measure(w, spark, args.rounds, args.records, log))
        except ResultMismatch as exc:
            print(f"[bench] FAILED: {exc}", file=sys.stderr, flush=True)
            failed = True
        except Exception:
            print(f"[bench] FAILED: workload {w.name!r} raised:", file=sys.stderr, flush=True)
            traceback.print_exc()
            failed = True
    print()
    print(f"Kindling vs hand-written PySpark ({spark.sparkContext.master}, {args.rounds} rounds, median; "
          f"{time.strftime('%Y-%m-%d')})")
    print(format_table(measurements))
    for m in measurements:
        if m.notes:
            print(f"\n{m.workload.name}:\n{m.notes.rstrip()}")
    if failed:
        print("\nFAILED: a workload failed or its two sides disagreed (see above)", file=sys.stderr)
        return 1
    return 0
