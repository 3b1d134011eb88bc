"""Timestamps and watermark stamps of one channel (a source split, or a parallel instance
running a timestamp assigner) from a WatermarkStrategy, emitted as Flink emits them.

Flink's generators (bounded out-of-orderness ``max_ts - delay - 1``, monotonous ``max_ts - 1``)
see every element (``on_event``) but *emit* their watermark periodically, every
``pipeline.auto-watermark-interval`` ms of processing time (``on_periodic_emit``); an interval
of 0 turns periodic emission off. Each element is stamped with the watermark its channel had
emitted just BEFORE it; keyed operators replay elements by stamp (docs/architecture.md, "Time
across parallel inputs")::

    gen = WatermarkGenerator(strategy, interval_ms=200)
    for value, record_ts in split:
        ts, stamp = gen.stamp_and_timestamp(value, record_ts)
    gen.emit()                                     # the split ended: emit what it reached

``per_element=True`` (configuration ``kindling.watermark.per-element``) emits after every
element instead: deterministic, for tests of lateness and small inputs. A strategy marked
``eager`` (a Flink SQL watermark: ``WATERMARK FOR ts AS ...``) also emits after an element that moves
its watermark more than the interval past the last one emitted (or past 0), as Flink's SQL
watermark assigner does.
"""
from __future__ import annotations

import inspect
import time
from typing import Callable, Iterable, Iterator, Optional, Tuple

from kindling.runtime.task_info import MIN_WATERMARK

DEFAULT_INTERVAL_MS = 200


def _two_args(f) -> bool:
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return True
    params = [p for p in sig.parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values()):
        return True
    return len(params) >= 2


def wall_clock_ms() -> int:
    """Processing time in epoch milliseconds."""
    return int(time.time() * 1000)


class WatermarkGenerator:
    """Assigns timestamps and computes watermark stamps for one channel.

    :param strategy: a WatermarkStrategy (fields ``kind`` 'monotonous'|'bounded'|'none',
        ``max_out_of_orderness_ms``, ``timestamp_assigner``, ``idleness_ms``) or None (no
        watermarks, record timestamps kept).
    :param interval_ms: periodic emission interval in processing time; 0 emits only on
        :meth:`emit` (the end of the input).
    :param per_element: emit after every element (Kindling's deterministic mode).
    :param clock: processing time in ms (injected by tests).
    """

    __slots__ = ('_extract', '_delay', '_emits', '_interval', '_per_element', '_clock', '_next_emit',
                 'max_timestamp', 'current_watermark', 'seen', 'idleness_ms', '_eager')

    def __init__(self, strategy=None, interval_ms: int = DEFAULT_INTERVAL_MS, per_element: bool = False,
                 clock: Callable[[], int] = wall_clock_ms):
        kind = getattr(strategy, 'kind', 'none') if strategy is not None else 'none'
        if kind not in ('monotonous', 'bounded', 'none'):
            raise ValueError("unknown watermark strategy kind %r" % (kind,))
        self._emits = kind != 'none'
        delay = 0
        if kind == 'bounded':
            delay = getattr(strategy, 'max_out_of_orderness_ms', 0) or 0
            if not isinstance(delay, int):
                from kindling.common.time import to_millis
                delay = to_millis(delay)
        self._delay = delay + 1
        assigner = getattr(strategy, 'timestamp_assigner', None) if strategy is not None else None
        if assigner is None:
            self._extract = None
        elif callable(getattr(assigner, 'extract_timestamp', None)):
            self._extract = assigner.extract_timestamp
        elif callable(assigner):
            if _two_args(assigner):
                self._extract = assigner
            else:
                self._extract = lambda value, record_ts: assigner(value)
        else:
            raise TypeError("a timestamp assigner must be a TimestampAssigner or a function, got %r"
                            % (assigner,))
        self.idleness_ms: Optional[int] = getattr(strategy, 'idleness_ms', None) if strategy is not None else None
        self._interval = max(int(interval_ms or 0), 0)
        self._per_element = bool(per_element)
        self._eager = bool(getattr(strategy, 'eager', False))
        self._clock = clock
        now = clock()
        self._next_emit = now + self._interval  # Flink's first periodic emission: one interval after start
        self.max_timestamp: Optional[int] = None
        self.current_watermark = MIN_WATERMARK  # the last watermark emitted
        self.seen = 0  # elements seen (a channel with none in a while may be idle)

    def emit(self) -> int:
        """Emits the watermark the elements seen so far allow (``on_periodic_emit``); returns it."""
        if self._emits and self.max_timestamp is not None:
            candidate = self.max_timestamp - self._delay
            if candidate > self.current_watermark:
                self.current_watermark = candidate
        return self.current_watermark

    def level(self) -> int:
        """The watermark this channel has reached when its read in a task ends: what it emits
        then (the end of a split, or a periodic emission before the next micro-batch), or
        what it had emitted when periodic emission is off."""
        if self._interval or self._per_element:
            return self.emit()
        return self.current_watermark

    def stamp_and_timestamp(self, value, record_ts: Optional[int] = None) -> Tuple[Optional[int], int]:
        """``(timestamp, stamp)`` of the next element: its event timestamp (from the assigner,
        else ``record_ts``) and the watermark emitted before it."""
        if self._interval:
            now = self._clock()
            if now >= self._next_emit:
                self.emit()
                self._next_emit = now + self._interval
        self.seen += 1
        stamp = self.current_watermark
        extract = self._extract
        ts = extract(value, record_ts) if extract is not None else record_ts
        if ts is not None and (self.max_timestamp is None or ts > self.max_timestamp):
            self.max_timestamp = ts
            if self._per_element or (self._eager and self._emits and
                                     ts - self._delay - max(self.current_watermark, 0) > self._interval):
                self.emit()
        return ts, stamp

    def stamp_all(self, records: Iterable[Tuple[object, Optional[int]]]) -> Iterator[Tuple[object, Optional[int], int]]:
        """``(value, timestamp, stamp)`` for each ``(value, record_ts)`` in order."""
        step = self.stamp_and_timestamp
        for value, record_ts in records:
            ts, stamp = step(value, record_ts)
            yield value, ts, stamp


class Generators(dict):
    """The watermark generators of one task by assigner uid, all emitting alike."""

    def __init__(self, interval_ms: int = DEFAULT_INTERVAL_MS, per_element: bool = False,
                 clock: Callable[[], int] = wall_clock_ms):
        super().__init__()
        self.settings = dict(interval_ms=interval_ms, per_element=per_element, clock=clock)


def generator_for(generators: dict, uid: str, strategy) -> WatermarkGenerator:
    """The generator of assigner ``uid`` in ``generators`` (a :class:`Generators` or a plain
    dict, then with default settings), created on first use."""
    generator = generators.get(uid)
    if generator is None:
        generator = generators[uid] = WatermarkGenerator(strategy, **getattr(generators, "settings", {}))
    return generator
