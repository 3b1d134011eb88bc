"""Python scalar functions called on Arrow batches inside a Spark frame, as PyFlink's planner splits a
Calc into its Python calls and the rest (PythonCalcSplitRule): Spark computes each call's arguments,
one ``mapInArrow`` pass calls the functions on whole columns of a batch, Spark computes the rest of
the Calc from their results. Only the arguments and the columns the rest reads go through Python,
and no row becomes a Python object (kindling/spark/table/python_calls.py makes the pass).

A Calc's calls are made so when each is a general or pandas scalar function (not async) whose
arguments Spark computes as Flink does, whose function needs no task context (no ``open`` or
``close`` of its own) and which no other Python function's argument holds; else the Calc stays a
Python map (kindling/table/planner/physical.py). A table function (a lateral join, ``flat_map``) is
called so on the same conditions, once per row, the row's columns repeated beside each row it makes.

Example::

    calls = arrow_calls([resolve(plus1(col('v')) * 2, ['v'], [DataTypes.BIGINT()])], 10_000)
    calls.calls         # (UdfCall(plus1, (InputRef(0, 'v', BIGINT),), BIGINT),)
    calls.expressions   # (Call('times', (InputRef(-1, '$arrow0', BIGINT), Literal(2, INT NOT NULL)), BIGINT),)
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

from kindling.table.planner.expressions import InputRef, Resolved, UdfCall, UdtfCall, python_only

__all__ = ["ArrowCalls", "arrow_calls", "arrow_table_call"]


@dataclass(frozen=True)
class ArrowCalls:
    """A Calc's Python calls made on Arrow batches: ``calls``, the ``names`` of their results' columns,
    ``expressions`` (the Calc's, each call replaced by its result's column) and the most rows a call
    gets at once (``batch_size``)."""

    calls: Tuple[UdfCall, ...]
    names: Tuple[str, ...]
    expressions: Tuple[Resolved, ...]
    batch_size: int


def arrow_calls(expressions: Sequence[Resolved], batch_size: int) -> Optional[ArrowCalls]:
    """The Python calls of a Calc's ``expressions`` made on Arrow batches of at most ``batch_size`` rows,
    or None when one of them cannot be made so (the module docstring) or there is none."""
    calls: List[UdfCall] = []

    def replaced(node: Any) -> Any:
        if isinstance(node, UdfCall):
            if not _on_batches(node):
                raise _NotOnBatches
            calls.append(node)
            return InputRef(-1, _result_column(len(calls) - 1), node.type)
        operands = getattr(node, "operands", None)
        if not operands:
            return node
        return dataclasses.replace(node, operands=tuple(replaced(o) for o in operands))

    try:
        rewritten = tuple(replaced(e) for e in expressions)
    except _NotOnBatches:
        return None
    if not calls or any(python_only(e) is not None for e in rewritten):
        return None
    return ArrowCalls(tuple(calls), tuple(map(_result_column, range(len(calls)))), rewritten, batch_size)


def arrow_table_call(call: UdtfCall) -> Optional[UdtfCall]:
    """The table function's call when a frame can make it on Arrow batches (the module docstring), else None."""
    return call if _on_batches(call) else None


def _result_column(position: int) -> str:
    return f"$arrow{position}"


class _NotOnBatches(Exception):
    pass


def _on_batches(call) -> bool:
    from kindling.table.udf import UserDefinedFunction

    function = call.function
    if function._asynchronous or any(python_only(o) is not None for o in call.operands):
        return False
    f = function._f
    return not isinstance(f, UserDefinedFunction) or (
        type(f).open is UserDefinedFunction.open and type(f).close is UserDefinedFunction.close)
