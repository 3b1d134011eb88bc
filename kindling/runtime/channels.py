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
"""
from __future__ import annotations

import heapq
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
