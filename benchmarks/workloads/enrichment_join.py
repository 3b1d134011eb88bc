"""A stream enrichment join: 1,000,000 events against reference data of 10,000 keys.

* ``enrichment-join``: Kindling connects the events (``(key, ts, value)``, as in ``keyed.py``)
  with the reference stream (``(key, name)``, one per key), keys both by ``key`` and runs a
  ``KeyedCoProcessFunction``: the reference side keeps the key's name in a ValueState, an event
  is emitted with the name, or waits in a ListState until the name arrives. Hand-written: the
  two streams as one frame of ``(key, side, value, name)`` (a ``unionByName`` of both sources),
  ``groupBy("key").transformWithState`` with the same two states, the same way. Both count
  their outputs: one per event.
"""
from __future__ import annotations

from typing import Iterator

import pyarrow as pa

from benchmarks.harness import PARALLELISM, Workload
from benchmarks.workloads.keyed import (event_type, events_mapper, kindling_env, make_event, run_counting,
                                        run_kindling, sequence_source_frame)

RECORDS = 1_000_000
REFERENCE_KEYS = 10_000  # the events' keys (keyed.make_event)


def reference(key: int) -> tuple:
    return (key, f"name-{key}")


def _enrich():
    from kindling.common import Types
    from kindling.datastream import KeyedCoProcessFunction
    from kindling.datastream.state import ListStateDescriptor, ValueStateDescriptor

    class Enrich(KeyedCoProcessFunction):
        def open(self, runtime_context):
            self.name = runtime_context.get_state(ValueStateDescriptor("name", Types.STRING()))
            self.waiting = runtime_context.get_list_state(ListStateDescriptor("waiting", Types.LONG()))

        def process_element1(self, event, ctx):
            name = self.name.value()
            if name is None:
                self.waiting.add(event[2])
            else:
                yield event[0], event[2], name

        def process_element2(self, ref, ctx):
            self.name.update(ref[1])
            for value in self.waiting.get():
                yield ref[0], value, ref[1]
            self.waiting.clear()

    return Enrich()


def kindling_join(spark, n: int) -> int:
    from kindling.common import Types
    from kindling.datastream.connectors import DiscardingSink

    env = kindling_env()
    events = env.generate_sequence(0, n - 1).map(make_event, output_type=event_type())
    refs = env.generate_sequence(0, REFERENCE_KEYS - 1).map(
        reference, output_type=Types.TUPLE([Types.LONG(), Types.STRING()]))
    (events.connect(refs).key_by(lambda e: e[0], lambda r: r[0])
        .process(_enrich(), Types.TUPLE([Types.LONG(), Types.LONG(), Types.STRING()]))
        .sink_to(DiscardingSink()))
    return run_kindling(env, "bench-enrichment-join")


def _schema():
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    return StructType([StructField("key", LongType()), StructField("side", LongType()),
                       StructField("value", LongType()), StructField("name", StringType())])


def _out_schema():
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    return StructType([StructField("key", LongType()), StructField("value", LongType()),
                       StructField("name", StringType())])


def _references(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        refs = [reference(k) for k in batch.column(0).to_pylist()]
        n = len(refs)
        yield pa.RecordBatch.from_arrays([pa.array([r[0] for r in refs], pa.int64()), pa.array([1] * n, pa.int64()),
                                          pa.nulls(n, pa.int64()), pa.array([r[1] for r in refs], pa.string())],
                                         names=["key", "side", "value", "name"])


def _join_processor():
    from pyspark.sql import Row
    from pyspark.sql.streaming.stateful_processor import StatefulProcessor
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    class Join(StatefulProcessor):
        def init(self, handle) -> None:
            self.name = handle.getValueState("name", StructType([StructField("name", StringType())]))
            self.waiting = handle.getListState("waiting", StructType([StructField("value", LongType())]))

        def handleInputRows(self, key, rows, timerValues) -> Iterator[Row]:
            name = self.name.get()[0] if self.name.exists() else None
            changed, waiting, out = False, None, []
            for r in rows:
                if r[1] == 1:
                    name, changed = r[3], True
                    if waiting is None:
                        waiting = [w[0] for w in self.waiting.get()]
                    out.extend(Row(key=r[0], value=v, name=name) for v in waiting)
                    waiting = []
                elif name is None:
                    if waiting is None:
                        waiting = [w[0] for w in self.waiting.get()]
                    waiting.append(r[2])
                else:
                    out.append(Row(key=r[0], value=r[2], name=name))
            if changed:
                self.name.update((name,))
            if waiting is not None:
                if waiting:
                    self.waiting.put([(v,) for v in waiting])
                else:
                    self.waiting.clear()
            return iter(out)

        def close(self) -> None:
            pass

    return Join()


def handwritten_join(spark, n: int) -> int:
    from pyspark.sql import functions as F

    events = (sequence_source_frame(spark, n).where("f0 IS NOT NULL").select("f0")
              .mapInArrow(events_mapper(make_event), "key long, ts long, value long")
              .select("key", F.lit(0).cast("long").alias("side"), "value", F.lit(None).cast("string").alias("name")))
    refs = (sequence_source_frame(spark, REFERENCE_KEYS).where("f0 IS NOT NULL").select("f0")
            .mapInArrow(_references, _schema()))
    out = events.unionByName(refs).groupBy("key").transformWithState(_join_processor(), _out_schema(), "Append", "None")
    return run_counting(out)


def _check(n: int, count: int) -> None:
    if count != n:
        raise AssertionError(f"expected {n} joined events, got {count}")


WORKLOAD = Workload(
    name="enrichment-join",
    records=RECORDS,
    kindling=kindling_join,
    handwritten=handwritten_join,
    target_ratio=1.0,
    description=f"KeyedCoProcessFunction join of events against {REFERENCE_KEYS:,} reference keys "
                f"(parallelism {PARALLELISM})",
    check=_check,
)
