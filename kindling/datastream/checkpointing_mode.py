"""CheckpointingMode, as in ``pyflink.datastream.checkpointing_mode``."""
from enum import Enum

__all__ = ['CheckpointingMode']


class CheckpointingMode(Enum):
    """The consistency a job's state keeps across failures (``execution.checkpointing.mode``).

    On Spark both modes give exactly-once state: a micro-batch's state changes and source offsets
    commit together in Spark's checkpoint, and a failed micro-batch is replayed from the last
    commit. ``AT_LEAST_ONCE`` is accepted and changes nothing.

    Example: ``env.enable_checkpointing(1000, CheckpointingMode.EXACTLY_ONCE)``.
    """

    EXACTLY_ONCE = 0
    AT_LEAST_ONCE = 1
