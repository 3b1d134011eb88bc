"""State backends, as in ``pyflink.datastream.state_backend``.

Both of Flink's backends are accepted and keyed state runs on the same store: Spark's RocksDB
state store (``transformWithState``), which keeps working state in RocksDB on the executors' local
disks and writes it to the checkpoint at each micro-batch commit. Choosing ``HashMapStateBackend``
or ``EmbeddedRocksDBStateBackend`` records ``state.backend.type`` (``hashmap`` / ``rocksdb``); it
decides only where a streaming query without keyed operators keeps the rows of a Table join that
Spark's stream-stream join computes (``hashmap``, Flink's default: the JVM's heap; ``rocksdb``:
RocksDB; docs/table.md). The RocksDB tuning options below are recorded and change nothing.
"""
from enum import Enum
from typing import List, Optional

from kindling.common.configuration import Configuration
from kindling.common.unsupported import JVM_ONLY, unsupported

__all__ = ['StateBackend', 'HashMapStateBackend', 'EmbeddedRocksDBStateBackend', 'CustomStateBackend',
           'PredefinedOptions']

BACKEND_TYPE = 'state.backend.type'


class StateBackend(object):
    """How keyed state is held; on Spark always its RocksDB state store (see the module)."""

    _type = ''

    def __init__(self, j_state_backend=None) -> None:
        pass

    def _apply(self, configuration: Configuration) -> None:
        """Writes ``state.backend.type`` into ``configuration``."""
        if not self._type:
            raise TypeError("%s is not a state backend Kindling knows; use HashMapStateBackend() or "
                            "EmbeddedRocksDBStateBackend()" % type(self).__name__)
        configuration.set_string(BACKEND_TYPE, self._type)


class HashMapStateBackend(StateBackend):
    """Flink's heap state backend: accepted; the state lives in Spark's RocksDB state store.

    Example: ``env.set_state_backend(HashMapStateBackend())``.
    """

    _type = 'hashmap'

    def __init__(self, j_hashmap_state_backend=None) -> None:
        super().__init__()

    def __str__(self) -> str:
        return 'HashMapStateBackend'


class PredefinedOptions(Enum):
    """RocksDB option profiles: accepted and recorded (Spark tunes its own RocksDB)."""

    DEFAULT = 0
    SPINNING_DISK_OPTIMIZED = 1
    SPINNING_DISK_OPTIMIZED_HIGH_MEM = 2
    FLASH_SSD_OPTIMIZED = 3


class EmbeddedRocksDBStateBackend(StateBackend):
    """Flink's RocksDB state backend: accepted; Spark's RocksDB state store holds the state.
    Its settings are recorded and returned by the getters; Spark's own RocksDB settings
    (``spark.sql.streaming.stateStore.rocksdb.*``) are what tunes the store.

    Example: ``env.set_state_backend(EmbeddedRocksDBStateBackend(True))``.
    """

    _type = 'rocksdb'

    def __init__(self, enable_incremental_checkpointing: Optional[bool] = None,
                 j_embedded_rocks_db_state_backend=None) -> None:
        super().__init__()
        if enable_incremental_checkpointing not in (None, True, False):
            raise TypeError("enable_incremental_checkpointing must be None, True or False, got %r"
                            % (enable_incremental_checkpointing,))
        self._incremental = bool(enable_incremental_checkpointing)
        self._paths: List[str] = []
        self._options: Optional[str] = None
        self._predefined = PredefinedOptions.DEFAULT
        self._transfer_threads = 4

    def set_db_storage_paths(self, *paths: str) -> None:
        self._paths = [p for p in paths if p is not None]

    def get_db_storage_paths(self) -> List[str]:
        return list(self._paths)

    def is_incremental_checkpoints_enabled(self) -> bool:
        return self._incremental

    def set_predefined_options(self, options: PredefinedOptions) -> None:
        if not isinstance(options, PredefinedOptions):
            raise TypeError("set_predefined_options expects a PredefinedOptions, got %r" % (options,))
        self._predefined = options

    def get_predefined_options(self) -> PredefinedOptions:
        return self._predefined

    def set_options(self, options_factory_class_name: str) -> None:
        """Records the name of a Java RocksDBOptionsFactory (Spark's RocksDB does not load it)."""
        if not isinstance(options_factory_class_name, str) or not options_factory_class_name:
            raise ValueError("set_options expects a class name, got %r" % (options_factory_class_name,))
        self._options = options_factory_class_name

    def get_options(self) -> Optional[str]:
        return self._options

    def get_number_of_transfer_threads(self) -> int:
        return self._transfer_threads

    def set_number_of_transfer_threads(self, number_of_transfering_threads: int) -> None:
        if not isinstance(number_of_transfering_threads, int) or number_of_transfering_threads <= 0:
            raise ValueError("the number of transfer threads must be positive, got %r"
                             % (number_of_transfering_threads,))
        self._transfer_threads = number_of_transfering_threads

    def __str__(self) -> str:
        return 'EmbeddedRocksDBStateBackend{incremental=%s}' % self._incremental


class CustomStateBackend(StateBackend):
    """A Java state backend wrapped for Python: JVM-only."""

    @unsupported(JVM_ONLY)
    def __init__(self, j_custom_state_backend) -> None: ...
