"""Flink's row-based Table operations: ``map`` (a scalar function of a row to a row), ``aggregate`` (an
aggregate function to a row per group), ``flat_aggregate`` (a table aggregate function to rows per group),
and ``add_or_replace_columns`` and column ranges (``with_columns(range_(1, 3))``, ``col('*')``).

A function given without arguments takes the whole row (a ``Row`` with the column names), as PyFlink
passes it. A ROW result becomes the result's columns (named by ``alias`` or by the ROW's fields).

Example::

    table.map(to_row).alias('a', 'b')
    table.group_by(col('k')).aggregate(count_and_sum.alias('cnt', 'total')).select(col('k'), col('total'))
    table.group_by(col('k')).flat_aggregate(top2).select(col('k'), col('v'))
"""
from __future__ import annotations

from typing import Any, List

from kindling.common.types import RowKind, _create_row
from kindling.table.expressions import Expression, col
from kindling.table.function_catalog import resolving
from kindling.table.types import DataType

__all__ = ["AggregatedTable", "FlatAggregateTable", "add_or_replace_columns", "aggregate", "expand_columns",
           "flat_aggregate", "map_rows"]

RESULT = "__kindling_result"


def whole_row(table) -> Expression:
    """An expression of each row as a ``Row`` with the table's column names."""
    from kindling.table.builtins import call
    from kindling.table.types import DataTypes

    names = table.get_schema().get_field_names()

    def make(*values):
        return _create_row(names, list(values), RowKind.INSERT)
    row_type = DataTypes.ROW([DataTypes.FIELD(n, t) for n, t in zip(names, table.get_schema().get_field_data_types())])
    return call("row", [col(n) for n in names], row_type, make, strict=False, nullable=False)


def _called(function: Any, table, what: str) -> Expression:
    """``function`` called with the whole row when it is not a call already (an alias of a call becomes the
    call with ``_aliases``)."""
    if isinstance(function, Expression):
        inner = function._children[0] if len(function._children) == 1 else None
        if function._name is not None and inner is not None and function._column is inner._column and \
                inner._aggregate is not None:
            inner = Expression(inner._column, inner._data_type, inner._text, None, None, inner._children,
                               inner._aggregate)  # its own value: evaluate reads the result of its id
            inner._aliases = [function._name]
            return inner
        return function
    if not callable(function):
        raise TypeError(f"{what} takes a function made with udf/udaf/udtaf or a call of one, got {function!r}")
    called = function(whole_row(table))
    names = getattr(function, "_aliases", None)
    if names:
        called._aliases = names
    return called


def _result_names(call: Expression, result_type: DataType) -> List[str]:
    fields = getattr(result_type, "fields", None)
    names = getattr(call, "_aliases", None)
    natural = [f.name for f in fields] if fields else ["f0"]
    if names and len(names) != len(natural):
        raise ValueError(f"alias: {len(names)} names {names} for the {len(natural)} result columns {natural}")
    return list(names or natural)


def _flattened(table, keys: List[str], call_type: DataType, names: List[str]):
    """``table``'s RESULT column (a ROW, or a value) spread into the columns ``names`` after ``keys``."""
    fields = getattr(call_type, "fields", None)
    spread = [col(RESULT).get(i).alias(n) for i, n in enumerate(names)] if fields else [col(RESULT).alias(names[0])]
    return table.select(*[col(k) for k in keys], *spread)


def map_rows(table, func: Any):
    """``Table.map``: the function's result for each row, a ROW spread into columns."""
    call = _called(func, table, "map")
    if call._aggregate is not None:
        raise ValueError("map takes a scalar function (udf); an aggregate function goes to aggregate")
    result_type = call._data_type(table._types())
    return _flattened(table.select(call.alias(RESULT)), [], result_type, _result_names(call, result_type))


def aggregate(table, keys: List[str], func: Any) -> "AggregatedTable":
    """``(Grouped)Table.aggregate``: one row per group of the keys and the aggregate function's result."""
    call = _called(func, table, "aggregate")
    if call._aggregate is None or call._aggregate.kind != "udaf":
        raise ValueError(f"aggregate takes an aggregate function made with udaf, got {call}")
    result_type = call._data_type(table._types())
    grouped = table.group_by(*keys).select(*[col(k) for k in keys], call.alias(RESULT))
    return AggregatedTable(_flattened(grouped, keys, result_type, _result_names(call, result_type)))


def flat_aggregate(table, keys: List[str], func: Any) -> "FlatAggregateTable":
    """``(Grouped)Table.flat_aggregate``: the rows a table aggregate function (``udtaf``) emits per group,
    after the keys; a group's earlier rows are retracted when it changes, as Flink emits them."""
    from kindling.table.planner import nodes
    from kindling.table.schema import Schema

    call = _called(func, table, "flat_aggregate")
    if not getattr(getattr(call._aggregate, "function", None), "_table_aggregate", False):
        raise ValueError(f"flat_aggregate takes a table aggregate function made with udtaf, got {call}")
    types = table._types()
    result_type = call._data_type(types)
    names = _result_names(call, result_type)
    fields = getattr(result_type, "fields", None)
    schema = Schema(keys + names, [types[k] for k in keys] + ([f.data_type for f in fields] if fields else
                                                                [result_type]))
    return FlatAggregateTable(table._with(nodes.TableAggregate(
        input=table._node, keys=tuple(keys), call=call, names=tuple(names),
        out=nodes.Output(schema, updating=not table._in_batch()))))


@resolving
class AggregatedTable:
    """The result of ``aggregate``: ``select`` its columns (the keys and the function's result columns)."""

    def __init__(self, table):
        self._table = table

    def select(self, *fields) -> Any:
        return self._table.select(*fields)


class FlatAggregateTable(AggregatedTable):
    """The result of ``flat_aggregate``: ``select`` its columns (the keys and the function's result columns)."""


def add_or_replace_columns(table, fields: List[Expression]):
    """``Table.add_or_replace_columns``: each field replaces the column of its name, or is added after."""
    names = table.get_schema().get_field_names()
    named = {}
    for field in fields:
        if not isinstance(field, Expression) or field._name is None:
            raise ValueError(f"add_or_replace_columns takes named expressions (expr.alias('name')), got {field}")
        named[field._name] = field
    kept = [named.pop(n) if n in named else col(n) for n in names]
    return table.select(*kept, *named.values())


def expand_columns(fields: List[Any], names: List[str]) -> List[Any]:
    """``col('*')``, ``with_columns(...)`` and ``without_columns(...)`` among ``fields`` as the table's columns."""
    expanded = []
    for field in fields:
        selection = getattr(field, "_columns", None)
        if isinstance(field, Expression) and getattr(field, "_is_column", False) and field._name == "*":
            expanded += [col(n) for n in names]
        elif selection is not None:
            expanded += [col(n) for n in selection(names)]
        else:
            expanded.append(field)
    return expanded
