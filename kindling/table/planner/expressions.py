"""Resolved expressions: the Table API's and SQL's expressions (kindling/table/expressions.py) with
their columns found in a table's schema and every node typed, as plain frozen data. The Python
evaluator (kindling/runtime/table/evaluate.py) and the Spark translator
(kindling/spark/table/columns.py) compile them; plans hold them.

Example::

    resolve(col('price') * 2, ['id', 'price'], [DataTypes.BIGINT(), DataTypes.DECIMAL(10, 2)])
    # Call('times', (InputRef(1, 'price', DECIMAL(10, 2)), Literal(2, INT NOT NULL)), DECIMAL(21, 2))
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from kindling.table.planner.functions import AGGREGATES, BUILTINS, NOT_LITERAL
from kindling.table.types import DataType, DataTypes

__all__ = ["AggregateCall", "Call", "ClosureCall", "InputRef", "Literal", "OverCall", "Resolved", "UdfCall",
           "UdtfCall", "WindowProperty", "literal_values", "python_only", "resolve"]


@dataclass(frozen=True)
class InputRef:
    """The input column at ``index`` (named ``name``)."""
    index: int
    name: str
    type: DataType


@dataclass(frozen=True)
class Literal:
    """A constant (a time interval is its milliseconds, a BIGINT)."""
    value: Any
    type: DataType


@dataclass(frozen=True)
class Call:
    """A call of the built-in function ``function`` (kindling/table/planner/functions.py);
    ``parameters`` are its constant arguments that are no expressions (a time unit, a JSON path, a
    cast's target type); ``strict``: a null operand makes the result null."""
    function: str
    operands: Tuple["Resolved", ...]
    type: DataType
    parameters: Tuple[Any, ...] = ()
    strict: bool = field(default=True, repr=False)


@dataclass(frozen=True)
class AggregateCall:
    """An aggregate: a built-in one by name (``sum``) or a user's aggregate function (udaf's wrapper);
    ``filter``: SQL's FILTER (WHERE ...) condition (None: every row)."""
    function: Any
    operands: Tuple["Resolved", ...]
    type: DataType
    distinct: bool = False
    filter: Optional["Resolved"] = None
    parameters: Tuple[Any, ...] = ()


@dataclass(frozen=True)
class UdfCall:
    """A call of a Python scalar function (udf's wrapper)."""
    function: Any
    operands: Tuple["Resolved", ...]
    type: DataType


@dataclass(frozen=True)
class UdtfCall:
    """A call of a Python table function (udtf's wrapper); ``type`` is the ROW of its result columns."""
    function: Any
    operands: Tuple["Resolved", ...]
    type: DataType


@dataclass(frozen=True)
class WindowProperty:
    """``start``, ``end`` or ``rowtime`` of the group window ``window`` (``col('w').start``)."""
    property: str
    window: str
    type: DataType


@dataclass(frozen=True)
class OverCall:
    """An aggregate over the OVER window ``window`` (``col('v').sum.over(col('w'))``)."""
    aggregate: AggregateCall
    window: str
    type: DataType


@dataclass(frozen=True)
class ClosureCall:
    """TRANSITION (until table_environment and row_operations build calls by name): a call of a
    Python function of the operands' values (``spark``: its Spark column of theirs, or None)."""
    function: Callable[..., Any]
    operands: Tuple["Resolved", ...]
    type: DataType
    strict: bool = True
    spark: Optional[Callable[..., Any]] = None


Resolved = Union[InputRef, Literal, Call, AggregateCall, UdfCall, UdtfCall, WindowProperty, OverCall, ClosureCall]


def resolve(expression: Any, names: Sequence[str], types: Sequence[DataType],
            origins: Optional[Dict[int, Any]] = None) -> Resolved:
    """``expression`` (an unresolved Expression) with its columns found among ``names`` (of ``types``)
    and every node typed; fails naming the expression and the problem. ``origins``, when given, maps
    the id of each resolved aggregate and OVER call to the Expression it resolves."""
    return _Resolver(list(names), list(types), origins).resolve(expression)


#: the kinds of unresolved interval expressions: milliseconds, months
_INTERVALS = ("interval", "month_interval")


class _Resolver:
    def __init__(self, names: List[str], types: List[DataType], origins: Optional[Dict[int, Any]]):
        self.names, self.types, self.origins = names, types, origins

    def resolve(self, expression: Any) -> Resolved:
        resolved = getattr(self, "_" + expression._kind)(expression, *expression._payload)
        if self.origins is not None and isinstance(resolved, (AggregateCall, OverCall)):
            self.origins.setdefault(id(resolved), expression)  # the aggregate itself, not an alias of it
        return resolved

    def _operands(self, expression: Any) -> Tuple[Resolved, ...]:
        return tuple(self.resolve(o) for o in expression._operands)

    def _column(self, expression, name: str) -> InputRef:
        if name not in self.names:
            raise ValueError(f"Column '{name}' not found in the table; columns: {self.names}")
        index = self.names.index(name)
        return InputRef(index, name, self.types[index])

    def _literal(self, expression, value: Any, data_type: DataType) -> Literal:
        return Literal(value, data_type)

    def _call(self, expression, function: str, parameters: Tuple[Any, ...]) -> Call:
        if function in ("plus", "minus") and any(o._kind in _INTERVALS for o in expression._operands):
            shifted = self._time_shift(expression, function)
            if shifted is not None:
                return shifted
        operands = self._operands(expression)
        if function == "plus" and all(o.type.type_name in ("CHAR", "VARCHAR", "STRING") for o in operands):
            function = "concat"  # the Table API's STRING1 + STRING2
        check = BUILTINS[function].check
        problem = check and check([o.type for o in operands], parameters, [o._text for o in expression._operands])
        if problem:
            raise ValueError(problem)
        return self._typed_call(function, operands, parameters)

    def _time_shift(self, expression, function: str) -> Optional[Call]:
        """``time + interval``, ``interval + time`` or ``time - interval`` as a TIMESTAMPADD (None for
        arithmetic of intervals and numbers, which stays arithmetic of milliseconds)."""
        left, right = expression._operands
        interval, other = (left, right) if left._kind in _INTERVALS else (right, left)
        if other._kind in _INTERVALS or (function == "minus" and interval is left):
            return None
        time = self.resolve(other)
        if time.type.type_name not in ("DATE", "TIMESTAMP", "TIMESTAMP_LTZ"):
            return None
        amount = interval._payload[0] * (-1 if function == "minus" else 1)
        unit = "MONTH" if interval._kind == "month_interval" else "MILLISECOND"
        return self._typed_call("timestampAdd", [Literal(amount, DataTypes.BIGINT().not_null()), time],
                                (unit, "interval"))

    def _month_interval(self, expression, months: int) -> Literal:
        raise ValueError(f"{expression._text}: Kindling adds an interval of months only to or from a DATE, "
                         "TIMESTAMP or TIMESTAMP_LTZ (time + INTERVAL '1' MONTH)")

    def _typed_call(self, function: str, operands: List[Resolved], parameters: Tuple[Any, ...]) -> Call:
        definition = BUILTINS[function]
        types = [o.type for o in operands]
        return Call(function, operands, definition.result_type(types, parameters, literal_values(operands)), parameters,
                    definition.strict)

    def _aggregate(self, expression, function: Any, distinct: bool, parameters: Tuple[Any, ...]) -> AggregateCall:
        operands = self._operands(expression)
        data_type = AGGREGATES[function].result(operands[0].type, parameters) if isinstance(function, str) else \
            function._result_type
        return AggregateCall(function, operands, data_type, distinct, None, parameters)

    def _udf(self, expression, function: Any) -> UdfCall:
        return UdfCall(function, self._operands(expression), function._result_type)

    def _udtf(self, expression, function: Any, names: Optional[List[str]]) -> UdtfCall:
        names = names or [f"f{i}" for i in range(len(function._result_types))]
        row = DataTypes.ROW([DataTypes.FIELD(n, t) for n, t in zip(names, function._result_types)])
        return UdtfCall(function, self._operands(expression), row)

    def _alias(self, expression, names: Tuple[str, ...]) -> Resolved:
        return self.resolve(expression._operands[0])

    def _order(self, expression, descending: bool) -> Resolved:
        return self.resolve(expression._operands[0])

    def _over(self, expression, window: str) -> OverCall:
        aggregate = self.resolve(expression._operands[0])
        return OverCall(aggregate, window, aggregate.type)

    def _interval(self, expression, millis: int) -> Literal:
        return Literal(millis, DataTypes.BIGINT().not_null())

    def _over_bound(self, expression, rows: bool, count: Optional[int]) -> Literal:
        return Literal(count, DataTypes.BIGINT().not_null())

    def _window_property(self, expression, which: str) -> WindowProperty:
        return WindowProperty(which, expression._operands[0]._name, DataTypes.TIMESTAMP(3).not_null())

    def _selection(self, expression, *payload) -> Resolved:
        raise ValueError("with_columns/without_columns/range_ select columns of a table: use them in select, "
                         "add_columns, group_by, ... of a table")

    _range = _selection

    def _closure(self, expression, function: Callable, spark: Optional[Callable], type_of: Callable,
                 strict: bool) -> ClosureCall:
        operands = self._operands(expression)
        data_type = type_of([o.type for o in operands], dict(zip(self.names, self.types)))
        return ClosureCall(function, operands, data_type, strict, spark)


def literal_values(operands: Sequence[Resolved]) -> Tuple[Any, ...]:
    """The operands' literal values, NOT_LITERAL for those that are not literals."""
    return tuple(o.value if isinstance(o, Literal) else NOT_LITERAL for o in operands)


def python_only(node: Resolved) -> Optional[str]:
    """Why the expression must be evaluated in Python (a Python function, a window property, an
    OVER call, a built-in function Spark computes otherwise than Flink), or None when Spark's
    operators compute it as Flink does."""
    if isinstance(node, (UdfCall, UdtfCall)):
        return f"the Python function {node.function._name}"
    if isinstance(node, WindowProperty):
        return f"the window property {node.property}"
    if isinstance(node, OverCall):
        return "an OVER aggregate"
    if isinstance(node, ClosureCall) and node.spark is None:
        return "a Python function"
    if isinstance(node, Call) and not BUILTINS[node.function].in_spark(literal_values(node.operands), node.parameters):
        return f"{node.function}, which Spark computes otherwise than Flink"
    operands = node.operands if isinstance(node, (Call, AggregateCall, ClosureCall)) else ()
    return next((reason for reason in map(python_only, operands) if reason is not None), None)
