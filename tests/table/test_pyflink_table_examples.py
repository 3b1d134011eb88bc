"""PyFlink 2.3's own Table API examples (``pyflink/examples/table`` in the apache-flink wheel, which
``./dev test`` unpacks), unchanged but for ``pyflink`` -> ``kindling`` in their imports, print what
they print on PyFlink (pyflink_examples/NAME.out, recorded there). Lines are compared sorted and
without subtask prefixes (Flink does not define the order of a parallel print); ``explain()``
output is left out (Kindling prints its own plan); examples of random data must have the shape.
basic_operations.py fails on PyFlink in its second function (``import *`` of
pyflink.table.expressions shadows the ``json`` module that its UDTF calls): it must fail alike.
The windowing, word count and async examples have their own tests (test_windows.py, test_over.py,
test_word_count_examples.py, test_async_scalar_function.py)."""
from __future__ import annotations

import os
import re
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "datastream"))
from remote_model_inference_driver import example_path  # noqa: E402

RECORDED = os.path.join(os.path.dirname(__file__), "pyflink_examples")
PRINTED_TABLE = re.compile(r"^(\+-{4}|\| |\d+ rows? in set$|\($|\)$|  `)")  # execute().print(), print_schema()
SUBTASK = re.compile(r"^\d+> ")

# example -> (the function its __main__ calls first; how a printed line is compared)
EXAMPLES = {
    "multi_sink.py": ("multi_sink", "exact"),
    "process_json_data.py": ("process_json_data", "exact"),
    "process_json_data_with_udf.py": ("process_json_data_with_udf", "exact"),
    "pandas/pandas_udaf.py": ("pandas_udaf", "exact"),
    "basic_operations.py": ("basic_operations", "tables"),
    "mixing_use_of_datastream_and_table.py": ("mixing_use_of_datastream_and_table", "shape"),
    "pandas/conversion_from_dataframe.py": ("conversion_from_dataframe", "shape"),
}


def _compared(text: str, how: str) -> list[str]:
    lines = [SUBTASK.sub("", line) for line in text.splitlines() if line.strip()]
    if how == "tables":
        lines = [line for line in lines if PRINTED_TABLE.match(line)]
    elif how == "shape":
        lines = [re.sub(r"-?\d+(\.\d+)?", "N", line) for line in lines]
    return sorted(lines)


@pytest.mark.slow
@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_pyflinks_table_example_prints_what_pyflink_prints(spark, capsys, example):
    path = example_path(os.path.join("examples", "table", example))
    if path is None:
        pytest.skip("the example is part of apache-flink, which is not installed here")
    function, how = EXAMPLES[example]
    with open(path) as f:
        source = re.sub(r"\bpyflink\b", "kindling", f.read())
    namespace = {"__name__": "example", "__file__": path}
    exec(compile(source, path, "exec"), namespace)
    capsys.readouterr()
    namespace[function]()
    if example == "basic_operations.py":
        with pytest.raises(Exception, match="'function' object has no attribute 'loads'"):
            namespace["sql_operations"]()
    printed = capsys.readouterr().out
    recorded = os.path.join(RECORDED, example.replace("/", "_").replace(".py", ".out"))
    with open(recorded, encoding="utf-8") as f:
        assert _compared(printed, how) == _compared(f.read(), how)
