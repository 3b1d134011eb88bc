"""Pandas functions (``func_type='pandas'``) as PyFlink calls them: on pandas Series of a whole batch
of rows, each column's Series of the dtype PyFlink's Arrow conversion gives it, and the result a
Series as long as the batch, its nulls (None, NaN) null values.

Example::

    centered = udf(lambda s: s - s.mean(), result_type=DataTypes.DOUBLE(), func_type='pandas')
    scalar_results(centered, [series_of([1.0, 3.0], 'DOUBLE')], 2)   # [-1.0, 1.0]
"""
from __future__ import annotations

import math
from typing import Any, List

__all__ = ["scalar_results", "series_of"]

#: the dtype of a column of each type without nulls, as Arrow's ``to_pandas`` makes it (others: objects)
_DTYPES = {"TINYINT": "int8", "SMALLINT": "int16", "INT": "int32", "INTEGER": "int32", "BIGINT": "int64",
           "FLOAT": "float32", "DOUBLE": "float64", "BOOLEAN": "bool"}
_INTEGRAL = ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT")


def series_of(values: List[Any], type_name: str) -> Any:
    """The pandas Series PyFlink gives a pandas function for a column of ``type_name`` holding
    ``values``: integers with nulls as float64 (NaN), booleans with nulls as objects, TIMESTAMP_LTZ
    values as UTC timestamps, as Arrow does."""
    import pandas

    if type_name == "TIMESTAMP_LTZ":
        from kindling.common.time import utc_timestamps

        return utc_timestamps(values)
    dtype = _DTYPES.get(type_name)
    if dtype is not None and any(v is None for v in values):
        dtype = dtype if dtype.startswith("float") else object if dtype == "bool" else "float64"
    return pandas.Series(values, dtype=dtype)


def scalar_results(function: Any, arguments: List[Any], length: int) -> List[Any]:
    """The values of the pandas scalar function ``function`` (udf's wrapper) called once with
    ``arguments`` (Series of ``length`` rows, or a literal's value): a result of another type or
    length fails naming the function and the fix, as in PyFlink."""
    import pandas

    result = function._callable()(*arguments)
    name = function._name
    if isinstance(result, pandas.DataFrame):  # a ROW result: one column per field
        if len(result) != length:
            raise ValueError(_length_error(name, len(result), length))
        from kindling.common.types import Row

        columns = [_values(result.iloc[:, i], None) for i in range(result.shape[1])]
        return [Row(*fields) for fields in zip(*columns)]
    if not isinstance(result, pandas.Series):
        raise TypeError(f"The result type of the pandas UDF '{name}' must be pandas.Series or pandas.DataFrame, "
                        f"got {type(result).__name__}: a pandas function gets a Series per argument holding a "
                        f"batch of rows and returns a Series of one value per row (s - s.mean(), not s.mean()); "
                        f"one value per group is an aggregate: udaf(..., func_type='pandas')")
    if len(result) != length:
        raise ValueError(_length_error(name, len(result), length))
    return _values(result, function._result_type.type_name, name)


def _length_error(name: str, got: int, length: int) -> str:
    return (f"The result length '{got}' of the pandas UDF '{name}' is not equal to the input length '{length}': "
            f"return a Series of one value per row of the argument Series (s - s.mean(), not s.mean(); a "
            f"filtered Series drops rows); one value per group is an aggregate: udaf(..., func_type='pandas')")


def _values(series: Any, type_name: Any, name: str = "") -> List[Any]:
    """The Python values of a result Series, None for its nulls; a float Series of an integral type
    holds whole numbers (Arrow's safe cast, as PyFlink converts it)."""
    values = series.tolist()
    if series.hasnans or series.dtype == object:
        values = [None if null else v for v, null in zip(values, series.isnull().tolist())]
    if type_name in _INTEGRAL and series.dtype.kind == "f":
        if any(v is not None and (not math.isfinite(v) or v != int(v)) for v in values):
            raise ValueError(f"The pandas UDF '{name}' returned fractional values ({series.dtype}) for its "
                             f"result type {type_name}: round them (s.round().astype('int64')) or declare "
                             f"result_type=DataTypes.DOUBLE()")
        values = [None if v is None else int(v) for v in values]
    return values
