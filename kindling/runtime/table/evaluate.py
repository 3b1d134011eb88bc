"""A resolved expression (kindling/table/planner/expressions.py) compiled once into a Python function
of a row, per plan and task: each built-in call's implementation (kindling/runtime/table/functions.py)
is made once, with its literal patterns and formats prepared then, and a strict call returns null
for a null operand without calling it. A pandas function (``func_type='pandas'``) is called once per
batch of rows (``compile_batch``), on Series of its operands' values; an async function's calls for a
batch run concurrently (kindling/runtime/table/async_functions.py).

Example::

    evaluate = compile_expression(resolve(col('s').like('a%'), ['s'], [DataTypes.STRING()]))
    evaluate(['abc'])   # True
"""
from __future__ import annotations

import datetime
import operator
from typing import Any, Callable, List, Optional, Sequence

from kindling.runtime.table.async_functions import AsyncOptions, async_results
from kindling.runtime.table.functions import PYTHON

__all__ = ["Leaf", "compile_batch", "compile_expression", "instant_result", "needs_batch", "user_functions"]

Compiled = Callable[[Any], Any]
#: compiles the nodes a caller evaluates its own way (a column read by name, an aggregate's result);
#: None for the others
Leaf = Callable[[Any], Optional[Compiled]]


def compile_expression(node: Any, leaf: Optional[Leaf] = None) -> Compiled:
    """The function of a row computing ``node``: a row is the sequence of the input columns' values,
    read by the InputRefs' indexes, unless ``leaf`` compiles a node otherwise. A pandas or async call is
    refused (``compile_batch`` makes them; the planner puts them in projections and filters only)."""
    return _Compiler(leaf).compile(node)


def needs_batch(node: Any) -> bool:
    """Whether ``node`` calls a pandas or an async function (whose calls are made for a batch of rows
    at once: ``compile_batch``)."""
    return _batched_call(node) or any(needs_batch(o) for o in getattr(node, "operands", ()))


def user_functions(nodes: Sequence[Any]) -> list:
    """The user functions (udf's wrappers) ``nodes`` call, each once."""
    found: dict = {}

    def visit(node: Any) -> None:
        if type(node).__name__ == "UdfCall":
            found.setdefault(id(node.function), node.function)
        for operand in getattr(node, "operands", ()):
            visit(operand)
    for node in nodes:
        visit(node)
    return list(found.values())


def _pandas_call(node: Any) -> bool:
    return type(node).__name__ == "UdfCall" and node.function._func_type == "pandas"


def _async_call(node: Any) -> bool:
    return type(node).__name__ == "UdfCall" and node.function._asynchronous


def _batched_call(node: Any) -> bool:
    return _pandas_call(node) or _async_call(node)


def compile_batch(nodes: Sequence[Any], async_options: AsyncOptions = AsyncOptions()) -> Callable[[list], List[list]]:
    """The function of a batch of rows (value sequences) computing each of ``nodes`` for every row,
    a column of values per node: each pandas function is called once for the whole batch, on Series of
    its operands' values (a literal's value as it is, as PyFlink), an async function's calls for the
    batch run concurrently (``async_options``), the rest is computed row by row."""
    calls: List[tuple] = []  # (function, operands, their compiled functions), inner calls first
    results: List[list] = []  # the current batch's column of each call

    def leaf(node: Any) -> Optional[Compiled]:
        if not _batched_call(node):
            return None
        calls.append((node.function, node.operands, compiler._arguments(node.operands)))
        slot = len(calls) - 1
        return lambda row: results[slot][row[-1]]  # a row extended by its index in the batch

    compiler = _Compiler(leaf)
    columns = []  # per node: ("call", its call's slot), or ("rows" | "extended", its function of a row)
    for node in nodes:
        compiled = compiler.compile(node)
        if _batched_call(node):
            columns.append(("call", len(calls) - 1))
        else:
            columns.append(("extended" if needs_batch(node) else "rows", compiled))
    extends = any(kind == "extended" for kind, _ in columns) or any(needs_batch(o) for c in calls for o in c[1])

    def evaluate(rows: list) -> List[list]:
        from kindling.runtime.table.pandas_functions import scalar_results

        if not rows:
            return [[] for _ in columns]
        extended = [[*row, i] for i, row in enumerate(rows)] if extends else rows
        results.clear()
        for function, operands, compiled in calls:
            if function._asynchronous:
                results.append(async_results(function, [[f(r) for f in compiled] for r in extended], async_options))
            else:
                results.append(scalar_results(function, _pandas_arguments(operands, compiled, extended), len(rows)))
        return [results[how] if kind == "call" else [how(e) for e in extended] if kind == "extended"
                else [how(row) for row in rows] for kind, how in columns]
    return evaluate


def _pandas_arguments(operands: Sequence[Any], compiled: Sequence[Compiled], rows: list) -> list:
    """A pandas function's arguments for ``rows``: the Series of each operand's values, a literal's value."""
    from kindling.runtime.table.pandas_functions import series_of

    return [o.value if type(o).__name__ == "Literal" else series_of([f(r) for r in rows], o.type.type_name)
            for o, f in zip(operands, compiled)]


class _Compiler:
    def __init__(self, leaf: Optional[Leaf]):
        self.leaf = leaf

    def compile(self, node: Any) -> Compiled:
        own = self.leaf(node) if self.leaf is not None else None
        if own is not None:
            return own
        kind = type(node).__name__
        if kind == "InputRef":
            return operator.itemgetter(node.index)
        if kind == "Literal":
            value = node.value
            return lambda row: value
        if kind == "Call":
            return _applied(PYTHON[node.function](node), self._operands(node.operands), node.strict,
                            _constant(node.operands))
        if _batched_call(node):
            raise ValueError(f"internal error: a call of the {'async' if node.function._asynchronous else 'pandas'} "
                             f"function {node.function._name} (UdfCall) outside a "
                             "projection or a filter, which make its calls for a batch of rows (the planner moves "
                             "them there: kindling/table/planner/python_calls.py)")
        if kind == "UdfCall":
            call, operands = node.function._callable, self._arguments(node.operands)
            if node.type.type_name == "TIMESTAMP_LTZ":
                return lambda row: instant_result(call()(*[o(row) for o in operands]))
            return lambda row: call()(*[o(row) for o in operands])
        if kind == "ClosureCall":
            return _applied(node.function, self._operands(node.operands), node.strict)
        raise ValueError(f"{node} is computed by its operator (an aggregation, a window, a correlate), not "
                         "evaluated on a row")

    def _operands(self, operands: Sequence[Any]) -> list:
        return [self.compile(o) for o in operands]

    def _arguments(self, operands: Sequence[Any]) -> list:
        """The operands as a Python function gets them: a TIMESTAMP_LTZ value as PyFlink's datetime."""
        return [_python_value(self.compile(o)) if o.type.type_name == "TIMESTAMP_LTZ" else self.compile(o)
                for o in operands]


def _python_value(operand: Compiled) -> Compiled:
    from kindling.common.time import utc_datetime

    return lambda row: utc_datetime(operand(row))


def instant_result(value: Any) -> Any:
    """A Python function's TIMESTAMP_LTZ result as Kindling's value (an Instant): a datetime's wall-clock
    time in the session time zone (UTC), whatever its tzinfo, as PyFlink reads it."""
    from kindling.common.time import instant_of

    if isinstance(value, datetime.datetime):
        value = value.replace(tzinfo=None)
    return None if value is None else instant_of(value)


def _constant(operands: Sequence[Any]) -> Optional[Any]:
    """The value of the second of two operands when it is a literal (not null), else None."""
    if len(operands) == 2 and type(operands[1]).__name__ == "Literal" and operands[1].value is not None:
        return operands[1]
    return None


def _applied(function: Callable[..., Any], operands: list, strict: bool, constant: Any = None) -> Compiled:
    """``function`` of the operands' values (None for a null one when ``strict``); ``constant``: the second
    operand's Literal, bound once (``col('i') * 2``)."""
    if constant is not None:
        a, value = operands[0], constant.value
        if strict:
            def with_constant(row):
                x = a(row)
                return None if x is None else function(x, value)
            return with_constant
        return lambda row: function(a(row), value)
    if not operands:
        return lambda row: function()
    if len(operands) == 1:
        (a,) = operands
        if strict:
            def unary(row):
                value = a(row)
                return None if value is None else function(value)
            return unary
        return lambda row: function(a(row))
    if len(operands) == 2:
        a, b = operands
        if strict:
            def binary(row):
                x = a(row)
                if x is None:
                    return None
                y = b(row)
                return None if y is None else function(x, y)
            return binary
        return lambda row: function(a(row), b(row))

    def nary(row):
        values = [o(row) for o in operands]
        return None if strict and any(v is None for v in values) else function(*values)
    return nary
