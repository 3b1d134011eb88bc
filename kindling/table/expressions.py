"""``pyflink.table.expressions``: column expressions of the Table API (``col('a') + 1``). An
Expression is an unresolved tree of plain data: column references, literals, calls of built-in
functions by name (kindling/table/planner/functions.py), aggregates, aliases, OVER calls, time
intervals, window properties and calls of Python functions. The planner resolves it against a
table's columns (kindling/table/planner/expressions.py); it is then evaluated as a Spark column in
Spark's JVM operators or in Python in the table's Python pass (docs/table.md).

Example::

    table.select(col('id'), (col('score') * 2).alias('double_score')).where(col('score') > 10)
    table.group_by(col('k')).select(col('k'), col('v').sum.alias('total'), lit(1).count)
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from kindling.common.time import epoch_millis, timestamp_of  # noqa: F401 (epoch_millis: for the table operators)
from kindling.common.time import instant_of as to_instant  # noqa: F401 (for the table operators)
from kindling.table.builtins import (  # noqa: F401 (coalesce, map_from_arrays, with_all_columns: PyFlink's, not in *)
    BuiltinMethods, array, atan2, call_sql, coalesce, concat, concat_ws, convert_tz, current_database, current_date,
    current_time, current_timestamp, date_format, e, from_unixtime, if_then_else, local_time, local_timestamp, log,
    map_, map_from_arrays, negative, null_of, pi, rand, rand_integer, range_, row, timestamp_diff, to_date,
    to_timestamp_ltz, unix_timestamp, uuid, with_all_columns, with_columns, without_columns)
from kindling.table.builtins import (current_watermark, descriptor, json_array_agg, json_object_agg, lag,  # noqa: F401
                                     lead, object_of, source_watermark, temporal_overlaps)  # gaps: raise clearly
from kindling.table.json_functions import JsonMethods, json, json_array, json_object, json_string
from kindling.table.planner.types import literal_type
from kindling.table.types import DataType

__all__ = ["CURRENT_RANGE", "CURRENT_ROW", "Expression", "UNBOUNDED_RANGE", "UNBOUNDED_ROW", "and_", "array", "atan2",
           "call", "call_sql", "col", "concat", "concat_ws", "convert_tz", "current_database", "current_date",
           "current_time", "current_timestamp", "current_watermark", "date_format", "descriptor", "e", "from_unixtime",
           "if_then_else", "json", "json_array", "json_array_agg", "json_object", "json_object_agg", "json_string",
           "lit", "local_time", "local_timestamp", "log", "map_", "negative", "not_", "null_of", "or_", "pi", "rand",
           "rand_integer", "range_", "row", "row_interval", "source_watermark", "temporal_overlaps", "timestamp_diff",
           "to_date", "to_timestamp", "to_timestamp_ltz", "unix_timestamp", "uuid", "with_columns", "without_columns"]

_ARITHMETIC = {"+": "plus", "-": "minus", "*": "times", "/": "divide", "%": "mod"}
#: what is computed for an Expression and kept with it, but not pickled (recomputed in a task)
_COMPUTED = ("_run",)


class Expression(BuiltinMethods, JsonMethods):
    """A column expression: a node of an unresolved tree (``_kind``, its ``_operands`` and plain
    ``_payload``), written as ``_text``, named ``_name`` (a column's own, an alias, or None: named by
    position). Flink's built-in functions are its methods (kindling/table/builtins.py).

    TRANSITION (until the planner's plans replace them, kindling/table/planner): ``_data_type``,
    ``spark_column``, ``evaluate``, ``aggregates``, ``columns``, ``needs_python``, the constructor
    ``Expression(column, data_type, text, ...)`` and the attributes read through ``getattr``
    (``_is_column``, ``_aggregate``, ``_literal``, ``_children``, ``_column``, ...) keep today's callers
    working, on top of the planner's resolve and the runtime's and Spark's compilers."""

    def __init__(self, column: Any, data_type: Callable[[Dict[str, DataType]], DataType], text: str,
                 name: Optional[str] = None, evaluate: Optional[Callable[[Dict[Any, Any]], Any]] = None,
                 children: Tuple["Expression", ...] = (), aggregate: Any = None):
        """TRANSITION: ``Expression(an_expression, ...)`` copies a call under a new identity (an aggregate
        whose result the operators key by it); ``Expression(spark_function, data_type, text,
        evaluate=...)`` makes a leaf computed by ``evaluate({})`` in Python and ``spark_function()`` in
        Spark (PROCTIME())."""
        if isinstance(column, Expression):
            vars(self).update(vars(column._renewed()))
            self._name, self._column = name, self
            return
        if children or aggregate is not None or evaluate is None:
            raise ValueError("Expression(column, data_type, text, evaluate=...) makes a leaf of no columns; build "
                             "calls with the Table API's functions")

        def type_of(operand_types, table_types):
            return data_type(table_types)
        _init(self, "closure", (), (lambda: evaluate({}), (lambda: column()) if column is not None else None,
                                    type_of, False), text, name)

    # -- TRANSITION: what today's callers read, on top of resolve and the compilers -------------------

    def _data_type(self, types: Dict[str, DataType]) -> DataType:
        """The SQL type given the input columns' types; fails naming the expression and the problem.
        The types are kept for :meth:`evaluate`."""
        from kindling.table.planner.expressions import resolve

        resolved = resolve(self, list(types), list(types.values()))
        self.__dict__.pop("_run", None)
        self._typed = dict(types)
        return resolved.type

    def spark_column(self, types: Dict[str, DataType]):
        """The Spark Column, cast to the Spark type of the expression's SQL type."""
        from kindling.spark.table.columns import column  # TRANSITION: until the plan translator lands
        from kindling.spark.type_mapping import spark_type_of
        from kindling.table.planner.expressions import resolve

        resolved = resolve(self, list(types), list(types.values()))
        return column(resolved).cast(spark_type_of(resolved.type.type_info()))

    def evaluate(self, env: Dict[Any, Any]) -> Any:
        """The value for one row: ``env`` maps column names to values, aggregates to their results (by
        the aggregate Expression's id), OVER calls to theirs (by ``_over_column``) and the window
        bounds; compiled once (per task) with the types of the last :meth:`_data_type`."""
        run = self.__dict__.get("_run")
        if run is None:
            run = self._run = _compiled_for_env(self, env)
        return run(env)

    def aggregates(self) -> List["Expression"]:
        """The aggregate expressions in this one, outermost first."""
        if self._kind == "aggregate":
            return [self]
        return [a for child in self._children for a in child.aggregates()]

    def columns(self) -> List[str]:
        """The columns this expression reads outside its aggregates."""
        if self._kind == "aggregate":
            return []
        own = [self._name] if self._kind == "column" else []
        return own + [c for child in self._children for c in child.columns()]

    def needs_python(self) -> bool:
        """Whether part of the expression must be evaluated in Python (a Python function, a window
        property, an OVER call, a built-in function Spark computes otherwise than Flink)."""
        return self._python_only() or any(c.needs_python() for c in self._children)

    def _python_only(self) -> bool:
        kind = self._kind
        if kind in ("udf", "udtf", "window_property", "over"):
            return True
        if kind == "closure":
            return self._payload[1] is None
        if kind == "call":
            from kindling.table.planner.functions import BUILTINS, NOT_LITERAL

            function, parameters = self._payload
            literals = tuple(o._payload[0] if o._kind == "literal" else NOT_LITERAL for o in self._operands)
            return not BUILTINS[function].in_spark(literals, parameters)
        return False

    @property
    def _children(self) -> Tuple["Expression", ...]:
        return () if self._kind in ("over", "interval") else self._operands

    @property
    def _is_column(self) -> bool:
        return self._kind == "column"

    @property
    def _literal(self) -> Optional[Tuple[Any]]:
        return (self._payload[0],) if self._kind == "literal" else None

    @property
    def _aggregate(self):
        """The accumulator of an aggregate (kindling/runtime/table/aggregates.py), else None."""
        if self._kind != "aggregate":
            return None
        accumulator = self.__dict__.get("_accumulator")
        if accumulator is None:
            from kindling.runtime.table.aggregates import accumulator_of  # TRANSITION: operators move to runtime

            accumulator = self._accumulator = accumulator_of(*self._payload)
        return accumulator

    @property
    def _over_window(self) -> Optional[str]:
        return self._payload[0] if self._kind == "over" else None

    @property
    def _over_aggregate(self) -> Optional["Expression"]:
        return self._operands[0] if self._kind == "over" else None

    @property
    def _window_which(self) -> Optional[str]:
        return self._payload[0] if self._kind == "window_property" else None

    @property
    def _window_bound(self) -> bool:
        return self._kind == "window_property" or (self._kind == "alias" and self._operands[0]._window_bound)

    @property
    def _interval_ms(self) -> Optional[int]:
        return self._payload[0] if self._kind == "interval" else None

    @property
    def _over_bound(self) -> Optional[Tuple[bool, Optional[int]]]:
        return self._payload if self._kind == "over_bound" else None

    @property
    def _equals(self) -> bool:
        return self._kind == "call" and self._payload[0] == "equals"

    @property
    def _and(self) -> bool:
        return self._kind == "call" and self._payload[0] == "and"

    @property
    def _descending(self) -> bool:
        return self._kind == "order" and self._payload[0]

    @property
    def _columns(self) -> Optional[Callable[[List[str]], List[str]]]:
        """Of with_columns/without_columns/with_all_columns: the columns it picks of a table's."""
        if self._kind != "selection":
            return None
        from kindling.table.builtins import selected

        mode, items = self._payload
        return lambda names: selected(mode, items, names)

    @property
    def _range(self) -> Optional[Tuple[Any, Any]]:
        return self._payload if self._kind == "range" else None

    def __getstate__(self):
        return {k: v for k, v in vars(self).items() if k not in _COMPUTED}

    def _renewed(self) -> "Expression":
        """The same node under a new identity (its own aggregate result, its own accumulator)."""
        copy = object.__new__(type(self))
        vars(copy).update({k: v for k, v in vars(self).items() if k not in _COMPUTED + ("_accumulator",)})
        copy._column = copy
        return copy

    # -- building ------------------------------------------------------------------------------

    def alias(self, name: str, *extra_names: str) -> "Expression":
        """The expression named ``name`` in the result."""
        if extra_names and self._kind == "aggregate" and not isinstance(self._payload[0], str):
            aliased = self._renewed()  # aggregate(f(...).alias('a', 'b')): its own value
            aliased._aliases = [name, *extra_names]
            return aliased
        if extra_names:
            raise ValueError("alias with several names is for table functions: use Table.alias(...) after "
                             "flat_map / join_lateral")
        aliased = node("alias", (self,), ((name,),), f"{self._text} AS {name}", name)
        aliased._column = self._column
        return aliased

    def _arithmetic(self, other: Any, symbol: str, reverse: bool = False, negation: bool = False) -> "Expression":
        """``self symbol other`` (``other symbol self`` when ``reverse``); ``negation``: ``0 - self``,
        typed as ``self`` when a DECIMAL (SQL's unary minus)."""
        left, right = (_expr(other), self) if reverse else (self, _expr(other))
        return node("call", (left, right), (_ARITHMETIC[symbol], ("negation",) if negation else ()),
                    f"({left._text} {symbol} {right._text})")

    def _binary(self, other: Any, function: str, symbol: str) -> "Expression":
        right = _expr(other)
        return node("call", (self, right), (function, ()), f"({self._text} {symbol} {right._text})")

    def __add__(self, other): return self._arithmetic(other, "+")
    def __radd__(self, other): return self._arithmetic(other, "+", True)
    def __sub__(self, other): return self._arithmetic(other, "-")
    def __rsub__(self, other): return self._arithmetic(other, "-", True)
    def __mul__(self, other): return self._arithmetic(other, "*")
    def __rmul__(self, other): return self._arithmetic(other, "*", True)
    def __truediv__(self, other): return self._arithmetic(other, "/")
    def __rtruediv__(self, other): return self._arithmetic(other, "/", True)
    def __mod__(self, other): return self._arithmetic(other, "%")
    def __rmod__(self, other): return self._arithmetic(other, "%", True)
    def __eq__(self, other): return self._binary(other, "equals", "===")  # type: ignore[override]
    def __ne__(self, other): return self._binary(other, "notEquals", "!==")  # type: ignore[override]
    def __lt__(self, other): return self._binary(other, "lessThan", "<")
    def __le__(self, other): return self._binary(other, "lessThanOrEqual", "<=")
    def __gt__(self, other): return self._binary(other, "greaterThan", ">")
    def __ge__(self, other): return self._binary(other, "greaterThanOrEqual", ">=")
    def __and__(self, other): return self._binary(other, "and", "&&")
    def __or__(self, other): return self._binary(other, "or", "||")

    def __invert__(self) -> "Expression":
        """``~b``: PyFlink's is IS NOT TRUE (TRUE for a null), not SQL's NOT (use not_)."""
        return self.is_not_true

    def _negated(self) -> "Expression":
        return node("call", (self,), ("not", ()), f"!{self._text}")

    # -- time intervals (``lit(5).seconds``) and window properties (``col('w').start``) ----------

    def _interval(self, unit_ms: int) -> "Expression":
        if self._kind != "literal":
            raise ValueError(f"A time interval takes a literal amount (lit(5).seconds), got {self._text}")
        return node("interval", (), (int(self._payload[0] * unit_ms),), f"{self._text} * {unit_ms} ms")

    milli = millis = property(lambda self: self._interval(1))
    second = seconds = property(lambda self: self._interval(1000))
    minute = minutes = property(lambda self: self._interval(60_000))
    hour = hours = property(lambda self: self._interval(3_600_000))
    day = days = property(lambda self: self._interval(86_400_000))

    def _month_interval(self, months: int) -> "Expression":
        if self._kind != "literal":
            raise ValueError(f"A time interval takes a literal amount (lit(5).months), got {self._text}")
        return node("month_interval", (), (int(self._payload[0]) * months,), f"{self._text} * {months} months")

    month = months = property(lambda self: self._month_interval(1))
    quarter = quarters = property(lambda self: self._month_interval(3))
    year = years = property(lambda self: self._month_interval(12))

    def _window_property(self, which: str) -> "Expression":
        return node("window_property", (self,), (which,), f"{which}({self._text})")

    start = property(lambda self: self._window_property("start"))
    end = property(lambda self: self._window_property("end"))
    rowtime = property(lambda self: self._window_property("rowtime"))

    # -- aggregates (``col('v').sum``), as PyFlink's properties ---------------------------------

    @property
    def count(self) -> "Expression": return aggregate_node("count", (self,))
    @property
    def sum(self) -> "Expression": return aggregate_node("sum", (self,))
    @property
    def sum0(self) -> "Expression": return aggregate_node("sum0", (self,))
    @property
    def avg(self) -> "Expression": return aggregate_node("avg", (self,))
    @property
    def min(self) -> "Expression": return aggregate_node("min", (self,))
    @property
    def max(self) -> "Expression": return aggregate_node("max", (self,))

    def over(self, alias: Any) -> "Expression":
        """The aggregate over the OVER window ``alias`` (``col('v').sum.over(col('w'))``), for
        ``over_window(...).select``."""
        if self._kind != "aggregate":
            raise ValueError(f"over applies to an aggregate (col('v').sum.over(col('w'))), not to {self._text}")
        window = getattr(alias, "_name", alias)
        return node("over", (self,), (window,), f"{self._text} OVER {window}")

    @property
    def asc(self) -> "Expression":
        """Ascending order, for ``order_by``."""
        return self

    @property
    def desc(self) -> "Expression":
        """Descending order, for ``order_by``."""
        descending = node("order", (self,), (True,), f"{self._text} DESC", self._name)
        descending._column = self._column
        return descending

    @property
    def distinct(self) -> "Expression":
        """``col('v').count.distinct``: the aggregate over distinct values."""
        if self._kind != "aggregate" or not isinstance(self._payload[0], str):
            raise ValueError(f"distinct applies to a built-in aggregate (col('v').count.distinct), not to "
                             f"{self._text}")
        return aggregate_node(self._payload[0], self._operands, distinct=True)

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise TypeError(f"The expression {self._text} has no truth value in Python: combine conditions with "
                        "& (and), | (or) and ~ (not)")

    def __str__(self) -> str:
        return self._text

    __repr__ = __str__


def _init(expression: Expression, kind: str, operands: Tuple[Expression, ...], payload: tuple, text: str,
          name: Optional[str]) -> None:
    expression._kind, expression._operands, expression._payload = kind, tuple(operands), tuple(payload)
    expression._text, expression._name, expression._column = text, name, expression


def node(kind: str, operands: Tuple[Expression, ...], payload: tuple, text: str, name: Optional[str] = None,
         cls: type = Expression) -> Expression:
    """A node of an unresolved expression tree (``cls``: Expression or a subclass of it)."""
    expression = object.__new__(cls)
    _init(expression, kind, operands, payload, text, name)
    return expression


def aggregate_node(function: Any, operands: Tuple[Any, ...], distinct: bool = False, parameters: tuple = (),
                   text: Optional[str] = None) -> Expression:
    """An aggregate call: a built-in aggregate by name, or a user aggregate function's wrapper."""
    arguments = tuple(_expr(o) for o in operands)
    written = text or f"{function}({'distinct ' if distinct else ''}{arguments[0]._text})"
    return node("aggregate", arguments, (function, distinct, tuple(parameters)), written)


def _compiled_for_env(expression: Expression, env: Dict[Any, Any]) -> Callable[[Dict[Any, Any]], Any]:
    """TRANSITION: ``expression`` compiled into a function of today's ``env`` rows (see
    :meth:`Expression.evaluate`), typed as its last ``_data_type`` was (else by the env's values)."""
    from kindling.runtime.table.evaluate import compile_expression  # TRANSITION: until the lowering compiles
    from kindling.table.planner.expressions import resolve
    from kindling.table.planner.types import value_type
    from kindling.table.window_aggregate import WINDOW_BOUNDS

    types = expression.__dict__.get("_typed")
    if types is None:
        types = {k: value_type(v) for k, v in env.items() if isinstance(k, str)}
    origins: Dict[int, Expression] = {}
    resolved = resolve(expression, list(types), list(types.values()), origins)

    def leaf(resolved_node):
        kind = type(resolved_node).__name__
        if kind == "InputRef":
            name = resolved_node.name
            return lambda row: row[name]
        if kind == "AggregateCall":
            key = id(origins[id(resolved_node)])
            return lambda row: row[key]
        if kind == "OverCall":
            over = origins[id(resolved_node)]
            return lambda row: row[over._over_column]
        if kind == "WindowProperty":
            which = resolved_node.property
            return lambda row: row[WINDOW_BOUNDS][which]
        return None
    return compile_expression(resolved, leaf)


def col(name: str) -> Expression:
    """The column ``name``."""
    return node("column", (), (name,), name, name)


def lit(value: Any, data_type: Optional[DataType] = None) -> Expression:
    """A literal value: NOT NULL INT for Python ints in the INT range, BIGINT beyond, DOUBLE, BOOLEAN, CHAR(n)."""
    typed = data_type if data_type is not None else literal_type(value)
    text = repr(value) if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)
    return node("literal", (), (value, typed), text)


def and_(predicate0: Any, predicate1: Any, *predicates: Any) -> Expression:
    """Whether all predicates are true (SQL's AND)."""
    result = _expr(predicate0) & predicate1
    for predicate in predicates:
        result = result & predicate
    return result


def or_(predicate0: Any, predicate1: Any, *predicates: Any) -> Expression:
    """Whether one of the predicates is true (SQL's OR)."""
    result = _expr(predicate0) | predicate1
    for predicate in predicates:
        result = result | predicate
    return result


def not_(expression: Expression) -> Expression:
    """The predicate negated (SQL's NOT)."""
    return _expr(expression)._negated()


def _over_bound(text: str, rows: bool, count: Optional[int]) -> Expression:
    return node("over_bound", (), (rows, count), text)


def row_interval(rows: int) -> Expression:
    """``rows`` rows before the current one, the start of an OVER window's frame."""
    return _over_bound(f"{rows} ROWS", True, int(rows))


#: the bounds of an OVER window's frame: all rows (or all times) before, the current row (or time)
UNBOUNDED_ROW = _over_bound("UNBOUNDED_ROW", True, None)
UNBOUNDED_RANGE = _over_bound("UNBOUNDED_RANGE", False, None)
CURRENT_ROW = _over_bound("CURRENT_ROW", True, 0)
CURRENT_RANGE = _over_bound("CURRENT_RANGE", False, 0)


#: the built-in aggregates ``call`` (and SQL) name, of one argument
NAMED_AGGREGATES = ("count", "sum", "sum0", "avg", "min", "max")


def call(f: Any, *args: Any) -> Expression:
    """A call of a function: a user-defined function (its object, or its registered name: resolved
    against the environment of the Table that uses the call) or a built-in aggregate by name
    (``call('sum', col('v'))``)."""
    arguments = [_expr(a) if not isinstance(a, str) else col(a) for a in args]
    if isinstance(f, str):
        name = f.lower()
        if name in NAMED_AGGREGATES and len(arguments) == 1:
            return aggregate_node(name, (arguments[0],))
        from kindling.table.function_catalog import unresolved_call

        return unresolved_call(name, tuple(arguments))
    return f(*arguments)


def to_timestamp(value: Any, format: Any = None) -> Any:
    """PyFlink's ``to_timestamp(timestamp_str[, format])`` of a string (expression): its TIMESTAMP(3)
    (kindling/table/builtins.py). Of a time value (an Instant, epoch ms), the TIMESTAMP value Kindling's
    operators hold: a naive datetime, UTC as Kindling's session time zone."""
    if isinstance(value, (Expression, str)):
        from kindling.table import builtins

        return builtins.to_timestamp(value, format)
    return timestamp_of(value)


def _expr(value: Any) -> Expression:
    return value if isinstance(value, Expression) else lit(value)


def unaliased(expression: Expression) -> Expression:
    """The expression an alias (or an order) names (the expression itself when it is none)."""
    while expression._kind in ("alias", "order"):
        expression = expression._operands[0]
    return expression
