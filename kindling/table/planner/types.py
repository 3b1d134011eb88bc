"""How the planner derives SQL types, as Flink derives them: arithmetic on numbers (DECIMAL precision
and scale included), the common type of several values, the type of a literal."""
from __future__ import annotations

import datetime
import decimal
from typing import Any, List, Tuple

from kindling.table.types import DataType, DataTypes

__all__ = ["INTEGRAL", "MAX_DECIMAL_PRECISION", "NUMERIC", "STRINGS", "arithmetic_type", "common_type",
           "decimal_arithmetic_type", "literal_type", "precision_scale", "value_type"]

#: numeric types, narrowest first: arithmetic results take the wider operand's type, as in Flink
NUMERIC = ["TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE"]
INTEGRAL = NUMERIC[:4]
STRINGS = ("STRING", "VARCHAR", "CHAR")
MAX_DECIMAL_PRECISION = 38
_INTEGRAL_PRECISION = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}


def precision_scale(data_type: DataType) -> Tuple[int, int]:
    """A DECIMAL's precision and scale; an integral type's as a DECIMAL."""
    if data_type.type_name == "DECIMAL":
        precision, scale = data_type._name[data_type._name.index("(") + 1:-1].split(",")
        return int(precision), int(scale)
    return _INTEGRAL_PRECISION[data_type.type_name], 0


def decimal_arithmetic_type(symbol: str, left: DataType, right: DataType) -> DataType:
    """The DECIMAL type of ``left symbol right`` as Flink derives it (precision at most 38, keeping
    at least 6 fraction digits when it must shorten)."""
    (p1, s1), (p2, s2) = precision_scale(left), precision_scale(right)
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


def arithmetic_type(symbol: str, left: DataType, right: DataType, negation: bool = False) -> DataType:
    """The type of ``left symbol right`` of numeric operands (``negation``: SQL's unary minus written
    ``0 - right``, which keeps a DECIMAL's type); nullable when an operand is."""
    names = [left.type_name, right.type_name]
    if "DECIMAL" in names and not {"FLOAT", "DOUBLE"} & set(names):
        result = right if negation else decimal_arithmetic_type(symbol, left, right)
    elif symbol == "%":  # as Calcite types MOD: the divisor's type
        result = getattr(DataTypes, names[1])()
    else:
        result = getattr(DataTypes, max((t for t in names if t != "DECIMAL"), key=NUMERIC.index))()
    return result.nullable() if left._nullable or right._nullable else result.not_null()


def common_type(types: List[DataType], what: str) -> DataType:
    """The type values of ``types`` share (numbers: the widest, DECIMALs with integers the DECIMAL holding
    every one's digits, with floats DOUBLE; strings: STRING), nullable if one is."""
    names = [t.type_name for t in types]
    if "DECIMAL" in names and all(n in INTEGRAL or n == "DECIMAL" for n in names):
        digits_scale = [precision_scale(t) for t in types]
        scale = max(s for _, s in digits_scale)
        widest = DataTypes.DECIMAL(min(max(p - s for p, s in digits_scale) + scale, MAX_DECIMAL_PRECISION), scale)
    elif all(n in NUMERIC or n == "DECIMAL" for n in names):  # a float or a double with decimals: DOUBLE
        widest = getattr(DataTypes, max((n for n in names if n != "DECIMAL"), key=NUMERIC.index))()
        if "DECIMAL" in names:
            widest = DataTypes.DOUBLE()
    elif all(n in STRINGS for n in names):  # CHAR(n)s of one length stay CHAR, other lengths make VARCHAR
        lengths = [int(t._name[t._name.index("(") + 1:-1]) if "(" in t._name else None for t in types]
        widest = DataTypes.STRING() if None in lengths else types[0] if len(set(t._name for t in types)) == 1 \
            else DataTypes.VARCHAR(max(lengths))
    elif len(set(n for n in names if n != "NULL")) == 1:
        widest = next(t for t in types if t.type_name != "NULL")
    else:
        raise ValueError(f"{what}: the arguments have no common type: {types}")
    return widest.nullable() if any(t._nullable for t in types) else widest.not_null()


def literal_type(value: Any) -> DataType:
    """The type Flink gives a literal: NOT NULL INT for Python ints in the INT range, BIGINT beyond,
    DOUBLE, BOOLEAN, CHAR(n)."""
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
    return data_type.not_null()


def value_type(value: Any) -> DataType:
    """A type of a value found in a row whose column types are unknown (NULL for None): TRANSITION, for
    Expression.evaluate of an expression never typed (a table function's arguments)."""
    from kindling.common.time import Instant

    if value is None:
        return DataTypes.NULL()
    if isinstance(value, (bool, int, float)):
        return literal_type(value).nullable()
    if isinstance(value, str):
        return DataTypes.STRING()
    if isinstance(value, decimal.Decimal):
        exponent = value.as_tuple().exponent
        scale = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        return DataTypes.DECIMAL(MAX_DECIMAL_PRECISION, min(scale, MAX_DECIMAL_PRECISION))
    if isinstance(value, datetime.datetime):
        return DataTypes.TIMESTAMP(6)
    if isinstance(value, datetime.date):
        return DataTypes.DATE()
    if isinstance(value, datetime.time):
        return DataTypes.TIME(0)
    if isinstance(value, Instant):
        return DataTypes.TIMESTAMP_LTZ(3)
    if isinstance(value, (bytes, bytearray)):
        return DataTypes.BYTES()
    return DataTypes.NULL()
