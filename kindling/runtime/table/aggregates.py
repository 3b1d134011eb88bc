"""The accumulators of Flink's aggregate functions as Kindling's grouping operators keep them: plain
data in keyed state, retracting for an updating input. ``accumulator_of`` gives the one of an
aggregate call: COUNT, SUM, SUM0, AVG, MIN, MAX (DISTINCT too), VAR_POP, VAR_SAMP, STDDEV_POP,
STDDEV_SAMP, FIRST_VALUE, LAST_VALUE, LISTAGG, ARRAY_AGG, PERCENTILE, LAG (of an OVER window) and user
aggregate functions."""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, List, Tuple

from kindling.runtime.table.functions import divide

__all__ = ["Aggregate", "LagAggregate", "PercentileAggregate", "SequenceAggregate", "UserAggregate",
           "VarianceAggregate", "accumulator_of"]


class Aggregate:
    """COUNT, SUM, SUM0, AVG, MIN and MAX (``kind``), maybe of DISTINCT values. The accumulator is
    [non-null count, value] where value is the sum (sum, avg), or a dict value -> count (min, max,
    distinct: retractable)."""

    #: the type names of the aggregate's arguments (set by the operator computing it)
    argument_types: List[str] = []

    def __init__(self, kind: str, distinct: bool = False):
        self.kind = kind
        self.distinct = distinct

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
                value = sum(value)
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
            return divide(value, n, True) if integral else value / n
        return value


class VarianceAggregate(Aggregate):
    """VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP as Flink computes them: ``(SUM(x*x) - SUM(x) * SUM(x) /
    COUNT(x)) / COUNT(x)`` (``COUNT(x) - 1`` for samples), exactly for integers and cut to an integer at
    the end, and its square root for the deviations."""

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

    def __init__(self, kind: str, separator: Any = None):
        super().__init__(kind)
        self.separator = "," if separator is None else separator

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
        self.percentage = percentage

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


class LagAggregate(Aggregate):
    """LAG of an OVER window (streaming, as Flink's): the value ``offset`` rows before the last row
    accumulated, else ``default``. The accumulator is the last ``offset + 1`` values; an OVER with
    LAG has no bounded frame (Flink: "ROW/RANGE not allowed"), so nothing retracts."""

    def __init__(self, offset: int, default: Any):
        super().__init__("lag")
        self.offset, self.default = offset, default

    def create(self, float32: bool = False) -> list:
        return []

    def accumulate(self, acc: list, values: List[Any], sign: int) -> None:
        if sign < 0:
            raise ValueError("LAG takes no bounded OVER frame: nothing leaves its window")
        acc.append(values[0])
        del acc[:-(self.offset + 1)]

    def result(self, acc: list, integral: bool) -> Any:
        return acc[-1 - self.offset] if len(acc) > self.offset else self.default


class UserAggregate(Aggregate):
    """A user aggregate function's accumulator calls (``function``: udaf's or udtaf's wrapper)."""

    def __init__(self, function: Any):
        super().__init__("udaf")
        self.function = function

    def create(self, float32: bool = False):
        if self.function._func_type == "pandas":
            return []
        return self.function._object().create_accumulator()

    def accumulate(self, acc, values: List[Any], sign: int) -> None:
        if "TIMESTAMP_LTZ" in self.argument_types:  # as PyFlink hands them to Python functions
            from kindling.common.time import utc_datetime

            types = self.argument_types
            values = [utc_datetime(v) if i < len(types) and types[i] == "TIMESTAMP_LTZ" else v
                      for i, v in enumerate(values)]
        if self.function._func_type == "pandas":
            acc.append(values) if sign > 0 else acc.remove(values)
        elif sign > 0:
            self.function._object().accumulate(acc, *values)
        else:
            self.function._object().retract(acc, *values)

    def result(self, acc, integral: bool) -> Any:
        if self.function._func_type == "pandas":
            from kindling.runtime.table.pandas_functions import series_of

            # the group's whole Series, of their column's dtype as in PyFlink (FLOAT ones compute in float32)
            types = self.argument_types
            columns = [series_of(list(values), types[i] if i < len(types) else "")
                       for i, values in enumerate(zip(*acc))]
            import numpy

            result = self.function._callable()(*columns)
            # a numpy scalar (``Series.sum()``): its Python value, as PyFlink converts it
            return result.item() if isinstance(result, numpy.generic) else result
        if self.function._table_aggregate:
            return list(self.function._object().emit_value(acc))
        return self.function._object().get_value(acc)


def accumulator_of(function: Any, distinct: bool = False, parameters: Tuple[Any, ...] = ()) -> Aggregate:
    """The accumulator of an aggregate call: ``function`` a built-in aggregate's name or a user
    aggregate function's wrapper; ``parameters`` LISTAGG's separator or PERCENTILE's percentage."""
    if not isinstance(function, str):
        return UserAggregate(function)
    if function in ("var_pop", "var_samp", "stddev_pop", "stddev_samp"):
        return VarianceAggregate(function)
    if function in ("first_value", "last_value", "list_agg", "array_agg"):
        return SequenceAggregate(function, *parameters)
    if function == "percentile":
        return PercentileAggregate(*parameters)
    if function == "lag":
        return LagAggregate(*parameters)
    return Aggregate(function, distinct)
