"""Connectors, as in ``pyflink.datastream.connectors``."""
from kindling.datastream.connectors.base import DeliveryGuarantee, Sink, Source
from kindling.datastream.connectors.discarding import DiscardingSink
from kindling.datastream.connectors.number_seq import NumberSequenceSource

__all__ = ["DiscardingSink", "DeliveryGuarantee", "Sink", "Source", "NumberSequenceSource"]
