"""NumberSequenceSource, as in ``pyflink.datastream.connectors.number_seq``."""
from __future__ import annotations

from kindling.common.typeinfo import Types
from kindling.datastream.connectors.base import Source
from kindling.graph.specs import SequenceSourceSpec


class NumberSequenceSource(Source):
    """A bounded source of the longs from ``start`` to ``end``, both inclusive.

    Example::

        env.from_source(NumberSequenceSource(1, 100), WatermarkStrategy.no_watermarks(), "numbers")
    """

    def __init__(self, start: int, end: int):
        if not isinstance(start, int) or not isinstance(end, int) or start > end:
            raise ValueError(f"NumberSequenceSource needs ints start <= end, got {start!r}, {end!r}")
        super().__init__(SequenceSourceSpec(start=start, end=end), Types.LONG())
