"""The runtime operator of a keyed graph node: where what the user asked for (the job graph)
meets how it runs (``kindling.runtime``); and its instance opened in a Spark task.

=====================================  =====================================================
``KeyedTransformation.operation``      runtime operator
=====================================  =====================================================
``process``                            ``KeyedProcessOperator(function)``
``map``, ``flat_map``, ``filter``      ``KeyedProcessOperator(Map/FlatMap/FilterProcessFunction(function))``
``reduce``                             ``KeyedProcessOperator(ReduceProcessFunction(function))``
``sum``, ``min``, ... ``max_by``       ``KeyedProcessOperator(aggregation_function(operation, position))``
``window``                             ``WindowOperator(**WindowSpec)``
=====================================  =====================================================
"""
from __future__ import annotations

from typing import Any

from kindling.graph.transformation import KeyedTransformation
from kindling.runtime import lifecycle
from kindling.runtime.keyed_functions import (
    AGGREGATION_KINDS, FilterProcessFunction, FlatMapProcessFunction, MapProcessFunction,
    ReduceProcessFunction, aggregation_function,
)
from kindling.runtime.keyed_operator import KeyedOperator, KeyedProcessOperator
from kindling.runtime.task_info import TaskInfo
from kindling.runtime.window import WindowOperator

__all__ = ['keyed_operator', 'opened_operator', 'count_late']

_PER_KEY_FUNCTIONS = {
    'map': MapProcessFunction,
    'flat_map': FlatMapProcessFunction,
    'filter': FilterProcessFunction,
    'reduce': ReduceProcessFunction,
}


def keyed_operator(node: KeyedTransformation) -> KeyedOperator:
    """A new runtime operator for ``node`` (built on the driver, pickled to the workers)."""
    operation = node.operation
    if operation == 'window':
        w = node.window
        operator = WindowOperator(w.assigner, w.trigger, contents=w.contents, function=w.function,
                                  window_function=w.window_function,
                                  allowed_lateness=w.allowed_lateness,
                                  late_data_tag=w.late_data_tag, all_windows=w.all_windows,
                                  name=node.name)
    elif operation == 'process':
        operator = KeyedProcessOperator(node.function, node.name)
    elif operation in _PER_KEY_FUNCTIONS:
        operator = KeyedProcessOperator(_PER_KEY_FUNCTIONS[operation](node.function), node.name)
    elif operation in AGGREGATION_KINDS:
        function = aggregation_function(operation, node.position, node.inputs[0].type_info)
        operator = KeyedProcessOperator(function, node.name)
    else:
        raise ValueError("unknown keyed operation %r of %r" % (operation, node.name))
    operator.has_side_output = node.has_side_output
    return operator


def opened_operator(uid: str, operator: Any, task_info: TaskInfo) -> Any:
    """The opened operator of one parallel instance (``task_info``'s subtask) in this worker
    process, closed when the job ends (Spark re-creates processors for every task)."""

    def open_operator() -> Any:
        operator.open(task_info)
        return operator

    return lifecycle.opened(uid, task_info.index_of_subtask, operator.name, open_operator, lambda op: op.close())


def count_late(operator: Any, accumulator: Any) -> None:
    """Adds the late elements ``operator`` dropped since the last call to ``accumulator``."""
    take = getattr(operator, "take_late_records_dropped", None)
    if take is not None and accumulator is not None:
        dropped = take()
        if dropped:
            accumulator.add(dropped)
