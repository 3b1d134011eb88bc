"""What PyFlink's ``pyflink.testing.source_sink_utils`` gives a Table test: the ``test-sink``
connector and the rows it received, each as Flink's ``Row.toString`` writes it (``+I[1, hi]``).

A ``test-sink`` table takes appends and changes alike; its rows reach the driver as the job runs
and wait there until :func:`results` (or :func:`retract_results`, :func:`upsert_results`) takes
them, which also forgets them, as PyFlink's does::

    from kindling.testing import source_sink_utils

    t_env.execute_sql("CREATE TABLE Results(a BIGINT, b STRING) WITH ('connector'='test-sink')")
    t_env.from_elements([(1, 'hi')], ['a', 'b']).execute_insert("Results").wait()
    assert source_sink_utils.results() == ['+I[1, hi]']
"""
from __future__ import annotations

import collections
import sys
import threading
from typing import Dict, List, Sequence, Tuple

from kindling.datastream.data_stream import CollectBuffer
from kindling.graph.specs import CollectSinkSpec
from kindling.table.connectors import RowTexts, register_sink, row_text

__all__ = ["results", "retract_results", "upsert_results"]

_received: List[CollectBuffer] = []  # one per test-sink a job wrote, in the order the jobs were built
_lock = threading.Lock()


def results() -> List[str]:
    """The rows the ``test-sink`` tables received since the last call, with retractions applied."""
    return retract_results()


def retract_results() -> List[str]:
    """The rows received, counted as Flink's RowCollector counts them: ``+I``/``+U`` rows add one
    of their text, ``-U``/``-D`` rows take one away from theirs (their text has their kind, so a
    ``-U[a, 1]`` cancels only an earlier ``-U[a, 1]``, as in PyFlink). As there, it fails when every
    count is negative, which includes when the sinks received no row at all."""
    counts: Dict[str, int] = collections.Counter()
    for kind, fields in _take():
        counts[row_text(kind, fields)] += 1 if kind in ("+I", "+U") else -1
    if all(n < 0 for n in counts.values()):
        raise AssertionError("Received retracted rows which have not been accumulated.")
    return [text for text, n in counts.items() for _ in range(n)]


def upsert_results(keys: Sequence[int]) -> List[str]:
    """The last row received per key (the fields at positions ``keys``, with the row's kind, as
    Flink's ``Row.project`` keeps it); a ``-U``/``-D`` row removes its key's row."""
    latest: Dict[tuple, str] = {}
    for kind, fields in _take():
        key = (kind,) + tuple(fields[k] for k in keys)
        if kind in ("+I", "+U"):
            latest[key] = row_text(kind, fields)
        else:
            latest.pop(key, None)
    return list(latest.values())


def _take() -> List[Tuple[str, Tuple[str, ...]]]:
    with _lock:
        buffers = list(_received)
        _received.clear()
    return [row for buffer in buffers for row in buffer.drain()]


def _test_sink(stream, schema, options: Dict[str, str], name: str, declared):
    extra = sorted(k for k in options if k != "connector")
    if extra:
        raise ValueError(f"Unsupported options for the 'test-sink' connector: {', '.join(extra)}; it takes none")
    buffer = CollectBuffer(sys.maxsize)
    with _lock:
        _received.append(buffer)
    texts = stream.map(RowTexts(schema.get_field_data_types()).parts)
    return texts._sink(CollectSinkSpec(collector=buffer), f"Sink: {name}")


register_sink("test-sink", _test_sink, takes_changes=True)
