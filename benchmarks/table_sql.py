"""Flink SQL jobs through real connectors, whole process, side by side: the same program on Kindling
and on real PyFlink 2.3, and the same work written by hand in PySpark (Spark SQL), each in a fresh
process timed from start to exit.

The input is a CSV file of 1,000,000 events ``k,v,ts`` (1,000 keys, 1 ms apart, out of order by less
than 150 ms; as /work/shared/table-bench/make_csv.py makes it), read by the ``filesystem`` connector
with ``WATERMARK FOR ts AS ts - INTERVAL '0.2' SECOND``, parallelism 2, into a ``blackhole`` sink of
three BIGINT columns; the join reads two CSV files of 500,000 rows ``id,k,v`` and ``id,w`` (every id
once in each). The queries:

==========  ======================================================================================
groupby     ``SELECT CAST(k AS BIGINT), COUNT(*), SUM(v) FROM ev GROUP BY k`` (Flink's changelog)
tumble      1 s TUMBLE window TVF per key: ``COUNT(*)``, ``SUM(v)``
filter      ``SELECT CAST(k AS BIGINT), v, v * 2 FROM ev WHERE v % 3 = 0``
udf         a Python scalar UDF on every row: ``plus1(v)``
pandas      a pandas scalar UDF on every row's Series (``func_type='pandas'``): ``plus1p(v)``
udtf        a Python table function making two rows of every row: ``LATERAL TABLE(twice(v))``
join        a regular inner join of the two 500k tables on ``id``
over        ``SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)``
==========  ======================================================================================

Sides: ``pyflink`` (STREAMING mode; skipped, saying so, without the PyFlink venv at ``$PYFLINK_VENV``,
default /tmp/pf), ``kindling`` (the same program, STREAMING mode: bounded, so one step where no node
reads the watermark), ``kindling-batch`` (BATCH mode) and ``spark`` (PySpark by hand: ``spark.read.csv``
of the same files, the query in Spark SQL, Spark's ``noop`` writer; ``local[2]``, Kindling's Spark
settings left aside). On micro-batches (``groupby`` and ``join`` only, the inputs split into 10 files):
``kindling-micro`` (the same program, STREAMING, ``kindling.bounded.one-step`` false and
``kindling.source.max-files-per-batch`` 2: the rows read in 5 micro-batches of 2 files, as Spark's side
reads them, by Spark's file stream source where the planner allows it, Flink's changelog computed per batch), ``kindling-mini-batch`` (the same with
``table.exec.mini-batch.enabled``: a group's changes once per micro-batch, as Spark's update mode
writes a changed group once per batch) and ``spark-streaming`` (Spark Structured Streaming by
hand: ``readStream.csv`` of the same files, 2 files per trigger, ``availableNow``, the ``noop`` sink;
the GROUP BY in update mode, one changed row per key and batch, the join a stream-stream join in append
mode). Ratios: PyFlink's time over Kindling's (STREAMING), Spark's over Kindling's BATCH, Spark
streaming's over Kindling's micro-batches and mini-batches (above 1: Kindling faster). Each cell is the
wall time and, after a slash, the CPU seconds of the side's process tree (the JVM and Python workers
too; read from /proc, so on Linux only): the steadier figure on a machine others share.

``--check``: every side runs every query in one process on ``--rows`` events, collecting the result
instead of writing it to the blackhole; the final rows (a changelog applied) must be the same on every
side, and PyFlink's and Kindling's STREAMING changelogs as long (tests/test_benchmark_table_sql.py
runs it on 2,000 rows).

    .venv/bin/python benchmarks/table_sql.py [--queries groupby,filter] [--sides kindling,spark] [--rounds 2]
    .venv/bin/python benchmarks/table_sql.py --check --rows 2000
"""
from __future__ import annotations

import argparse
import datetime
import os
import random
import subprocess
import sys
import tempfile
import time
from typing import NamedTuple, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from benchmarks.process_cpu import TreeCpu  # noqa: E402
QUERIES = ["groupby", "tumble", "filter", "udf", "pandas", "udtf", "join", "over"]
SIDES = ["pyflink", "kindling", "kindling-batch", "spark"]
MICRO_SIDES = ["kindling-micro", "kindling-mini-batch", "spark-streaming"]
MICRO_QUERIES = ["groupby", "join"]
#: the micro-batch sides' inputs: each CSV in this many files, read FILES_PER_BATCH files per micro-batch
PARTS = 10
FILES_PER_BATCH = 2
EVENTS = 1_000_000

SQL = {
    "groupby": "SELECT CAST(k AS BIGINT), COUNT(*), SUM(v) FROM ev GROUP BY k",
    "tumble": "SELECT CAST(k AS BIGINT), COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), "
              "INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end",
    "filter": "SELECT CAST(k AS BIGINT), v, v * 2 FROM ev WHERE v % 3 = 0",
    "udf": "SELECT CAST(k AS BIGINT), plus1(v), v FROM ev",
    "pandas": "SELECT CAST(k AS BIGINT), plus1p(v), v FROM ev",
    "udtf": "SELECT CAST(k AS BIGINT), p, v FROM ev, LATERAL TABLE(twice(v)) AS T(p)",
    "join": "SELECT l.id, l.v, r.w FROM l JOIN r ON l.id = r.id",
    "over": "SELECT CAST(k AS BIGINT), v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED "
            "PRECEDING AND CURRENT ROW) FROM ev",
}
#: Spark SQL's spelling where it differs (a tumbling window is ``window()`` in the GROUP BY)
SPARK_SQL = dict(SQL, tumble="SELECT CAST(k AS BIGINT), COUNT(*), SUM(v) FROM ev GROUP BY k, window(ts, '1 second')",
                 udtf="SELECT CAST(k AS BIGINT), p, v FROM ev, LATERAL twice(v)")

#: both programs' --check output: per query a line ``CHECK query rows digest changes``
REPORT = '''
def report(query, changes):
    """Prints the final rows of (row, +1 | -1) ``changes``: how many, their digest, how many changes."""
    import collections, hashlib
    final, count = collections.Counter(), 0
    for row, sign in changes:
        final[row] += sign
        count += 1
    if any(n < 0 for n in final.values()):
        raise SystemExit("%s: a row retracted more often than inserted" % query)
    rows = sorted(r for r, n in final.items() for _ in range(n))
    print("CHECK %s %d %s %d" % (query, len(rows), hashlib.sha1(repr(rows).encode()).hexdigest()[:16], count))
'''

FLINK_PROGRAM = REPORT + '''
import sys
from pyflink.table import EnvironmentSettings, TableEnvironment, DataTypes
from pyflink.table.udf import udf, udtf

queries, events, left, right = sys.argv[1].split(","), sys.argv[2], sys.argv[3], sys.argv[4]
batch, check, sql = sys.argv[5] == "batch", sys.argv[6] == "check", %r
t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "2")
if sys.argv[5].startswith("micro:"):  # Kindling's micro-batches of this many files (":mini-batch": Flink's)
    files, _, mini_batch = sys.argv[5][len("micro:"):].partition(":")
    t_env.get_config().set("kindling.bounded.one-step", "false")
    t_env.get_config().set("kindling.source.max-files-per-batch", files)
    if mini_batch:
        t_env.get_config().set("table.exec.mini-batch.enabled", "true")
t_env.execute_sql("CREATE TABLE ev (k INT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '0.2' SECOND) "
                  "WITH ('connector' = 'filesystem', 'path' = '%%s', 'format' = 'csv')" %% events)
t_env.execute_sql("CREATE TABLE l (id BIGINT, k INT, v BIGINT) WITH ('connector' = 'filesystem', "
                  "'path' = '%%s', 'format' = 'csv')" %% left)
t_env.execute_sql("CREATE TABLE r (id BIGINT, w BIGINT) WITH ('connector' = 'filesystem', "
                  "'path' = '%%s', 'format' = 'csv')" %% right)
t_env.execute_sql("CREATE TABLE sink_rows (a BIGINT, b BIGINT, c BIGINT) WITH ('connector' = 'blackhole')")
t_env.create_temporary_function("plus1", udf(lambda x: x + 1, result_type=DataTypes.BIGINT()))
t_env.create_temporary_function("plus1p", udf(lambda s: s + 1, result_type=DataTypes.BIGINT(), func_type="pandas"))
t_env.create_temporary_function("twice", udtf(lambda x: [x, x + 1], result_types=[DataTypes.BIGINT()]))
for query in queries:
    if not check:
        t_env.execute_sql("INSERT INTO sink_rows " + sql[query]).wait()
        continue
    with t_env.sql_query(sql[query]).execute().collect() as rows:
        report(query, [(tuple(r), -1 if r.get_row_kind().name in ("UPDATE_BEFORE", "DELETE") else 1) for r in rows])
''' % SQL

SPARK_PROGRAM = REPORT + '''
import sys
import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.functions import pandas_udf, udtf

queries, events, left, right = sys.argv[1].split(","), sys.argv[2], sys.argv[3], sys.argv[4]
check, sql = sys.argv[6] == "check", %r
spark = (SparkSession.builder.master("local[2]").config("spark.sql.shuffle.partitions", "2")
         .config("spark.ui.enabled", "false").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
spark.read.schema("k INT, v BIGINT, ts TIMESTAMP").option("mode", "FAILFAST").csv(events).createOrReplaceTempView("ev")
spark.read.schema("id BIGINT, k INT, v BIGINT").option("mode", "FAILFAST").csv(left).createOrReplaceTempView("l")
spark.read.schema("id BIGINT, w BIGINT").option("mode", "FAILFAST").csv(right).createOrReplaceTempView("r")
spark.udf.register("plus1", lambda x: x + 1, "bigint")


def plus1p(s: pd.Series) -> pd.Series:
    return s + 1


spark.udf.register("plus1p", pandas_udf(plus1p, "bigint"))


@udtf(returnType="p: bigint")
class Twice:
    def eval(self, x):
        yield x,
        yield x + 1,


spark.udtf.register("twice", Twice)
for query in queries:
    if check:
        report(query, [(tuple(r), 1) for r in spark.sql(sql[query]).collect()])
    else:
        spark.sql(sql[query]).write.format("noop").mode("overwrite").save()
''' % SPARK_SQL

SPARK_STREAMING_PROGRAM = """
import sys, tempfile
from pyspark.sql import SparkSession, functions as F

queries, events, left, right = sys.argv[1].split(","), sys.argv[2], sys.argv[3], sys.argv[4]
spark = (SparkSession.builder.master("local[2]").config("spark.sql.shuffle.partitions", "2")
         .config("spark.ui.enabled", "false").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")


def stream(path, schema):
    return spark.readStream.schema(schema).option("maxFilesPerTrigger", %d).option("mode", "FAILFAST").csv(path)


for query in queries:
    if query == "groupby":
        out, mode = stream(events, "k INT, v BIGINT, ts TIMESTAMP").groupBy("k").agg(
            F.count(F.lit(1)).alias("n"), F.sum("v").alias("s")).select(F.col("k").cast("bigint"), "n", "s"), "update"
    else:
        out, mode = stream(left, "id BIGINT, k INT, v BIGINT").join(stream(right, "id BIGINT, w BIGINT"), "id") \\
            .select("id", "v", "w"), "append"
    out.writeStream.format("noop").outputMode(mode).trigger(availableNow=True) \\
        .option("checkpointLocation", tempfile.mkdtemp()).start().awaitTermination()
""" % FILES_PER_BATCH


class Checked(NamedTuple):
    """A query's result on one side (--check): its final rows' count and digest, and how many changes
    made them."""

    rows: int
    digest: str
    changes: int


def make_inputs(directory: str, events: int = EVENTS) -> tuple[str, str, str]:
    """The events CSV (as /work/shared/table-bench/make_csv.py makes it) and the two join tables
    (``events // 2`` ids each, the right one's shuffled), made once per number of events."""
    os.makedirs(directory, exist_ok=True)
    paths = tuple(os.path.join(directory, f"{name}-{events}.csv") for name in ("events", "left", "right"))
    if all(os.path.exists(p) for p in paths):
        return paths
    base = datetime.datetime(2024, 3, 1)
    ids = list(range(events // 2))
    random.Random(7).shuffle(ids)
    contents = (
        ("%d,%d,%s\n" % (i % 1000, i % 97, (base + datetime.timedelta(milliseconds=max(i - (i * 7919) % 150, 0)))
                          .strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]) for i in range(events)),
        ("%d,%d,%d\n" % (i, i % 1000, i % 97) for i in range(events // 2)),
        ("%d,%d\n" % (i, i % 89) for i in ids),
    )
    for path, lines in zip(paths, contents):
        with open(path + ".tmp", "w") as f:
            f.writelines(lines)
        os.replace(path + ".tmp", path)
    return paths


def split_inputs(paths: tuple) -> tuple[str, ...]:
    """Each input CSV as a directory of ``PARTS`` files of consecutive lines (made once)."""
    directories = tuple(path + ".parts" for path in paths)
    for path, directory in zip(paths, directories):
        if os.path.isdir(directory):
            continue
        with open(path) as f:
            lines = f.readlines()
        made = directory + ".tmp"
        os.makedirs(made, exist_ok=True)
        size = -(-len(lines) // PARTS)
        for part in range(PARTS):
            with open(os.path.join(made, f"part-{part:02d}.csv"), "w") as f:
                f.writelines(lines[part * size:(part + 1) * size])
        os.replace(made, directory)
    return directories


def _micro_mode(query: str, inputs: tuple, mini_batch: bool = False) -> str:
    """Kindling's mode argument on micro-batches: 2 of the query's input files per batch, as Spark's
    side (``maxFilesPerTrigger``; ``mini_batch``: with Flink's mini-batch aggregation)."""
    return f"micro:{FILES_PER_BATCH}" + (":mini-batch" if mini_batch else "")


def run(side: str, queries: list[str], inputs: tuple, work: str, pyflink: str, check: bool = False
        ) -> tuple[Optional[float], str, str, Optional[float]]:
    """Runs ``queries`` on ``side`` in a fresh process: its whole-process wall time (None when it failed
    or was skipped), why not, its stdout and the CPU seconds of its process tree (:class:`~benchmarks.process_cpu.TreeCpu`)."""
    env = dict(os.environ)
    if side == "pyflink":
        interpreter = os.path.join(pyflink, "bin", "python")
        if not os.path.exists(interpreter):
            return None, f"skipped: no PyFlink venv at {pyflink} (set PYFLINK_VENV)", "", None
        program = FLINK_PROGRAM
        env["PATH"] = os.path.join(pyflink, "bin") + os.pathsep + env.get("PATH", "")
        env.pop("PYTHONPATH", None)
    elif side in ("spark", "spark-streaming"):
        program, interpreter = SPARK_PROGRAM if side == "spark" else SPARK_STREAMING_PROGRAM, sys.executable
        env["PYSPARK_PYTHON"] = sys.executable
    else:
        program, interpreter = FLINK_PROGRAM.replace("pyflink", "kindling"), sys.executable
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        env.setdefault("KINDLING_SPARK_MASTER", "local[2]")
    path = os.path.join(work, f"{side.replace('-', '_')}_job.py")  # not kindling.py: the package
    with open(path, "w") as f:
        f.write(program)
    mode = "batch" if side == "kindling-batch" else "streaming"
    if side in ("kindling-micro", "kindling-mini-batch"):
        mode = _micro_mode(queries[0], inputs, mini_batch=side == "kindling-mini-batch")
    command = [interpreter, path, ",".join(queries), *inputs, mode, "check" if check else "blackhole"]
    started = time.time()
    with subprocess.Popen(command, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as done:
        cpu = TreeCpu(done.pid, every=0.2)
        try:
            stdout, stderr = done.communicate(timeout=1800)
        except subprocess.TimeoutExpired:
            done.kill()
            done.communicate()
            return None, "failed: killed after 1800 s", "", cpu.stop()
    took, cpu = time.time() - started, cpu.stop()
    if done.returncode != 0:
        lines = [line for line in stderr.splitlines() if line.strip() and "WARN" not in line]
        return None, f"failed (rc {done.returncode}): {lines[-1] if lines else ''}"[:300], stdout, cpu
    return took, "", stdout, cpu


def check(sides: list[str], queries: list[str], events: int, data: str, pyflink: str = "/tmp/pf"
          ) -> dict[str, dict[str, Checked]]:
    """Each side's result of each query on ``events`` events (one process per side); a side that failed
    raises, naming it; a skipped side (no PyFlink) is left out."""
    inputs = make_inputs(data, events)
    results = {}
    with tempfile.TemporaryDirectory() as work:
        for side in sides:
            took, why, stdout, _ = run(side, queries, inputs, work, pyflink, check=True)
            if why.startswith("failed"):
                raise RuntimeError(f"{side}: {why}")
            if took is not None:
                results[side] = {query: Checked(int(rows), digest, int(changes)) for _, query, rows, digest, changes
                                 in (line.split() for line in stdout.splitlines() if line.startswith("CHECK "))}
    return results


def differences(results: dict[str, dict[str, Checked]]) -> list[str]:
    """Where the sides disagree: the final rows of a query, or the length of the STREAMING changelogs
    (PyFlink's and Kindling's)."""
    problems = []
    for query in sorted({q for by_query in results.values() for q in by_query}):
        got = {side: by_query.get(query) for side, by_query in results.items()}
        if len({(c.rows, c.digest) if c else None for c in got.values()}) != 1:
            problems.append(f"{query}: the final rows differ: {got}")
        if len({got[s].changes for s in ("pyflink", "kindling") if got.get(s)}) > 1:
            problems.append(f"{query}: PyFlink's and Kindling's changelogs differ in length: {got}")
    return problems


def load() -> str:
    return "load average %.1f %.1f %.1f" % os.getloadavg()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", default=",".join(QUERIES))
    parser.add_argument("--sides", default=",".join(SIDES))
    parser.add_argument("--rows", type=int, default=EVENTS, help="events (the join tables: half as many ids)")
    parser.add_argument("--data", default=os.path.join(tempfile.gettempdir(), "kindling-table-sql"))
    parser.add_argument("--pyflink", default=os.environ.get("PYFLINK_VENV", "/tmp/pf"))
    parser.add_argument("--check", action="store_true", help="compare the sides' results instead of timing")
    parser.add_argument("--rounds", type=int, default=1, help="times each query runs on every side, in turn")
    args = parser.parse_args(argv)
    queries, sides = args.queries.split(","), args.sides.split(",")
    unknown = [s for s in sides if s not in SIDES + MICRO_SIDES] + [q for q in queries if q not in QUERIES]
    if unknown:
        parser.error(f"unknown side or query {unknown}: sides {SIDES + MICRO_SIDES}, queries {QUERIES}")
    if args.check and set(sides) & set(MICRO_SIDES):
        parser.error(f"--check compares {SIDES}: the micro-batch sides' changes are checked by the test suite")
    if args.check:
        results = check(sides, queries, args.rows, args.data, args.pyflink)
        for side, by_query in results.items():
            print(f"{side:<15}", " ".join(f"{q}={c.rows} rows/{c.changes} changes" for q, c in by_query.items()))
        problems = differences(results)
        print("\n".join(problems) or f"the same rows on every side ({', '.join(results)})")
        return 1 if problems else 0
    inputs = make_inputs(args.data, args.rows)
    parts = split_inputs(inputs) if set(sides) & set(MICRO_SIDES) else inputs
    print(f"Flink SQL through real connectors, {args.rows:,} events, whole process, seconds "
          f"({time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, {load()} at the start)")
    print("query    | " + " | ".join(f"{s:>19}" for s in sides) + " | PyFlink/Kindling | Spark/Kindling BATCH | "
          "Spark streaming/Kindling micro | Spark streaming/Kindling mini-batch   (wall/CPU)")
    notes = []
    with tempfile.TemporaryDirectory() as work:
        for query in queries:
            for _ in range(args.rounds):  # the sides alternate: a change of load reaches each
                times, cpu = {}, {}
                for side in sides:
                    if side in MICRO_SIDES and query not in MICRO_QUERIES:
                        times[side], why, cpu[side] = None, f"skipped: micro-batch sides run {MICRO_QUERIES}", None
                    else:
                        times[side], why, _, cpu[side] = run(side, [query], parts if side in MICRO_SIDES else inputs,
                                                             work, args.pyflink)
                    if why:
                        notes.append(f"{query} on {side}: {why}")

                def ratio(a: str, b: str) -> str:
                    if not (times.get(a) and times.get(b)):
                        return "-"
                    return f"{times[a] / times[b]:.2f}x" + (f"/{cpu[a] / cpu[b]:.2f}x" if cpu[a] and cpu[b] else "")
                cells = " | ".join(f"{times[s]:>9.1f}/{cpu[s] or 0:<9.1f}" if times[s] else f"{'-':>19}" for s in sides)
                print(f"{query:<8} | {cells} | {ratio('pyflink', 'kindling'):>16} | "
                      f"{ratio('spark', 'kindling-batch'):>20} | {ratio('spark-streaming', 'kindling-micro'):>30} | "
                      f"{ratio('spark-streaming', 'kindling-mini-batch'):>35}   ({load()})", flush=True)
    for note in notes:
        print("  " + note)
    return 1 if any(n.split(": ", 1)[1].startswith("failed") for n in notes) else 0


if __name__ == "__main__":
    sys.exit(main())
