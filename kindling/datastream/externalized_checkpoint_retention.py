"""ExternalizedCheckpointRetention, as in ``pyflink.datastream.externalized_checkpoint_retention``."""
from enum import Enum

__all__ = ['ExternalizedCheckpointRetention']


class ExternalizedCheckpointRetention(Enum):
    """What happens to a configured checkpoint directory when the job is cancelled
    (``execution.checkpointing.externalized-checkpoint-retention``).

    ``DELETE_ON_CANCELLATION`` removes the job's checkpoint directory when the job is cancelled.
    ``RETAIN_ON_CANCELLATION`` and ``NO_EXTERNALIZED_CHECKPOINTS`` (Flink's default) keep it: a
    configured directory is how a job run again resumes, so Kindling never removes it otherwise.
    Checkpoints of a failed job are always kept. A job without a configured directory checkpoints
    to a temporary one, removed when the job ends.

    Example: ``config.set_externalized_checkpoint_retention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION)``.
    """

    DELETE_ON_CANCELLATION = 0
    RETAIN_ON_CANCELLATION = 1
    NO_EXTERNALIZED_CHECKPOINTS = 2
