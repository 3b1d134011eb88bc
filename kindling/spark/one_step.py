"""One-step execution of a bounded STREAMING job: the whole job as one Spark batch job.

When every source is bounded, no checkpointing is configured and watermarks are periodic,
Kindling runs the job as one Spark batch job: the sources are read, every keyed operator gets
its whole input, and then replays it as a pipelined Flink run sees it. Each task handing
elements to a keyed operator records, beside them, where each was read (its processing time and
arrival) and where its channels' watermarks changed (``kindling.runtime.channels.ReadLog``). A
source task's processing time is the source's: when it handed the batch holding the element (as
in PyFlink, where a Python function's outputs go on in bundles, the time a function takes is not
seen downstream; a slow source's, such as a rate-limited generator's, is); an exchange between
parallelisms (rebalance, ...) hands each row on with that time (``__read``), not its consumer's clock;
every parallel instance gets every task's record and replays its input in that order
(``Timeline``): the operator's watermark rises between elements as the channels' minimum rose
(event-time timers fire, windows close, later elements are late), each element is processed at
the processing time it was read at, and processing-time timers fire between the elements they
fell due between; then the input ends (watermark MAX) and the remaining event-time timers fire
in timestamp order, in the same step. A small input read before the first periodic watermark
sees the watermark at MIN until its end, as in Flink. Semantics are STREAMING ones (a keyed
reduce emits every rolling value), executed by the same runtime operators as the streaming path
(``KeyedOperator.process``, ``fire_timers``, ``end_of_input``); there is no micro-batch, no
trigger wait and no pause between the input and its end (processing time is the input's: TTL is
not eaten by Kindling's own overhead).

Each parallel instance of a keyed operator is one Spark group: a keyed exit gives every row
the subtask Flink gives its key (``kindling.runtime.key_groups``), each element its place, and
sends its record to every subtask; ``groupBy(subtask).applyInArrow`` then runs one subtask's
keys together, key by key (a key's elements in order, its timers where they fall due), and
emits its outputs in Flink's order at that subtask: by the point of the input where they were
made (timers firing there first, event time before processing time, by timestamp, then by the
key's first arrival; then the element's outputs), then the end-of-input timers' outputs in the
order Flink's timer queue pops them: by timestamp, equal timestamps of different keys as its
heaps (one per key group, one of their heads) give them (``_TimerQueue``). Outputs leave with
the watermark and processing time of their point, so a keyed operator after it replays them
alike. Sinks write a partition's rows in order.
"""
from __future__ import annotations

import pickle
import time
from bisect import bisect_left
from operator import itemgetter
from typing import Any, Callable, Iterator

import pyarrow as pa
from pyspark.sql import DataFrame, GroupedData
from pyspark.sql import functions as F

from kindling.runtime.channels import Timeline
from kindling.runtime.co_functions import BroadcastProcessAdapter
from kindling.runtime.key_state import KeyState, _timer_ts
from kindling.runtime.task_info import MAX_WATERMARK, MIN_WATERMARK, TaskInfo
from kindling.spark.broadcast import apply_broadcast_first, batch_groups
from kindling.spark.metrics import report_metrics
from kindling.spark.operators import count_late, opened_operator
from kindling.spark.key_placement import partition_keys
from kindling.spark.rows import ELEMENTS, KEY, PART, SUBTASK
from kindling.spark.stage import StageRun
from kindling.spark.stage_plan import StagePlan
from kindling.spark.subtask_copies import SubtaskCopies


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


def _subtask_function(uid: str, operator: Any, plan: StagePlan, late_records: Any) -> Callable[[pa.Table], pa.Table]:
    """applyInArrow body: one parallel instance of the keyed operator over its whole input."""
    copies = SubtaskCopies(operator, plan)

    def run(table: pa.Table) -> pa.Table:
        subtask = table.column(SUBTASK)[0].as_py()
        own_operator, own_plan = copies.of(uid, subtask)
        info = TaskInfo(own_operator.name, subtask, own_plan.parallelism, own_plan.max_parallelism,
                        job_parameters=own_plan.job_parameters)
        op = opened_operator(uid, own_operator, info)
        stage = StageRun(own_plan, subtask)
        keys, broadcast, logs = batch_groups(table)
        if isinstance(op.function, BroadcastProcessAdapter):
            for tag, value, ts in apply_broadcast_first(op.function, broadcast, _now()):
                stage.push_output(tag, value, ts, None)
        arrivals = _arrivals(keys)
        timeline = Timeline([a[0] for a in arrivals], logs)
        bundle_ends = None
        if getattr(op.function, "emits_per_bundle", False):
            bundle_ends = timeline.bundle_ends(own_plan.bundle_time_ms, own_plan.bundle_size)
        for tag, value, ts, watermark, processing_time in run_subtask(
                op, arrivals, timeline, subtask, own_plan.parallelism, own_plan.max_parallelism,
                own_plan.key_type, bundle_ends):
            stage.push_output(tag, value, ts, watermark, processing_time=processing_time)
        count_late(op, late_records)
        stage.record.processing_time = timeline.end_ms  # where the channels of the outputs end
        batches = list(stage.flush())
        report_metrics(own_plan.metrics)
        return pa.Table.from_batches(batches) if batches else stage.empty_table()

    return run


def _arrivals(keys: dict[bytes, list]) -> list[tuple]:
    """``(place, key, value, timestamp)`` of every element of a subtask (``keys``: key blob -> its
    elements), in the order of their places."""
    items = []
    for key_blob, elements in keys.items():
        key = _Key(pickle.loads(key_blob))
        items.extend((place, key, value, ts) for value, ts, place in elements)
    items.sort(key=itemgetter(0))
    return items


class _TracedState(KeyState):
    """A key's state that reports its event-time timer registrations and removals (deleted or
    fired) to the subtask's timer queue."""

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

    def pop_event_timer(self, up_to):
        t = super().pop_event_timer(up_to)
        if t is not None:
            self.trace("remove", t)
        return t


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


def run_subtask(op: Any, arrivals: list[tuple], timeline: Timeline | None = None, subtask: int = 0,
                parallelism: int = 1, max_parallelism: int | None = None, key_type: Any = None,
                bundle_ends: list[int] | None = None) -> Iterator[tuple]:
    """Runs ``op`` over one subtask's elements ``(place, key, value, timestamp)`` (sorted by
    place) as a pipelined Flink run does, along ``timeline`` (of these places and the tasks'
    records; None: no channel, the watermark at MIN until the end), and yields its outputs
    ``(tag, value, timestamp, watermark, processing_time)`` in Flink's order (see the module
    docstring). An operator that emits per bundle gets the points where its bundles end
    (``bundle_ends``, ``Timeline.bundle_ends``): its processing-time timers fire there."""
    from kindling.runtime.key_groups import assign_to_key_group, compute_default_max_parallelism

    max_parallelism = max_parallelism or compute_default_max_parallelism(parallelism)
    queue = _TimerQueue(subtask, parallelism, max_parallelism)
    if timeline is None:
        timeline = Timeline([a[0] for a in arrivals], ())
    events: list[tuple] = []  # (when, sequence, kind, key, timestamp): event-time timer changes during the input
    current: list = [None]  # when the work being done happens: (point, phase, ...) (see _replay_key)
    per_key: dict[int, list] = {}
    order: list[_Key] = []
    for point, (_, key, value, ts) in zip(timeline.element_points, arrivals):
        elements = per_key.get(id(key))
        if elements is None:
            key.rank = len(order)
            key.key_group = assign_to_key_group(key.key, max_parallelism, key_type)
            key.state = _TracedState(lambda kind, t, key=key: events.append((current[0], len(events), kind, key, t)))
            order.append(key)
            elements = per_key[id(key)] = []
        elements.append((point, value, ts))
    outputs: list[tuple] = []  # (when, output)
    if bundle_ends is None:
        processing_firing = timeline.processing_firing
    else:
        def processing_firing(_timer: int, start: int) -> int | None:
            """A timer registered before ``start`` fires where the bundle holding it ends."""
            b = bisect_left(bundle_ends, start)
            return bundle_ends[b] if b < len(bundle_ends) else None
    for key in order:
        _replay_key(op, key, per_key[id(key)], timeline, current, outputs, processing_firing,
                    bundle_ends is not None)
    outputs.sort(key=itemgetter(0))
    wm, ms = timeline.wm, timeline.ms
    for when, (tag, value, ts) in outputs:
        yield tag, value, ts, wm[when[0]], ms[when[0]]
    outputs.clear()

    def apply(kind: str, t: int, key: _Key) -> None:
        (queue.add if kind == "add" else queue.remove)(key.key_group, (t, key.rank))

    # Timers go into Flink's queue in the order the input registered and removed them.
    events.sort(key=itemgetter(0, 1))
    for _, _, kind, key, t in events:
        apply(kind, t, key)
    for key in order:  # from now on registrations while firing go straight to the queue
        key.state.trace = lambda kind, t, key=key: apply(kind, t, key)
    # End of input: the watermark becomes MAX_WATERMARK; timers fire in the queue's order, then
    # each key's end of input (processing-time timers that are due).
    now, watermark = timeline.end_ms, timeline.end_wm
    while (timer := queue.poll()) is not None:
        t, rank = timer
        key = order[rank]
        for tag, value, ts in op.fire_timers(key.key, key.state, MAX_WATERMARK, now, t, None):
            yield tag, value, ts, watermark, now
    for key in order:
        for tag, value, ts in op.end_of_input(key.key, key.state, now):
            yield tag, value, ts, watermark, now


def _replay_key(op: Any, key: _Key, elements: list[tuple], timeline: Timeline, current: list,
                outputs: list, processing_firing: Callable[[int, int], int | None], bundled: bool) -> None:
    """Runs one key's elements ``(point, value, timestamp)`` along ``timeline``: each at its
    point's watermark and processing time, and the key's timers at the points where they fall
    due (the first point where the watermark rose to an event-time timer; for a processing-time
    one, ``processing_firing(timer, first point)``: where the processing time reached it, or
    where the bundle ends when the operator is ``bundled``; timers registered by an element fall
    due after it). Appends
    ``(when, output)`` to ``outputs``, ``when`` being ``(point, 0 | 1, timestamp, key rank)`` for
    an event-time or processing-time timer firing at the point, ``(point, 2)`` for an element;
    ``current[0]`` is the ``when`` of the work being done."""
    state = key.state
    wm, ms = timeline.wm, timeline.ms
    event_from = time_from = 0  # the key's pending timers fire at points from these on
    i, n = 0, len(elements)
    while True:
        limit = elements[i][0] if i < n else len(wm) - 1
        while True:  # the key's timers that fall due up to the limit, in order
            te = state.next_event_timer()
            ke = timeline.event_firing(te, event_from) if te is not None else None
            tp = state.next_processing_timer()
            kp = processing_firing(tp, time_from) if tp is not None else None
            if ke is not None and ke <= limit and (kp is None or ke <= kp):
                k = ke
                when = current[0] = (k, 0, te, key.rank)
                fired = op.fire_timers(key.key, state, wm[k], ms[k], te, None)
                event_from, time_from = k, max(time_from, k)
            elif kp is not None and kp <= limit:
                k = kp
                when = current[0] = (k, 1, tp, key.rank)
                fired = op.fire_timers(key.key, state, wm[k], ms[k], None, tp)
                event_from, time_from = max(event_from, k + 1), k
            else:
                break
            outputs.extend((when, out) for out in fired)
            if wm[k] > state.fired_watermark:
                state.fired_watermark = wm[k]  # the key has seen the watermark there
        if i >= n:
            return
        first = elements[i][0]

        def segment():
            """The key's elements from ``i`` on, up to one before which a timer falls due."""
            nonlocal i
            previous = first
            now = None if bundled else ms[first]
            while i < n:
                point, value, ts = elements[i]
                watermark = wm[point]
                if point != first:
                    if watermark > wm[previous]:
                        due = state.next_event_timer()
                        if due is not None and due <= watermark:
                            return
                    due = state.next_processing_timer()
                    if due is not None and (fires := processing_firing(due, previous + 1)) is not None \
                            and fires <= point:
                        return
                if ms[point] != now:
                    now = ms[point]
                    op.set_processing_time(now)
                current[0] = (point, 2)
                previous = point
                i += 1
                yield value, ts, watermark

        # process() fires the timers due at its processing time when it ends: a bundled
        # operator's only where its bundle ends (the segment sets its clock)
        outputs.extend((current[0], out) for out in op.process(key.key, state, segment(), wm[first], wm[first],
                                                                MIN_WATERMARK if bundled else ms[first]))
        event_from = time_from = elements[i - 1][0] + 1


def _now() -> int:
    return int(time.time() * 1000)
