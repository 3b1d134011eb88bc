"""``ExecutionConfig``: per-job execution settings, held in plain Python."""
from typing import Dict, List

__all__ = ['ExecutionConfig']


class ExecutionConfig(object):
    """The execution settings of a job: parallelism, auto-watermark interval, global job
    parameters and the like. Settings that only matter to Flink's JVM runtime (Kryo, Avro,
    closure cleaning) are recorded but have no effect.

    Example: ``env.get_config().set_auto_watermark_interval(200)``.
    """

    PARALLELISM_DEFAULT = -1
    PARALLELISM_UNKNOWN = -2

    def __init__(self, j_execution_config=None) -> None:
        self._parallelism = ExecutionConfig.PARALLELISM_DEFAULT
        self._max_parallelism = -1
        self._auto_watermark_interval = 200
        self._latency_tracking_interval = 0
        self._task_cancellation_interval = 30000
        self._task_cancellation_timeout = 180000
        self._object_reuse = False
        self._closure_cleaner = True
        self._force_avro = False
        self._force_kryo = False
        self._generic_types = True
        self._auto_generated_uids = True
        self._snapshot_compression = False
        self._global_job_parameters: Dict[str, str] = {}
        self._default_kryo_serializer_classes: Dict[str, str] = {}
        self._registered_kryo_types: List[str] = []
        self._registered_pojo_types: List[str] = []

    def get_parallelism(self) -> int:
        return self._parallelism

    def set_parallelism(self, parallelism: int) -> 'ExecutionConfig':
        if parallelism != ExecutionConfig.PARALLELISM_DEFAULT and parallelism < 1:
            raise ValueError("parallelism must be at least one, or -1 (default)")
        self._parallelism = parallelism
        return self

    def get_max_parallelism(self) -> int:
        return self._max_parallelism

    def set_max_parallelism(self, max_parallelism: int) -> 'ExecutionConfig':
        if max_parallelism < 1:
            raise ValueError("max parallelism must be at least one")
        self._max_parallelism = max_parallelism
        return self

    def get_auto_watermark_interval(self) -> int:
        return self._auto_watermark_interval

    def set_auto_watermark_interval(self, interval: int) -> 'ExecutionConfig':
        """Sources emit their watermark every ``interval`` ms of processing time (Flink's
        ``pipeline.auto-watermark-interval``, 200 by default); 0 turns periodic emission off,
        so watermarks come only at the end of a bounded input."""
        if interval < 0:
            raise ValueError("auto watermark interval must not be negative")
        self._auto_watermark_interval = interval
        return self

    def get_latency_tracking_interval(self) -> int:
        return self._latency_tracking_interval

    def set_latency_tracking_interval(self, interval: int) -> 'ExecutionConfig':
        self._latency_tracking_interval = interval
        return self

    def get_task_cancellation_interval(self) -> int:
        return self._task_cancellation_interval

    def set_task_cancellation_interval(self, interval: int) -> 'ExecutionConfig':
        self._task_cancellation_interval = interval
        return self

    def get_task_cancellation_timeout(self) -> int:
        return self._task_cancellation_timeout

    def set_task_cancellation_timeout(self, timeout: int) -> 'ExecutionConfig':
        if timeout < 0:
            raise ValueError("task cancellation timeout must not be negative")
        self._task_cancellation_timeout = timeout
        return self

    def enable_object_reuse(self) -> 'ExecutionConfig':
        self._object_reuse = True
        return self

    def disable_object_reuse(self) -> 'ExecutionConfig':
        self._object_reuse = False
        return self

    def is_object_reuse_enabled(self) -> bool:
        return self._object_reuse

    def enable_closure_cleaner(self) -> 'ExecutionConfig':
        self._closure_cleaner = True
        return self

    def disable_closure_cleaner(self) -> 'ExecutionConfig':
        self._closure_cleaner = False
        return self

    def is_closure_cleaner_enabled(self) -> bool:
        return self._closure_cleaner

    def enable_force_avro(self) -> 'ExecutionConfig':
        self._force_avro = True
        return self

    def disable_force_avro(self) -> 'ExecutionConfig':
        self._force_avro = False
        return self

    def is_force_avro_enabled(self) -> bool:
        return self._force_avro

    def enable_force_kryo(self) -> 'ExecutionConfig':
        self._force_kryo = True
        return self

    def disable_force_kryo(self) -> 'ExecutionConfig':
        self._force_kryo = False
        return self

    def is_force_kryo_enabled(self) -> bool:
        return self._force_kryo

    def enable_generic_types(self) -> 'ExecutionConfig':
        self._generic_types = True
        return self

    def disable_generic_types(self) -> 'ExecutionConfig':
        self._generic_types = False
        return self

    def has_generic_types_disabled(self) -> bool:
        return not self._generic_types

    def enable_auto_generated_uids(self) -> 'ExecutionConfig':
        self._auto_generated_uids = True
        return self

    def disable_auto_generated_uids(self) -> 'ExecutionConfig':
        self._auto_generated_uids = False
        return self

    def has_auto_generated_uids_enabled(self) -> bool:
        return self._auto_generated_uids

    def is_use_snapshot_compression(self) -> bool:
        return self._snapshot_compression

    def set_use_snapshot_compression(self, use_snapshot_compression: bool) -> 'ExecutionConfig':
        self._snapshot_compression = bool(use_snapshot_compression)
        return self

    def get_global_job_parameters(self) -> Dict[str, str]:
        return dict(self._global_job_parameters)

    def set_global_job_parameters(self, global_job_parameters_dict: Dict) -> 'ExecutionConfig':
        self._global_job_parameters = {str(k): str(v) for k, v in global_job_parameters_dict.items()}
        return self

    def get_default_kryo_serializer_classes(self) -> Dict[str, str]:
        return dict(self._default_kryo_serializer_classes)

    def get_registered_kryo_types(self) -> List[str]:
        return list(self._registered_kryo_types)

    def get_registered_pojo_types(self) -> List[str]:
        return list(self._registered_pojo_types)

    def __eq__(self, other) -> bool:
        return isinstance(other, ExecutionConfig) and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((self._parallelism, self._max_parallelism, self._auto_watermark_interval))

    def __repr__(self) -> str:
        return ('ExecutionConfig(parallelism=%d, max_parallelism=%d, auto_watermark_interval=%d, '
                'object_reuse=%s)' % (self._parallelism, self._max_parallelism,
                                      self._auto_watermark_interval, self._object_reuse))
