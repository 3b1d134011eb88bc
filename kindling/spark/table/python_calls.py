"""Python functions called on Arrow batches in a frame (kindling/table/planner/arrow_calls.py): Spark
computes the calls' arguments as columns and one ``mapInArrow`` pass calls the functions on a batch's
columns. A Calc's scalar calls add each call's results as a column, the columns it passes through
untouched; a table function (a lateral join, ``flat_map``) makes each row's rows, the row's columns
repeated (``take``) beside the function's. Values reach a function as the Python operators give them
(the codec's decoding of each column; a TIMESTAMP_LTZ as PyFlink's aware datetime), a pandas function
gets Series of a batch's values, and a result that does not fit the function's result type, or an
exception of the function, fails the job naming the function and the values it was called on.
"""
from __future__ import annotations

import functools
from typing import Any, Iterator, List, Optional

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructField, StructType

from kindling.spark.codec import column_decoder, column_encoder
from kindling.spark.table.columns import column
from kindling.spark.type_mapping import BadValue, spark_type_of

__all__ = ["with_python_calls", "with_table_function"]


def with_python_calls(frame: DataFrame, calls: Any, kept: List[str], control: Optional[str] = None) -> DataFrame:
    """``frame``'s columns ``kept``, then each of ``calls``' results (an ArrowCalls, as data) as the column
    it names; ``control``: the kept column set on the control rows of micro-batches (watermarks), for which no
    function is called (their results are null)."""
    inner, positions = _with_arguments(frame, calls.calls, kept)
    results = [StructField(n, spark_type_of(c.type.type_info())) for n, c in zip(calls.names, calls.calls)]
    called = functools.partial(_called, calls=calls.calls, names=calls.names, positions=positions, kept=len(kept),
                               batch_size=calls.batch_size, control=None if control is None else kept.index(control))
    return inner.mapInArrow(called, StructType([*inner.schema.fields[:len(kept)], *results]))


def with_table_function(frame: DataFrame, call: Any, kept: List[str], names: List[str], outer: bool,
                        batch_size: int, control: Optional[str] = None) -> DataFrame:
    """The rows the table function ``call`` (a UdtfCall, as data) makes of each row of ``frame``: the row's
    columns ``kept`` and the function's columns, named ``names``; ``outer``: a row it makes none for once,
    its columns null; ``control``: the kept column set on the control rows of micro-batches (watermarks),
    each passed on once, in its place, without a call (the function's columns null)."""
    inner, (positions,) = _with_arguments(frame, [call], kept)
    results = [StructField(n, spark_type_of(t.type_info())) for n, t in zip(names, call.type.field_types())]
    made = functools.partial(_made, call=call, positions=positions, kept=len(kept), names=names, outer=outer,
                             batch_size=batch_size, control=None if control is None else kept.index(control))
    return inner.mapInArrow(made, StructType([*inner.schema.fields[:len(kept)], *results]))


def _with_arguments(frame: DataFrame, calls: Any, kept: List[str]) -> tuple:
    """``frame``'s columns ``kept`` then the columns of the ``calls``' operands Spark computes, and per call,
    per operand, the position of its column (None: a literal, given as it is)."""
    arguments, positions = [], []
    for j, call in enumerate(calls):
        at = []
        for k, operand in enumerate(call.operands):
            if type(operand).__name__ == "Literal":
                at.append(None)
            else:
                at.append(len(kept) + len(arguments))
                arguments.append(column(operand).alias(f"$argument{j}_{k}"))
        positions.append(at)
    return frame.select(*[F.col(f"`{c}`") for c in kept], *arguments), positions


def _called(batches: Iterator[Any], calls: tuple, names: tuple, positions: list, kept: int, batch_size: int,
            control: Optional[int] = None) -> Iterator[Any]:
    """The mapInArrow body: each batch's kept columns and each call's results, in parts of ``batch_size`` rows
    (of their data rows: null for a row whose column at ``control`` is set)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    made = [_Call(call, at) for call, at in zip(calls, positions)]
    for batch in batches:
        if control is not None and batch.column(control).null_count < batch.num_rows:
            data = pc.is_null(batch.column(control))
            numbered = pc.subtract(pc.cumulative_sum(pc.cast(data, pa.int64())), 1)  # a data row's place among them
            at = pc.if_else(data, numbered, pa.scalar(None, pa.int64()))
            rows, spread = batch.filter(data), lambda results: results.take(at)  # noqa: E731
        else:
            rows, spread = batch, lambda results: results  # noqa: E731
        parts = [rows.slice(start, batch_size) for start in range(0, rows.num_rows, batch_size)]
        columns = [spread(pa.concat_arrays([call.results(part) for part in parts]) if parts else call.encode([]))
                   for call in made]
        yield pa.RecordBatch.from_arrays([batch.column(i) for i in range(kept)] + columns,
                                         names=[*batch.schema.names[:kept], *names])


def _made(batches: Iterator[Any], call: Any, positions: list, kept: int, names: List[str], outer: bool,
          batch_size: int, control: Optional[int] = None) -> Iterator[Any]:
    """The mapInArrow body of a table function: per part of ``batch_size`` rows, each made row's kept
    columns (its row's, taken) and the function's (a control row, one for a row whose column at
    ``control`` is set: its own, the function's null)."""
    import pyarrow as pa

    function = _TableCall(call, positions)
    for batch in batches:
        for start in range(0, batch.num_rows, batch_size):
            part = batch.slice(start, batch_size)
            marks = None
            if control is not None and part.column(control).null_count < part.num_rows:
                marks = part.column(control).is_valid().to_pylist()
            rows, columns = function.results(part, outer, marks)
            taken = pa.array(rows, pa.int64())
            yield pa.RecordBatch.from_arrays([part.column(i).take(taken) for i in range(kept)] + columns,
                                             names=[*part.schema.names[:kept], *names])


class _Operands:
    """A call's function and its operands' decoders (or literal values)."""

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

    def values(self, part: Any) -> list:
        """Per operand, its values in the rows of ``part`` (a literal's value, once)."""
        return [operand.value if decode is None else decode(part.column(position))
                for operand, decode, position in zip(self.operands, self.decoders, self.positions)]

    def rows(self, part: Any) -> Iterator[tuple]:
        """Each row's arguments."""
        n = part.num_rows
        if not self.operands:
            return iter([()] * n)
        return zip(*[[v] * n if d is None else v for v, d in zip(self.values(part), self.decoders)])

    def _encoded(self, encode: Any, results: list, type: Any) -> Any:
        from kindling.runtime.table.evaluate import instant_result

        if type.type_name == "TIMESTAMP_LTZ":
            results = [instant_result(r) for r in results]
        try:
            return encode(results)
        except BadValue as bad:
            raise self._failure(TypeError(f"the Python function {self.function._name} returned a value that does "
                                          f"not fit its result type {type}: {bad.message()}"), None) from None

    def _failure(self, exc: BaseException, row: Any) -> RuntimeError:
        """The task's failure for ``exc`` of the function (called on ``row``: its arguments, or a batch's)."""
        from kindling.runtime.errors import user_function_failure

        element = () if row is None else (_Arguments(self.function._name, row),)
        return user_function_failure(self.function._name, exc, *element)


class _Call(_Operands):
    """One scalar call: its operands and its result's encoder."""

    def __init__(self, call: Any, positions: list):
        super().__init__(call, positions)
        self.encode = column_encoder(call.type.type_info())

    def results(self, part: Any) -> Any:
        """The Arrow array of the function's results for the rows of ``part``."""
        from kindling.runtime.table.pandas_functions import scalar_results, series_of

        n = part.num_rows
        if self.function._func_type == "pandas":
            arguments = [v if d is None else series_of(v, o.type.type_name)
                         for v, d, o in zip(self.values(part), self.decoders, self.operands)]
            try:
                results = scalar_results(self.function, arguments, n)
            except Exception as exc:
                raise self._failure(exc, None) from None
        else:
            f = self.function._callable()
            results = []
            append = results.append
            row = None
            try:
                for row in self.rows(part):
                    append(f(*row))
            except Exception as exc:
                raise self._failure(exc, row) from None
        return self._encoded(self.encode, results, self.type)


class _TableCall(_Operands):
    """One table function's call: its operands and its result columns' encoders."""

    def __init__(self, call: Any, positions: list):
        super().__init__(call, positions)
        self.types = call.type.field_types()
        self.encoders = [column_encoder(t.type_info()) for t in self.types]

    def results(self, part: Any, outer: bool, control: Optional[List[bool]] = None) -> tuple:
        """The position in ``part`` of each row the function makes (with nulls for a row it makes none for,
        when ``outer``, and for each row ``control`` marks, not called), and the Arrow arrays of their columns."""
        made: List[int] = []
        columns: List[list] = [[] for _ in self.types]
        row = None
        try:
            for position, row in enumerate(self.rows(part)):
                before = len(made)
                if control is not None and control[position]:
                    made.append(position)
                    for values_of in columns:
                        values_of.append(None)
                    continue
                for values in self.function._produce(list(row)):
                    if len(values) != len(columns):
                        raise TypeError(f"the table function {self.function._name} made a row of {len(values)} "
                                        f"values for its {len(columns)} result columns: {values!r}")
                    made.append(position)
                    for values_of, value in zip(columns, values):
                        values_of.append(value)
                if outer and len(made) == before:
                    made.append(position)
                    for values_of in columns:
                        values_of.append(None)
        except Exception as exc:
            raise self._failure(exc, row) from None
        return made, [self._encoded(e, c, t) for e, c, t in zip(self.encoders, columns, self.types)]


class _Arguments:
    """A call's arguments, described as the call."""

    def __init__(self, name: str, row: tuple):
        self.name, self.row = name, row

    def __repr__(self) -> str:
        return f"{self.name}({', '.join(map(repr, self.row))})"


def _as_utc_datetimes(decode: Any, utc_datetime: Any, column: Any) -> list:
    return [utc_datetime(v) for v in decode(column)]
