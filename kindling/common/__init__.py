"""Common classes of Kindling's API, mirroring ``pyflink.common``."""
from kindling.common.completable_future import CompletableFuture
from kindling.common.configuration import ConfigOption, ConfigOptions, Configuration
from kindling.common.execution_config import ExecutionConfig
from kindling.common.job_client import JobClient
from kindling.common.job_execution_result import JobExecutionResult
from kindling.common.job_id import JobID
from kindling.common.job_status import JobStatus
from kindling.common.restart_strategy import RestartStrategies, RestartStrategyConfiguration
from kindling.common.serialization import (ByteArraySchema, DeserializationSchema, Encoder,
                                           SerializationSchema, SimpleStringSchema)
from kindling.common.serializer import TypeSerializer
from kindling.common.time import Duration, Instant, Time
from kindling.common.typeinfo import TypeInformation, Types
from kindling.common.types import Row, RowKind
from kindling.common.unsupported import JVM_ONLY, missing_names
from kindling.common.watermark_strategy import TimestampAssigner, WatermarkStrategy

__all__ = [
    'ByteArraySchema', 'CompletableFuture', 'ConfigOption', 'ConfigOptions', 'Configuration',
    'DeserializationSchema', 'Duration', 'Encoder', 'ExecutionConfig', 'Instant', 'JobClient',
    'JobExecutionResult', 'JobID', 'JobStatus', 'RestartStrategies', 'RestartStrategyConfiguration',
    'Row', 'RowKind', 'SerializationSchema', 'SimpleStringSchema', 'Time', 'TimestampAssigner',
    'TypeInformation', 'TypeSerializer', 'Types', 'WatermarkStrategy',
]

__getattr__ = missing_names(__name__, dict.fromkeys(
    ["AssignerWithPeriodicWatermarksWrapper", "InputDependencyConstraint"], JVM_ONLY))
