"""The DataStream API, as in ``pyflink.datastream``.

Checkpoint and state-backend settings map onto Spark's checkpoints (docs/fault-tolerance.md).
"""
from kindling.common.unsupported import missing_names
from kindling.datastream.async_data_stream import AsyncDataStream
from kindling.datastream.checkpoint_config import CheckpointConfig
from kindling.datastream.checkpoint_storage import (CheckpointStorage, CustomCheckpointStorage,
                                                    FileSystemCheckpointStorage, JobManagerCheckpointStorage)
from kindling.datastream.checkpointing_mode import CheckpointingMode
from kindling.datastream.data_stream import (BroadcastConnectedStream, BroadcastStream, ConnectedStreams, DataStream,
                                             DataStreamSink, KeyedStream)
from kindling.datastream.execution_mode import RuntimeExecutionMode
from kindling.datastream.externalized_checkpoint_retention import ExternalizedCheckpointRetention
from kindling.datastream.functions import (
    AggregateFunction,
    AllWindowFunction,
    AsyncFunction,
    AsyncRetryPredicate,
    AsyncRetryStrategy,
    BroadcastProcessFunction,
    KeyedBroadcastProcessFunction,
    ProcessAllWindowFunction,
    ProcessWindowFunction,
    WindowFunction,
    CoFlatMapFunction,
    CoMapFunction,
    CoProcessFunction,
    FilterFunction,
    FlatMapFunction,
    KeyedCoProcessFunction,
    KeyedProcessFunction,
    KeySelector,
    MapFunction,
    Partitioner,
    ProcessFunction,
    ReduceFunction,
    RuntimeContext,
    SinkFunction,
    SourceFunction,
    TimerService,
)
from kindling.datastream.output_tag import OutputTag
from kindling.datastream.slot_sharing_group import MemorySize, SlotSharingGroup
from kindling.datastream.state_backend import (CustomStateBackend, EmbeddedRocksDBStateBackend, HashMapStateBackend,
                                               PredefinedOptions, StateBackend)
from kindling.datastream.stream_execution_environment import StreamExecutionEnvironment
from kindling.datastream.time_characteristic import TimeCharacteristic
from kindling.datastream.time_domain import TimeDomain
from kindling.datastream.window import (
    CountSlidingWindowAssigner,
    CountTumblingWindowAssigner,
    CountWindow,
    DynamicEventTimeSessionWindows,
    DynamicProcessingTimeSessionWindows,
    EventTimeSessionWindows,
    GlobalWindow,
    GlobalWindows,
    MergingWindowAssigner,
    ProcessingTimeSessionWindows,
    SlidingEventTimeWindows,
    SlidingProcessingTimeWindows,
    TimeWindow,
    Trigger,
    TriggerResult,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
    Window,
    WindowAssigner,
)
from kindling.datastream.windowed_stream import AllWindowedStream, WindowedStream

__all__ = [
    "AllWindowFunction", "AllWindowedStream", "CountSlidingWindowAssigner", "CountTumblingWindowAssigner",
    "CountWindow", "DynamicEventTimeSessionWindows", "DynamicProcessingTimeSessionWindows",
    "EventTimeSessionWindows", "GlobalWindow", "GlobalWindows", "MergingWindowAssigner",
    "ProcessAllWindowFunction", "ProcessWindowFunction", "ProcessingTimeSessionWindows",
    "SlidingEventTimeWindows", "SlidingProcessingTimeWindows", "TimeWindow", "Trigger", "TriggerResult",
    "TumblingEventTimeWindows", "TumblingProcessingTimeWindows", "Window", "WindowAssigner",
    "WindowFunction", "WindowedStream",
    "AggregateFunction", "BroadcastConnectedStream", "BroadcastStream", "CoFlatMapFunction", "ConnectedStreams",
    "CoMapFunction", "CoProcessFunction", "DataStream",
    "DataStreamSink", "FilterFunction", "FlatMapFunction", "KeyedCoProcessFunction", "KeyedProcessFunction",
    "KeyedStream", "KeySelector", "MapFunction", "OutputTag", "Partitioner", "ProcessFunction",
    "ReduceFunction", "RuntimeContext", "RuntimeExecutionMode", "SinkFunction", "SourceFunction",
    "StreamExecutionEnvironment", "TimeDomain", "TimerService",
    "AsyncDataStream", "AsyncFunction", "AsyncRetryPredicate", "AsyncRetryStrategy",
    "BroadcastProcessFunction", "KeyedBroadcastProcessFunction", "MemorySize",
    "SlotSharingGroup", "TimeCharacteristic",
    "CheckpointConfig", "CheckpointStorage", "CheckpointingMode", "CustomCheckpointStorage", "CustomStateBackend",
    "EmbeddedRocksDBStateBackend", "ExternalizedCheckpointRetention", "FileSystemCheckpointStorage",
    "HashMapStateBackend", "JobManagerCheckpointStorage", "PredefinedOptions", "StateBackend",
]

# PyFlink 1.x's state backends, gone in PyFlink 2.x
__getattr__ = missing_names(__name__, dict.fromkeys(
    ["MemoryStateBackend", "FsStateBackend", "RocksDBStateBackend"],
    "removed in PyFlink 2.x: use HashMapStateBackend or EmbeddedRocksDBStateBackend (state.backend.type), and "
    "FileSystemCheckpointStorage for the checkpoint directory"))
