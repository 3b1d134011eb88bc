"""The DataStream API, as in ``pyflink.datastream``.

Checkpoint and state-backend settings map onto Spark's checkpoints (docs/fault-tolerance.md).
"""
from kindling.common.unsupported import missing_names

#: each public name's module, imported when the name is first read: a process that only runs a
#: chain of functions (a Spark Python worker, a stream source's runner) does not import the whole API
_LAZY = {
    "AsyncDataStream": "kindling.datastream.async_data_stream",
    "CheckpointConfig": "kindling.datastream.checkpoint_config",
    **dict.fromkeys(["CheckpointStorage", "CustomCheckpointStorage", "FileSystemCheckpointStorage",
                     "JobManagerCheckpointStorage"],
                    "kindling.datastream.checkpoint_storage"),
    "CheckpointingMode": "kindling.datastream.checkpointing_mode",
    **dict.fromkeys(["BroadcastConnectedStream", "BroadcastStream", "ConnectedStreams", "DataStream",
                     "DataStreamSink", "KeyedStream"],
                    "kindling.datastream.data_stream"),
    "RuntimeExecutionMode": "kindling.datastream.execution_mode",
    "ExternalizedCheckpointRetention": "kindling.datastream.externalized_checkpoint_retention",
    **dict.fromkeys(["AggregateFunction", "AllWindowFunction", "AsyncFunction",
                     "AsyncRetryPredicate", "AsyncRetryStrategy", "BroadcastProcessFunction",
                     "CoFlatMapFunction", "CoMapFunction", "CoProcessFunction", "FilterFunction",
                     "FlatMapFunction", "KeySelector", "KeyedBroadcastProcessFunction",
                     "KeyedCoProcessFunction", "KeyedProcessFunction", "MapFunction", "Partitioner",
                     "ProcessAllWindowFunction", "ProcessFunction", "ProcessWindowFunction",
                     "ReduceFunction", "RuntimeContext", "SinkFunction", "SourceFunction",
                     "TimerService", "WindowFunction"],
                    "kindling.datastream.functions"),
    "OutputTag": "kindling.datastream.output_tag",
    **dict.fromkeys(["MemorySize", "SlotSharingGroup"],
                    "kindling.datastream.slot_sharing_group"),
    **dict.fromkeys(["CustomStateBackend", "EmbeddedRocksDBStateBackend", "HashMapStateBackend",
                     "PredefinedOptions", "StateBackend"],
                    "kindling.datastream.state_backend"),
    "StreamExecutionEnvironment": "kindling.datastream.stream_execution_environment",
    "TimeCharacteristic": "kindling.datastream.time_characteristic",
    "TimeDomain": "kindling.datastream.time_domain",
    **dict.fromkeys(["CountSlidingWindowAssigner", "CountTumblingWindowAssigner", "CountWindow",
                     "DynamicEventTimeSessionWindows", "DynamicProcessingTimeSessionWindows",
                     "EventTimeSessionWindows", "GlobalWindow", "GlobalWindows",
                     "MergingWindowAssigner", "ProcessingTimeSessionWindows",
                     "SlidingEventTimeWindows", "SlidingProcessingTimeWindows", "TimeWindow",
                     "Trigger", "TriggerResult", "TumblingEventTimeWindows",
                     "TumblingProcessingTimeWindows", "Window", "WindowAssigner"],
                    "kindling.datastream.window"),
    **dict.fromkeys(["AllWindowedStream", "WindowedStream"],
                    "kindling.datastream.windowed_stream"),
}

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
__getattr__ = missing_names(__name__, lazy=_LAZY, reasons=dict.fromkeys(
    ["MemoryStateBackend", "FsStateBackend", "RocksDBStateBackend"],
    "removed in PyFlink 2.x: use HashMapStateBackend or EmbeddedRocksDBStateBackend (state.backend.type), and "
    "FileSystemCheckpointStorage for the checkpoint directory"))


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
