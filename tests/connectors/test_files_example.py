"""examples/csv_to_parquet.py converts the bundled orders."""
from __future__ import annotations

import csv
import os
import sys

import pyarrow.dataset as ds

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import csv_to_parquet  # noqa: E402


def test_csv_to_parquet_example(spark, tmp_path):
    csv_to_parquet.csv_to_parquet(csv_to_parquet.DEFAULT_INPUT, str(tmp_path))
    table = ds.dataset(str(tmp_path), format="parquet").to_table().sort_by("order_id")
    with open(csv_to_parquet.DEFAULT_INPUT) as f:
        orders = list(csv.DictReader(f))
    assert table.num_rows == len(orders) == 200
    first = table.slice(0, 1).to_pylist()[0]
    o = orders[0]
    assert first == {"order_id": int(o["order_id"]), "customer": o["customer"], "item": o["item"],
                     "quantity": int(o["quantity"]), "total": round(int(o["quantity"]) * float(o["unit_price"]), 2)}
    assert all(name.startswith("orders-") and name.endswith(".parquet") for name in os.listdir(tmp_path))
