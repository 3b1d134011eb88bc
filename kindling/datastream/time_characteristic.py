"""TimeCharacteristic, as in ``pyflink.datastream.time_characteristic`` (PyFlink 1.x; Flink
deprecated it: window assigners name their time domain themselves)."""
from enum import Enum

__all__ = ["TimeCharacteristic"]


class TimeCharacteristic(Enum):
    """The time notion of a job's time-based operations.

    Kindling records it (``env.set_stream_time_characteristic``) for compatibility; as in
    Flink since 1.12 it changes nothing: an event-time or processing-time window assigner,
    timer or watermark strategy says which time it uses.
    """

    ProcessingTime = 0
    IngestionTime = 1
    EventTime = 2
