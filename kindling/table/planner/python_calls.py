"""Python calls made for a batch of rows, split out of the operators that cannot make them (Flink's
PythonCalcSplitRule, SplitPythonConditionFromJoinRule and the projection of an aggregate's arguments).

A pandas function (``func_type='pandas'``) gets Series of a batch's values and an async function's
calls for a batch run concurrently with ``table.exec.async-scalar.*``: only a projection or a filter
makes them so (kindling/runtime/table/rows.py). Where another operator's expression calls one, the
plan is rewritten as PyFlink 2.3's planner rewrites it:

* an aggregate's argument (its FILTER too), in a group, group window or window TVF aggregation: like
  every argument but a column or a literal, it is computed by a projection below the aggregation, into
  a column the aggregate reads (as Flink computes aggregate arguments); a group aggregation's field
  that is an expression of its aggregates (a call over them too) by a projection above it, so that
  Spark may compute the aggregation, and each change of an aggregate is a change of the field, as in
  Flink;
* a join's condition: a condition of one side's columns filters that side (an inner join's either
  side, an outer join's padded side); in an equality of one side's value with the other's, each
  side's calls are computed by a projection below it; another condition of an inner join filters the
  joined rows above the join (an outer join's such condition is refused when the join is built:
  kindling/table/table.py);
* a table function's argument: an async call is computed by a projection below; a pandas function
  PyFlink calls on each row's values (not Series), which Kindling refuses by name;
* an OVER aggregate's argument, a table aggregate function's argument, a sort key: computed by a
  projection below (and the new columns left out above);
* MATCH_RECOGNIZE: any Python function is refused, with PyFlink's reason;
* an inner interval or window join's condition: a filter above the join;
* anywhere else (an outer interval or window join's condition, a temporal or lookup join's, ...):
  refused by name (compute the call in a select first).
"""
from __future__ import annotations

import dataclasses
import itertools
from typing import Dict, List, Optional, Tuple

from kindling.table.expressions import Expression, col, lit, unaliased
from kindling.table.join import conjunction, conjuncts
from kindling.table.planner import nodes
from kindling.table.schema import Schema
from kindling.table.types import DataType

__all__ = ["batched_call", "calls_batched", "split_batched_calls"]

#: the new columns' names: ``$f2``, ``$f3``, ... (:func:`_fresh`)
_PREFIX = "$f"


def batched_call(expression: Expression) -> bool:
    """Whether ``expression`` is a call of a pandas or an async scalar function."""
    if getattr(expression, "_kind", None) != "udf":
        return False
    function = expression._payload[0]
    return function._func_type == "pandas" or function._asynchronous


def calls_batched(expression) -> bool:
    """Whether ``expression`` (or a tuple of them, a value holding none) calls a pandas or an async
    scalar function."""
    if isinstance(expression, (tuple, list)):
        return any(map(calls_batched, expression))
    if not isinstance(expression, Expression):
        return False
    return batched_call(expression) or any(map(calls_batched, expression._operands))


def split_batched_calls(node: nodes.Node) -> nodes.Node:
    """``node`` with the pandas and async calls of its expressions computed by a projection or a filter
    (itself when it has none); a place PyFlink cannot call them raises ValueError naming it."""
    if isinstance(node, (nodes.Project, nodes.Filter)):
        return node
    if isinstance(node, (nodes.Aggregate, nodes.GroupWindowAggregate, nodes.WindowAggregate)) and \
            any(map(_computed, _arguments(node.fields))):
        node = _aggregation(node)
    if isinstance(node, nodes.Aggregate) and any(map(_computed_above, node.fields)):
        return _above_aggregation(node)
    if isinstance(node, nodes.Join) and calls_batched(node.predicate):
        return _join(node)
    if isinstance(node, (nodes.IntervalJoin, nodes.WindowJoin)) and calls_batched(node.predicate) and not (
            node.left_outer or node.right_outer or getattr(node, "existence", None)):
        return _filtered_above(node)
    if isinstance(node, nodes.Correlate) and calls_batched(node.call):
        return _correlate(node)
    if isinstance(node, nodes.Over) and calls_batched(node.aggregates):
        return _reading_below(node, "aggregates", True)
    if isinstance(node, nodes.TableAggregate) and calls_batched(node.call):
        return _reading_below(node, "call", False)
    if isinstance(node, nodes.Sort) and calls_batched(node.keys):
        return _reading_below(node, "keys", True)
    if isinstance(node, nodes.MatchRecognize) and any(
            map(_calls_python, _expressions((node.conditions, node.measures, node.aggregates)))):
        raise ValueError("Python Function can not be used in MATCH_RECOGNIZE for now (PyFlink 2.3 refuses a Python "
                         "function in its DEFINE and MEASURES too)")
    held = next((f.name for f in dataclasses.fields(node) if f.name not in ("input", "left", "right", "out")
                 and calls_batched(_expressions(getattr(node, f.name)))), None)
    if held is None:
        return node
    function = _first_call(_expressions(getattr(node, held)))
    raise ValueError(f"The {_kind_of(function)} function {function._payload[0]._name} is called in the {held} of "
                     f"{type(node).__name__} ({function._text}), where Kindling does not make calls for a batch of rows: "
                     "compute it in a select (a projection) first and use its column there")


def _aggregation(node):
    """The aggregation reading its aggregates' arguments but columns and literals from a projection below
    it, as Flink's planner computes them (``SUM(v * 2)`` sums a column ``$f2 = v * 2``): then Spark may
    compute the aggregation, and Python calls there are made for batches of rows."""
    below = _Below(node.input, set(), moves=_computed)
    fields = tuple(_in_aggregates(f, below) for f in node.fields)
    changes = dict(fields=fields, input=below.project())
    if isinstance(node, nodes.WindowAggregate):
        changes["windows"] = dataclasses.replace(node.windows, input=changes["input"])
    return dataclasses.replace(node, **changes)


def _computed_above(field: Expression) -> bool:
    """Whether a group aggregation's field is an expression of its aggregates (``SUM(v) > 0``), which
    Flink computes by a projection above the aggregation: each change of the aggregates is then a
    change of the field, even where the field's value stays the same."""
    inner = unaliased(field)
    return inner._kind != "aggregate" and bool(inner.aggregates())


def _above_aggregation(node: nodes.Aggregate) -> nodes.Node:
    """The group aggregation's fields that are expressions of its aggregates computed by a projection
    above it, which the aggregation gives its keys and aggregates."""
    taken = set(node.input.out.names) | set(node.names)
    aggregates: List[Tuple[Expression, str]] = []
    added: Dict[str, DataType] = {}

    def reading_results(expression: Expression) -> Expression:
        if expression._kind == "aggregate":
            name = _fresh(taken)
            aggregates.append((expression, name))
            added[name] = expression._data_type(node.input.out.types)
            return col(name)
        return _with_operands(expression, tuple(reading_results(o) for o in expression._operands), added)

    fields = [reading_results(f) for f in node.fields]
    keys = list(node.keys)
    names = keys + [n for _, n in aggregates]
    types = node.input.out.types
    named = [a.alias(n) for a, n in aggregates]
    for aggregate in named:
        aggregate._data_type(types)  # typed as the aggregation's input (its arguments may read new columns)
    aggregation = dataclasses.replace(
        node, fields=tuple([col(k) for k in keys] + named), names=tuple(names),
        out=dataclasses.replace(node.out, schema=Schema(names, [types[k] for k in keys] + list(added.values()))))
    return nodes.project(aggregation, fields, node.names, node.out)


def _fresh(taken: set) -> str:
    """A new column's name no column of ``taken`` has (then taken too): ``$f<n>``, as Calcite names a
    projection's n-th expression, for the first n free from the number of columns taken."""
    name = next(f"{_PREFIX}{i}" for i in itertools.count(len(taken)) if f"{_PREFIX}{i}" not in taken)
    taken.add(name)
    return name


def _in_aggregates(expression: Expression, below: "_Below") -> Expression:
    """``expression`` with the batched calls in its aggregates' arguments read from ``below``'s columns."""
    if expression._kind == "aggregate":
        return _with_operands(expression, tuple(below.column_of_calls(o) for o in expression._operands), below.added)
    return _with_operands(expression, tuple(_in_aggregates(o, below) for o in expression._operands), below.added)


def _join(join: nodes.Join) -> nodes.Node:
    """The join with its conditions calling pandas or async functions moved out of it."""
    left_names, right_names = set(join.left.out.names), set(join.right.out.names)
    inner = not (join.left_outer or join.right_outer or join.existence)
    filters: Dict[str, List[Expression]] = {"left": [], "right": []}
    above, kept = [], []
    taken, added = set(join.out.names), {}
    below = {"left": _Below(join.left, taken, added), "right": _Below(join.right, taken, added)}
    for condition in conjuncts(join.predicate):
        columns = set(condition.columns())
        if not calls_batched(condition):
            kept.append(condition)
        elif columns <= left_names and (inner or join.right_outer and not join.left_outer):
            filters["left"].append(condition)
        elif columns <= right_names and (inner or not join.right_outer):
            filters["right"].append(condition)
        elif inner and _sides_of_equality(condition, left_names, right_names):
            first, second = condition._operands
            sides = _sides_of_equality(condition, left_names, right_names)
            kept.append(_with_operands(condition, (below[sides[0]].column_of_calls(first),
                                                    below[sides[1]].column_of_calls(second)), added))
        elif inner:
            above.append(condition)
        else:
            raise ValueError(f"Cannot generate a valid execution plan for the join on {join.predicate}: Only inner "
                             "join condition with equality predicates supports the Python UDF taking the inputs from "
                             "the left table and the right table at the same time, e.g., ON T1.id = T2.id && "
                             "pythonUdf(T1.a, T2.b)")
    inputs = {}
    for side in ("left", "right"):
        projected = below[side].project()
        inputs[side] = nodes.filtered(projected, conjunction(filters[side])) if filters[side] else projected
    joined = inputs["left"].out.names + inputs["right"].out.names
    out = join.out if not added else dataclasses.replace(join.out, schema=Schema(
        joined, [added[n] if n in added else join.out.types[n] for n in joined]))
    predicate = conjunction(kept) if kept else None if inner else lit(True)  # an outer join has a condition
    moved = dataclasses.replace(join, predicate=predicate, out=out, **inputs)
    if above:
        moved = nodes.filtered(moved, conjunction(above))
    if not added:
        return moved
    names = join.out.names
    return nodes.project(moved, [col(n) for n in names], names, join.out)


def _filtered_above(join: nodes.Node) -> nodes.Node:
    """An inner interval or window join's conditions calling pandas or async functions as a filter of the
    joined rows above it (Flink's SplitPythonConditionFromJoinRule)."""
    split: Dict[bool, List[Expression]] = {True: [], False: []}
    for condition in conjuncts(join.predicate):
        split[calls_batched(condition)].append(condition)
    kept = dataclasses.replace(join, predicate=conjunction(split[False]) if split[False] else None)
    return nodes.filtered(kept, conjunction(split[True]))


def _sides_of_equality(condition: Expression, left: set, right: set) -> Optional[Tuple[str, str]]:
    """("left", "right") or ("right", "left"): the sides an equality's operands read, else None."""
    if not condition._equals:
        return None
    first, second = (set(o.columns()) for o in condition._operands)
    if first and second and first <= left and second <= right:
        return "left", "right"
    if first and second and first <= right and second <= left:
        return "right", "left"
    return None


def _correlate(node: nodes.Correlate) -> nodes.Node:
    """The lateral table function reading its arguments' async calls from a projection below it."""
    pandas = next((c for c in _calls(node.call) if c._payload[0]._func_type == "pandas"), None)
    if pandas is not None:
        raise ValueError(f"The pandas function {pandas._payload[0]._name} is an argument of the table function "
                         f"{node.call._text}: PyFlink 2.3 calls it there on each row's values, not on Series (its "
                         "Python correlate computes the arguments row by row); compute it in a select first and pass "
                         "its column")
    return _reading_below(node, "call", node.keep_input)


def _reading_below(node: nodes.Node, field: str, passes_input: bool) -> nodes.Node:
    """``node`` reading the batched calls of its expressions ``field`` (one or a tuple) from a projection
    below it; ``passes_input``: its rows start with its input's columns, which then hold the new
    columns too, left out by a projection above it."""
    value = getattr(node, field)
    below = _Below(node.input, set(node.out.names))
    if isinstance(value, tuple):
        replaced = tuple(below.column_of_calls(e) for e in value)
    else:
        replaced = _with_operands(value, tuple(below.column_of_calls(o) for o in value._operands), below.added)
    moved = dataclasses.replace(node, input=below.project(), **{field: replaced})
    if not passes_input:
        return moved
    wider = dataclasses.replace(node.out, schema=_extended(
        node.out.schema, list(below.added), list(below.added.values()), at=len(node.input.out.names)))
    names = node.out.names
    return nodes.project(dataclasses.replace(moved, out=wider), [col(n) for n in names], names, node.out)


class _Below:
    """The projection below an operator computing the batched calls it reads: its input's columns,
    then one column per call."""

    def __init__(self, input: nodes.Node, taken: set, added: Optional[Dict[str, DataType]] = None,
                 moves=batched_call):
        taken.update(input.out.names)
        self.input, self.taken, self.calls, self.moves = input, taken, [], moves
        self.added = {} if added is None else added  # the new columns' types (shared below one join)

    def column_of_calls(self, expression: Expression) -> Expression:
        """``expression`` reading its batched calls from the projection's new columns (named ``taken``
        by none, shared by the projections below one operator)."""
        if self.moves(expression):
            name = _fresh(self.taken)
            self.calls.append((expression, name))
            self.added[name] = expression._data_type(self.input.out.types)
            return col(name)
        return _with_operands(expression, tuple(self.column_of_calls(o) for o in expression._operands), self.added)

    def project(self) -> nodes.Node:
        """The projection (the input itself when no call was moved)."""
        if not self.calls:
            return self.input
        names, added = list(self.input.out.names), [n for _, n in self.calls]
        out = dataclasses.replace(self.input.out, schema=_extended(
            self.input.out.schema, added, [self.added[n] for n in added]))
        return nodes.project(self.input, [col(n) for n in names] + [c.alias(n) for c, n in self.calls],
                             names + added, out)


def _extended(schema: Schema, names: List[str], types: list, at: Optional[int] = None) -> Schema:
    """``schema`` with the columns ``names`` of ``types`` added (at position ``at``, default last)."""
    existing, existing_types = schema.get_field_names(), schema.get_field_data_types()
    at = len(existing) if at is None else at
    return Schema(existing[:at] + names + existing[at:], existing_types[:at] + types + existing_types[at:])


def _with_operands(expression: Expression, operands: tuple, added: Dict[str, DataType]) -> Expression:
    """``expression`` with ``operands`` (itself when they are its own) reading the new columns ``added``
    too, and written so."""
    if all(new is old for new, old in zip(operands, expression._operands)):
        return expression
    copy = expression._renewed()
    copy._operands = operands
    for new, old in zip(operands, expression._operands):  # explain prints what it reads: sum($f2)
        if new is not old:
            copy._text = copy._text.replace(old._text, new._text)
    if "_typed" in vars(copy):  # the types of the columns it reads (kindling/table/expressions.py)
        copy._typed = {**copy._typed, **added}
    return copy


def _expressions(value) -> tuple:
    """The expressions a node's field holds."""
    if isinstance(value, Expression):
        return (value,)
    if isinstance(value, (tuple, list)):
        return tuple(e for v in value for e in _expressions(v))
    if isinstance(value, dict):
        return _expressions(list(value.values()))
    return ()


def _computed(expression: Expression) -> bool:
    """Whether an aggregate's argument is computed below the aggregation: neither a column nor a literal."""
    return expression._kind not in ("column", "literal")


def _arguments(fields: tuple) -> List[Expression]:
    """The arguments of the aggregates in an aggregation's ``fields``."""
    return [o for f in fields for a in f.aggregates() for o in a._operands]


def _calls_python(expression: Expression) -> bool:
    return expression._kind == "udf" or any(map(_calls_python, expression._operands))


def _calls(expression: Expression) -> List[Expression]:
    if batched_call(expression):
        return [expression]
    return [c for o in expression._operands for c in _calls(o)]


def _first_call(expressions: tuple) -> Expression:
    return next(c for e in expressions for c in _calls(e))


def _kind_of(call: Expression) -> str:
    return "async" if call._payload[0]._asynchronous else "pandas"
