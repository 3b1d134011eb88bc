"""Checkpoint storages, as in ``pyflink.datastream.checkpoint_storage``.

Where a job's Spark checkpoint (source offsets, keyed state, the micro-batch log) lives:
``FileSystemCheckpointStorage(path)`` keeps it in ``path/<job name>``, where a job run again
resumes; ``JobManagerCheckpointStorage()`` keeps it in a temporary directory removed when the
job ends (as Flink's JobManager storage keeps checkpoints in memory only). Setting a storage
writes ``execution.checkpointing.storage`` and ``execution.checkpointing.dir``.
"""
from typing import Optional

from kindling.common.configuration import Configuration
from kindling.common.unsupported import JVM_ONLY, unsupported

__all__ = ['CheckpointStorage', 'JobManagerCheckpointStorage', 'FileSystemCheckpointStorage',
           'CustomCheckpointStorage']

STORAGE = 'execution.checkpointing.storage'
DIRECTORY = 'execution.checkpointing.dir'
DIRECTORY_FALLBACK = 'state.checkpoints.dir'


def _checked_path(path: Optional[str], what: str) -> Optional[str]:
    if path is None:
        return None
    if not isinstance(path, str) or not path.strip():
        raise ValueError("%s must be a non-empty path or URI such as 'file:///data/checkpoints', got %r"
                         % (what, path))
    if '://' not in path and ':/' not in path and not path.startswith('/'):
        raise ValueError("%s must be absolute: a URI such as 'file:///data/checkpoints' or an absolute "
                         "path, got %r" % (what, path))
    return path.rstrip('/') or '/'


class CheckpointStorage(object):
    """Where checkpoints are kept; see :class:`FileSystemCheckpointStorage`."""

    def __init__(self, j_checkpoint_storage=None) -> None:
        pass

    def _apply(self, configuration: Configuration) -> None:
        """Writes this storage's keys into ``configuration``."""
        raise TypeError("%s is not a checkpoint storage Kindling knows; use FileSystemCheckpointStorage(path) "
                        "or JobManagerCheckpointStorage()" % type(self).__name__)


class JobManagerCheckpointStorage(CheckpointStorage):
    """Checkpoints kept for the job's lifetime only: a temporary checkpoint directory, removed
    when the job ends (with ``checkpoint_path``, that directory instead, kept).

    Example: ``env.get_checkpoint_config().set_checkpoint_storage(JobManagerCheckpointStorage())``.
    """

    DEFAULT_MAX_STATE_SIZE = 5 * 1024 * 1024

    def __init__(self, checkpoint_path: Optional[str] = None, max_state_size: Optional[int] = None,
                 j_jobmanager_checkpoint_storage=None) -> None:
        super().__init__()
        if max_state_size is not None and (not isinstance(max_state_size, int) or max_state_size <= 0):
            raise ValueError("max_state_size must be a positive int, got %r" % (max_state_size,))
        self._path = _checked_path(checkpoint_path, 'checkpoint_path')
        self._max_state_size = max_state_size or self.DEFAULT_MAX_STATE_SIZE

    def get_checkpoint_path(self) -> Optional[str]:
        return self._path

    def get_max_state_size(self) -> int:
        """Accepted for compatibility: Spark's state store has no such limit."""
        return self._max_state_size

    def get_savepoint_path(self) -> Optional[str]:
        return None

    def _apply(self, configuration: Configuration) -> None:
        configuration.set_string(STORAGE, 'jobmanager')
        for key in (DIRECTORY, DIRECTORY_FALLBACK):
            configuration.remove_config(key)
        if self._path:
            configuration.set_string(DIRECTORY, self._path)

    def __str__(self) -> str:
        return 'JobManagerCheckpointStorage (checkpoints to JobManager) ( maxStateSize: %d)' % self._max_state_size


class FileSystemCheckpointStorage(CheckpointStorage):
    """Checkpoints kept in a directory (local path or a URI Spark can write to: ``file://``,
    ``hdfs://``, ``s3a://``...); each job checkpoints to ``<path>/<job name>``, where the job
    resumes when run again. The size thresholds are accepted for compatibility: Spark's state
    store writes its own files.

    Example: ``env.get_checkpoint_config().set_checkpoint_storage(FileSystemCheckpointStorage("file:///data/ckp"))``.
    """

    MAX_FILE_STATE_THRESHOLD = 1024 * 1024

    def __init__(self, checkpoint_path: Optional[str] = None, file_state_size_threshold: Optional[int] = None,
                 write_buffer_size: int = -1, j_filesystem_checkpoint_storage=None) -> None:
        super().__init__()
        if checkpoint_path is None:
            raise ValueError("checkpoint_path must not be None")
        self._path = _checked_path(checkpoint_path, 'checkpoint_path')
        threshold = -1 if file_state_size_threshold is None else file_state_size_threshold
        if not isinstance(threshold, int) or not -1 <= threshold <= self.MAX_FILE_STATE_THRESHOLD:
            raise ValueError("The threshold for file state size must be in [-1, %d], where '-1' means to use the "
                             "default, got %r" % (self.MAX_FILE_STATE_THRESHOLD, file_state_size_threshold))
        self._threshold = 20 * 1024 if threshold == -1 else threshold
        if not isinstance(write_buffer_size, int) or write_buffer_size < -1 or write_buffer_size == 0:
            raise ValueError("write_buffer_size must be positive (or -1: the default), got %r" % (write_buffer_size,))
        self._write_buffer_size = 4096 if write_buffer_size == -1 else write_buffer_size

    def get_checkpoint_path(self) -> str:
        return self._path

    def get_savepoint_path(self) -> Optional[str]:
        return None

    def get_min_file_size_threshold(self) -> int:
        return self._threshold

    def get_write_buffer_size(self) -> int:
        return self._write_buffer_size

    def _apply(self, configuration: Configuration) -> None:
        configuration.set_string(STORAGE, 'filesystem')
        configuration.remove_config(DIRECTORY_FALLBACK)
        configuration.set_string(DIRECTORY, self._path)

    def __str__(self) -> str:
        return 'FileSystemCheckpointStorage(checkpoints=%s)' % self._path


class CustomCheckpointStorage(CheckpointStorage):
    """A Java checkpoint storage wrapped for Python: JVM-only."""

    @unsupported(JVM_ONLY)
    def __init__(self, j_custom_checkpoint_storage) -> None: ...
