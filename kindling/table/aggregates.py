"""Flink's built-in aggregate functions beyond COUNT/SUM/AVG/MIN/MAX (kindling/table/expressions.py):
``var_pop``, ``var_samp``, ``stddev_pop``, ``stddev_samp``, ``first_value``, ``last_value``,
``list_agg`` and ``array_agg``. Their accumulators are plain data in the grouping operator's keyed state
and retract (for an updating input); they are computed by Kindling's Python aggregation operators.

Example::

    table.group_by(col('k')).select(col('k'), col('v').stddev_pop, col('name').list_agg(';'))
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, List, Optional

from kindling.table.expressions import NUMERIC, Aggregate, Expression
from kindling.table.types import DataType, DataTypes

__all__ = ["PercentileAggregate", "SequenceAggregate", "VarianceAggregate", "aggregate_call", "percentile_call"]


class VarianceAggregate(Aggregate):
    """VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP as Flink computes them: ``(SUM(x*x) - SUM(x) * SUM(x) /
    COUNT(x)) / COUNT(x)`` (``COUNT(x) - 1`` for samples), exactly for integers and cut to an integer at
    the end, and its square root for the deviations."""

    def data_type(self, argument: DataType) -> DataType:
        if argument.type_name not in NUMERIC:
            raise ValueError(f"{self.kind.upper()} needs a numeric argument, got {argument!r}")
        return getattr(DataTypes, argument.type_name)()

    def create(self, float32: bool = False) -> list:
        return [0, 0, 0]  # count, sum, sum of squares

    def accumulate(self, acc: list, values: List[Any], sign: int) -> None:
        value = values[0]
        if value is not None:
            acc[0] += sign
            acc[1] += sign * value
            acc[2] += sign * value * value

    def result(self, acc: list, integral: bool) -> Any:
        count, total, squares = acc
        divisor = count - 1 if self.kind.endswith("samp") else count
        if count == 0 or divisor == 0:
            return None
        if integral:
            variance = (squares - Fraction(total * total, count)) / divisor
        else:
            variance = (squares - total * total / count) / divisor
        if self.kind.startswith("stddev"):
            deviation = math.sqrt(variance) if variance >= 0 else math.nan
            return int(deviation) if integral else deviation
        return int(variance) if integral else variance


class SequenceAggregate(Aggregate):
    """FIRST_VALUE, LAST_VALUE (of the non-null values), LISTAGG (the non-null values as text between a
    separator) and ARRAY_AGG (all values), in arrival order; a retraction removes the value's earliest
    occurrence."""

    def __init__(self, kind: str, separator: Optional[str] = None):
        super().__init__(kind)
        self.separator = "," if separator is None else separator

    def data_type(self, argument: DataType) -> DataType:
        if self.kind == "list_agg":
            return DataTypes.STRING()
        if self.kind == "array_agg":
            return DataTypes.ARRAY(argument)
        return argument.nullable()

    def create(self, float32: bool = False) -> list:
        return []

    def accumulate(self, acc: list, values: List[Any], sign: int) -> None:
        value = values[0]
        if value is None and self.kind != "array_agg":
            return
        if sign > 0:
            acc.append(value)
        elif value in acc:
            acc.remove(value)

    def result(self, acc: list, integral: bool) -> Any:
        if not acc:
            return None
        if self.kind == "first_value":
            return acc[0]
        if self.kind == "last_value":
            return acc[-1]
        if self.kind == "list_agg":
            return self.separator.join(str(v) for v in acc)
        return list(acc)


class PercentileAggregate(Aggregate):
    """PERCENTILE(x, p[, frequency]): the exact ``p``-th percentile (0 <= p <= 1) of the values, each counted
    ``frequency`` times, between the two nearest values as Flink interpolates it; a DOUBLE."""

    def __init__(self, percentage: float):
        super().__init__("percentile")
        if not 0 <= percentage <= 1:
            raise ValueError(f"percentile: the percentage must be between 0.0 and 1.0, got {percentage}")
        self.percentage = percentage

    def data_type(self, argument: DataType) -> DataType:
        if argument.type_name not in NUMERIC + ["DECIMAL"]:
            raise ValueError(f"PERCENTILE needs a numeric argument, got {argument!r}")
        return DataTypes.DOUBLE()

    def create(self, float32: bool = False) -> dict:
        return {}  # value -> how many times

    def accumulate(self, acc: dict, values: List[Any], sign: int) -> None:
        value, frequency = values[0], values[1] if len(values) > 1 else 1
        if value is None or frequency is None:
            return
        count = acc.get(value, 0) + sign * frequency
        if count > 0:
            acc[value] = count
        else:
            acc.pop(value, None)

    def result(self, acc: dict, integral: bool) -> Any:
        total = sum(acc.values())
        if not total:
            return None
        position = (total - 1) * self.percentage
        lower, upper = math.floor(position), math.ceil(position)
        values, seen = {}, 0
        for value in sorted(acc):
            for rank in (lower, upper):
                if seen <= rank < seen + acc[value]:
                    values[rank] = float(value)
            seen += acc[value]
        return values[lower] + (position - lower) * (values[upper] - values[lower])


def aggregate_call(kind: str, argument: Expression, separator: Optional[str] = None) -> Expression:
    """The aggregate ``kind`` of ``argument`` (``col('v').stddev_pop``)."""
    aggregate = VarianceAggregate(kind) if kind in ("var_pop", "var_samp", "stddev_pop", "stddev_samp") else \
        SequenceAggregate(kind, separator)

    def column():
        raise AssertionError(f"{kind} is computed by Kindling's Python aggregation operators")

    return Expression(column, lambda columns: aggregate.data_type(argument._data_type(columns)), f"{kind}({argument})",
                      children=(argument,), aggregate=aggregate)


def percentile_call(argument: Expression, percentage: Any, frequency: Any = None) -> Expression:
    """``col('v').percentile(0.5)``: the median of the values (each counted ``frequency`` times)."""
    from kindling.table.builtins import literal
    from kindling.table.expressions import _expr

    value = literal(percentage)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise ValueError(f"percentile takes a literal percentage between 0.0 and 1.0 (Kindling: not an array), "
                         f"got {percentage!r}")
    aggregate = PercentileAggregate(float(value))
    arguments = (argument,) if frequency is None else (argument, _expr(frequency))

    def column():
        raise AssertionError("percentile is computed by Kindling's Python aggregation operators")

    return Expression(column, lambda columns: aggregate.data_type(argument._data_type(columns)),
                      f"percentile({argument}, {value})", children=arguments, aggregate=aggregate)
