"""The grouping operator of ``group_by(...).select(...)``: per group, accumulators in keyed state
and the changes of the group's result row, as Flink's group aggregation emits them.

STREAMING: the first row of a group emits ``+I``; a change emits ``-U old`` and ``+U new`` (nothing
when the result did not change); a group whose last row was retracted emits ``-D``. With a Python
aggregate function the changes are emitted once per micro-batch (PyFlink: once per bundle). BATCH:
one ``+I`` per group at the end of the input."""
from __future__ import annotations

from typing import Any, List, Sequence

from kindling.common.time import MAX_WATERMARK
from kindling.common.types import RowKind, _create_row
from kindling.datastream.functions import KeyedCoProcessFunction, KeyedProcessFunction

__all__ = ["AggregateCalls", "GroupAggregateFunction", "GroupKey", "GroupTableAggregateFunction"]

STATE_NAME = "_kindling_group"


class GroupKey:
    """The grouping key of a row: the value of its one key column, or a tuple of several (a
    constant for a global aggregate)."""

    def __init__(self, positions: Sequence[int]):
        self.positions = list(positions)

    def __call__(self, row) -> Any:
        values = row._values
        if len(self.positions) == 1:
            return values[self.positions[0]]
        return tuple(values[p] for p in self.positions)


class AggregateCalls:
    """The aggregates in result expressions (``fields``, named ``names``; each aggregate an expression
    with its Python accumulator, ``_aggregate``), their accumulators and the result row. The planner
    types them: per aggregate, whether its argument is of an integer type (``integral``: AVG divides
    as integers) and FLOAT (``float32``: sums in FLOAT arithmetic, as Flink's)."""

    def __init__(self, input_names: List[str], key_names: List[str], fields: list, names: List[str],
                 aggregates: list, integral: List[bool], float32: List[bool]):
        self.input_names, self.key_names, self.fields, self.names = input_names, key_names, fields, names
        self.aggregates, self.integral, self.float32 = aggregates, integral, float32

    def create(self) -> list:
        return [a._aggregate.create(f32) for a, f32 in zip(self.aggregates, self.float32)]

    def accumulate(self, accumulators: list, values: list, sign: int) -> None:
        env = dict(zip(self.input_names, values))
        for aggregate, accumulator in zip(self.aggregates, accumulators):
            aggregate._aggregate.accumulate(accumulator, [c.evaluate(env) for c in aggregate._children], sign)

    def result(self, key_values: list, accumulators: list, extra: dict = None) -> list:
        env: dict = dict(zip(self.key_names, key_values), **(extra or {}))
        for aggregate, accumulator, integral in zip(self.aggregates, accumulators, self.integral):
            env[id(aggregate)] = aggregate._aggregate.result(accumulator, integral)
        return [field.evaluate(env) for field in self.fields]


class GroupAggregateFunction(KeyedProcessFunction):
    """Accumulates the aggregates of ``calls`` per group and emits the group's result row (``names``)
    as changes. Input rows may be changes too: ``-U``/``-D`` retract."""

    def __init__(self, calls: AggregateCalls, names: List[str]):
        self.calls = calls
        self.names = names
        # PyFlink runs Python aggregate functions in bundles and emits a group's changes once per
        # bundle: a processing-time timer at the current time emits them when the bundle ends, a
        # micro-batch's end (in a one-step job, where PyFlink's would: kindling/spark/one_step.py)
        self.emits_per_bundle = any(a._aggregate.kind == "udaf" for a in self.calls.aggregates)

    def open(self, runtime_context):
        from kindling.common.typeinfo import Types
        from kindling.datastream.state import ValueStateDescriptor

        self.state = runtime_context.get_state(ValueStateDescriptor(STATE_NAME, Types.PICKLED_BYTE_ARRAY()))
        self.in_batch = str(runtime_context.get_job_parameter("inBatchExecutionMode", "false")).lower() == "true"
        self.key_positions = [self.calls.input_names.index(k) for k in self.calls.key_names]

    def process_element(self, row, ctx):
        sign = -1 if row._row_kind in (RowKind.UPDATE_BEFORE, RowKind.DELETE) else 1
        group = self.state.value()
        if group is None:
            if sign < 0:
                return  # a retraction of a row this group never counted, as Flink ignores it
            # rows counted, accumulators, the result row last emitted, the key, a timer pending
            group = [0, self.calls.create(), None, [row._values[p] for p in self.key_positions], False]
        group[0] += sign
        self.calls.accumulate(group[1], row._values, sign)
        if self.in_batch or self.emits_per_bundle:
            if not group[4]:
                group[4] = True
                timers = ctx.timer_service()
                if self.in_batch:
                    timers.register_event_time_timer(MAX_WATERMARK)
                else:
                    timers.register_processing_time_timer(timers.current_processing_time())
            self.state.update(group)
            return
        yield from self._changes(group)

    def on_timer(self, timestamp, ctx):
        group = self.state.value()
        if group is None:
            return
        group[4] = False
        if self.in_batch:
            yield from self._emit(self.calls.result(group[3], group[1]), RowKind.INSERT)
        else:
            yield from self._changes(group)

    def _emit(self, values: list, kind):
        """The rows of a group's result ``values`` (one)."""
        yield _create_row(self.names, values, kind)

    def _changes(self, group: list):
        """The changes of the group's result since it was last emitted; keeps the group's state."""
        previous = group[2]
        if group[0] <= 0:
            self.state.clear()
            if previous is not None:
                yield _create_row(self.names, previous, RowKind.DELETE)
            return
        result = self.calls.result(group[3], group[1])
        group[2] = result
        self.state.update(group)
        if previous is None:
            yield _create_row(self.names, result, RowKind.INSERT)
        elif result != previous:
            yield _create_row(self.names, previous, RowKind.UPDATE_BEFORE)
            yield _create_row(self.names, result, RowKind.UPDATE_AFTER)


class EmptyInputResult(KeyedCoProcessFunction):
    """BATCH: the row of a global aggregation (no group keys) over no rows, which Flink gives (COUNT 0,
    SUM NULL, a user function's value of a new accumulator) where the keyed aggregation saw no group.
    Its first input is the aggregation's rows (passed on), its second one marker element, so that it
    runs once however few rows came."""

    def __init__(self, calls: AggregateCalls, names: List[str]):
        self.calls = calls
        self.names = names

    def open(self, runtime_context):
        from kindling.common.typeinfo import Types
        from kindling.datastream.state import ValueStateDescriptor

        self.seen = runtime_context.get_state(ValueStateDescriptor("_kindling_aggregated", Types.BOOLEAN()))

    def process_element1(self, row, ctx):
        self.seen.update(True)
        yield row

    def process_element2(self, marker, ctx):
        ctx.timer_service().register_event_time_timer(MAX_WATERMARK)

    def on_timer(self, timestamp, ctx):
        if not self.seen.value():
            yield _create_row(self.names, self.calls.result([], self.calls.create()), RowKind.INSERT)


class GroupTableAggregateFunction(GroupAggregateFunction):
    """A table aggregate function's rows per group: on a change, ``-D`` for each row emitted before and
    ``+I`` for each row emitted now (Flink's GroupTableAggFunction). ``calls``' last field is the
    function's call, after the keys; its result rows are named ``row_names``."""

    def __init__(self, calls: AggregateCalls, row_names: List[str]):
        super().__init__(calls, calls.names)
        self.row_names = row_names

    def _emit(self, values: list, kind):
        *keys, rows = values
        for row in rows or ():
            row_values = list(row._values) if hasattr(row, "_values") else list(row) if \
                isinstance(row, (tuple, list)) else [row]
            yield _create_row(self.row_names, keys + row_values, kind)

    def _changes(self, group: list):
        previous = group[2]
        if previous is not None:
            yield from self._emit(previous, RowKind.DELETE)
        if group[0] <= 0:
            self.state.clear()
            return
        result = self.calls.result(group[3], group[1])
        group[2] = result
        self.state.update(group)
        yield from self._emit(result, RowKind.INSERT)
