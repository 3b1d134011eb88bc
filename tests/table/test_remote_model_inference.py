"""PyFlink's own ``remote_model_inference`` example, its ``main()`` unchanged but for the imports and a
bounded ``number-of-rows``: a datagen table read as a DataStream of Rows (``value.user_id``) feeding
async I/O, with checkpointing enabled, in one job."""
from __future__ import annotations

import json
import os
import re
import sys
import types

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "datastream"))
from remote_model_inference_driver import example_path  # noqa: E402

ROWS = 12


def test_main_runs_on_a_bounded_datagen_table(spark, capsys):
    path = example_path()
    if path is None:
        pytest.skip("the example is part of apache-flink, which is not installed here")
    with open(path) as f:
        source = f.read()
    bounded = source.replace(".option('rows-per-second', '100')",
                             f".option('rows-per-second', '100').option('number-of-rows', '{ROWS}')")
    assert bounded != source, "the example's datagen options changed: update this test"
    module = types.ModuleType("remote_model_inference")
    module.__file__ = path
    exec(compile(re.sub(r"\bpyflink\b", "kindling", bounded), path, "exec"), module.__dict__)
    module.main(None)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Printing result to stdout. Use --output to specify output path."
    results = [json.loads(line.split("> ", 1)[1]) for line in out[1:]]
    assert len(results) == ROWS
    assert all(isinstance(r["user_id"], int) and len(r["comments"]) == 100 for r in results)
    assert {r["analysis_result"] for r in results} <= {"positive", None}
