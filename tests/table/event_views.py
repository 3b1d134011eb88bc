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
