"""``pyflink.table.expressions``: column expressions of the Table API (``col('a') + 1``), evaluated
as Spark SQL column expressions, in Spark's JVM operators.

Example::

    table.select(col('id'), (col('score') * 2).alias('double_score')).where(col('score') > 10)
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional

from kindling.table.types import DataType, DataTypes

__all__ = ["Expression", "col", "lit"]

#: numeric types, narrowest first: arithmetic results take the wider operand's type, as in Flink
NUMERIC = ["TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE"]


class Expression:
    """A column expression: how to build its Spark Column, its SQL type given the input columns'
    types, and its name (a column's own name, an alias, or None: named by position)."""

    def __init__(self, column: Callable[[], Any], data_type: Callable[[Dict[str, DataType]], DataType],
                 text: str, name: Optional[str] = None):
        self._column = column
        self._data_type = data_type
        self._text = text
        self._name = name

    def alias(self, name: str, *extra_names: str) -> "Expression":
        """The expression named ``name`` in the result."""
        if extra_names:
            raise ValueError("alias with several names is for table functions, which Kindling does not have yet")
        return Expression(self._column, self._data_type, f"{self._text} AS {name}", name)

    def spark_column(self, columns: Dict[str, DataType]):
        """The Spark Column, cast to the Spark type of the expression's SQL type."""
        return self._column().cast(self._data_type(columns).type_info().to_spark_type())

    def _arithmetic(self, other: Any, symbol: str, reverse: bool = False) -> "Expression":
        left, right = (_expr(other), self) if reverse else (self, _expr(other))

        def data_type(columns: Dict[str, DataType]) -> DataType:
            types = [left._data_type(columns).type_name, right._data_type(columns).type_name]
            if not all(t in NUMERIC for t in types):
                raise ValueError(f"'{left._text} {symbol} {right._text}': {symbol} needs numeric operands, got "
                                 f"{' and '.join(types)}")
            return getattr(DataTypes, max(types, key=NUMERIC.index))()

        operate = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}[symbol]
        return Expression(lambda: operate(left._column(), right._column()), data_type,
                          f"({left._text} {symbol} {right._text})")

    def _boolean(self, other: Any, symbol: str, operate: Callable[[Any, Any], Any]) -> "Expression":
        right = _expr(other)
        return Expression(lambda: operate(self._column(), right._column()), lambda _: DataTypes.BOOLEAN(),
                          f"({self._text} {symbol} {right._text})")

    def __add__(self, other): return self._arithmetic(other, "+")
    def __radd__(self, other): return self._arithmetic(other, "+", True)
    def __sub__(self, other): return self._arithmetic(other, "-")
    def __rsub__(self, other): return self._arithmetic(other, "-", True)
    def __mul__(self, other): return self._arithmetic(other, "*")
    def __rmul__(self, other): return self._arithmetic(other, "*", True)
    def __eq__(self, other): return self._boolean(other, "===", lambda a, b: a == b)  # type: ignore[override]
    def __ne__(self, other): return self._boolean(other, "!==", lambda a, b: a != b)  # type: ignore[override]
    def __lt__(self, other): return self._boolean(other, "<", lambda a, b: a < b)
    def __le__(self, other): return self._boolean(other, "<=", lambda a, b: a <= b)
    def __gt__(self, other): return self._boolean(other, ">", lambda a, b: a > b)
    def __ge__(self, other): return self._boolean(other, ">=", lambda a, b: a >= b)
    def __and__(self, other): return self._boolean(other, "&&", lambda a, b: a & b)
    def __or__(self, other): return self._boolean(other, "||", lambda a, b: a | b)

    def __invert__(self) -> "Expression":
        return Expression(lambda: ~self._column(), lambda _: DataTypes.BOOLEAN(), f"!{self._text}")

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise TypeError(f"The expression {self._text} has no truth value in Python: combine conditions with "
                        "& (and), | (or) and ~ (not)")

    def __str__(self) -> str:
        return self._text

    __repr__ = __str__


def col(name: str) -> Expression:
    """The column ``name``."""
    from pyspark.sql import functions

    def data_type(columns: Dict[str, DataType]) -> DataType:
        if name not in columns:
            raise ValueError(f"Column '{name}' not found in the table; columns: {list(columns)}")
        return columns[name]

    return Expression(lambda: functions.col(f"`{name}`"), data_type, name, name)


def lit(value: Any, data_type: Optional[DataType] = None) -> Expression:
    """A literal value: NOT NULL INT for Python ints in the INT range, BIGINT beyond, DOUBLE, BOOLEAN, STRING."""
    from pyspark.sql import functions

    if data_type is None:
        if isinstance(value, bool):
            data_type = DataTypes.BOOLEAN()
        elif isinstance(value, int):
            data_type = DataTypes.INT() if -2 ** 31 <= value < 2 ** 31 else DataTypes.BIGINT()
        elif isinstance(value, float):
            data_type = DataTypes.DOUBLE()
        elif isinstance(value, str):
            data_type = DataTypes.STRING()
        else:
            raise ValueError(f"lit({value!r}): literals of {type(value).__name__} are not supported by Kindling "
                             "yet; give a bool, int, float or str")
        data_type = data_type.not_null()  # as Flink types a literal
    fixed = data_type
    return Expression(lambda: functions.lit(value), lambda _: fixed,
                      repr(value) if isinstance(value, str) else str(value).lower() if isinstance(value, bool)
                      else str(value))


def _expr(value: Any) -> Expression:
    return value if isinstance(value, Expression) else lit(value)
