"""Rows per second of one core through a Table projection calling a pandas scalar function
(``plus1p(v)``, ``s + 1``), in the Python operator without Spark: called once per row with one-row
Series (batches of 1: how every pandas function ran before it ran on batches) against once per batch
of ``python.fn-execution.arrow.batch.size`` rows (10,000, the default), and a general function
(``plus1``) once per row, for comparison. The whole job, CSV to blackhole, is ``benchmarks/table_sql.py
--queries pandas`` (also against a hand-written PySpark ``pandas_udf``).

    .venv/bin/python benchmarks/pandas_udf.py [--rows 1000000] [--per-row-rows 20000]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kindling.common import Row  # noqa: E402
from kindling.runtime.table.rows import Project  # noqa: E402
from kindling.table import DataTypes  # noqa: E402
from kindling.table.expressions import col  # noqa: E402
from kindling.table.planner.expressions import resolve  # noqa: E402
from kindling.table.udf import udf  # noqa: E402

NAMES, TYPES = ["k", "v"], [DataTypes.INT(), DataTypes.BIGINT()]


def rows_per_second(function, rows: int, batch_size: int) -> float:
    """Rows per second of ``Project`` computing ``k, function(v)`` over ``rows`` rows, ``batch_size`` at a time."""
    project = Project(["k", "r"], [resolve(col("k"), NAMES, TYPES), resolve(function(col("v")), NAMES, TYPES)],
                      batch_size)
    batch = [Row(i % 1000, i) for i in range(batch_size)]
    batches = max(rows // batch_size, 1)
    map_batch = project.map_batch if project.batch_size is not None else (lambda rs: [project(r) for r in rs])
    map_batch(batch)  # compiled, pandas imported
    started = time.perf_counter()
    for _ in range(batches):
        map_batch(batch)
    return batches * batch_size / (time.perf_counter() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--per-row-rows", type=int, default=20_000, help="rows for the one-row-Series case")
    args = parser.parse_args(argv)
    plus1p = udf(lambda s: s + 1, result_type=DataTypes.BIGINT(), func_type="pandas")
    plus1 = udf(lambda x: x + 1, result_type=DataTypes.BIGINT())
    print(f"A projection k, f(v) on one core, rows/s ({time.strftime('%Y-%m-%d %H:%M')}, "
          "load average %.1f %.1f %.1f)" % os.getloadavg())
    per_row = rows_per_second(plus1p, args.per_row_rows, 1)
    batched = rows_per_second(plus1p, args.rows, 10_000)
    general = rows_per_second(plus1, args.rows, 10_000)
    print(f"pandas, one-row Series (before)   {per_row:>12,.0f}")
    print(f"pandas, batches of 10,000         {batched:>12,.0f}   {batched / per_row:.0f}x")
    print(f"general, once per row             {general:>12,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
