"""Views of generated events for the Table API's event-time tests: a NumberSequenceSource (with
parallelism 2, two splits whose event times advance at different speeds) mapped to rows
``(ts, key, value)`` with a watermark declared in the Schema."""
from __future__ import annotations

from typing import Callable, Sequence, Tuple

from kindling.common import Types
from kindling.common.time import Instant
from kindling.common.watermark_strategy import WatermarkStrategy
from kindling.datastream.connectors.number_seq import NumberSequenceSource
from kindling.table import DataTypes, Schema


class _Event:
    """Row ``(Instant, key, value)`` of number ``n`` from ``event(n) = (millis, key, value)``."""

    def __init__(self, event: Callable[[int], Tuple[int, int, int]]):
        self.event = event

    def __call__(self, n: int):
        millis, key, value = self.event(n)
        return Instant.of_epoch_milli(millis), key, value


def event_view(env, t_env, name: str, count: int, event: Callable[[int], Tuple[int, int, int]],
               names: Sequence[str] = ("ts", "k", "v"), delay_seconds: int = 1, first: int = 0) -> None:
    """Registers ``name``: numbers ``first .. first + count - 1`` as rows ``event(n)``, the first column
    the event time with a watermark ``delay_seconds`` behind it."""
    numbers = env.from_source(NumberSequenceSource(first, first + count - 1), WatermarkStrategy.no_watermarks(), name)
    rows = numbers.map(_Event(event), output_type=Types.ROW([Types.INSTANT(), Types.LONG(), Types.LONG()]))
    t_env.create_temporary_view(name, t_env.from_data_stream(
        rows, Schema.new_builder().column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
        .column("f1", DataTypes.BIGINT()).column("f2", DataTypes.BIGINT())
        .watermark("ts", f"ts - INTERVAL '{delay_seconds}' SECOND").build()).alias(*names))


def late_row_view(env, t_env, name: str = "t") -> None:
    """Registers ``name``: rows ``(f1, ts)`` of times 1000, 5000, 1500, 6000 ms and values 1 to 4 in one
    split, a watermark (per element) one second behind: the row of 1500 comes behind the watermark (4000)."""
    from kindling.common import Configuration

    env.configure(Configuration().set_string("kindling.watermark.per-element", "true"))
    env.set_parallelism(1)
    stream = env.from_collection([(Instant.of_epoch_milli(t), v) for t, v in
                                  [(1000, 1), (5000, 2), (1500, 3), (6000, 4)]],
                                 type_info=Types.ROW([Types.INSTANT(), Types.LONG()]))
    t_env.create_temporary_view(name, t_env.from_data_stream(stream, Schema.new_builder().column_by_expression(
        "ts", "CAST(f0 AS TIMESTAMP(3))").column("f1", DataTypes.BIGINT())
        .watermark("ts", "ts - INTERVAL '1' SECOND").build()))
