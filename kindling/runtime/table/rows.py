"""Stateless row operators of the Table API: projections, filters, table function calls, renamed
Rows, rows made of DataStream elements and their timestamps, the event time of a row, and the one
group of operators that see all rows together."""
from __future__ import annotations

from typing import Any, Callable, List, Optional

from kindling.common.time import epoch_millis, timestamp_of, utc_datetime
from kindling.common.types import Row, RowKind, _create_row
from kindling.common.watermark_strategy import TimestampAssigner
from kindling.runtime.table.async_functions import AsyncOptions
from kindling.runtime.table.evaluate import compile_batch, compile_expression, needs_batch, user_functions

__all__ = ["AddTimestamp", "AsRow", "Condition", "DeclaredRow", "Lateral", "Project", "Retyped", "RowtimeOf", "one_group"]


class _CallsUserFunctions:
    """An operator evaluating expressions that may call user functions: it opens them with its task's
    context (job parameters, subtask) when the chain opens it, and closes them when the job ends."""

    resolved: list

    def open(self, runtime_context: Any) -> None:
        for function in user_functions(self._expressions()):
            function._open(runtime_context)

    def close(self) -> None:
        for function in user_functions(self._expressions()):
            function._close()

    def _expressions(self) -> list:
        return self.resolved

    def __getstate__(self) -> dict:
        return {k: v for k, v in vars(self).items() if k != "_compiled"}


class Project(_CallsUserFunctions):
    """A row's selected expressions (resolved: kindling/table/planner/expressions.py), keeping its
    RowKind; compiled once per task (kindling/runtime/table/evaluate.py). A field that is an input
    column is read by its position. With pandas or async functions in them, the chain hands it
    batches of up to ``batch_size`` rows (``map_batch``): each pandas function is called once per
    batch, an async function's calls for the batch run concurrently (``async_options``). ``in_spark``:
    Spark computes every expression as Flink (the planner's finding), so that where its input's rows
    are a Spark frame the expressions are Spark columns of it (kindling/spark/table/downstream.py)."""

    in_spark = False

    def __init__(self, names: List[str], resolved: list, batch_size: int = 10_000,
                 async_options: AsyncOptions = AsyncOptions()):
        self.names, self.resolved, self.async_options = names, resolved, async_options
        self.positions = [r.index if type(r).__name__ == "InputRef" else None for r in resolved]
        self.batch_size = batch_size if any(needs_batch(r) for r in resolved) else None

    def __call__(self, row):
        if self.batch_size is not None:
            return self.map_batch([row])[0]
        values = row._values
        if None not in self.positions:
            return _create_row(self.names, [values[p] for p in self.positions], row._row_kind)
        return _create_row(self.names, [f(values) for f in self._fields()], row._row_kind)

    def map_batch(self, rows: list) -> list:
        """The projected rows of a batch of rows."""
        columns = _batch_compiled(self, self.resolved)([row._values for row in rows])
        names = self.names
        return [_create_row(names, list(values), row._row_kind) for row, values in zip(rows, zip(*columns))]

    def _fields(self) -> list:
        fields = self.__dict__.get("_compiled")
        if fields is None:
            fields = self._compiled = [compile_expression(r) for r in self.resolved]
        return fields


class Condition(_CallsUserFunctions):
    """Whether a row passes a predicate (resolved) evaluated in Python (null is false, as in SQL). With
    pandas or async functions in it, the chain hands it batches of up to ``batch_size`` rows
    (``filter_batch``). ``in_spark``: as :class:`Project`'s."""

    in_spark = False

    def __init__(self, resolved: Any, batch_size: int = 10_000, async_options: AsyncOptions = AsyncOptions()):
        self.resolved, self.async_options = resolved, async_options
        self.batch_size = batch_size if needs_batch(resolved) else None

    def __call__(self, row) -> bool:
        if self.batch_size is not None:
            return self.filter_batch([row])[0]
        test = self.__dict__.get("_compiled")
        if test is None:
            test = self._compiled = compile_expression(self.resolved)
        return test(row._values) is True

    def filter_batch(self, rows: list) -> List[bool]:
        """Whether each row of a batch passes."""
        (tests,) = _batch_compiled(self, [self.resolved])([row._values for row in rows])
        return [test is True for test in tests]

    def _expressions(self) -> list:
        return [self.resolved]


def _batch_compiled(operator: Any, resolved: list) -> Callable[[list], List[list]]:
    """``compile_batch`` of the operator's expressions, once per task (kept as its ``_compiled``)."""
    compiled = operator.__dict__.get("_compiled")
    if compiled is None:
        compiled = operator._compiled = compile_batch(resolved, operator.async_options)
    return compiled


class Lateral:
    """The rows a table function makes for a row: its own values (``flat_map``) or the row's
    followed by them (``join_lateral``; with nulls when it makes none and ``outer``)."""

    def __init__(self, function, arguments: Optional[list], names: List[str], keep_input: bool, outer: bool,
                 input_names: Optional[List[str]] = None, ltz_arguments: Optional[List[bool]] = None):
        self.function, self.arguments, self.names = function, arguments, names
        self.keep_input, self.outer, self.input_names = keep_input, outer, input_names
        #: per argument, whether it is a TIMESTAMP_LTZ value (which PyFlink gives as a UTC datetime)
        self.ltz_arguments = ltz_arguments or [False] * len(arguments or ())

    def __call__(self, row):
        if self.arguments is None:
            produced = self.function._produce([row])
        else:
            env = dict(zip(self.input_names, row._values))
            produced = self.function._produce([utc_datetime(a.evaluate(env)) if ltz else a.evaluate(env)
                                               for a, ltz in zip(self.arguments, self.ltz_arguments)])
        kind, prefix = row._row_kind, (list(row._values) if self.keep_input else [])
        made = False
        for values in produced:
            made = True
            yield _create_row(self.names, prefix + values, kind)
        if not made and self.outer:
            yield _create_row(self.names, prefix + [None] * (len(self.names) - len(prefix)), kind)


class Expand:
    """A row once per grouping set (GROUPING SETS, ROLLUP, CUBE), keeping its RowKind: the columns at
    ``nulled`` (one list per set) null, then the values at ``originals`` as they are, then the set's
    grouping id (kindling/table/planner/nodes.py ``Expand``)."""

    def __init__(self, names: List[str], nulled: List[List[int]], originals: List[int], ids: List[int]):
        self.names, self.nulled, self.originals, self.ids = names, nulled, originals, ids

    def __call__(self, row):
        values, kind = row._values, row._row_kind
        kept = [values[p] for p in self.originals]
        for nulled, grouping_id in zip(self.nulled, self.ids):
            expanded = list(values)
            for position in nulled:
                expanded[position] = None
            yield _create_row(self.names, expanded + kept + [grouping_id], kind)


class Retyped:
    """A Row with the field names ``names``, keeping its RowKind."""

    def __init__(self, names: List[str]):
        self.names = names

    def __call__(self, row):
        return _create_row(self.names, list(row), row._row_kind if isinstance(row, Row) else None)


class InsertRow(Retyped):
    """A Row with the field names ``names`` of an insert-only changelog stream: a row of another
    RowKind fails the job, as Flink's input conversion does."""

    def __call__(self, row):
        kind = row.get_row_kind() if isinstance(row, Row) else RowKind.INSERT
        if kind is not RowKind.INSERT:
            raise ValueError(f"from_changelog_stream: ChangelogMode.insert_only() expects INSERT rows only, the "
                             f"stream has a {kind.name} ({kind}) row; give the mode of its changes: "
                             "ChangelogMode.all() or ChangelogMode.upsert()")
        return super().__call__(row)


class DeclaredRow:
    """A ProcessFunction making a row of a schema's columns in one step: each a field of the element
    (its position) or made of the element's timestamp (a function of it)."""

    def __init__(self, names, sources):
        self.names, self.sources = names, sources

    def open(self, runtime_context):
        pass

    def close(self):
        pass

    def process_element(self, row, ctx):
        values, timestamp = row._values if isinstance(row, Row) else row, ctx.timestamp()
        yield _create_row(self.names, [values[s] if type(s) is int else None if timestamp is None else s(timestamp)
                                       for s in self.sources])


class AddTimestamp:
    """A ProcessFunction appending the element's timestamp to its Row."""

    def __init__(self, names):
        self.names = names

    def open(self, runtime_context):
        pass

    def close(self):
        pass

    def process_element(self, row, ctx):
        yield _create_row(self.names, list(row) + [ctx.timestamp()])


class RowtimeOf(TimestampAssigner):
    """A row's event time in epoch ms: its event-time column."""

    def __init__(self, position: int):
        self.position = position

    def extract_timestamp(self, row, record_timestamp: int) -> int:
        return epoch_millis(timestamp_of(row[self.position]))


class AsRow:
    """An atomic stream element as a one-column Row (``f0``)."""

    def __init__(self, names):
        self.names = names

    def __call__(self, value):
        return _create_row(self.names, [value])


def one_group(row) -> int:
    """The key of an operator that sees all rows as one group."""
    return 0
