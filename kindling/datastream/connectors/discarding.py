"""A sink that drops every element, counting them (Flink's ``DiscardingSink``)."""
from __future__ import annotations

from kindling.datastream.connectors.base import Sink
from kindling.graph.specs import DiscardSinkSpec


class DiscardingSink(Sink):
    """Drops every element; the job result counts them under ``records-written:<sink name>``.

    Example::

        stream.sink_to(DiscardingSink())
        result = env.execute()
        result.get_accumulator_result("records-written:DiscardingSink")
    """

    def __init__(self):
        super().__init__(DiscardSinkSpec(), "DiscardingSink")
