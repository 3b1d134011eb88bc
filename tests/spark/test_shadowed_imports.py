"""The modules of Spark's micro-batch aggregations and joins never rebind a name they import
(a loop variable ``column`` hid ``kindling.spark.table.columns.column`` in ``first_values``)."""
from __future__ import annotations

import ast
import pathlib

import pytest

import kindling

PACKAGE = pathlib.Path(kindling.__file__).parent
MODULES = ["spark/table/aggregation.py", "spark/table/semi_join.py", "spark/table/scans.py", "spark/sources.py"]


def _rebound(source: str) -> list[str]:
    """``name:line`` of every local name (argument, assignment, loop or comprehension variable) of a
    function that is also a name the module imports."""
    tree = ast.parse(source)
    imported = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    found = []
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for node in ast.walk(function):
                name = node.id if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) else \
                    node.arg if isinstance(node, ast.arg) else None
                if name in imported:
                    found.append(f"{name}:{node.lineno}")
    return found


def test_the_check_finds_a_loop_variable_named_as_an_import():
    source = "from x import column\ndef f(calls):\n    return [column for column in calls]\n"
    assert _rebound(source) == ["column:3"]


@pytest.mark.parametrize("module", MODULES)
def test_no_imported_name_is_rebound(module):
    assert _rebound((PACKAGE / module).read_text()) == []
