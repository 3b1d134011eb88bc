"""Time domains of timers, as in ``pyflink.datastream.TimeDomain``."""
from enum import Enum


class TimeDomain(Enum):
    """Whether a firing timer was set on event time or on processing time."""

    EVENT_TIME = 0
    PROCESSING_TIME = 1
