"""Kindling's public surface against PyFlink 2.3's: ../shared/pyflink-2.3-api.txt (pyflink.common and
pyflink.datastream) and tests/pyflink-2.3-table-api.txt (pyflink.table, tools/list_pyflink_api.py).

Every PyFlink module, class and method either works in Kindling under the same path and name,
or is listed in ``docs/api-gaps.txt`` with the reason. A name counts as working only if it is
there *and* does something: a method marked ``@unsupported(...)`` (which raises a clear
error), a class whose constructor is so marked, and a method whose whole body raises
``NotImplementedError`` are gaps. The test fails both ways: when something listed as working
disappears or becomes a stub, and when a gap gets filled without the list being updated.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import os
import re
import textwrap

import pytest

from kindling.common.unsupported import UnsupportedError, unsupported, unsupported_reason

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
API = os.path.join(ROOT, "..", "shared", "pyflink-2.3-api.txt")
TABLE_API = os.path.join(ROOT, "tests", "pyflink-2.3-table-api.txt")
GAPS = os.path.join(ROOT, "docs", "api-gaps.txt")

# Methods users override, abstract in PyFlink, whose Kindling default raises so that user
# classes written without them still instantiate: not stubs.
USER_HOOKS = {"AggregateFunction.merge", "TableAggregateFunction.merge", "Trigger.on_merge",
              "TimestampAssigner.extract_timestamp"}


def pyflink_surface(listing: str = API) -> list[str]:
    """``module``, ``module:Class``, ``module:Class.method`` and ``module:name`` names from a listing."""
    names: list[str] = []
    module = cls = None
    with open(listing) as f:
        for line in f:
            line = line.split("#")[0].rstrip() if not line.startswith("## ") else line.rstrip("\n")
            if line.startswith("## "):
                module, cls = line[3:].strip(), None
                names.append(module)
            elif line.startswith("class ") and module:
                cls = line[6:].strip()
                names.append(f"{module}:{cls}")
            elif line.startswith("    ") and module and cls:
                match = re.match(r"\s+(?:static |classmethod |property )?([A-Za-z_][A-Za-z0-9_]*)", line)
                if match and match.group(1) != "__init__":
                    names.append(f"{module}:{cls}.{match.group(1)}")
            elif module and (match := re.match(r"(?:def )?([A-Za-z_][A-Za-z0-9_]*)(?:\(| = )", line)):
                names.append(f"{module}:{match.group(1)}")
    return list(dict.fromkeys(names))


def resolve(name: str) -> tuple[bool, object, object]:
    """(found, object, raw attribute as stored on its class or module) for a listed name."""
    module, _, attr = name.partition(":")
    try:
        obj = importlib.import_module(module.replace("pyflink", "kindling", 1))
    except ImportError:
        return False, None, None
    raw = obj
    for part in filter(None, attr.split(".")):
        try:
            value = getattr(obj, part)  # first: a package's lazy name (kindling/table/__init__.py) is then stored
            raw = inspect.getattr_static(obj, part)
            obj = value
        except AttributeError:
            return False, None, None
    return True, obj, raw


def raises_not_implemented_only(function) -> bool:
    """Whether ``function``'s body (after its docstring) is a single ``raise NotImplementedError``."""
    function = inspect.unwrap(getattr(function, "__func__", function))
    if not inspect.isfunction(function):
        return False
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return False
    body = tree.body[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


def gap_reason(name: str) -> str | None:
    """Why a listed name does not work in Kindling, or None if it does."""
    found, obj, raw = resolve(name)
    if not found:
        return "missing"
    marked = unsupported_reason(raw) or (inspect.isclass(obj) and unsupported_reason(obj.__init__))
    if marked:
        return f"marked unsupported: {marked}"
    if getattr(obj, "__isabstractmethod__", False) or name.split(":")[-1] in USER_HOOKS:
        return None
    if raises_not_implemented_only(raw):
        return "its body only raises NotImplementedError: mark it @unsupported(reason) or implement it"
    return None


def surface_gaps(listing: str) -> dict[str, str]:
    """The listing's names that do not work in Kindling, with why; the members of a module or class
    that is itself a gap are not listed one by one."""
    gaps: dict[str, str] = {}
    covered: set[str] = set()  # names inside a gap
    for name in pyflink_surface(listing):
        module, _, attr = name.partition(":")
        parent = f"{module}:{attr.rpartition('.')[0]}" if "." in attr else module if attr else None
        if parent in gaps or parent in covered:
            covered.add(name)
        elif reason := gap_reason(name):
            gaps[name] = reason
    return gaps


def documented_gaps() -> set[str]:
    with open(GAPS) as f:
        return {line.split("#")[0].strip() for line in f if line.split("#")[0].strip()}


@pytest.mark.parametrize("listing", [API, TABLE_API], ids=["datastream", "table"])
def test_surface_matches_pyflink_except_documented_gaps(listing):
    if not os.path.exists(listing):
        pytest.skip(f"{listing} is not beside the repository")
    gaps = surface_gaps(listing)
    modules = {name.partition(":")[0] for name in pyflink_surface(listing)}
    documented = {name for name in documented_gaps() if name.partition(":")[0] in modules}
    undocumented = {name: gaps[name] for name in sorted(set(gaps) - documented)}
    assert not undocumented, f"not working in Kindling and not in docs/api-gaps.txt: {undocumented}"
    filled = sorted(documented - set(gaps))
    assert not filled, f"working in Kindling but still listed in docs/api-gaps.txt: {filled}"


def test_an_unsupported_method_raises_a_clear_error_and_counts_as_a_gap():
    class Thing:
        @unsupported("savepoints are still to come (open issue: fault tolerance)")
        def trigger_savepoint(self, path: str) -> None:
            """Triggers a savepoint."""

    with pytest.raises(UnsupportedError, match=r"Thing.trigger_savepoint is not supported by Kindling yet: "
                                               r"savepoints are still to come"):
        Thing().trigger_savepoint("/tmp/x")
    assert isinstance(UnsupportedError("x"), NotImplementedError)
    assert unsupported_reason(inspect.getattr_static(Thing, "trigger_savepoint")).startswith("savepoints")
    assert Thing.trigger_savepoint.__doc__ == "Triggers a savepoint."


def test_a_not_implemented_stub_is_detected_and_an_abstract_method_is_not():
    class Base:
        def stub(self):
            """Docstring."""
            raise NotImplementedError("not yet")

        def bare(self):
            raise NotImplementedError

        def works(self):
            if self:
                raise NotImplementedError
            return 1

    assert raises_not_implemented_only(Base.stub)
    assert raises_not_implemented_only(Base.bare)
    assert not raises_not_implemented_only(Base.works)


def test_known_stubs_of_kindling_count_as_gaps():
    assert gap_reason("pyflink.datastream:StreamExecutionEnvironment.register_cached_file").startswith("marked unsupported")
    assert gap_reason("pyflink.datastream:SourceFunction").startswith("marked unsupported")
    assert gap_reason("pyflink.datastream:MapFunction.map") is None
    assert gap_reason("pyflink.datastream:AggregateFunction.merge") is None
