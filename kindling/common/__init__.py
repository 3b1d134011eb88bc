"""Common classes of Kindling's API, mirroring ``pyflink.common``."""
from kindling.common.unsupported import JVM_ONLY, missing_names

#: each public name's module, imported when the name is first read: a Spark Python worker that
#: needs only ``Row`` does not import futures, configuration and type information
_LAZY = {
    "CompletableFuture": "kindling.common.completable_future",
    **dict.fromkeys(["ConfigOption", "ConfigOptions", "Configuration"], "kindling.common.configuration"),
    "ExecutionConfig": "kindling.common.execution_config",
    "JobClient": "kindling.common.job_client",
    "JobExecutionResult": "kindling.common.job_execution_result",
    "JobID": "kindling.common.job_id",
    "JobStatus": "kindling.common.job_status",
    **dict.fromkeys(["RestartStrategies", "RestartStrategyConfiguration"], "kindling.common.restart_strategy"),
    **dict.fromkeys(["ByteArraySchema", "DeserializationSchema", "Encoder", "SerializationSchema",
                     "SimpleStringSchema"], "kindling.common.serialization"),
    "TypeSerializer": "kindling.common.serializer",
    **dict.fromkeys(["Duration", "Instant", "Time"], "kindling.common.time"),
    **dict.fromkeys(["TypeInformation", "Types"], "kindling.common.typeinfo"),
    **dict.fromkeys(["Row", "RowKind"], "kindling.common.types"),
    **dict.fromkeys(["TimestampAssigner", "WatermarkStrategy"], "kindling.common.watermark_strategy"),
}

__all__ = [
    'ByteArraySchema', 'CompletableFuture', 'ConfigOption', 'ConfigOptions', 'Configuration',
    'DeserializationSchema', 'Duration', 'Encoder', 'ExecutionConfig', 'Instant', 'JobClient',
    'JobExecutionResult', 'JobID', 'JobStatus', 'RestartStrategies', 'RestartStrategyConfiguration',
    'Row', 'RowKind', 'SerializationSchema', 'SimpleStringSchema', 'Time', 'TimestampAssigner',
    'TypeInformation', 'TypeSerializer', 'Types', 'WatermarkStrategy',
]

__getattr__ = missing_names(__name__, lazy=_LAZY, reasons=dict.fromkeys(
    ["AssignerWithPeriodicWatermarksWrapper", "InputDependencyConstraint"], JVM_ONLY))


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
