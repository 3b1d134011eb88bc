"""BATCH execution of keyed operators, as Flink's ``RuntimeExecutionMode.BATCH``.

Flink sorts a keyed operator's input by key and timestamp and processes one key at a time
with a fresh state (BatchExecutionKeyedStateBackend / BatchExecutionInternalTimeService):

* the key's elements come in timestamp order (stable; elements without timestamp first);
* the watermark is MIN_WATERMARK while they are processed, so no event-time timer fires;
* at the end of the key the watermark becomes MAX_WATERMARK: every event-time timer fires in
  timestamp order, then every processing-time timer fires in timestamp order, whatever the
  current processing time; timers registered during this end-of-key firing are ignored
  (Flink "quiesces" the timer service to avoid endless loops);
* the key's state is then dropped.

``run_key_batch`` does this for one key; ``run_batch`` for a collection of records.
"""
from __future__ import annotations

import time
from typing import Callable, Iterable, List, Optional, Tuple

from kindling.runtime.key_state import KeyState
from kindling.runtime.keyed_operator import KeyedOperator, Output
from kindling.runtime.task_info import MIN_WATERMARK


def _ts_key(e):
    ts = e[1]
    return MIN_WATERMARK if ts is None else ts


def sort_for_batch(elements: Iterable[Tuple]) -> List[Tuple]:
    """``(value, timestamp, ...)`` tuples sorted by timestamp (stable, None first)."""
    return sorted(elements, key=_ts_key)


def run_key_batch(operator: KeyedOperator, key, elements: Iterable[Tuple],
                  processing_time: Optional[int] = None, state: Optional[KeyState] = None) -> List[Output]:
    """Runs ``operator`` over all ``(value, timestamp)`` elements of one key as Flink's BATCH
    mode does and returns its outputs ``(tag_id, value, timestamp)``.

    The operator must be open (KeyedProcessOperator opens itself with a default TaskInfo).
    ``processing_time`` (default: now) is what ``current_processing_time()`` returns.
    """
    if processing_time is None:
        processing_time = int(time.time() * 1000)
    ks = KeyState() if state is None else state
    return list(operator.process_key_batch(key, ks, sort_for_batch(elements), processing_time))


def run_batch(operator: KeyedOperator, records: Iterable[Tuple], key_selector: Callable,
              processing_time: Optional[int] = None) -> List[Output]:
    """Groups ``(value, timestamp)`` records by ``key_selector(value)`` (keys in order of
    first appearance) and runs each key with :func:`run_key_batch`."""
    get_key = getattr(key_selector, 'get_key', key_selector)
    groups = {}
    for rec in records:
        groups.setdefault(get_key(rec[0]), []).append(rec)
    out: List[Output] = []
    for key, elements in groups.items():
        out.extend(run_key_batch(operator, key, elements, processing_time))
    return out
