"""Scaling on a real Spark standalone cluster: the keyed and window benchmarks (Kindling's side
of benchmarks/workloads) on a Master with 1 and then 2 Workers of 1 core each on 127.0.0.1
(tests/cluster/standalone.py), printing records/s and how the tasks spread over the executors.

    python benchmarks/cluster_scaling.py [--records 300000] [--workers 1,2] [--rounds 1] [WORKLOAD ...]

Each cluster size runs in its own driver process (one Spark application): a warm-up round on a
small input (executors start their Python workers), then the timed rounds. The spread is read
from the driver's REST API (tasks and task time per executor, for the timed rounds only). On a
2-core machine the point is that nothing breaks and work spreads over executors, not speed-up.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_WORKLOADS = ["keyed-reduce", "keyed-process-timer", "window-tumbling"]
WARM_UP_RECORDS = 20_000


def executor_tasks(ui: str) -> dict[str, tuple[int, float]]:
    """Per executor (``id@host``): completed tasks and their total time in seconds."""
    def get(path: str):
        with urllib.request.urlopen(f"{ui}/api/v1/{path}", timeout=30) as response:
            return json.load(response)

    application = get("applications")[0]["id"]
    return {f"{e['id']}@{e['hostPort']}": (e["completedTasks"], e["totalDuration"] / 1000)
            for e in get(f"applications/{application}/allexecutors") if e["id"] != "driver"}


def spread(before: dict, after: dict) -> str:
    """Tasks (and task seconds) each executor ran between two readings of ``executor_tasks``."""
    parts = []
    for executor in sorted(after):
        tasks = after[executor][0] - before.get(executor, (0, 0.0))[0]
        seconds = after[executor][1] - before.get(executor, (0, 0.0))[1]
        parts.append(f"executor {executor.split('@')[0]}: {tasks} tasks, {seconds:.1f} s")
    return "; ".join(parts) or "no executor ran a task"


def driver(workload_names: list[str], records: int, rounds: int, ui_port: int) -> None:
    """One cluster size: runs in the driver process ``main`` starts (KINDLING_SPARK_MASTER set)."""
    sys.path.insert(0, ROOT)
    from benchmarks.harness import discover, spark_session

    workloads = {w.name: w for w in discover()}
    missing = [n for n in workload_names if n not in workloads]
    if missing:
        raise SystemExit(f"unknown workloads {missing}; known: {sorted(workloads)}")
    spark = spark_session()
    ui = f"http://127.0.0.1:{ui_port}"
    for name in workload_names:
        workload = workloads[name]
        workload.kindling(spark, WARM_UP_RECORDS)
        before = executor_tasks(ui)
        seconds = []
        for _ in range(rounds):
            start = time.perf_counter()
            result = workload.kindling(spark, records)
            seconds.append(time.perf_counter() - start)
            if workload.check is not None:
                workload.check(records, result)
        time.sleep(1)  # the REST API's figures of the last tasks
        rate = records / statistics.median(seconds)
        print(f"RESULT {name} {rate:,.0f} records/s ({statistics.median(seconds):.1f} s); "
              f"{spread(before, executor_tasks(ui))}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workloads", nargs="*", default=DEFAULT_WORKLOADS)
    parser.add_argument("--records", type=int, default=300_000)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--workers", default="1,2", help="the cluster sizes, comma-separated")
    parser.add_argument("--driver", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--ui-port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.driver:
        driver(args.workloads, args.records, args.rounds, args.ui_port)
        return
    sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
    from standalone import free_port, standalone_cluster

    print(f"{args.records:,} records per round, {args.rounds} timed round(s); workers of 1 core, 1 GB; "
          f"driver and workers on this machine ({os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})", flush=True)
    for workers in (int(w) for w in args.workers.split(",")):
        with tempfile.TemporaryDirectory(prefix="kindling-cluster-bench-") as directory:
            started = time.perf_counter()
            with standalone_cluster(directory, workers=workers, cores=1, memory="1g") as master:
                print(f"\n{workers} worker(s) at {master}, up in {time.perf_counter() - started:.0f} s", flush=True)
                ui_port = free_port()
                conf = {"spark.executor.memory": "512m", "spark.scheduler.minRegisteredResourcesRatio": "1",
                        "spark.scheduler.maxRegisteredResourcesWaitingTime": "120s", "spark.locality.wait": "0",
                        "spark.ui.enabled": "true", "spark.ui.port": str(ui_port),
                        "spark.pyspark.python": sys.executable,
                        # the workloads' functions are pickled by reference to the benchmarks package
                        "python.files": ROOT,
                        "kindling.spark-log": os.path.join(directory, "driver.log")}
                env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KINDLING_TIMING")}
                env.update(KINDLING_SPARK_MASTER=master, SPARK_LOCAL_IP="127.0.0.1", KINDLING_CONF=json.dumps(conf))
                done = subprocess.run([sys.executable, os.path.abspath(__file__), "--driver", "--records",
                                       str(args.records), "--rounds", str(args.rounds), "--ui-port", str(ui_port),
                                       *args.workloads], env=env, cwd=ROOT, capture_output=True, text=True)
                for line in done.stdout.splitlines():
                    if line.startswith("RESULT "):
                        print("  " + line[len("RESULT "):], flush=True)
                if done.returncode != 0:
                    errors = [line for line in done.stderr.splitlines() if "Error" in line or "Exception:" in line]
                    print(f"  the driver failed (exit {done.returncode}): {(errors or ['?'])[-1][:500]}\n"
                          f"  (its log: {done.stderr[-1500:]})", flush=True)


if __name__ == "__main__":
    main()
