"""A Calc's Python scalar calls made on Arrow batches in a frame (kindling/table/planner/arrow_calls.py):
Spark computes the calls' arguments as columns, one ``mapInArrow`` pass adds each call's results as a
column, the columns it passes through untouched. Values reach a function as the Python operators
give them (the codec's decoding of each column; a TIMESTAMP_LTZ as PyFlink's aware datetime), a pandas
function gets Series of a batch's values, and a result that does not fit the function's result type,
or an exception of the function, fails the job naming the function and the values it was called on.
"""
from __future__ import annotations

import functools
from typing import Any, Iterator, List

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructField, StructType

from kindling.spark.codec import column_decoder, column_encoder
from kindling.spark.table.columns import column
from kindling.spark.type_mapping import BadValue, spark_type_of

__all__ = ["with_python_calls"]


def with_python_calls(frame: DataFrame, calls: Any, kept: List[str]) -> DataFrame:
    """``frame``'s columns ``kept``, then each of ``calls``' results (an ArrowCalls, as data) as the column
    it names."""
    arguments, positions = [], []  # Spark's columns of the calls' operands; per call, per operand: a column or a literal
    for j, call in enumerate(calls.calls):
        at = []
        for k, operand in enumerate(call.operands):
            if type(operand).__name__ == "Literal":
                at.append(None)
            else:
                at.append(len(kept) + len(arguments))
                arguments.append(column(operand).alias(f"$argument{j}_{k}"))
        positions.append(at)
    inner = frame.select(*[F.col(f"`{c}`") for c in kept], *arguments)
    results = [StructField(n, spark_type_of(c.type.type_info())) for n, c in zip(calls.names, calls.calls)]
    called = functools.partial(_called, calls=calls.calls, names=calls.names, positions=positions, kept=len(kept),
                               batch_size=calls.batch_size)
    return inner.mapInArrow(called, StructType([*inner.schema.fields[:len(kept)], *results]))


def _called(batches: Iterator[Any], calls: tuple, names: tuple, positions: list, kept: int, batch_size: int
            ) -> Iterator[Any]:
    """The mapInArrow body: each batch's kept columns and each call's results, in parts of ``batch_size`` rows."""
    import pyarrow as pa

    made = [_Call(call, at) for call, at in zip(calls, positions)]
    for batch in batches:
        for start in range(0, batch.num_rows, batch_size):
            part = batch.slice(start, batch_size)
            columns = [part.column(i) for i in range(kept)] + [call.results(part) for call in made]
            yield pa.RecordBatch.from_arrays(columns, names=[*part.schema.names[:kept], *names])


class _Call:
    """One call's function, its operands' decoders (or literal values) and its result's encoder."""

    def __init__(self, call: Any, positions: list):
        from kindling.common.time import utc_datetime

        self.function, self.positions, self.type = call.function, positions, call.type
        self.operands = call.operands
        self.decoders = []
        for operand, position in zip(call.operands, positions):
            if position is None:
                self.decoders.append(None)
                continue
            decode = column_decoder(operand.type.type_info())
            if operand.type.type_name == "TIMESTAMP_LTZ":
                decode = functools.partial(_as_utc_datetimes, decode, utc_datetime)
            self.decoders.append(decode)
        self.encode = column_encoder(call.type.type_info())

    def results(self, part: Any) -> Any:
        """The Arrow array of the function's results for the rows of ``part``."""
        from kindling.runtime.table.evaluate import instant_result
        from kindling.runtime.table.pandas_functions import scalar_results, series_of

        n = part.num_rows
        values = [operand.value if decode is None else decode(part.column(position))
                  for operand, decode, position in zip(self.operands, self.decoders, self.positions)]
        if self.function._func_type == "pandas":
            arguments = [v if d is None else series_of(v, o.type.type_name)
                         for v, d, o in zip(values, self.decoders, self.operands)]
            try:
                results = scalar_results(self.function, arguments, n)
            except Exception as exc:
                raise self._failure(exc, None) from None
        else:
            f = self.function._callable()
            rows = zip(*[[v] * n if d is None else v for v, d in zip(values, self.decoders)])
            results = []
            append = results.append
            row = None
            try:
                for row in rows:
                    append(f(*row))
            except Exception as exc:
                raise self._failure(exc, row) from None
        if self.type.type_name == "TIMESTAMP_LTZ":
            results = [instant_result(r) for r in results]
        try:
            return self.encode(results)
        except BadValue as bad:
            raise self._failure(TypeError(f"the Python function {self.function._name} returned a value that does "
                                          f"not fit its result type {self.type}: {bad.message()}"), None) from None

    def _failure(self, exc: BaseException, row: Any) -> RuntimeError:
        """The task's failure for ``exc`` of the function (called on ``row``: its arguments, or a batch's)."""
        from kindling.runtime.errors import user_function_failure

        element = () if row is None else (_Arguments(self.function._name, row),)
        return user_function_failure(self.function._name, exc, *element)


class _Arguments:
    """A call's arguments, described as the call."""

    def __init__(self, name: str, row: tuple):
        self.name, self.row = name, row

    def __repr__(self) -> str:
        return f"{self.name}({', '.join(map(repr, self.row))})"


def _as_utc_datetimes(decode: Any, utc_datetime: Any, column: Any) -> list:
    return [utc_datetime(v) for v in decode(column)]
