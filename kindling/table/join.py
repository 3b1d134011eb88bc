"""The equi-join keys of a join predicate: the equalities of a column of each table it holds (a
regular join runs on kindling/runtime/table/join.py, keyed by them); semi and anti joins (SQL's
IN and EXISTS subqueries)."""
from __future__ import annotations

from typing import List, Optional, Tuple

from kindling.table.expressions import Expression

__all__ = ["conjunction", "conjuncts", "equi_keys", "existence_join", "joined_schema", "python_function_in"]


def conjuncts(predicate: Expression) -> List[Expression]:
    """The conditions a predicate's ANDs join."""
    if getattr(predicate, "_and", False):
        return [c for child in predicate._children for c in conjuncts(child)]
    return [predicate]


def conjunction(conditions: List[Expression]) -> Expression:
    """The conditions (at least one) joined by AND."""
    predicate = conditions[0]
    for condition in conditions[1:]:
        predicate = predicate & condition
    return predicate


def equi_keys(predicate: Expression, left: List[str], right: List[str]) -> Tuple[List[str], List[str]]:
    """The column pairs ``left_column == right_column`` the predicate's conjunction holds."""
    left_keys, right_keys = [], []
    for condition in conjuncts(predicate):
        operands = condition._children
        if getattr(condition, "_equals", False) and all(getattr(o, "_is_column", False) for o in operands):
            a, b = (o._name for o in operands)
            if a in left and b in right:
                left_keys.append(a), right_keys.append(b)
            elif b in left and a in right:
                left_keys.append(b), right_keys.append(a)
    return left_keys, right_keys


def python_function_in(predicate: Expression, schema) -> Optional[str]:
    """The name of a Python scalar function the predicate (over the joined columns ``schema``) calls, or None."""
    from kindling.table.planner.expressions import UdfCall, resolve

    def found(node) -> Optional[str]:
        if isinstance(node, UdfCall):
            return node.function._name
        return next(filter(None, map(found, getattr(node, "operands", ()))), None)

    return found(resolve(predicate, schema.get_field_names(), schema.get_field_data_types()))


def joined_schema(left, right, left_outer: bool, right_outer: bool):
    """The columns of the join of the Tables ``left`` and ``right``: both tables', those of a side whose
    rows may be padded with nulls (the other side is outer) nullable, as Flink types them."""
    from kindling.table.schema import Schema

    types = [t.nullable() if right_outer else t for t in left.get_schema().get_field_data_types()] + \
            [t.nullable() if left_outer else t for t in right.get_schema().get_field_data_types()]
    return Schema(left.get_schema().get_field_names() + right.get_schema().get_field_names(), types)


def existence_join(left, right, predicate: Expression, existence: str):
    """The rows of the Table ``left`` that have (``existence`` ``"SEMI"``) or have not (``"ANTI"``) a row
    of ``right`` (whose column names differ) for which ``predicate`` holds. In a stream an anti join's
    rows are retracted when their first partner comes, a semi join's when their last partner goes."""
    from kindling.table.planner import nodes
    from kindling.table.window_join import window_join

    windowed = window_join(left, right, predicate, False, False, existence)
    if windowed is not None:
        return windowed
    updating = not left._in_batch() and (existence == "ANTI" or left._updating or right._updating)
    return left._with(nodes.Join(left=left._node, right=right._node, predicate=predicate, existence=existence,
                                 out=left._output(left._schema, updating=updating)))
