"""Watermarks across parallel inputs: Flink's rule that an operator's watermark is the minimum
over its input channels, for a keyed operator that sees its input one micro-batch at a time.

A channel is a source split or a parallel instance of an operator that produces watermarks
(a timestamp assigner, an upstream keyed operator). Each micro-batch, every upstream task
reports the channels it produced (:data:`Report`): the level (watermark) each reached, whether
it finished, whether it had elements. A :class:`ChannelTable` (one per keyed operator, kept in
Spark state) folds the reports in; its :meth:`~ChannelTable.begin_batch` gives the
:class:`Replay` that orders one key's elements of the batch and stamps each with the watermark
the operator had before it::

    replay = table.begin_batch(reports, now)     # once per batch, before any key
    before, elements, after = replay.run(runs)   # per key: runs = [(channel, seq, [(v, ts, stamp)])]
    operator.process(key, state, elements, before, after, now)

The order is one valid Flink interleaving: elements by stamp, then channel, then arrival (so
each channel keeps its order); before an element from channel ``c`` with stamp ``s``, ``c``
stands at ``s`` and every other channel at the highest stamp of its elements of this key seen
so far (or where it stood before the batch). After the key's elements every channel jumps to
its level at the end of the batch. Rules (Flink's StatusWatermarkValve): the watermark is the
minimum over channels that count, never decreases; a finished channel stops counting; with
idleness, a channel without elements for ``idleness_ms`` of processing time stops counting
until it has elements again; when no channel counts, the watermark is the maximum over all.

A one-step job (kindling/spark/one_step.py) has no micro-batches: each task's :class:`ReadLog`
records where every element it hands to a keyed operator was read (its processing time, its
arrival) and where each channel's stamps changed; every parallel instance of the operator gets
every task's log and replays its input along one :class:`Timeline`, as a pipelined Flink run
sees it: the watermark (the same rule) and the processing time at every element.
"""
from __future__ import annotations

import heapq
import time
from bisect import bisect_left
from operator import itemgetter
from typing import Any, Iterable, Optional

from kindling.runtime.task_info import MIN_WATERMARK

#: ``{channel: (level, finished, had_elements, idleness_ms)}`` from one upstream task
Report = dict


class ChannelTable:
    """The channels of one keyed operator: level, last active time and idleness of each
    channel that has not finished, and what finished channels reached."""

    __slots__ = ("floor", "finished_max", "channels")

    def __init__(self, floor: int = MIN_WATERMARK, finished_max: int = MIN_WATERMARK,
                 channels: Optional[dict] = None):
        self.floor = floor  # the combined watermark so far: never decreases
        self.finished_max = finished_max
        self.channels: dict[Any, list] = channels if channels is not None else {}  # id -> [level, active_ms, idle_ms]

    def to_tuple(self) -> tuple:
        return self.floor, self.finished_max, {k: tuple(v) for k, v in self.channels.items()}

    @classmethod
    def from_tuple(cls, data: tuple) -> "ChannelTable":
        floor, finished_max, channels = data
        return cls(floor, finished_max, {k: list(v) for k, v in channels.items()})

    def _counts(self, entry: list, now: int) -> bool:
        idle_ms = entry[2]
        return idle_ms is None or now - entry[1] < idle_ms

    def combined(self, now: int) -> int:
        """The operator's watermark: the minimum over counting channels (at least the floor)."""
        counting = [e[0] for e in self.channels.values() if self._counts(e, now)]
        if counting:
            return max(self.floor, min(counting))
        return max([self.floor, self.finished_max] + [e[0] for e in self.channels.values()])

    def apply(self, reports: Iterable[Report], now: int) -> None:
        """Folds one batch's reports in; the floor becomes the new combined watermark."""
        for report in reports:
            for channel, (level, finished, had_elements, idle_ms) in report.items():
                entry = self.channels.get(channel)
                if entry is None:
                    entry = self.channels[channel] = [MIN_WATERMARK, now, idle_ms]
                if level is not None and level > entry[0]:
                    entry[0] = level
                if had_elements:
                    entry[1] = now
                entry[2] = idle_ms
                if finished:
                    self.finished_max = max(self.finished_max, entry[0])
                    del self.channels[channel]
        self.floor = self.combined(now)

    def begin_batch(self, reports: list[Report], now: int) -> "Replay":
        """Applies a batch's reports and returns how to replay each key's elements of it."""
        levels: dict[Any, int] = {}
        for report in reports:
            for channel, (level, finished, had_elements, _idle) in report.items():
                entry = self.channels.get(channel)
                if not had_elements:
                    # no elements in this batch: its progress can come first (a valid interleaving)
                    if not finished and (entry is None or self._counts(entry, now)):
                        levels[channel] = max(MIN_WATERMARK if level is None else level,
                                              MIN_WATERMARK if entry is None else entry[0])
                    continue
                if entry is None:
                    levels[channel] = MIN_WATERMARK  # new: holds the watermark where it was
                    continue
                entry[1] = now  # active now: counts during the replay
                levels[channel] = entry[0]
        for channel, entry in self.channels.items():
            if channel not in levels and self._counts(entry, now):
                levels[channel] = entry[0]
        before = self.floor
        self.apply(reports, now)
        return Replay(levels, before, self.floor)


class Replay:
    """The order and watermarks of one batch's elements, per key (see the module docstring)."""

    __slots__ = ("levels", "before", "after")

    def __init__(self, levels: dict, before: int, after: int):
        self.levels = levels  # channels counting during the replay -> their level before the batch
        self.before = before
        self.after = after

    def run(self, runs: list) -> tuple[int, list, int]:
        """``(watermark_before, [(value, timestamp, watermark)], watermark_after)`` for one key's
        ``runs`` ``(channel, seq, [(value, timestamp, stamp), ...])``."""
        per_channel: dict[Any, list] = {}
        for channel, _seq, elements in sorted(runs, key=_run_order):
            per_channel.setdefault(channel, []).extend(elements)
        levels = dict(self.levels)
        floor = self.before
        current = max(floor, min(levels.values())) if levels else floor
        out = []
        append = out.append
        if len(per_channel) == 1:
            merged: Iterable = ((channel, e) for channel, es in per_channel.items() for e in es)
        else:
            merged = heapq.merge(*([(channel, e) for e in es] for channel, es in
                                   sorted(per_channel.items(), key=lambda item: _channel_order(item[0]))),
                                 key=_stamp_of)
        for channel, element in merged:
            stamp = element[2]
            if stamp is not None and channel in levels and stamp > levels[channel]:
                levels[channel] = stamp
                current = max(floor, min(levels.values()))
            append((element[0], element[1], current))
        return self.before, out, max(self.after, current)


def _channel_order(channel) -> tuple:
    return (channel is not None, str(channel))


def _run_order(run) -> tuple:
    return _channel_order(run[0]), run[1]


def _stamp_of(item) -> int:
    stamp = item[1][2]
    return MIN_WATERMARK if stamp is None else stamp


# -- one-step jobs ----------------------------------------------------------------------------

class ReadLog:
    """What one task records, in a one-step job, besides the elements it hands to a keyed
    operator: each element's *place* ``(processing time in ms, arrival in the task, partition)``,
    which orders the input as a pipelined run receives it, and the place where each channel's
    watermark (the elements' stamps) changed. A channel is named by the task (``producer``, e.g.
    the stage and the partition) besides its own name, which is None where no assigner names it."""

    __slots__ = ("producer", "partition", "changes", "levels", "seen", "arrived", "last_ms")

    def __init__(self, producer: tuple, partition: int):
        self.producer = producer
        self.partition = partition
        self.changes: list[tuple] = []  # (place, channel, level) since the last take
        self.levels: dict[Any, int] = {}  # channel name -> its level
        self.seen: set = set()  # the names of the channels the task produced
        self.arrived = 0
        self.last_ms = 0

    def place(self, channel, stamp: Optional[int], processing_time: Optional[int],
              read_ms: Optional[int] = None) -> tuple:
        """The place of the next element, of ``channel`` with ``stamp`` (its channel's watermark
        before it), made at ``processing_time`` by an upstream keyed operator, else read at
        ``read_ms`` (None: now)."""
        ms = processing_time if processing_time is not None else read_ms
        if ms is None:
            ms = time.time_ns() // 1_000_000
        if ms < self.last_ms:
            ms = self.last_ms  # places never go back within a task
        self.last_ms = ms
        place = (ms, self.arrived, self.partition)
        self.arrived += 1
        # A stamp without a channel name is an upstream keyed operator's watermark: it counts where
        # that operator's replay hands it on with its processing time, not after a union, where
        # the rows of several of its parallel instances meet in the order Spark fetched them.
        if stamp is not None and (channel is not None or processing_time is not None) \
                and stamp > self.levels.get(channel, MIN_WATERMARK):
            self.levels[channel] = stamp
            self.changes.append((place, (channel, self.producer), stamp))
        elif channel not in self.seen:
            self.seen.add(channel)
        return place

    def take(self, final: bool, default_channel: Any = None, processing_time: Optional[int] = None) -> tuple:
        """``(changes, ends)`` recorded since the last take; when ``final`` (the task ends at
        ``processing_time``, None: now), ``ends`` ``[(place, channel)]`` ends every channel of
        the task (``default_channel`` when it produced none, so that the task still counts)."""
        changes, self.changes = self.changes, []
        if not final:
            return changes, []
        ms = time.time_ns() // 1_000_000 if processing_time is None else processing_time
        end = (max(ms, self.last_ms), self.arrived, self.partition)
        names = (self.seen | set(self.levels)) or {default_channel}
        return changes, [(end, (name, self.producer)) for name in names]


class Timeline:
    """One parallel instance's input in a one-step job as a pipelined run sees it: its elements
    and every channel's watermark changes and ends (what the tasks' :class:`ReadLog` recorded), in the order
    of their places. Each is a *point* ``k`` with its processing time ``ms[k]`` and the
    operator's watermark ``wm[k]`` there: the minimum over the channels that have not ended
    (Flink's rule; every channel starts at MIN), never decreasing. ``steps`` are the points
    where the watermark rises."""

    __slots__ = ("ms", "wm", "element_points", "steps", "step_wm")

    def __init__(self, places: list, logs: Iterable[tuple]):
        events: list[tuple] = []
        levels: dict[Any, int] = {}
        for changes, ends in logs:
            for place, channel, level in changes:
                events.append((place, 0, channel, level))
                levels.setdefault(channel, MIN_WATERMARK)
            for place, channel in ends:
                events.append((place, 1, channel, None))
                levels.setdefault(channel, MIN_WATERMARK)
        events.sort(key=itemgetter(0, 1))  # a change comes before the element whose stamp it is
        counting = set(levels)
        self.ms: list[int] = []
        self.wm: list[int] = []
        self.element_points: list[int] = []  # the point of each of ``places``
        self.steps: list[int] = []
        self.step_wm: list[int] = []
        current = MIN_WATERMARK
        i, n = 0, len(places)
        for place, kind, channel, level in events:
            while i < n and places[i] < place:
                self.element_points.append(len(self.ms))
                self._point(places[i][0], current)
                i += 1
            if kind == 0:
                levels[channel] = max(levels[channel], level)
            else:
                counting.discard(channel)
            if counting:  # when the last channel ends, the input ends (MAX_WATERMARK follows)
                current = max(current, min(levels[c] for c in counting))
            self._point(place[0], current)
        for place in places[i:]:
            self.element_points.append(len(self.ms))
            self._point(place[0], current)

    def _point(self, ms: int, wm: int) -> None:
        if wm > (self.wm[-1] if self.wm else MIN_WATERMARK):
            self.steps.append(len(self.wm))
            self.step_wm.append(wm)
        self.ms.append(ms)
        self.wm.append(wm)

    @property
    def end_ms(self) -> int:
        """The processing time at which the input ended."""
        return self.ms[-1] if self.ms else time.time_ns() // 1_000_000

    @property
    def end_wm(self) -> int:
        """The watermark before the end of the input (then MAX_WATERMARK)."""
        return self.wm[-1] if self.wm else MIN_WATERMARK

    def event_firing(self, timer: int, start: int) -> Optional[int]:
        """The point at or after ``start`` where an event-time ``timer`` fires: the first where
        the watermark rises to it or above (None: not before the end of the input)."""
        i = max(bisect_left(self.steps, start), bisect_left(self.step_wm, timer))
        return self.steps[i] if i < len(self.steps) else None

    def processing_firing(self, timer: int, start: int) -> Optional[int]:
        """The point at or after ``start`` where a processing-time ``timer`` fires: the first
        whose processing time reached it (None: not before the end of the input)."""
        k = max(start, bisect_left(self.ms, timer))
        return k if k < len(self.ms) else None

    def bundle_ends(self, period_ms: int, size: int) -> list[int]:
        """The points before which a PyFlink Python operator reading this input ends a bundle
        (``python.fn-execution.bundle.time`` ``period_ms`` and ``.bundle.size`` ``size``): its
        check every ``period_ms`` from its start (the first point) ends a bundle that holds
        elements, unless it ended the last one ``period_ms`` or less before (the check after a
        bundle it ended comes a moment too soon: a busy operator's bundles last two periods, as
        PyFlink's do); ``size`` elements end one at once; the end of the input ends the last.
        Watermarks end none (PyFlink holds them back until the bundle ends)."""
        ends: list[int] = []
        if not self.ms:
            return ends
        start = self.ms[0]
        finished = start - 1  # when the last bundle ended (the operator's start: its first check may end one)
        count = check = 0
        elements = iter(self.element_points)
        next_element = next(elements, None)
        for k, now in enumerate(self.ms):
            if count and check <= now:
                ends.append(k)
                count, finished = 0, check
            if k == next_element:
                next_element = next(elements, None)
                if not count:  # a bundle begins: the first check after it and after the wait ends it
                    due = max(finished + period_ms + 1, now + 1)
                    check = start + -(-(due - start) // period_ms) * period_ms
                count += 1
                if count >= size:
                    count, finished = 0, now
                    if k + 1 < len(self.ms):
                        ends.append(k + 1)
        return ends
