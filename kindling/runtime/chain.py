"""Stateless operator chains: map, flat_map, filter, process, timestamp assignment and
sink functions fused into one push-based Python pass, as Flink chains operators.

A chain is a tree of ``ChainNode``s. Each node pushes its results to its children; a
node's ``exits`` receive its output for the outside world (the Spark stage encodes them).
The current element's timestamp and watermark stamp travel in a shared ``Record``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import GeneratorType
from typing import Any, Callable, Iterator

from kindling.runtime import lifecycle
from kindling.runtime.errors import user_function_failure
from kindling.runtime.runtime_context import TaskRuntimeContext
from kindling.runtime.task_info import MIN_WATERMARK, TaskInfo


@dataclass(eq=False)
class ChainNode:
    """One stateless operation of a fused chain, and where its output goes."""

    uid: str
    name: str
    operation: str  # map | flat_map | filter | process | timestamps | sink_function | async
    function: Any = None
    children: list["ChainNode"] = field(default_factory=list)
    exits: list[int] = field(default_factory=list)
    side_children: dict[str, list["ChainNode"]] = field(default_factory=dict)
    side_exits: dict[str, list[int]] = field(default_factory=dict)
    side_fallback: Callable[[str, Any], None] | None = None  # receives side outputs no one consumes


class Record:
    """Timestamp and watermark stamp of the element being pushed through the chain (and a
    fixed processing time, for tests; None reads the clock).

    An operation that emits an element after later ones arrived (async I/O) keeps the element's
    other facts with ``save_context()`` and puts them back with ``restore_context``: the stage
    binds them to what its exits read besides timestamp and stamp (the input channel). Such an
    operation registers a finisher: ``finish(final)`` emits what it has completed, and when
    ``final`` (the task's input ended) everything it still holds.
    """

    __slots__ = ("timestamp", "watermark", "processing_time", "save_context", "restore_context", "finishers")

    def __init__(self) -> None:
        self.timestamp: int | None = None
        self.watermark: int | None = None
        self.processing_time: int | None = None
        self.save_context: Callable[[], Any] = _no_context
        self.restore_context: Callable[[Any], None] = _ignore_context
        self.finishers: list[Callable[[bool], None]] = []

    def add_finisher(self, finisher: Callable[[bool], None]) -> None:
        # Downstream operations are built (and register) before their upstream ones: inserting
        # first runs upstream finishers first, so that what they emit is finished too.
        self.finishers.insert(0, finisher)

    def finish(self, final: bool = True) -> None:
        for finisher in self.finishers:
            finisher(final)


def _no_context() -> None:
    return None


def _ignore_context(_context: Any) -> None:
    pass


def opened_function(uid: str, function: Any, task_info: TaskInfo, context_factory=TaskRuntimeContext) -> Any:
    """The instance of a user function for this parallel instance (``task_info``'s subtask)
    of operator ``uid``, ``open`` called once; ``close`` runs when the job ends.

    Spark unpickles a task's functions for every task (every micro-batch) and reuses its
    Python workers, so the first instance is kept and opened (see ``kindling.runtime.lifecycle``).
    """

    def open_instance() -> Any:
        open_fn = getattr(function, "open", None)
        if open_fn is not None and not isinstance(function, type):
            try:
                open_fn(context_factory(task_info))
            except Exception as exc:
                raise user_function_failure(task_info.task_name, exc) from None
        return function

    return lifecycle.opened(uid, task_info.index_of_subtask, task_info.task_name, open_instance,
                            lifecycle.close_function)


class _StatelessTimerService:
    """Timer service of a non-keyed ProcessFunction: time is readable, timers are not allowed."""

    def __init__(self, record: Record):
        self._record = record

    def current_processing_time(self) -> int:
        fixed = self._record.processing_time
        return int(time.time() * 1000) if fixed is None else fixed

    def current_watermark(self) -> int:
        wm = self._record.watermark
        return MIN_WATERMARK if wm is None else wm

    def _no_timers(self, *_args) -> None:
        raise TypeError("Setting timers is only supported on a keyed stream: key_by(...) before process(...)")

    register_event_time_timer = register_processing_time_timer = _no_timers
    delete_event_time_timer = delete_processing_time_timer = _no_timers


class _ProcessContext:
    """``ProcessFunction.Context`` for the element being processed."""

    def __init__(self, record: Record, side: Callable[[Any, Any], None]):
        self._record = record
        self._timers = _StatelessTimerService(record)
        self.output = side

    def timestamp(self) -> int | None:
        return self._record.timestamp

    def timer_service(self) -> _StatelessTimerService:
        return self._timers


def fan_out(targets: list[Callable[[Any], None]]) -> Callable[[Any], None]:
    """One function calling every target with its argument."""
    if not targets:
        return lambda value: None
    if len(targets) == 1:
        return targets[0]

    def push(value):
        for target in targets:
            target(value)

    return push


def is_side_output(result: Any) -> bool:
    """Whether a yielded result is PyFlink's side-output pair ``(OutputTag, value)``."""
    from kindling.datastream.output_tag import OutputTag  # not at the top: workers import this module first

    return type(result) is tuple and len(result) == 2 and isinstance(result[0], OutputTag)


def emit_all(result, push: Callable[[Any], None]) -> None:
    """Pushes the outputs of a function that returns, yields, or returns None."""
    if result is None:
        return
    for value in result:
        push(value)


def build_chain(
    node: ChainNode,
    exit_pushers: dict[int, Callable[[Any], None]],
    record: Record,
    task_info: TaskInfo,
    watermark_generators: dict[str, Any],
) -> Callable[[Any], None]:
    """Returns the push function of ``node``, wired to its children and exits."""
    downstream = fan_out(
        [build_chain(child, exit_pushers, record, task_info, watermark_generators) for child in node.children]
        + [exit_pushers[e] for e in node.exits]
    )
    name = node.name
    op = node.operation
    fn = node.function
    if op not in ("timestamps", "async"):
        fn = opened_function(node.uid, fn, _node_task_info(node, task_info))

    if takes_batches(op, fn):
        push = _BatchedOperation(op, fn, name, record, downstream, timed=True).push
    elif op == "map":
        call = fn.map if is_function_object(fn, "map") else fn

        def push(value):
            try:
                result = call(value)
            except Exception as exc:
                raise user_function_failure(name, exc, value) from None
            downstream(result)

    elif op == "flat_map":
        call = fn.flat_map if is_function_object(fn, "flat_map") else fn

        def push(value):
            try:
                result = call(value)
                if isinstance(result, GeneratorType):
                    result = list(result)
            except Exception as exc:
                raise user_function_failure(name, exc, value) from None
            emit_all(result, downstream)

    elif op == "filter":
        call = fn.filter if is_function_object(fn, "filter") else fn

        def push(value):
            try:
                keep = call(value)
            except Exception as exc:
                raise user_function_failure(name, exc, value) from None
            if keep:
                downstream(value)

    elif op == "process":
        side_targets = {
            tag: fan_out(
                [build_chain(c, exit_pushers, record, task_info, watermark_generators)
                 for c in node.side_children.get(tag, [])]
                + [exit_pushers[e] for e in node.side_exits.get(tag, [])]
            )
            for tag in {**node.side_children, **node.side_exits}
        }
        fallback = node.side_fallback
        has_side_output = bool(side_targets) or fallback is not None

        def side(tag_id, value):
            target = side_targets.get(tag_id)
            if target is not None:
                target(value)
            elif fallback is not None:
                fallback(tag_id, value)

        from kindling.datastream.output_tag import OutputTag

        def output(tag, value):
            if not isinstance(tag, OutputTag):
                raise TypeError(f"output() expects an OutputTag, got {tag!r}")
            side(tag.tag_id, value)

        ctx = _ProcessContext(record, output)
        call = fn.process_element

        def push(value):
            try:
                result = call(value, ctx)
                if isinstance(result, GeneratorType):
                    result = list(result)
            except Exception as exc:
                raise user_function_failure(name, exc, value) from None
            if result is None:
                return
            if not has_side_output:  # as PyFlink: without side outputs a yielded pair is an element
                emit_all(result, downstream)
                return
            for r in result:
                if is_side_output(r):
                    side(r[0].tag_id, r[1])
                else:
                    downstream(r)

    elif op == "timestamps":
        from kindling.runtime.watermarks import generator_for

        stamp = generator_for(watermark_generators, node.uid, fn).stamp_and_timestamp

        def push(value):
            before = record.timestamp, record.watermark
            try:
                record.timestamp, record.watermark = stamp(value, record.timestamp)
            except Exception as exc:
                raise user_function_failure(name, exc, value) from None
            downstream(value)
            # the stamp is this branch's: a sibling branch of the same element keeps the element's own
            record.timestamp, record.watermark = before

    elif op == "sink_function":
        invoke = fn.invoke if is_function_object(fn, "invoke") else fn
        call = invoke if not _takes_context(invoke) else (lambda value: invoke(value, None))

        def push(value):
            try:
                call(value)
            except Exception as exc:
                raise user_function_failure(name, exc, value) from None
            downstream(value)

    elif op == "async":
        from kindling.runtime.async_wait import async_wait_push

        push = async_wait_push(node.uid, name, fn, record, _node_task_info(node, task_info), downstream)

    else:
        raise ValueError(f"unknown chained operation {op!r}")
    return push


def _node_task_info(node: ChainNode, task_info: TaskInfo) -> TaskInfo:
    return TaskInfo(node.name, task_info.index_of_subtask, task_info.number_of_parallel_subtasks,
                    task_info.max_number_of_parallel_subtasks, task_info.attempt_number,
                    task_info.job_parameters)


LIST_OPERATIONS = ("map", "filter", "flat_map")


def build_list_chain(
    node: ChainNode,
    exit_pushers: dict[int, Callable[[Any], None]],
    exit_extenders: dict[int, Callable[[list], None]],
    record: Record,
    task_info: TaskInfo,
    watermark_generators: dict[str, Any],
) -> Callable[[list], None]:
    """Returns a function pushing a list of elements without timestamps through ``node``.

    map, filter and flat_map work on the whole list at once (a third of the per-element
    cost); other operations take the elements one by one.
    """
    if node.operation not in LIST_OPERATIONS:
        push = build_chain(node, exit_pushers, record, task_info, watermark_generators)

        def push_each(values: list) -> None:
            for value in values:
                push(value)

        return push_each
    downstream = fan_out([build_list_chain(child, exit_pushers, exit_extenders, record, task_info, watermark_generators)
                          for child in node.children] + [exit_extenders[e] for e in node.exits])
    name = node.name
    op = node.operation
    fn = opened_function(node.uid, node.function, _node_task_info(node, task_info))
    call = getattr(fn, op) if is_function_object(fn, op) else fn

    if takes_batches(op, fn):
        push_list = _BatchedOperation(op, fn, name, record, downstream, timed=False).push_list
    elif op == "map":
        def push_list(values: list) -> None:
            rest = iter(values)
            try:
                result = list(map(call, rest))
            except Exception as exc:
                raise user_function_failure(name, exc, _failed_on(values, rest)) from None
            downstream(result)

    elif op == "filter":
        def push_list(values: list) -> None:
            rest = iter(values)
            try:
                result = list(filter(call, rest))
            except Exception as exc:
                raise user_function_failure(name, exc, _failed_on(values, rest)) from None
            downstream(result)

    else:
        def push_list(values: list) -> None:
            result: list = []
            extend = result.extend
            try:
                for value in values:
                    out = call(value)
                    if out is not None:
                        extend(out)
            except Exception as exc:
                raise user_function_failure(name, exc, value) from None
            downstream(result)

    return push_list


def takes_batches(op: str, fn: Any) -> bool:
    """Whether a map or filter function takes its elements in batches: it has a ``batch_size`` and a
    ``map_batch`` (a list of elements to their results) or ``filter_batch`` (to whether each passes).
    A Table projection or filter calling pandas functions does (kindling/runtime/table/rows.py)."""
    return op in ("map", "filter") and getattr(fn, "batch_size", None) is not None


class _BatchedOperation:
    """A map or filter of a function taking batches: elements wait (``timed``: with their timestamp,
    watermark stamp and context) until ``batch_size`` of them are there or the task's input ends
    (the record's finish), as PyFlink's Arrow batches end at their size or with the bundle; the
    results go on with the time facts of their elements."""

    def __init__(self, op: str, fn: Any, name: str, record: Record, downstream: Callable, timed: bool):
        self.call = fn.map_batch if op == "map" else fn.filter_batch
        self.filters, self.size, self.name = op == "filter", fn.batch_size, name
        self.record, self.downstream, self.timed = record, downstream, timed
        self.waiting: list = []  # elements, or (element, timestamp, watermark, context) when timed
        record.add_finisher(self.finish)

    def push(self, value: Any) -> None:
        record = self.record
        self.waiting.append((value, record.timestamp, record.watermark, record.save_context()))
        if len(self.waiting) >= self.size:
            self._run()

    def push_list(self, values: list) -> None:
        self.waiting.extend(values)
        while len(self.waiting) >= self.size:
            self._run()

    def finish(self, final: bool) -> None:
        if final:
            while self.waiting:
                self._run()

    def _run(self) -> None:
        batch = self.waiting[:self.size]
        del self.waiting[:self.size]
        values = [entry[0] for entry in batch] if self.timed else batch
        try:
            results = self.call(values)
        except Exception as exc:
            raise user_function_failure(self.name, exc, values[0]) from None
        if not self.timed:
            self.downstream([v for v, keep in zip(values, results) if keep] if self.filters else results)
            return
        record, downstream = self.record, self.downstream
        current = (record.timestamp, record.watermark, record.save_context())
        try:
            for (value, timestamp, watermark, context), result in zip(batch, results):
                if self.filters and not result:
                    continue
                record.timestamp, record.watermark = timestamp, watermark
                record.restore_context(context)
                downstream(value if self.filters else result)
        finally:
            record.timestamp, record.watermark = current[0], current[1]
            record.restore_context(current[2])


def _failed_on(values: list, rest: Iterator) -> Any:
    """The element a ``map``/``filter`` over ``iter(values)`` (now ``rest``) raised on: the last taken."""
    return values[len(values) - sum(1 for _ in rest) - 1]


def is_function_object(fn: Any, method: str) -> bool:
    """True for instances of function classes (MapFunction, ...), False for plain callables."""
    from kindling.datastream.functions import Function

    return isinstance(fn, Function) or (hasattr(fn, method) and not callable(fn))


def _takes_context(call: Callable) -> bool:
    import inspect

    try:
        return len(inspect.signature(call).parameters) >= 2
    except (TypeError, ValueError):
        return False
