"""KeyedStream's built-in operations, as KeyedProcessFunctions run by KeyedProcessOperator.

``KeyedStream.map(f)``         -> ``KeyedProcessOperator(MapProcessFunction(f))``
``KeyedStream.flat_map(f)``    -> ``KeyedProcessOperator(FlatMapProcessFunction(f))``
``KeyedStream.filter(f)``      -> ``KeyedProcessOperator(FilterProcessFunction(f))``
``KeyedStream.reduce(f)``      -> ``KeyedProcessOperator(ReduceProcessFunction(f))``
``KeyedStream.sum(1)`` etc.    -> ``KeyedProcessOperator(aggregation_function('sum', 1))``

Semantics follow PyFlink (pyflink/datastream/data_stream.py):

* map/flat_map/filter run per key, as PyFlink's adapters do: the user function's ``open`` gets
  the keyed RuntimeContext, so ``get_state`` gives the current key's state.
* reduce: STREAMING emits the running reduced value after every element; BATCH emits only
  the final value of each key, at the end of the key (timestamp MAX_WATERMARK).
* sum/min/max(position): the value of the FIRST element of the key, with the field at
  ``position`` replaced by the running sum/min/max (tuples stay tuples, lists and Rows are
  copied, plain values are aggregated whole and only position 0 is allowed).
* min_by/max_by(position): the whole element holding the smallest/largest field; on ties
  the earlier element stays.
* ``position`` is a field index, or a field name for Rows.
"""
from __future__ import annotations

import copy
from typing import Optional, Union

from kindling.datastream.functions import KeyedProcessFunction, ReduceFunction
from kindling.datastream.state import ReducingStateDescriptor
from kindling.runtime.chain import is_function_object
from kindling.runtime.task_info import MAX_WATERMARK

REDUCE_STATE_NAME = "_kindling_reduce_state"

AGGREGATION_KINDS = ('sum', 'min', 'max', 'min_by', 'max_by')


def _row_class():
    try:
        from kindling.common.types import Row
        return Row
    except ImportError:  # pragma: no cover
        return ()


class _UserFunctionProcessFunction(KeyedProcessFunction):
    """A MapFunction, FlatMapFunction or FilterFunction (or a plain callable) run as a
    KeyedProcessFunction; ``_method`` names the function's method."""

    _method = ""

    def __init__(self, function):
        self.function = function
        self._call = None

    def open(self, runtime_context):
        f = self.function
        if is_function_object(f, self._method):
            user_open = getattr(f, "open", None)
            if user_open is not None:
                user_open(runtime_context)
            self._call = getattr(f, self._method)
        else:
            self._call = f

    def close(self):
        f = self.function
        user_close = getattr(f, "close", None) if is_function_object(f, self._method) else None
        if user_close is not None:
            user_close()


class MapProcessFunction(_UserFunctionProcessFunction):
    """``KeyedStream.map``: one output per element."""

    _method = "map"

    def process_element(self, value, ctx):
        return (self._call(value),)


class FlatMapProcessFunction(_UserFunctionProcessFunction):
    """``KeyedStream.flat_map``: every element the function returns or yields."""

    _method = "flat_map"

    def process_element(self, value, ctx):
        return self._call(value)


class FilterProcessFunction(_UserFunctionProcessFunction):
    """``KeyedStream.filter``: the elements for which the function is true."""

    _method = "filter"

    def process_element(self, value, ctx):
        return (value,) if self._call(value) else None


class ReduceProcessFunction(KeyedProcessFunction):
    """Rolling reduce of a keyed stream.

    :param reduce_function: a ReduceFunction or a callable ``(acc, value) -> acc``.
    :param type_info: the stream's type (checks reduced values), or None.
    :param batch: True for BATCH execution (emit once per key at the end); None reads the job
        parameter ``inBatchExecutionMode`` ('true'/'false') in ``open``, as PyFlink does.
    """

    def __init__(self, reduce_function, type_info=None, batch: Optional[bool] = None):
        if not isinstance(reduce_function, ReduceFunction) and not callable(reduce_function):
            raise TypeError('The input must be a ReduceFunction or a callable function')
        self._reduce_function = reduce_function
        self._type_info = type_info
        self._batch = batch
        self._in_batch = bool(batch)
        self._state = None

    def open(self, runtime_context):
        f = self._reduce_function
        if isinstance(f, ReduceFunction):
            f.open(runtime_context)
        self._state = runtime_context.get_reducing_state(
            ReducingStateDescriptor(REDUCE_STATE_NAME, f, self._type_info))
        if self._batch is None:
            flag = runtime_context.get_job_parameter('inBatchExecutionMode', 'false')
            self._in_batch = str(flag).lower() == 'true'
        else:
            self._in_batch = bool(self._batch)

    def close(self):
        f = self._reduce_function
        if isinstance(f, ReduceFunction):
            f.close()

    def process_element(self, value, ctx):
        state = self._state
        if self._in_batch:
            if state.get() is None:
                ctx.timer_service().register_event_time_timer(MAX_WATERMARK)
            state.add(value)
            return None
        state.add(value)
        return (state.get(),)

    def on_timer(self, timestamp, ctx):
        value = self._state.get()
        if value is not None:
            return (value,)
        return None


class AccumulateReduceFunction(ReduceFunction):
    """The reduce behind sum/min/max/min_by/max_by; the strategy is chosen from the first
    reduced element, as in PyFlink."""

    def __init__(self, kind: str, position: Union[int, str] = 0):
        if kind not in AGGREGATION_KINDS:
            raise ValueError("unknown aggregation %r; expected one of %s" % (kind, AGGREGATION_KINDS))
        if isinstance(position, bool) or not isinstance(position, (int, str)):
            raise TypeError("The field position must be of int or str type to locate the value to "
                            "calculate for min, max, min_by, max_by and sum.The given type is: %s"
                            % type(position))
        self._kind = kind
        self._pos = position
        self._strategy = None

    def reduce(self, value1, value2):
        strategy = self._strategy
        if strategy is None:
            strategy = self._strategy = self._choose(value2)
        return getattr(self, strategy)(value1, value2)

    def _choose(self, value) -> str:
        kind = self._kind
        composite = isinstance(value, (tuple, list)) or isinstance(value, _row_class())
        if kind in ('min_by', 'max_by'):
            return '_%s_%s' % (kind, 'field' if composite else 'whole')
        if not composite:
            if self._pos != 0:
                raise TypeError("The %s field selected on a basic type. A field expression on a "
                                "basic type can only select the 0th field (which means selecting "
                                "the entire basic type)." % self._pos)
            return '_%s_whole' % kind
        return '_%s_field' % kind

    # min_by / max_by: the whole element wins; ties keep the earlier one
    def _min_by_field(self, v1, v2):
        p = self._pos
        return v2 if v2[p] < v1[p] else v1

    def _max_by_field(self, v1, v2):
        p = self._pos
        return v2 if v2[p] > v1[p] else v1

    def _min_by_whole(self, v1, v2):
        return v2 if v2 < v1 else v1

    def _max_by_whole(self, v1, v2):
        return v2 if v2 > v1 else v1

    _min_whole = _min_by_whole
    _max_whole = _max_by_whole

    def _sum_whole(self, v1, v2):
        return v1 + v2

    # sum / min / max on a field: the first element's other fields are kept
    def _with_field(self, v1, new):
        p = self._pos
        if isinstance(v1, tuple):
            fields = list(v1)
            fields[p] = new
            return tuple(fields)
        if isinstance(v1, list):
            fields = list(v1)
            fields[p] = new
            return fields
        row = copy.copy(v1)
        row[p] = new
        return row

    def _sum_field(self, v1, v2):
        p = self._pos
        return self._with_field(v1, v1[p] + v2[p])

    def _min_field(self, v1, v2):
        p = self._pos
        return self._with_field(v1, v2[p] if v2[p] < v1[p] else v1[p])

    def _max_field(self, v1, v2):
        p = self._pos
        return self._with_field(v1, v2[p] if v2[p] > v1[p] else v1[p])


def aggregation_function(kind: str, position_or_field: Union[int, str] = 0, type_info=None,
                         batch: Optional[bool] = None) -> ReduceProcessFunction:
    """The KeyedProcessFunction of ``KeyedStream.<kind>(position_or_field)`` for kind in
    'sum', 'min', 'max', 'min_by', 'max_by'."""
    return ReduceProcessFunction(AccumulateReduceFunction(kind, position_or_field), type_info, batch)
