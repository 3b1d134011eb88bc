"""The DataStream API, as in ``pyflink.datastream``."""
from kindling.datastream.data_stream import DataStream, DataStreamSink, KeyedStream
from kindling.datastream.execution_mode import RuntimeExecutionMode
from kindling.datastream.functions import (
    AggregateFunction,
    AllWindowFunction,
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
from kindling.datastream.stream_execution_environment import StreamExecutionEnvironment
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
    "AggregateFunction", "CoFlatMapFunction", "CoMapFunction", "CoProcessFunction", "DataStream",
    "DataStreamSink", "FilterFunction", "FlatMapFunction", "KeyedCoProcessFunction", "KeyedProcessFunction",
    "KeyedStream", "KeySelector", "MapFunction", "OutputTag", "Partitioner", "ProcessFunction",
    "ReduceFunction", "RuntimeContext", "RuntimeExecutionMode", "SinkFunction", "SourceFunction",
    "StreamExecutionEnvironment", "TimeDomain", "TimerService",
]
