"""CheckpointConfig, as in ``pyflink.datastream.checkpoint_config``.

Every setting is a Flink configuration key of the environment's configuration, so that
``env.get_checkpoint_config().set_...`` and ``Configuration`` keys (``execution.checkpointing.*``)
are two ways to say the same. On Spark a checkpoint is a micro-batch commit: what each setting
does there is said at its setter and in docs/fault-tolerance.md.
"""
from typing import Optional

from kindling.common.configuration import Configuration
from kindling.common.time import Duration, duration_millis
from kindling.datastream.checkpoint_storage import (DIRECTORY, DIRECTORY_FALLBACK, STORAGE, CheckpointStorage,
                                                    FileSystemCheckpointStorage, JobManagerCheckpointStorage)
from kindling.datastream.checkpointing_mode import CheckpointingMode
from kindling.datastream.externalized_checkpoint_retention import ExternalizedCheckpointRetention

__all__ = ['CheckpointConfig']

INTERVAL = 'execution.checkpointing.interval'
MODE = 'execution.checkpointing.mode'
TIMEOUT = 'execution.checkpointing.timeout'
MIN_PAUSE = 'execution.checkpointing.min-pause'
MAX_CONCURRENT = 'execution.checkpointing.max-concurrent-checkpoints'
TOLERABLE = 'execution.checkpointing.tolerable-failed-checkpoints'
RETENTION = 'execution.checkpointing.externalized-checkpoint-retention'
UNALIGNED = 'execution.checkpointing.unaligned.enabled'
FORCE_UNALIGNED = 'execution.checkpointing.unaligned.forced'
ALIGNED_TIMEOUT = 'execution.checkpointing.aligned-checkpoint-timeout'
_MINIMAL_MS = 10


def _enum(enum_type, value: str, key: str):
    try:
        return enum_type[value.strip().upper()]
    except KeyError:
        raise ValueError("%s must be one of %s, got %r" % (key, ", ".join(e.name for e in enum_type), value)) from None


class CheckpointConfig(object):
    """The checkpoint settings of a job, read from and written to its configuration.

    Example::

        config = env.get_checkpoint_config()
        config.set_checkpoint_interval(1000)        # a micro-batch commit about every second
        config.set_min_pause_between_checkpoints(500)
    """

    def __init__(self, configuration: Optional[Configuration] = None) -> None:
        self._conf = configuration if configuration is not None else Configuration()

    def _ms(self, key: str, default: int) -> int:
        text = self._conf.get_string(key, '')
        return duration_millis(text, key) if text else default

    def _set_ms(self, key: str, value: int, minimum: int, message: str) -> 'CheckpointConfig':
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ValueError("%s, got %r" % (message, value))
        self._conf.set_string(key, '%d ms' % value)
        return self

    # -- interval and mode ------------------------------------------------------------------
    def is_checkpointing_enabled(self) -> bool:
        return self.get_checkpoint_interval() > 0

    def get_checkpoint_interval(self) -> int:
        """The interval (ms) between micro-batch commits, or -1 when checkpointing is disabled."""
        return self._ms(INTERVAL, -1)

    def set_checkpoint_interval(self, checkpoint_interval: int) -> 'CheckpointConfig':
        """Enables checkpointing: an unbounded job's micro-batches start every ``checkpoint_interval``
        ms (Spark's processing-time trigger), each one a commit of offsets, state and sink output;
        sources read at most ``kindling.source.max-records-per-batch`` records per
        micro-batch, so that a large input also commits about this often."""
        return self._set_ms(INTERVAL, checkpoint_interval, _MINIMAL_MS,
                            'Checkpoint interval must be larger than or equal to %d ms' % _MINIMAL_MS)

    def get_checkpointing_mode(self) -> CheckpointingMode:
        """EXACTLY_ONCE unless set otherwise; AT_LEAST_ONCE while checkpointing is disabled (as Flink)."""
        if not self.is_checkpointing_enabled():
            return CheckpointingMode.AT_LEAST_ONCE
        return _enum(CheckpointingMode, self._conf.get_string(MODE, 'EXACTLY_ONCE'), MODE)

    def set_checkpointing_mode(self, checkpointing_mode: CheckpointingMode) -> 'CheckpointConfig':
        """Accepted: Spark commits state and offsets together, so state is exactly-once either way."""
        if not isinstance(checkpointing_mode, CheckpointingMode):
            raise TypeError("set_checkpointing_mode expects a CheckpointingMode, got %r" % (checkpointing_mode,))
        self._conf.set_string(MODE, checkpointing_mode.name)
        return self

    # -- timing -----------------------------------------------------------------------------
    def get_checkpoint_timeout(self) -> int:
        return self._ms(TIMEOUT, 600_000)

    def set_checkpoint_timeout(self, checkpoint_timeout: int) -> 'CheckpointConfig':
        """Recorded, not enforced: Spark cannot abandon a running micro-batch's commit."""
        return self._set_ms(TIMEOUT, checkpoint_timeout, _MINIMAL_MS,
                            'Checkpoint timeout must be larger than or equal to %d ms' % _MINIMAL_MS)

    def get_min_pause_between_checkpoints(self) -> int:
        return self._ms(MIN_PAUSE, 0)

    def set_min_pause_between_checkpoints(self, min_pause_between_checkpoints: int) -> 'CheckpointConfig':
        """At least this long (ms) passes between the end of one micro-batch and the start of the
        next one's processing."""
        return self._set_ms(MIN_PAUSE, min_pause_between_checkpoints, 0, 'Pause value must be zero or positive')

    def get_max_concurrent_checkpoints(self) -> int:
        return self._conf.get_integer(MAX_CONCURRENT, 1)

    def set_max_concurrent_checkpoints(self, max_concurrent_checkpoints: int) -> 'CheckpointConfig':
        """Accepted: Spark runs one micro-batch (one checkpoint) at a time."""
        if isinstance(max_concurrent_checkpoints, bool) or not isinstance(max_concurrent_checkpoints, int) \
                or max_concurrent_checkpoints < 1:
            raise ValueError("The maximum number of concurrent attempts must be at least one, got %r"
                             % (max_concurrent_checkpoints,))
        self._conf.set_integer(MAX_CONCURRENT, max_concurrent_checkpoints)
        return self

    # -- failures ---------------------------------------------------------------------------
    def get_tolerable_checkpoint_failure_number(self) -> int:
        return self._conf.get_integer(TOLERABLE, 0)

    def set_tolerable_checkpoint_failure_number(self, tolerable_checkpoint_failure_number: int
                                                ) -> 'CheckpointConfig':
        """Recorded: on Spark a failed commit fails the micro-batch and with it the query, which
        the restart strategy restarts from the last commit."""
        number = tolerable_checkpoint_failure_number
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise ValueError("The tolerable failure checkpoint number must be non-negative, got %r" % (number,))
        self._conf.set_integer(TOLERABLE, number)
        return self

    def is_fail_on_checkpointing_errors(self) -> bool:
        return self.get_tolerable_checkpoint_failure_number() == 0

    def set_fail_on_checkpointing_errors(self, fail_on_checkpointing_errors: bool) -> 'CheckpointConfig':
        return self.set_tolerable_checkpoint_failure_number(0 if fail_on_checkpointing_errors else 2147483647)

    # -- retention --------------------------------------------------------------------------
    def set_externalized_checkpoint_retention(self, retention_mode: ExternalizedCheckpointRetention
                                              ) -> 'CheckpointConfig':
        """``DELETE_ON_CANCELLATION`` removes a configured checkpoint directory when the job is
        cancelled; otherwise it is kept (see ExternalizedCheckpointRetention)."""
        if not isinstance(retention_mode, ExternalizedCheckpointRetention):
            raise TypeError("set_externalized_checkpoint_retention expects an ExternalizedCheckpointRetention, "
                            "got %r" % (retention_mode,))
        self._conf.set_string(RETENTION, retention_mode.name)
        return self

    def get_externalized_checkpoint_retention(self) -> Optional[ExternalizedCheckpointRetention]:
        return _enum(ExternalizedCheckpointRetention,
                     self._conf.get_string(RETENTION, 'NO_EXTERNALIZED_CHECKPOINTS'), RETENTION)

    def is_externalized_checkpoints_enabled(self) -> bool:
        return (self.get_externalized_checkpoint_retention()
                != ExternalizedCheckpointRetention.NO_EXTERNALIZED_CHECKPOINTS)

    # -- unaligned checkpoints: no meaning on Spark, which has no barriers to align -----------
    def is_unaligned_checkpoints_enabled(self) -> bool:
        return (self._conf.get_boolean(UNALIGNED, False) and self.is_checkpointing_enabled()
                and self.get_checkpointing_mode() == CheckpointingMode.EXACTLY_ONCE)

    def enable_unaligned_checkpoints(self, enabled: bool = True) -> 'CheckpointConfig':
        """Accepted: a micro-batch commit has no barriers to align."""
        self._conf.set_boolean(UNALIGNED, bool(enabled))
        return self

    def disable_unaligned_checkpoints(self) -> 'CheckpointConfig':
        return self.enable_unaligned_checkpoints(False)

    def set_aligned_checkpoint_timeout(self, alignment_timeout: Duration) -> 'CheckpointConfig':
        """Accepted: no alignment on Spark."""
        if not isinstance(alignment_timeout, Duration):
            raise TypeError("the alignment timeout must be a Duration, got %r" % (alignment_timeout,))
        self._conf.set_string(ALIGNED_TIMEOUT, '%d ms' % alignment_timeout.to_milliseconds())
        return self

    def get_aligned_checkpoint_timeout(self) -> Duration:
        return Duration.of_millis(self._ms(ALIGNED_TIMEOUT, 0))

    def set_alignment_timeout(self, alignment_timeout: Duration) -> 'CheckpointConfig':
        return self.set_aligned_checkpoint_timeout(alignment_timeout)

    def get_alignment_timeout(self) -> Duration:
        return self.get_aligned_checkpoint_timeout()

    def set_force_unaligned_checkpoints(self, force_unaligned_checkpoints: bool = True) -> 'CheckpointConfig':
        """Accepted: no alignment on Spark."""
        self._conf.set_boolean(FORCE_UNALIGNED, bool(force_unaligned_checkpoints))
        return self

    def is_force_unaligned_checkpoints(self) -> bool:
        return self._conf.get_boolean(FORCE_UNALIGNED, False)

    # -- storage (PyFlink 1.x's methods; in 2.x the keys) -------------------------------------
    def set_checkpoint_storage(self, storage: CheckpointStorage) -> 'CheckpointConfig':
        """Where checkpoints are kept (``execution.checkpointing.storage`` / ``.dir``)."""
        if not isinstance(storage, CheckpointStorage):
            raise TypeError("set_checkpoint_storage expects a FileSystemCheckpointStorage or "
                            "JobManagerCheckpointStorage, got %r" % (storage,))
        storage._apply(self._conf)
        return self

    def set_checkpoint_storage_dir(self, checkpoint_path: str) -> 'CheckpointConfig':
        """Shorthand for ``set_checkpoint_storage(FileSystemCheckpointStorage(checkpoint_path))``."""
        return self.set_checkpoint_storage(FileSystemCheckpointStorage(checkpoint_path))

    def get_checkpoint_storage(self) -> Optional[CheckpointStorage]:
        """The configured storage, or None (a temporary directory, as JobManagerCheckpointStorage)."""
        directory = self._directory()
        if self._conf.get_string(STORAGE, '').lower() == 'jobmanager':
            return JobManagerCheckpointStorage(directory or None)
        return FileSystemCheckpointStorage(directory) if directory else None

    def _directory(self) -> str:
        """The configured checkpoint directory (``execution.checkpointing.dir`` or its older name
        ``state.checkpoints.dir``), or '' for a temporary one."""
        return self._conf.get_string(DIRECTORY, '') or self._conf.get_string(DIRECTORY_FALLBACK, '')
