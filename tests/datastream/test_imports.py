"""PyFlink's import paths on Kindling: package-level names, generic function classes, and a
clear "not supported yet" error for every PyFlink module or name Kindling lacks."""
from __future__ import annotations

import importlib
import subprocess
import sys
import typing

import pytest

from kindling.common.unsupported import NotSupportedYetError, UnsupportedAttributeError

# The package-level names of PyFlink 2.3 (``dir()`` of each package, without modules).
PYFLINK_PACKAGE_NAMES = {
    "kindling.common": [
        "AssignerWithPeriodicWatermarksWrapper", "ByteArraySchema", "CompletableFuture", "ConfigOption",
        "ConfigOptions", "Configuration", "DeserializationSchema", "Duration", "Encoder", "ExecutionConfig",
        "InputDependencyConstraint", "Instant", "JobClient", "JobExecutionResult", "JobID", "JobStatus",
        "RestartStrategies", "RestartStrategyConfiguration", "Row", "RowKind", "SerializationSchema",
        "SimpleStringSchema", "Time", "TypeInformation", "TypeSerializer", "Types", "WatermarkStrategy"],
    "kindling.datastream": [
        "AggregateFunction", "AsyncDataStream", "AsyncFunction", "AsyncRetryPredicate", "AsyncRetryStrategy",
        "BroadcastConnectedStream", "BroadcastProcessFunction", "BroadcastStream", "CheckpointConfig",
        "CheckpointStorage", "CheckpointingMode", "CoFlatMapFunction", "CoMapFunction", "CoProcessFunction",
        "ConnectedStreams", "CountWindow", "CustomCheckpointStorage", "CustomStateBackend", "DataStream",
        "DataStreamSink", "EmbeddedRocksDBStateBackend", "ExternalizedCheckpointRetention",
        "FileSystemCheckpointStorage", "FilterFunction", "FlatMapFunction", "GlobalWindow",
        "HashMapStateBackend", "JobManagerCheckpointStorage", "KeySelector", "KeyedBroadcastProcessFunction",
        "KeyedCoProcessFunction", "KeyedProcessFunction", "KeyedStream", "MapFunction", "MemorySize",
        "MergingWindowAssigner", "OutputTag", "Partitioner", "PredefinedOptions", "ProcessFunction",
        "ProcessWindowFunction", "ReduceFunction", "RuntimeContext", "RuntimeExecutionMode", "SinkFunction",
        "SlotSharingGroup", "SourceFunction", "StateBackend", "StreamExecutionEnvironment", "TimeDomain",
        "TimeWindow", "TimerService", "Trigger", "TriggerResult", "Window", "WindowAssigner", "WindowFunction",
        "WindowedStream",
        # PyFlink 1.x names its unit tests still import
        "TimeCharacteristic", "MemoryStateBackend"],
    "kindling.datastream.connectors": [
        "BucketAssigner", "DeliveryGuarantee", "DynamicKafkaSource", "DynamicKafkaSourceBuilder",
        "FileEnumeratorProvider", "FileSink", "FileSource", "FileSourceBuilder", "FileSplitAssignerProvider",
        "FlinkKafkaConsumer", "FlinkKafkaProducer", "JdbcConnectionOptions", "JdbcExecutionOptions", "JdbcSink",
        "KafkaMetadataService", "KafkaRecordDeserializationSchema", "KafkaSource", "KafkaStreamSetSubscriber",
        "KafkaStreamSubscriber", "NumberSequenceSource", "OutputFileConfig", "PulsarSource",
        "PulsarSourceBuilder", "RMQConnectionConfig", "RMQSink", "RMQSource", "RollingPolicy", "Semantic",
        "SingleClusterTopicMetadataService", "Sink", "Source", "StartCursor", "StopCursor", "StreamFormat",
        "StreamPatternSubscriber", "StreamingFileSink"],
    "kindling.metrics": ["Counter", "Distribution", "Meter", "Metric", "MetricGroup"],
}

# PyFlink modules Kindling lacks, and a word the error must name (the area of the open work).
MISSING_MODULES = {
    "kindling.datastream.connectors.pulsar": "Pulsar connector",
    "kindling.datastream.connectors.rabbitmq": "RabbitMQ connector",
    "kindling.datastream.connectors.kinesis": "Kinesis connector",
    "kindling.datastream.connectors.elasticsearch": "Elasticsearch connector",
    "kindling.datastream.connectors.cassandra": "Cassandra connector",
    "kindling.datastream.connectors.hybrid_source": "Hybrid Source connector",
    "kindling.datastream.connectors.dynamic_kafka": "Dynamic Kafka connector",
}


def test_file_connector_names_import_from_the_connectors_package():
    from kindling.datastream.connectors import FileSink, FileSource, OutputFileConfig, RollingPolicy, StreamFormat
    from kindling.datastream.connectors import file_system

    assert (FileSink, FileSource, OutputFileConfig, RollingPolicy, StreamFormat) == (
        file_system.FileSink, file_system.FileSource, file_system.OutputFileConfig, file_system.RollingPolicy,
        file_system.StreamFormat)


@pytest.mark.parametrize("package", sorted(PYFLINK_PACKAGE_NAMES))
def test_every_pyflink_package_name_imports_or_says_it_is_not_supported_yet(package):
    module = importlib.import_module(package)
    for name in PYFLINK_PACKAGE_NAMES[package]:
        try:
            exec(f"from {package} import {name}", {})
        except NotSupportedYetError as error:
            assert f"{package}.{name} is not supported by Kindling yet: " in str(error)
            assert error.name == package
            assert not hasattr(module, name)
            with pytest.raises(UnsupportedAttributeError, match="is not supported by Kindling yet"):
                getattr(module, name)
        else:
            assert hasattr(module, name), name


@pytest.mark.parametrize("module", sorted(MISSING_MODULES))
def test_a_missing_pyflink_module_says_it_is_not_supported_yet(module):
    with pytest.raises(NotSupportedYetError, match=r"is not supported by Kindling yet: .*" + MISSING_MODULES[module]):
        importlib.import_module(module)
    with pytest.raises(ModuleNotFoundError):  # what code probing for an optional module catches
        importlib.import_module(module)


def test_an_unknown_name_is_an_ordinary_import_error():
    with pytest.raises(ImportError, match="cannot import name 'NoSuchThing'") as info:
        exec("from kindling.datastream.connectors import NoSuchThing", {})
    assert not isinstance(info.value, NotSupportedYetError)


def test_a_worker_running_a_chain_does_not_import_the_api():
    """The packages ``kindling.common`` and ``kindling.datastream`` import a public name's module when
    the name is first read: a Spark Python worker or stream source runner that runs a chain of
    functions and encodes rows imports neither the DataStream API nor futures and configuration."""
    probe = ("import sys, kindling.runtime.chain, kindling.spark.codec, kindling.datastream.connectors.file_system; "
             "print(' '.join(m for m in sys.modules if m.startswith('kindling.') or m == 'concurrent.futures'))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    for module in ("kindling.datastream.data_stream", "kindling.datastream.stream_execution_environment",
                   "kindling.datastream.window.assigners", "kindling.common.completable_future",
                   "kindling.common.configuration", "concurrent.futures", "kindling.table.table",
                   "kindling.datastream.connectors.kafka"):
        assert module not in loaded
    assert "kindling.common.types" in loaded and "kindling.datastream.functions" in loaded


def _public_classes(module_name):
    module = importlib.import_module(module_name)
    for name in getattr(module, "__all__", dir(module)):
        obj = getattr(module, name)
        if isinstance(obj, type) and obj.__module__ == module_name and not name.startswith("_"):
            yield name, obj


GENERIC_MODULES = ["kindling.datastream.functions", "kindling.datastream.state"]
NOT_GENERIC = {"Function", "RuntimeContext", "TimerService", "BaseContext", "BaseBroadcastProcessFunction",
               "State", "OperatorStateStore", "StateDescriptor", "StateTtlConfig",
               "AsyncFunctionDescriptor"}  # not generic in PyFlink either


@pytest.mark.parametrize("module_name", GENERIC_MODULES)
def test_function_and_state_classes_are_subscriptable(module_name):
    for name, cls in _public_classes(module_name):
        if name in NOT_GENERIC or cls.__module__ != module_name:
            continue
        params = getattr(cls, "__parameters__", ())
        assert params, f"{name} takes no type parameters"
        assert typing.get_origin(cls[tuple(object for _ in params)]) is cls


def test_window_classes_and_contexts_are_subscriptable():
    from kindling.datastream import functions, window

    window.Trigger[int, window.TimeWindow]
    window.WindowAssigner[int, window.TimeWindow]
    window.TumblingEventTimeWindows[int]
    window.SessionWindowTimeGapExtractor[tuple]
    functions.ProcessWindowFunction.Context[window.TimeWindow]
    functions.ProcessAllWindowFunction.Context[window.TimeWindow]


def test_pyflink_typed_user_functions_define_and_work():
    from typing import Iterable, Iterator

    from kindling.datastream.functions import (FilterFunction, FlatMapFunction, KeySelector, MapFunction,
                                               ProcessWindowFunction, WindowFunction)
    from kindling.datastream.window import CountWindow, TimeWindow

    class TypedMap(MapFunction[int, str]):
        def map(self, value: int) -> str:
            return str(value)

    class TypedFlatMap(FlatMapFunction[int, str]):
        def flat_map(self, value: int) -> Iterator[str]:
            yield str(value)

    class TypedFilter(FilterFunction[int]):
        def filter(self, value: int) -> bool:
            return value > 0

    class TypedKey(KeySelector[int, str]):
        def get_key(self, value: int) -> str:
            return str(value)

    class Sum(WindowFunction[tuple, tuple, str, CountWindow]):
        def apply(self, key: str, window: CountWindow, inputs: Iterable[tuple]):
            return [(key, sum(i[0] for i in inputs))]

    class Count(ProcessWindowFunction[tuple, tuple, str, TimeWindow]):
        def process(self, key: str, context: ProcessWindowFunction.Context[TimeWindow],
                    elements: Iterable[tuple]) -> Iterable[tuple]:
            return [(key, len(list(elements)))]

    assert TypedMap().map(1) == "1" and list(TypedFlatMap().flat_map(2)) == ["2"]
    assert TypedFilter().filter(1) and not TypedFilter().filter(-1) and TypedKey().get_key(3) == "3"
    assert Sum().apply("a", CountWindow(0), [(1,), (2,)]) == [("a", 3)]
    assert Count().process("a", None, [(1,), (2,)]) == [("a", 2)]


def test_a_typed_process_window_function_runs_on_spark(env):
    """PyFlink's windowing examples subclass ``ProcessWindowFunction[tuple, tuple, str, TimeWindow]``."""
    from typing import Iterable

    from kindling.common import Duration, Types, WatermarkStrategy
    from kindling.common.watermark_strategy import TimestampAssigner
    from kindling.datastream.functions import ProcessWindowFunction
    from kindling.datastream.window import TimeWindow, TumblingEventTimeWindows

    class SecondField(TimestampAssigner):
        def extract_timestamp(self, value, record_timestamp) -> int:
            return value[1]

    class CountWithWindow(ProcessWindowFunction[tuple, tuple, str, TimeWindow]):
        def process(self, key: str, context: ProcessWindowFunction.Context[TimeWindow],
                    elements: Iterable[tuple]) -> Iterable[tuple]:
            yield key, context.window().start, len(list(elements))

    env.set_parallelism(2)
    out = (env.from_collection([("a", 1), ("b", 2), ("a", 3), ("a", 12), ("b", 14)],
                               type_info=Types.TUPLE([Types.STRING(), Types.INT()]))
           .assign_timestamps_and_watermarks(WatermarkStrategy.for_monotonous_timestamps()
                                             .with_timestamp_assigner(SecondField()))
           .key_by(lambda e: e[0], key_type=Types.STRING())
           .window(TumblingEventTimeWindows.of(Duration.of_millis(10)))
           .process(CountWithWindow(), Types.TUPLE([Types.STRING(), Types.LONG(), Types.INT()])))
    assert sorted(out.execute_and_collect(limit=10)) == [("a", 0, 2), ("a", 10, 1), ("b", 0, 1), ("b", 10, 1)]
