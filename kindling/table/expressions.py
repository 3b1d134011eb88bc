"""``pyflink.table.expressions``: column expressions of the Table API (``col('a') + 1``). Each is
evaluated as a Spark SQL column expression (in Spark's JVM operators) where the table's rows are a
Spark DataFrame, and in Python where they are a stream of changes (docs/table.md).

Example::

    table.select(col('id'), (col('score') * 2).alias('double_score')).where(col('score') > 10)
    table.group_by(col('k')).select(col('k'), col('v').sum.alias('total'), lit(1).count)
"""
from __future__ import annotations

import datetime
import decimal
import operator
from typing import Any, Callable, Dict, List, Optional, Tuple

from kindling.table.builtins import (  # noqa: F401 (coalesce, map_from_arrays, with_all_columns: PyFlink's, not in *)
    BuiltinMethods, array, atan2, call_sql, coalesce, concat, concat_ws, convert_tz, current_database, current_date,
    current_time, current_timestamp, date_format, e, from_unixtime, if_then_else, local_time, local_timestamp, log, map_,
    map_from_arrays, negative, null_of, pi, rand, rand_integer, range_, row, timestamp_diff, to_date, to_timestamp_ltz,
    unix_timestamp, uuid, with_all_columns, with_columns, without_columns)
from kindling.table.builtins import (current_watermark, descriptor, json_array_agg, json_object_agg, lag,  # noqa: F401
                                     lead, object_of, source_watermark, temporal_overlaps)  # gaps: raise clearly
from kindling.table.json_functions import JsonMethods, json, json_array, json_object, json_string
from kindling.table.types import DataType, DataTypes

__all__ = ["CURRENT_RANGE", "CURRENT_ROW", "Expression", "UNBOUNDED_RANGE", "UNBOUNDED_ROW", "and_", "array", "atan2",
           "call", "call_sql", "col", "concat", "concat_ws", "convert_tz", "current_database", "current_date",
           "current_time", "current_timestamp", "current_watermark", "date_format", "descriptor", "e", "from_unixtime",
           "if_then_else", "json", "json_array", "json_array_agg", "json_object", "json_object_agg", "json_string",
           "lit", "local_time", "local_timestamp", "log", "map_", "negative", "not_", "null_of", "or_", "pi", "rand",
           "rand_integer", "range_", "row", "row_interval", "source_watermark", "temporal_overlaps", "timestamp_diff",
           "to_date", "to_timestamp", "to_timestamp_ltz", "unix_timestamp", "uuid", "with_columns", "without_columns"]

#: numeric types, narrowest first: arithmetic results take the wider operand's type, as in Flink
NUMERIC = ["TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE"]
INTEGRAL = NUMERIC[:4]

#: Python operators of the Table API's SQL operators, as Flink evaluates them (null in, null out)
_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_SPARK_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
                     "%": operator.mod}


def _divide(a, b, integral: bool):
    if b == 0 and integral:
        raise ZeroDivisionError(f"Division by zero: {a} / 0")
    if integral:
        quotient = abs(a) // abs(b)  # Java's integer division truncates towards zero
        return quotient if (a >= 0) == (b >= 0) else -quotient
    return a / b if b else (float("nan") if a == 0 else float("inf") * (1 if a > 0 else -1))


def _python_divide(a, b):
    return _divide(a, b, isinstance(a, int) and isinstance(b, int))


def _python_modulo(a, b):
    import math

    # Java's remainder takes the dividend's sign
    return a - b * _divide(a, b, True) if isinstance(a, int) and isinstance(b, int) else math.fmod(a, b)


_INTEGRAL_PRECISION = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}
MAX_DECIMAL_PRECISION = 38


def _precision_scale(data_type: DataType) -> Tuple[int, int]:
    """A DECIMAL's precision and scale; an integral type's as a DECIMAL."""
    if data_type.type_name == "DECIMAL":
        precision, scale = data_type._name[data_type._name.index("(") + 1:-1].split(",")
        return int(precision), int(scale)
    return _INTEGRAL_PRECISION[data_type.type_name], 0


def decimal_arithmetic_type(symbol: str, left: DataType, right: DataType) -> DataType:
    """The DECIMAL type of ``left symbol right`` as Flink derives it (precision at most 38, keeping
    at least 6 fraction digits when it must shorten)."""
    (p1, s1), (p2, s2) = _precision_scale(left), _precision_scale(right)
    if symbol in "+-":
        scale = max(s1, s2)
        precision = max(p1 - s1, p2 - s2) + scale + 1
    elif symbol == "*":
        precision, scale = p1 + p2 + 1, s1 + s2
    elif symbol == "/":
        scale = max(6, s1 + p2 + 1)
        precision = p1 - s1 + s2 + scale
    else:  # %
        scale = max(s1, s2)
        precision = min(p1 - s1, p2 - s2) + scale
    if precision > MAX_DECIMAL_PRECISION:
        scale = max(MAX_DECIMAL_PRECISION - (precision - scale), min(scale, 6))
        precision = MAX_DECIMAL_PRECISION
    return DataTypes.DECIMAL(precision, scale)


def _decimal_arithmetic(symbol: str, a: Any, b: Any, scale: int) -> decimal.Decimal:
    """``a symbol b`` of DECIMALs (or integers), rounded half up to ``scale`` digits as Flink rounds."""
    with decimal.localcontext(prec=2 * MAX_DECIMAL_PRECISION + 2):
        a, b = decimal.Decimal(a), decimal.Decimal(b)
        if symbol in "/%" and b == 0:
            raise ZeroDivisionError(f"Division by zero: {a} {symbol} 0")
        exact = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
                 "%": operator.mod}[symbol](a, b)
        return exact.quantize(decimal.Decimal(1).scaleb(-scale), decimal.ROUND_HALF_UP)


class Expression(BuiltinMethods, JsonMethods):
    """A column expression: its Spark Column, its Python value for a row (``evaluate``), its SQL
    type given the input columns' types, and its name (a column's own, an alias, or None: named by
    position). An aggregate (``col('v').sum``) is evaluated by the grouping operator. Flink's built-in
    functions are its methods (kindling/table/builtins.py)."""

    def __init__(self, column: Callable[[], Any], data_type: Callable[[Dict[str, DataType]], DataType],
                 text: str, name: Optional[str] = None, evaluate: Optional[Callable[[Dict[str, Any]], Any]] = None,
                 children: Tuple["Expression", ...] = (), aggregate: Optional["Aggregate"] = None):
        self._column = column
        self._data_type = data_type
        self._text = text
        self._name = name
        self._evaluate = evaluate if evaluate is not None else (lambda env: env[id(self)])
        self._children = children
        self._aggregate = aggregate

    def alias(self, name: str, *extra_names: str) -> "Expression":
        """The expression named ``name`` in the result."""
        if extra_names and getattr(self._aggregate, "kind", None) == "udaf":  # aggregate(f(...).alias('a', 'b'))
            aliased = Expression(self._column, self._data_type, self._text, None, None, self._children,
                                 self._aggregate)  # its own value: evaluate reads the result of its id
            aliased._aliases = [name, *extra_names]
            return aliased
        if extra_names:
            raise ValueError("alias with several names is for table functions: use Table.alias(...) after "
                             "flat_map / join_lateral")
        aliased = Expression(self._column, self._data_type, f"{self._text} AS {name}", name, self._evaluate,
                             (self,))
        aliased._window_bound = getattr(self, "_window_bound", False)
        return aliased

    def spark_column(self, columns: Dict[str, DataType]):
        """The Spark Column, cast to the Spark type of the expression's SQL type."""
        return self._column().cast(self._data_type(columns).type_info().to_spark_type())

    def evaluate(self, env: Dict[Any, Any]) -> Any:
        """The value for one row: ``env`` maps column names (and aggregates) to values."""
        return self._evaluate(env)

    def aggregates(self) -> List["Expression"]:
        """The aggregate expressions in this one, outermost first."""
        if self._aggregate is not None:
            return [self]
        return [a for child in self._children for a in child.aggregates()]

    def columns(self) -> List[str]:
        """The columns this expression reads outside its aggregates."""
        if self._aggregate is not None:
            return []
        own = [self._name] if not self._children and getattr(self, "_is_column", False) else []
        return own + [c for child in self._children for c in child.columns()]

    def needs_python(self) -> bool:
        """Whether a Python function (a UDF) is part of the expression."""
        return getattr(self, "_python_function", False) or any(c.needs_python() for c in self._children)

    # -- operators ----------------------------------------------------------------------------

    def _arithmetic(self, other: Any, symbol: str, reverse: bool = False, negation: bool = False) -> "Expression":
        """``self symbol other`` (``other symbol self`` when ``reverse``); ``negation``: ``0 - self``,
        typed as ``self`` when a DECIMAL (SQL's unary minus)."""
        left, right = (_expr(other), self) if reverse else (self, _expr(other))

        decimal_scale, decimal_operands = [], []  # of a DECIMAL result, known once the operands' types are

        def data_type(columns: Dict[str, DataType]) -> DataType:
            operands = [left._data_type(columns), right._data_type(columns)]
            types = [t.type_name for t in operands]
            if not all(t in NUMERIC or t == "DECIMAL" for t in types):
                raise ValueError(f"'{left._text} {symbol} {right._text}': {symbol} needs numeric operands, got "
                                 f"{' and '.join(types)}")
            if "DECIMAL" in types and not {"FLOAT", "DOUBLE"} & set(types):
                result = operands[1] if negation else decimal_arithmetic_type(symbol, *operands)
                decimal_scale[:] = [_precision_scale(result)[1]]
                decimal_operands[:] = [_precision_scale(t) for t in operands]
            elif symbol == "%":  # as Calcite types MOD: the divisor's type
                result = getattr(DataTypes, types[1])()
            else:
                result = getattr(DataTypes, max((t for t in types if t != "DECIMAL"), key=NUMERIC.index))()
            return result if any(t._nullable for t in operands) else result.not_null()

        python = _ARITHMETIC.get(symbol) or (_python_divide if symbol == "/" else _python_modulo)
        spark = _SPARK_ARITHMETIC[symbol]

        def column():
            if decimal_operands:  # Spark computes in the operands' own precision and scale, as Flink
                from pyspark.sql.types import DecimalType

                (p1, s1), (p2, s2) = decimal_operands
                return spark(left._column().cast(DecimalType(p1, s1)), right._column().cast(DecimalType(p2, s2)))
            return spark(left._column(), right._column())

        def evaluate(env):
            a, b = left._evaluate(env), right._evaluate(env)
            if a is None or b is None:
                return None
            if decimal_scale and not isinstance(a, float) and not isinstance(b, float):
                return _decimal_arithmetic(symbol, a, b, decimal_scale[0])
            return python(float(a) if isinstance(b, float) else a, float(b) if isinstance(a, float) else b)

        return Expression(column, data_type, f"({left._text} {symbol} {right._text})", evaluate=evaluate,
                          children=(left, right))

    def _boolean(self, other: Any, symbol: str, operate: Callable[[Any, Any], Any],
                 python: Callable[[Any, Any], Any]) -> "Expression":
        right = _expr(other)

        def evaluate(env):
            return python(self._evaluate(env), right._evaluate(env))

        return Expression(lambda: operate(self._column(), right._column()), lambda _: DataTypes.BOOLEAN(),
                          f"({self._text} {symbol} {right._text})", evaluate=evaluate, children=(self, right))

    def _comparison(self, other: Any, symbol: str, compare: Callable[[Any, Any], Any]) -> "Expression":
        return self._boolean(other, symbol, compare,
                             lambda a, b: None if a is None or b is None else compare(a, b))

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
    def __eq__(self, other):  # type: ignore[override]
        equals = self._comparison(other, "===", operator.eq)
        equals._equals = True  # an equi-join key when both sides are columns
        return equals

    def __ne__(self, other): return self._comparison(other, "!==", operator.ne)  # type: ignore[override]
    def __lt__(self, other): return self._comparison(other, "<", operator.lt)
    def __le__(self, other): return self._comparison(other, "<=", operator.le)
    def __gt__(self, other): return self._comparison(other, ">", operator.gt)
    def __ge__(self, other): return self._comparison(other, ">=", operator.ge)

    def __and__(self, other):
        # SQL's three-valued AND: false wins over null
        conjunction = self._boolean(other, "&&", operator.and_,
                                    lambda a, b: False if a is False or b is False else None if a is None or b is None
                                    else True)
        conjunction._and = True
        return conjunction

    def __or__(self, other):
        return self._boolean(other, "||", operator.or_,
                             lambda a, b: True if a is True or b is True else None if a is None or b is None
                             else False)

    def __invert__(self) -> "Expression":
        return Expression(lambda: ~self._column(), lambda _: DataTypes.BOOLEAN(), f"!{self._text}",
                          evaluate=lambda env: None if self._evaluate(env) is None else not self._evaluate(env),
                          children=(self,))

    # -- time intervals (``lit(5).seconds``) and window properties (``col('w').start``) ----------

    def _interval(self, unit_ms: int) -> "Expression":
        amount = self._evaluate({})
        interval = Expression(lambda: None, lambda _: DataTypes.BIGINT().not_null(), f"{self._text} * {unit_ms} ms",
                              evaluate=lambda env: amount * unit_ms)
        interval._interval_ms = int(amount * unit_ms)
        return interval

    milli = millis = property(lambda self: self._interval(1))
    second = seconds = property(lambda self: self._interval(1000))
    minute = minutes = property(lambda self: self._interval(60_000))
    hour = hours = property(lambda self: self._interval(3_600_000))
    day = days = property(lambda self: self._interval(86_400_000))

    def _window_property(self, which: str) -> "Expression":
        from kindling.table.window_aggregate import WINDOW_BOUNDS

        expression = Expression(lambda: None, lambda _: DataTypes.TIMESTAMP(3).not_null(), f"{which}({self._text})",
                                evaluate=lambda env: env[WINDOW_BOUNDS][which], children=(self,))
        expression._python_function = True
        expression._window_bound = True
        expression._window_which = which
        return expression

    start = property(lambda self: self._window_property("start"))
    end = property(lambda self: self._window_property("end"))
    rowtime = property(lambda self: self._window_property("rowtime"))

    # -- aggregates (``col('v').sum``), as PyFlink's properties ---------------------------------

    @property
    def count(self) -> "Expression": return _aggregate("count", self)
    @property
    def sum(self) -> "Expression": return _aggregate("sum", self)
    @property
    def sum0(self) -> "Expression": return _aggregate("sum0", self)
    @property
    def avg(self) -> "Expression": return _aggregate("avg", self)
    @property
    def min(self) -> "Expression": return _aggregate("min", self)
    @property
    def max(self) -> "Expression": return _aggregate("max", self)

    def over(self, alias: Any) -> "Expression":
        """The aggregate over the OVER window ``alias`` (``col('v').sum.over(col('w'))``), for
        ``over_window(...).select``."""
        if self._aggregate is None:
            raise ValueError(f"over applies to an aggregate (col('v').sum.over(col('w'))), not to {self._text}")
        window = getattr(alias, "_name", alias)
        call = Expression(lambda: None, self._data_type, f"{self._text} OVER {window}",
                          evaluate=lambda env: env[call._over_column])
        call._over_aggregate, call._over_window, call._python_function = self, window, True
        return call

    @property
    def asc(self) -> "Expression":
        """Ascending order, for ``order_by``."""
        return self

    @property
    def desc(self) -> "Expression":
        """Descending order, for ``order_by``."""
        descending = Expression(self._column, self._data_type, f"{self._text} DESC", self._name, self._evaluate,
                                (self,))
        descending._descending = True
        return descending

    @property
    def distinct(self) -> "Expression":
        """``col('v').count.distinct``: the aggregate over distinct values."""
        if self._aggregate is None:
            raise ValueError(f"distinct applies to an aggregate (col('v').count.distinct), not to {self._text}")
        return _aggregate(self._aggregate.kind, self._children[0], distinct=True)

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise TypeError(f"The expression {self._text} has no truth value in Python: combine conditions with "
                        "& (and), | (or) and ~ (not)")

    def __str__(self) -> str:
        return self._text

    __repr__ = __str__


class Aggregate:
    """What an aggregate computes: its kind (``sum``, ``count``, ...) over an argument, with the
    Python accumulator the grouping operator keeps per group (it also retracts, for an updating
    input) and the Spark aggregate function of the same."""

    #: the type names of the aggregate's arguments (set by the operator computing it)
    argument_types: List[str] = []

    def __init__(self, kind: str, distinct: bool = False):
        self.kind = kind
        self.distinct = distinct

    def data_type(self, argument: DataType) -> DataType:
        if self.kind == "count":
            return DataTypes.BIGINT().not_null()
        if self.kind in ("sum", "sum0", "avg") and argument.type_name not in NUMERIC:
            raise ValueError(f"{self.kind.upper()} needs a numeric argument, got {argument!r}")
        typed = getattr(DataTypes, argument.type_name)() if argument.type_name in NUMERIC else argument.nullable()
        return typed.not_null() if self.kind == "sum0" else typed

    def spark_function(self):
        from pyspark.sql import functions

        if self.distinct:
            return {"count": functions.count_distinct, "sum": functions.sum_distinct}[self.kind]
        return {"count": functions.count, "sum": functions.sum, "avg": functions.avg, "min": functions.min,
                "max": functions.max, "sum0": lambda c: functions.coalesce(functions.sum(c), functions.lit(0))}[self.kind]

    # The accumulator is plain data (it lives in keyed state): [non-null count, value] where value
    # is the sum (sum, avg), or a dict value -> count (min, max, distinct: retractable).

    def create(self, float32: bool = False) -> list:
        """A new accumulator; ``float32`` sums a FLOAT argument in FLOAT arithmetic, as Flink does."""
        if self.distinct or self.kind in ("min", "max"):
            return [0, {}]
        if float32:
            import numpy

            return [0, numpy.float32(0)]
        return [0, 0]

    def accumulate(self, acc: list, values: List[Any], sign: int) -> None:
        """Adds (``sign`` 1) or retracts (-1) one row's argument values."""
        value = values[0]
        if value is None:
            return
        if isinstance(acc[1], dict):
            seen = acc[1]
            count = seen.get(value, 0) + sign
            if count > 0:
                seen[value] = count
            else:
                seen.pop(value, None)
            if self.distinct and (count > 1 or (sign < 0 and count > 0)):
                return  # a value seen before changes nothing distinct
            acc[0] += sign
            return
        acc[0] += sign
        if self.kind != "count":
            total = acc[1]
            acc[1] = total + (type(total)(sign * value) if type(total).__name__ == "float32" else sign * value)

    def result(self, acc: list, integral: bool) -> Any:
        count, value = acc
        if isinstance(value, dict):
            if self.kind == "count":
                return len(value)
            if self.kind in ("sum", "sum0", "avg"):
                total = sum(value)
                value = total
            else:
                return (min if self.kind == "min" else max)(value) if value else None
        if self.kind == "count":
            return count
        if type(value).__name__ == "float32":
            value = float(value)
        if self.kind == "sum0":
            return value if count else 0
        if not count:
            return None
        if self.kind == "avg":
            n = len(acc[1]) if isinstance(acc[1], dict) else count
            return _divide(value, n, True) if integral else value / n
        return value


def _aggregate(kind: str, argument: "Expression", distinct: bool = False) -> Expression:
    aggregate = Aggregate(kind, distinct)
    text = f"{kind}({'distinct ' if distinct else ''}{argument._text})"

    def column():
        return aggregate.spark_function()(argument._column())

    def data_type(columns: Dict[str, DataType]) -> DataType:
        return aggregate.data_type(argument._data_type(columns))

    return Expression(column, data_type, text, children=(argument,), aggregate=aggregate)


def col(name: str) -> Expression:
    """The column ``name``."""
    from pyspark.sql import functions

    def data_type(columns: Dict[str, DataType]) -> DataType:
        if name not in columns:
            raise ValueError(f"Column '{name}' not found in the table; columns: {list(columns)}")
        return columns[name]

    expression = Expression(lambda: functions.col(f"`{name}`"), data_type, name, name,
                            evaluate=lambda env: env[name])
    expression._is_column = True
    return expression


def lit(value: Any, data_type: Optional[DataType] = None) -> Expression:
    """A literal value: NOT NULL INT for Python ints in the INT range, BIGINT beyond, DOUBLE, BOOLEAN, CHAR(n)."""
    from pyspark.sql import functions

    if data_type is None:
        if isinstance(value, bool):
            data_type = DataTypes.BOOLEAN()
        elif isinstance(value, int):
            data_type = DataTypes.INT() if -2 ** 31 <= value < 2 ** 31 else DataTypes.BIGINT()
        elif isinstance(value, float):
            data_type = DataTypes.DOUBLE()
        elif isinstance(value, str):
            data_type = DataTypes.CHAR(len(value))  # as Flink types a string literal
        else:
            raise ValueError(f"lit({value!r}): literals of {type(value).__name__} are not supported by Kindling "
                             "yet; give a bool, int, float or str")
        data_type = data_type.not_null()  # as Flink types a literal
    fixed = data_type
    literal = Expression(lambda: functions.lit(value), lambda _: fixed,
                         repr(value) if isinstance(value, str) else str(value).lower() if isinstance(value, bool)
                         else str(value), evaluate=lambda env: value)
    literal._literal = (value,)
    return literal


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
    return ~_expr(expression)


def _over_bound(text: str, rows: bool, count: Optional[int]) -> Expression:
    bound = Expression(lambda: None, lambda _: DataTypes.BIGINT().not_null(), text, evaluate=lambda env: count)
    bound._over_bound = (rows, count)
    return bound


def row_interval(rows: int) -> Expression:
    """``rows`` rows before the current one, the start of an OVER window's frame."""
    return _over_bound(f"{rows} ROWS", True, int(rows))


#: the bounds of an OVER window's frame: all rows (or all times) before, the current row (or time)
UNBOUNDED_ROW = _over_bound("UNBOUNDED_ROW", True, None)
UNBOUNDED_RANGE = _over_bound("UNBOUNDED_RANGE", False, None)
CURRENT_ROW = _over_bound("CURRENT_ROW", True, 0)
CURRENT_RANGE = _over_bound("CURRENT_RANGE", False, 0)


def call(f: Any, *args: Any) -> Expression:
    """A call of a function: a user-defined function (its object or its registered name) or a
    built-in aggregate by name (``call('sum', col('v'))``)."""
    arguments = [_expr(a) if not isinstance(a, str) else col(a) for a in args]
    if isinstance(f, str):
        name = f.lower()
        if name in ("count", "sum", "sum0", "avg", "min", "max") and len(arguments) == 1:
            return _aggregate(name, arguments[0])
        from kindling.table.udf import registered_function

        f = registered_function(name)
    return f(*arguments)


EPOCH = datetime.datetime(1970, 1, 1)


def to_timestamp(value: Any, format: Any = None) -> Any:
    """PyFlink's ``to_timestamp(timestamp_str[, format])`` of a string (expression): its TIMESTAMP(3)
    (kindling/table/builtins.py). Of a time value (an Instant, epoch ms), the TIMESTAMP value Kindling's
    operators hold: a naive datetime, UTC as Kindling's session time zone."""
    if isinstance(value, (Expression, str)):
        from kindling.table import builtins

        return builtins.to_timestamp(value, format)
    if isinstance(value, datetime.datetime):
        return value
    millis = value.to_epoch_milli() if hasattr(value, "to_epoch_milli") else int(value)
    return EPOCH + datetime.timedelta(milliseconds=millis)


def to_instant(value: Any):
    """A TIMESTAMP_LTZ value (an Instant) of a TIMESTAMP's datetime (UTC) or epoch ms."""
    from kindling.common.time import Instant

    if isinstance(value, Instant):
        return value
    if isinstance(value, datetime.datetime):
        return Instant.of_epoch_milli(epoch_millis(value))
    return Instant.of_epoch_milli(int(value))


def epoch_millis(value: datetime.datetime) -> int:
    return (value - EPOCH) // datetime.timedelta(milliseconds=1)


def _expr(value: Any) -> Expression:
    return value if isinstance(value, Expression) else lit(value)


def unaliased(expression: Expression) -> Expression:
    """The expression an alias names (the expression itself when it is no alias)."""
    while expression._aggregate is None and len(expression._children) == 1 and \
            expression._column is expression._children[0]._column:
        expression = expression._children[0]
    return expression
