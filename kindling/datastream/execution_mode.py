"""Runtime execution modes, as in ``pyflink.datastream.execution_mode``."""
from enum import Enum


class RuntimeExecutionMode(Enum):
    """STREAMING runs a Spark Structured Streaming query; BATCH runs Spark batch jobs over
    bounded inputs; AUTOMATIC picks BATCH when every source is bounded."""

    STREAMING = 0
    BATCH = 1
    AUTOMATIC = 2
