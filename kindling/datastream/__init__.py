"""The DataStream API, as in ``pyflink.datastream``."""
from kindling.datastream.data_stream import DataStream, DataStreamSink, KeyedStream
from kindling.datastream.execution_mode import RuntimeExecutionMode
from kindling.datastream.functions import (
    AggregateFunction,
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

__all__ = [
    "AggregateFunction", "CoFlatMapFunction", "CoMapFunction", "CoProcessFunction", "DataStream",
    "DataStreamSink", "FilterFunction", "FlatMapFunction", "KeyedCoProcessFunction", "KeyedProcessFunction",
    "KeyedStream", "KeySelector", "MapFunction", "OutputTag", "Partitioner", "ProcessFunction",
    "ReduceFunction", "RuntimeContext", "RuntimeExecutionMode", "SinkFunction", "SourceFunction",
    "StreamExecutionEnvironment", "TimeDomain", "TimerService",
]
