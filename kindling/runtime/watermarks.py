"""Per-source-partition timestamps and watermark stamps from a WatermarkStrategy.

Flink's watermark moves between elements. Kindling computes it deterministically per source
partition, element by element, and stamps each element with the watermark emitted just
BEFORE it; keyed operators replay a key's elements in stamp order (see DESIGN.md, "Time")::

    gen = WatermarkGenerator(strategy)             # or start_watermark=<last batch's>
    for value, record_ts in partition:
        ts, stamp = gen.stamp_and_timestamp(value, record_ts)
    gen.current_watermark                          # the partition's watermark after the batch

Watermarks: bounded out-of-orderness ``max_ts - delay - 1``, monotonous ``max_ts - 1``,
no watermarks: never advances. Idleness and alignment are not modelled here.
"""
from __future__ import annotations

import inspect
from typing import Iterable, Iterator, Optional, Tuple

from kindling.runtime.task_info import MIN_WATERMARK


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


class WatermarkGenerator:
    """Assigns timestamps and computes watermark stamps for one source partition.

    :param strategy: a WatermarkStrategy (fields ``kind`` 'monotonous'|'bounded'|'none',
        ``max_out_of_orderness_ms``, ``timestamp_assigner``) or None (no watermarks, record
        timestamps kept).
    :param start_watermark: the watermark the partition had already emitted (e.g. at the end
        of the previous micro-batch).
    """

    __slots__ = ('_extract', '_delay', '_emits', 'current_watermark')

    def __init__(self, strategy=None, start_watermark: int = MIN_WATERMARK):
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
        self.current_watermark = start_watermark if start_watermark is not None else MIN_WATERMARK

    def stamp_and_timestamp(self, value, record_ts: Optional[int] = None) -> Tuple[Optional[int], int]:
        """``(timestamp, stamp)`` of the next element: its event timestamp (from the assigner,
        else ``record_ts``) and the watermark emitted before it."""
        stamp = self.current_watermark
        extract = self._extract
        ts = extract(value, record_ts) if extract is not None else record_ts
        if ts is not None and self._emits:
            candidate = ts - self._delay
            if candidate > stamp:
                self.current_watermark = candidate
        return ts, stamp

    def stamp_all(self, records: Iterable[Tuple[object, Optional[int]]]) -> Iterator[Tuple[object, Optional[int], int]]:
        """``(value, timestamp, stamp)`` for each ``(value, record_ts)`` in order."""
        step = self.stamp_and_timestamp
        for value, record_ts in records:
            ts, stamp = step(value, record_ts)
            yield value, ts, stamp
