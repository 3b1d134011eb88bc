"""Connectors, as in ``pyflink.datastream.connectors``."""
from kindling.datastream.connectors.base import DeliveryGuarantee, Sink, Source
from kindling.datastream.connectors.number_seq import NumberSequenceSource

__all__ = ["DeliveryGuarantee", "Sink", "Source", "NumberSequenceSource"]
