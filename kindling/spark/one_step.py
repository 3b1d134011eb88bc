"""One-step execution of a bounded STREAMING job: the whole job as one Spark batch job.

When every source is bounded, no checkpointing is configured and watermarks are periodic,
Kindling runs the job as Flink runs it on a small input: the whole input is read before the
first periodic watermark, so every keyed operator processes each key's elements in arrival
order with the watermark at MIN, then the input ends (watermark MAX) and every event-time
timer fires in timestamp order, in the same step. Semantics are STREAMING ones (a keyed
reduce emits every rolling value), executed by the same runtime operators as the streaming
path (``KeyedOperator.process``, ``fire_timers``, ``end_of_input``); there is no micro-batch,
no trigger wait and no pause between the input and its end (so processing-time TTL is not
eaten by Kindling's own overhead).

Each parallel instance of a keyed operator is one Spark group: a keyed exit gives every row
the subtask Flink gives its key (``kindling.runtime.key_groups``) and each element its arrival
position in the producing task; ``groupBy(subtask).applyInArrow`` then runs one subtask's keys
together and emits its outputs in Flink's order at that subtask: element-driven outputs in the
arrival order of the elements that caused them, then the end-of-input timers' outputs in
the order Flink's timer queue pops them: by timestamp, equal timestamps of different keys as
its heaps (one per key group, one of their heads) give them (``_TimerQueue``). Sinks write a
partition's rows in order.
"""
from __future__ import annotations

import pickle
import time
from operator import itemgetter
from typing import Any, Callable, Iterator

import cloudpickle
import pyarrow as pa
from pyspark.sql import DataFrame, GroupedData
from pyspark.sql import functions as F

from kindling.runtime.co_functions import BroadcastProcessAdapter
from kindling.runtime.key_state import KeyState, _timer_ts
from kindling.runtime.lifecycle import job_of
from kindling.runtime.task_info import MAX_WATERMARK, MIN_WATERMARK, TaskInfo
from kindling.spark.broadcast import apply_broadcast_first, batch_groups
from kindling.spark.metrics import report_metrics
from kindling.spark.stage import ELEMENTS, KEY, PART, SUBTASK, StagePlan, StageRun, partition_keys


def one_step_keyed_frame(input_df: DataFrame, uid: str, operator: Any, plan: StagePlan, late_records: Any) -> DataFrame:
    """The Spark plan of a keyed operator (and its chained stage) in a one-step job."""
    return by_subtask(input_df, plan.parallelism).applyInArrow(
        _subtask_function(uid, operator, plan, late_records), plan.schema())


def by_subtask(input_df: DataFrame, parallelism: int) -> GroupedData:
    """A keyed exit's rows grouped by their subtask (``__sub``), in ``parallelism`` Spark partitions,
    subtask i's group in partition i: each parallel instance a task of its own."""
    part = F.element_at(F.array(*[F.lit(k) for k in partition_keys(parallelism)]), F.col(SUBTASK) + 1)
    return input_df.select(SUBTASK, KEY, ELEMENTS).withColumn(PART, part) \
        .repartition(parallelism, PART).groupBy(PART, SUBTASK)


class SubtaskCopies:
    """A keyed operator and its stage plan, pickled once on the driver; in a worker, one
    unpickled copy per parallel instance (one Spark task may run the groups of several
    subtasks, and each instance opens its own functions)."""

    def __init__(self, operator: Any, plan: StagePlan):
        self.blob = cloudpickle.dumps((operator, plan))

    def of(self, uid: str, subtask: int) -> tuple[Any, StagePlan]:
        found = _copies.get((uid, subtask))
        if found is None:
            for other in [k for k in _copies if job_of(k[0]) != job_of(uid)]:
                del _copies[other]  # an ended job's: this worker moved on
            found = _copies[(uid, subtask)] = cloudpickle.loads(self.blob)
        return found


_copies: dict[tuple[str, int], tuple[Any, StagePlan]] = {}  # (operator uid, subtask) -> its copies


def _subtask_function(uid: str, operator: Any, plan: StagePlan, late_records: Any) -> Callable[[pa.Table], pa.Table]:
    """applyInArrow body: one parallel instance of the keyed operator over its whole input."""
    copies = SubtaskCopies(operator, plan)

    def run(table: pa.Table) -> pa.Table:
        from kindling.spark.keyed import _opened_operator, count_late

        subtask = table.column(SUBTASK)[0].as_py()
        own_operator, own_plan = copies.of(uid, subtask)
        info = TaskInfo(own_operator.name, subtask, own_plan.parallelism, own_plan.max_parallelism,
                        job_parameters=own_plan.job_parameters)
        op = _opened_operator(uid, own_operator, info)
        stage = StageRun(own_plan, subtask)
        keys, broadcast = batch_groups(table)
        if isinstance(op.function, BroadcastProcessAdapter):
            for tag, value, ts in apply_broadcast_first(op.function, broadcast, _now()):
                stage.push_output(tag, value, ts, None)
        for tag, value, ts in run_subtask(op, _arrivals(keys), subtask, own_plan.parallelism,
                                          own_plan.max_parallelism, own_plan.key_type):
            stage.push_output(tag, value, ts, None)
        count_late(op, late_records)
        batches = list(stage.flush())
        report_metrics(own_plan.metrics)
        return pa.Table.from_batches(batches) if batches else stage.empty_table()

    return run


def _arrivals(keys: dict[bytes, list]) -> list[tuple]:
    """``(position, key, value, timestamp)`` of every element of a subtask (``keys``: key blob ->
    its elements), in arrival order."""
    items = []
    for key_blob, elements in keys.items():
        key = _Key(pickle.loads(key_blob))
        items.extend((position, key, value, ts) for value, ts, position in elements)
    items.sort(key=itemgetter(0))
    return items


class _TracedState(KeyState):
    """A key's state that reports its event-time timer registrations and deletions (with the
    arrival position of the element being processed) to the subtask's timer queue."""

    __slots__ = ("trace",)

    def __init__(self, trace: Callable[[str, int], None]):
        super().__init__()
        self.trace = trace

    def register_event_timer(self, t) -> None:
        before = self.num_event_timers()
        super().register_event_timer(t)
        if self.num_event_timers() > before:
            self.trace("add", _timer_ts(t))

    def delete_event_timer(self, t) -> None:
        before = self.num_event_timers()
        super().delete_event_timer(t)
        if self.num_event_timers() < before:
            self.trace("remove", t)


class _Key:
    """A key of the subtask (wrapped: user keys need not be hashable) with its state."""

    __slots__ = ("key", "state", "rank", "key_group")

    def __init__(self, key: Any):
        self.key = key
        self.state: KeyState = KeyState()
        self.rank = -1  # order of first arrival
        self.key_group = 0


class _Heap:
    """Flink's ``HeapPriorityQueue`` (1-based array, sift up/down with strict comparisons), whose
    order among equal priorities decides which of two equal timers fires first."""

    def __init__(self, less: Callable[[Any, Any], bool]):
        self.less = less
        self.queue: list = [None]
        self.index: dict = {}

    def peek(self) -> Any:
        return self.queue[1] if len(self.queue) > 1 else None

    def _move(self, element: Any, i: int) -> None:
        self.queue[i] = element
        self.index[element] = i

    def _sift_up(self, i: int) -> None:
        queue, current = self.queue, self.queue[i]
        parent = i >> 1
        while parent > 0 and self.less(current, queue[parent]):
            self._move(queue[parent], i)
            i, parent = parent, parent >> 1
        self._move(current, i)

    def _sift_down(self, i: int) -> None:
        queue, current, size = self.queue, self.queue[i], len(self.queue) - 1
        child = i << 1
        if child + 1 <= size and self.less(queue[child + 1], queue[child]):
            child += 1
        while child <= size and self.less(queue[child], current):
            self._move(queue[child], i)
            i, child = child, child << 1
            if child + 1 <= size and self.less(queue[child + 1], queue[child]):
                child += 1
        self._move(current, i)

    def adjust(self, element: Any) -> None:
        i = self.index.get(element)
        if i is not None:
            self._sift_down(i)
            if self.queue[i] == element:
                self._sift_up(i)

    def add(self, element: Any) -> bool:
        """Adds ``element``; True when it became the head."""
        self.queue.append(element)
        self._sift_up(len(self.queue) - 1)
        return self.index[element] == 1

    def remove(self, element: Any) -> bool:
        """Removes ``element``; True when it was the head."""
        i = self.index.pop(element)
        last = self.queue.pop()
        if i < len(self.queue):
            self._move(last, i)
            self.adjust(last)
        return i == 1


class _TimerQueue:
    """The event-time timers of one subtask as Flink keeps them (``KeyGroupPartitionedPriority
    Queue``): a heap of ``(timestamp, key rank)`` per key group of the subtask's range, and a heap
    of those heaps ordered by their heads; timers compare by timestamp only."""

    def __init__(self, subtask: int, parallelism: int, max_parallelism: int):
        first = (subtask * max_parallelism + parallelism - 1) // parallelism
        last = ((subtask + 1) * max_parallelism - 1) // parallelism
        self.groups = {g: _Heap(lambda a, b: a[0] < b[0]) for g in range(first, last + 1)}

        def heads_less(a: int, b: int) -> bool:
            left, right = self.groups[a].peek(), self.groups[b].peek()
            return left is not None and (right is None or left[0] < right[0])

        self.heads = _Heap(heads_less)
        for group in self.groups:
            self.heads.add(group)

    def add(self, key_group: int, timer: tuple) -> None:
        if self.groups[key_group].add(timer):
            self.heads.adjust(key_group)

    def remove(self, key_group: int, timer: tuple) -> None:
        heap = self.groups[key_group]
        if timer in heap.index and heap.remove(timer):
            self.heads.adjust(key_group)

    def poll(self) -> tuple | None:
        group = self.heads.peek()
        heap = self.groups[group] if group is not None else None
        if heap is None or heap.peek() is None:
            return None
        timer = heap.peek()
        heap.remove(timer)
        self.heads.adjust(group)
        return timer


def run_subtask(op: Any, arrivals: list[tuple], subtask: int = 0, parallelism: int = 1,
                max_parallelism: int | None = None, key_type: Any = None) -> Iterator[tuple]:
    """Runs ``op`` over one subtask's elements ``(position, key, value, timestamp)`` (sorted by
    position) as Flink does when the whole bounded input precedes the first watermark, and
    yields its outputs ``(tag, value, timestamp)`` in Flink's order (see the module docstring)."""
    from kindling.runtime.key_groups import assign_to_key_group, compute_default_max_parallelism

    max_parallelism = max_parallelism or compute_default_max_parallelism(parallelism)
    queue = _TimerQueue(subtask, parallelism, max_parallelism)
    events: list[tuple] = []  # (position, sequence, kind, key, timestamp): timer changes while reading
    current = [None]
    per_key: dict[int, tuple[Any, list]] = {}
    order: list[Any] = []
    for position, key, value, ts in arrivals:
        entry = per_key.get(id(key))
        if entry is None:
            key.rank = len(order)
            key.key_group = assign_to_key_group(key.key, max_parallelism, key_type)
            key.state = _TracedState(lambda kind, t, key=key: events.append((current[0], len(events), kind, key, t)))
            order.append(key)
            entry = per_key[id(key)] = (key, [])
        entry[1].append((position, value, ts))
    outputs: list[tuple] = []  # (position of the element that caused it, output)
    now = _now()
    for key in order:
        def tracked(elements=per_key[id(key)][1]):
            for position, value, ts in elements:
                current[0] = position
                yield value, ts, None

        # process() yields an element's outputs before it takes the next element
        for out in op.process(key.key, key.state, tracked(), MIN_WATERMARK, MIN_WATERMARK, now):
            outputs.append((current[0], out))
    outputs.sort(key=itemgetter(0))
    for _, out in outputs:
        yield out
    outputs.clear()
    def apply(kind: str, t: int, key: _Key) -> None:
        (queue.add if kind == "add" else queue.remove)(key.key_group, (t, key.rank))

    # Timers go into Flink's queue in the order the elements registered them (arrival order).
    events.sort(key=itemgetter(0, 1))
    for _, _, kind, key, t in events:
        apply(kind, t, key)
    for key in order:  # from now on registrations while firing go straight to the queue
        key.state.trace = lambda kind, t, key=key: apply(kind, t, key)
    # End of input: the watermark becomes MAX_WATERMARK; timers fire in the queue's order, then
    # each key's end of input (processing-time timers that are due).
    now = _now()
    while (timer := queue.poll()) is not None:
        t, rank = timer
        key = order[rank]
        yield from op.fire_timers(key.key, key.state, MAX_WATERMARK, now, t, None)
    for key in order:
        yield from op.end_of_input(key.key, key.state, now)


def _now() -> int:
    return int(time.time() * 1000)
