"""Rewrites of the logical plan before the physical choice, and the planner's choices that follow the
configuration. Each rewrite keeps the rows the plan gives (their values and changes); it only moves
work to where it is cheaper:

* **Python calls split out** (:mod:`.python_calls`, Flink's PythonCalcSplitRule and
  SplitPythonConditionFromJoinRule): a pandas or async function called outside a projection or a filter
  (an aggregate's argument, a join condition, ...) is computed by a projection below the operator or a
  filter above it, which call it for a batch of rows.
* **Filter push-down**: a filter moves below a projection that passes the columns it reads through
  unchanged (so it runs before a Python projection, in Spark's JVM operators when they read a scan);
  of a filter over a join, each deterministic condition of one side's columns moves into that side
  (either side of an inner join, the preserved side of an outer one).
* **Filter into ChangelogNormalize** (Flink's condition of ChangelogNormalize): a filter over an upsert
  table without a Python function moves into its normalization (a key's row that starts or stops
  passing inserts or deletes it, as Flink's changes), its conditions on the key's columns alone below it.
* **Projection merging**: a projection that only picks and renames columns of the projection below
  it becomes one projection (one pass over the rows, not two).
* **Session values**: ``CURRENT_DATABASE()`` becomes the TableEnvironment's current database when the
  job is planned (a query built before a ``USE`` and run after it reads the new one, as in Flink).
* **Constant folding**: a filter whose condition reads no column and is deterministic is computed
  once; when it is TRUE (``WHERE TRUE``, ``WHERE 1 = 1``) the filter goes.
* **Aggregation removal** (Flink's FlinkAggregateRemoveRule): a group aggregation whose group keys hold
  a unique key of its input (a primary key, an upsert stream's key, an aggregation's group keys) and
  whose aggregates are SUM, MIN and MAX without FILTER sees one row per group: it becomes the
  projection of its input's rows (a changed row stays ``-U``/``+U``, not a group's ``-D``/``+I``).
* **Mini-batch aggregation** (:func:`mini_batch`): Flink's ``table.exec.mini-batch.enabled`` makes a
  group aggregation emit a group's changes once per micro-batch (Spark's aggregation honours it;
  kindling/spark/table/aggregation.py).
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence

from kindling.table.expressions import col, unaliased
from kindling.table.join import conjunction, conjuncts
from kindling.table.planner import nodes
from kindling.table.planner.python_calls import split_batched_calls
from kindling.table.schema import Schema

__all__ = ["MINI_BATCH", "mini_batch", "optimize"]

#: Flink's mini-batch aggregation: a group's changes once per micro-batch
MINI_BATCH = "table.exec.mini-batch.enabled"


def mini_batch(t_env) -> bool:
    """Whether group aggregations emit a group's changes once per micro-batch (Flink's mini-batch)."""
    return t_env._env.get_configuration().get_string(MINI_BATCH, "false").lower() == "true"


def optimize(roots: Sequence[nodes.Node], current_database: str) -> List[nodes.Node]:
    """The plans ``roots`` rewritten (a node read by several keeps one rewritten node), planned in the
    database ``current_database``."""
    done: Dict[int, nodes.Node] = {}

    def visit(node: nodes.Node) -> nodes.Node:
        if id(node) not in done:
            inputs = [visit(i) for i in node.inputs]
            done[id(node)] = _rewritten(_in_database(_with_inputs(node, inputs), current_database))
        return done[id(node)]

    return [visit(root) for root in roots]


def _with_inputs(node: nodes.Node, inputs: List[nodes.Node]) -> nodes.Node:
    """``node`` reading ``inputs`` (itself when they are its own)."""
    if all(new is old for new, old in zip(inputs, node.inputs)):
        return node
    if isinstance(node, nodes.WindowAggregate):  # its windows read the same input
        return dataclasses.replace(node, input=inputs[0], windows=dataclasses.replace(node.windows, input=inputs[0]))
    if len(inputs) == 2:
        return dataclasses.replace(node, left=inputs[0], right=inputs[1])
    return dataclasses.replace(node, input=inputs[0])


#: the fields of nodes that hold no expressions: their inputs and rows
_NOT_EXPRESSIONS = ("out", "input", "left", "right", "windows", "rows", "stream", "source", "descriptor")


def _in_database(node: nodes.Node, database: str) -> nodes.Node:
    """``node`` with each ``CURRENT_DATABASE()`` of its expressions (unresolved and resolved) the
    name ``database``."""
    changes = {}
    for node_field in dataclasses.fields(node):
        if node_field.name not in _NOT_EXPRESSIONS:
            value = getattr(node, node_field.name)
            bound = _bound(value, database)
            if bound is not value:
                changes[node_field.name] = bound
    return dataclasses.replace(node, **changes) if changes else node


def _bound(value, database: str):
    """``value`` (an expression, a resolved one, or a tuple of them) with CURRENT_DATABASE() ``database``
    (``value`` itself when it has none)."""
    from kindling.table.expressions import Expression, lit
    from kindling.table.planner.expressions import Call, Literal
    from kindling.table.types import DataTypes

    if isinstance(value, tuple):
        bound = tuple(_bound(v, database) for v in value)
        return value if all(b is v for b, v in zip(bound, value)) else bound
    if isinstance(value, Expression):
        if value._kind == "call" and value._payload[0] == "currentDatabase":
            return lit(database, DataTypes.STRING().not_null())
        operands = _bound(value._operands, database)
        if operands is value._operands:
            return value
        copy = value._renewed()
        copy._operands = operands
        return copy
    if isinstance(value, Call) and value.function == "currentDatabase":
        return Literal(database, DataTypes.STRING().not_null())
    if dataclasses.is_dataclass(value) and hasattr(value, "operands"):
        operands = _bound(value.operands, database)
        return value if operands is value.operands else dataclasses.replace(value, operands=operands)
    return value


def _rewritten(node: nodes.Node) -> nodes.Node:
    if isinstance(node, nodes.Aggregate):
        node = _without_aggregation(node) or node
    node = split_batched_calls(node)
    if isinstance(node, nodes.Filter):
        return _filter(node)
    if isinstance(node, nodes.Project) and isinstance(node.input, nodes.Project):
        merged = _merged(node, node.input)
        return _reading_normalized(merged) if merged else node
    if isinstance(node, nodes.Project):
        return _reading_normalized(node)
    return node


def _reading_normalized(node: nodes.Project) -> nodes.Node:
    """A projection (maybe over a filter) over a ChangelogNormalize with the normalization
    of the columns it reads and its key only (Flink's PushCalcPastChangelogNormalizeRule): a change of
    the other columns is then no change, which ChangelogNormalize drops."""
    filter_ = node.input if isinstance(node.input, nodes.Filter) else None
    normalize = (filter_ or node).input
    if not isinstance(normalize, nodes.ChangelogNormalize) or normalize.out.rowtime or normalize.out.proctime:
        return node
    read = {c for f in node.fields for c in f.columns()}
    read |= set(filter_.predicate.columns() if filter_ else ()) | set(normalize.keys)
    read |= set(normalize.condition.columns() if normalize.condition is not None else ())
    kept = [n for n in normalize.out.names if n in read]
    if len(kept) == len(normalize.out.names):
        return node
    below = normalize.input
    passed = kept + below.out.names[len(normalize.out.names):]  # upsert-kafka's deleted column
    types = below.out.types
    projection = nodes.project(below, [col(n) for n in passed], passed,
                               nodes.Output(Schema(passed, [types[n] for n in passed]), below.out.updating))
    narrowed = dataclasses.replace(normalize, input=projection, out=nodes.Output(
        Schema(kept, [types[n] for n in kept]), True))
    if filter_:
        narrowed = nodes.filtered(narrowed, filter_.predicate)
    return nodes.project(narrowed, node.fields, node.names, node.out)


#: the aggregates of one row's value Flink removes with the aggregation: the row's argument
_REMOVABLE = ("sum", "min", "max")


def _without_aggregation(node: nodes.Aggregate) -> Optional[nodes.Project]:
    """The aggregation as the projection of its input's rows, when each group is one row (its keys hold
    a unique key of the input) and each aggregate of that row is its argument (Flink's
    FlinkAggregateRemoveRule)."""
    calls = [a for f in node.fields for a in f.aggregates()]
    if not node.keys or any(c._payload[0] not in _REMOVABLE or len(c._operands) != 1
                            or getattr(c, "_filtered", False) for c in calls):
        return None
    if not any(key <= set(node.keys) for key in unique_keys(node.input)):
        return None
    types = node.input.out.types
    fields = [_aggregates_replaced(f, types) for f in node.fields]
    return nodes.project(node.input, fields, node.names, dataclasses.replace(node.out, updating=node.input.out.updating))


def _aggregates_replaced(expression, types):
    """``expression`` with each aggregate call replaced by its argument (cast to the call's type)."""
    from kindling.table.expressions import node

    if expression._kind == "aggregate":
        argument = expression._operands[0]
        wanted = expression._data_type(types)
        if argument._data_type(types).nullable() != wanted.nullable():
            return argument.cast(wanted)
        return argument
    if not expression._operands:
        return expression
    return node(expression._kind, tuple(_aggregates_replaced(o, types) for o in expression._operands),
                expression._payload, expression._text, expression._name)


def unique_keys(node: nodes.Node) -> List[frozenset]:
    """Sets of columns on which the node's rows are unique (Flink's unique keys, as far as Kindling
    derives them): a declared primary key, an upsert stream's key, an aggregation's group keys, kept
    through filters and the projections that pass their columns on."""
    declared = getattr(node.out.schema, "primary_key", None)
    keys = [frozenset(declared[1])] if declared else []
    if isinstance(node, nodes.ChangelogNormalize):
        keys.append(frozenset(node.keys))
    elif isinstance(node, nodes.Aggregate) and node.keys:
        keys.append(frozenset(node.keys))
    elif isinstance(node, nodes.Filter):
        keys.extend(unique_keys(node.input))
    elif isinstance(node, nodes.Project):
        renamed = {}
        for field, name in zip(node.fields, node.names):
            renamed.setdefault(_column(field), name)
        keys.extend(frozenset(renamed[c] for c in key) for key in unique_keys(node.input)
                    if all(c in renamed for c in key))
    return keys


def _filter(node: nodes.Filter) -> nodes.Node:
    """A filter folded away, pushed below its input, or as it is."""
    predicate, below = node.predicate, node.input
    if _constant(node.resolved) and _value(predicate) is True:
        return below
    columns = set(predicate.columns())
    if isinstance(below, nodes.Project) and columns <= _passed_through(below):
        pushed = _filter(nodes.filtered(below.input, predicate))
        return dataclasses.replace(below, input=pushed)
    if isinstance(below, nodes.Join) and below.predicate is not None:
        return _into_join(node, below)
    if isinstance(below, nodes.ChangelogNormalize) and not _calls_python(node.resolved):
        return _into_normalize(node, below)
    return node


def _into_normalize(node: nodes.Filter, normalize: nodes.ChangelogNormalize) -> nodes.Node:
    """A filter over a ChangelogNormalize in it (Flink's ChangelogNormalize condition): the conditions
    of the key's columns only (a key's rows all pass or all fail them) filter its records, the others
    decide which of a key's rows count: one starting to pass inserts it, one ceasing to pass deletes it."""
    on_key, on_rows = [], []
    for condition in conjuncts(node.predicate):
        (on_key if set(condition.columns()) <= set(normalize.keys) else on_rows).append(condition)
    below = _filter(nodes.filtered(normalize.input, conjunction(on_key))) if on_key else normalize.input
    if normalize.condition is not None:
        on_rows.insert(0, normalize.condition)
    condition = conjunction(on_rows) if on_rows else normalize.condition
    return dataclasses.replace(normalize, input=below, condition=condition)


def _calls_python(resolved) -> bool:
    """Whether a resolved expression calls a Python function (a udf)."""
    return type(resolved).__name__ == "UdfCall" or any(map(_calls_python, getattr(resolved, "operands", ())))


def _into_join(node: nodes.Filter, join: nodes.Join) -> nodes.Node:
    """A filter over a join with each condition that reads one side's columns only on that side (a side
    an outer join pads with nulls keeps its conditions above the join), and over an inner join each
    condition that reads both sides in the join's condition (``FROM a, b WHERE a.k = b.k`` joins on the
    key). A condition moves only when it gives each row the same answer below the join as above it, where
    a row may be joined several times: built-in deterministic functions of columns and literals (no
    RAND(), no Python function)."""
    from kindling.table.planner.expressions import resolve

    sides = {"left": (set(join.left.out.names), not join.right_outer, []),
             "right": (set(join.right.out.names), not join.left_outer, [])}
    inner = not (join.left_outer or join.right_outer or join.existence)
    names, types = join.out.names, join.out.schema.get_field_data_types()
    kept, joining = [], []
    for condition in conjuncts(node.predicate):
        movable = _deterministic(resolve(condition, names, types))
        side = next((s for s, (columns, free, _) in sides.items() if movable and free and condition.columns()
                     and set(condition.columns()) <= columns), None)
        (sides[side][2] if side else joining if movable and inner else kept).append(condition)
    if not sides["left"][2] and not sides["right"][2] and not joining:
        return node
    inputs = {}
    for side, (_, _, pushed) in sides.items():
        below = getattr(join, side)
        inputs[side] = _filter(nodes.filtered(below, conjunction(pushed))) if pushed else below
    if joining:
        inputs["predicate"] = conjunction([join.predicate, *joining])
    moved = dataclasses.replace(join, **inputs)
    return nodes.filtered(moved, conjunction(kept), node.out) if kept else moved


def _deterministic(resolved) -> bool:
    """Whether a resolved expression gives a row the same value every time it is computed: columns,
    literals and the built-in functions their definitions mark deterministic."""
    from kindling.table.planner.functions import BUILTINS

    kind = type(resolved).__name__
    if kind in ("InputRef", "Literal"):
        return True
    return kind == "Call" and BUILTINS[resolved.function].deterministic and all(map(_deterministic,
                                                                                     resolved.operands))


def _constant(resolved) -> bool:
    """Whether a resolved expression reads no column and is deterministic: one value for every row."""
    if type(resolved).__name__ == "InputRef":
        return False
    return _deterministic(resolved) and all(map(_constant, getattr(resolved, "operands", ())))


def _value(expression):
    """The value of a constant expression, computed once by the planner (None when computing it fails:
    the row's operator then fails as it would have)."""
    try:
        return expression.evaluate({})
    except Exception:  # noqa: BLE001 - not folded; the job meets the error where the query puts it
        return None


def _passed_through(project: nodes.Project) -> set:
    """The columns a projection gives as they are, under their own names."""
    return {name for field, name in zip(project.fields, project.names) if _column(field) == name}


def _column(expression) -> Optional[str]:
    """The input column an expression is (maybe aliased), else None."""
    inner = unaliased(expression)
    return inner._name if getattr(inner, "_is_column", False) else None


def _merged(outer: nodes.Project, inner: nodes.Project) -> Optional[nodes.Project]:
    """The two projections as one, when ``outer`` only picks (and renames) ``inner``'s columns."""
    picked = [_column(f) for f in outer.fields]
    if None in picked:
        return None
    by_name = dict(zip(inner.names, inner.fields))
    fields = [by_name[c] if c == n else by_name[c].alias(n) for c, n in zip(picked, outer.names)]
    return nodes.project(inner.input, fields, outer.names, outer.out)
