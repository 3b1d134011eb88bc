"""DataStream, KeyedStream and DataStreamSink, as in ``pyflink.datastream.data_stream``.

Each method adds a transformation to the job graph; nothing runs until ``execute``.
"""
from __future__ import annotations

import enum
import queue
from typing import TYPE_CHECKING, Any, Callable, Iterator, Union

import cloudpickle

from kindling.common.typeinfo import TypeInformation, Types
from kindling.datastream.functions import (
    FilterFunction,
    FlatMapFunction,
    KeyedProcessFunction,
    KeySelector,
    MapFunction,
    ProcessFunction,
    ReduceFunction,
    SinkFunction,
)
from kindling.datastream.output_tag import OutputTag
from kindling.graph.specs import CollectSinkSpec, DiscardSinkSpec, PrintSinkSpec, SinkSpec
from kindling.graph.transformation import (
    ChainedTransformation,
    KeyByTransformation,
    KeyedTransformation,
    SideOutputTransformation,
    SinkTransformation,
    Transformation,
    UnionTransformation,
)

if TYPE_CHECKING:
    from kindling.datastream.stream_execution_environment import StreamExecutionEnvironment


def check_picklable(obj: Any, what: str, operator: str) -> None:
    """Fails at build time when a function cannot be shipped to Spark workers."""
    try:
        cloudpickle.dumps(obj)
    except Exception as exc:
        label = getattr(obj, "__qualname__", None) or type(obj).__qualname__
        raise TypeError(
            f"the {what} {label!r} of operator '{operator}' cannot be pickled, so it cannot run on "
            f"Spark workers: {exc}. Keep non-picklable resources (connections, locks, files) out of "
            f"the function's fields and closure, and create them in open()."
        ) from None


def _function(func: Any, cls: type, method: str, operator: str) -> Any:
    """Validates a user function: an instance of ``cls`` or a plain callable."""
    if isinstance(func, cls):
        pass
    elif isinstance(func, type):
        raise TypeError(f"{operator} expects an instance of {cls.__name__} or a callable, got the class {func.__name__}; instantiate it")
    elif not callable(func) and not hasattr(func, method):
        raise TypeError(f"{operator} expects a {cls.__name__} or a callable, got {func!r} ({type(func).__name__})")
    check_picklable(func, "function", operator)
    return func


def _check_type_info(type_info: Any, operator: str) -> None:
    if type_info is not None and not isinstance(type_info, TypeInformation):
        raise TypeError(f"output_type of '{operator}' must be a TypeInformation such as Types.INT(), got {type_info!r}")


class DataStream:
    """A stream of elements of one type, built from sources by transformations.

    Example::

        env = StreamExecutionEnvironment.get_execution_environment()
        env.from_collection([1, 2, 3]).map(lambda x: x * 2).print()
        env.execute("doubling")
    """

    def __init__(self, env: "StreamExecutionEnvironment", transformation: Transformation):
        self._env = env
        self._transformation = transformation

    # -- naming and hints ---------------------------------------------------------------
    def name(self, name: str) -> "DataStream":
        self._transformation.name = name
        return self

    def get_name(self) -> str:
        return self._transformation.name

    def uid(self, uid: str) -> "DataStream":
        self._transformation.uid = uid
        return self

    def set_uid_hash(self, uid_hash: str) -> "DataStream":
        self._transformation.uid = uid_hash
        return self

    def set_description(self, description: str) -> "DataStream":
        return self

    def get_type(self) -> TypeInformation:
        return self._transformation.type_info or Types.PICKLED_BYTE_ARRAY()

    def get_execution_environment(self) -> "StreamExecutionEnvironment":
        return self._env

    def get_execution_config(self):
        return self._env.get_config()

    def set_parallelism(self, parallelism: int) -> "DataStream":
        """Recorded for the plan. On Spark, parallelism comes from the source partitions
        and ``spark.sql.shuffle.partitions``, not from individual operators."""
        if not isinstance(parallelism, int) or parallelism < 1:
            raise ValueError(f"parallelism must be a positive int, got {parallelism!r}")
        self._transformation.parallelism = parallelism
        return self

    def set_max_parallelism(self, max_parallelism: int) -> "DataStream":
        """Accepted for compatibility: Spark's key groups are its shuffle partitions."""
        return self

    def force_non_parallel(self) -> "DataStream":
        self._transformation.parallelism = 1
        return self

    def set_buffer_timeout(self, timeout_millis: int) -> "DataStream":
        """Accepted for compatibility: Spark ships data per micro-batch, not per network buffer."""
        return self

    def start_new_chain(self) -> "DataStream":
        """Accepted for compatibility: Kindling fuses every stateless chain into one Python pass."""
        return self

    def disable_chaining(self) -> "DataStream":
        """Accepted for compatibility: Kindling fuses every stateless chain into one Python pass."""
        return self

    def slot_sharing_group(self, slot_sharing_group) -> "DataStream":
        """Accepted for compatibility: Spark schedules tasks itself; there are no slots."""
        return self

    def forward(self) -> "DataStream":
        """Accepted for compatibility: elements already stay in their partition between stateless operators."""
        return self

    def rebalance(self) -> "DataStream":
        """Accepted for compatibility: Spark balances work by its own partitioning."""
        return self

    def rescale(self) -> "DataStream":
        """Accepted for compatibility: Spark balances work by its own partitioning."""
        return self

    def shuffle(self) -> "DataStream":
        """Accepted for compatibility: Spark balances work by its own partitioning."""
        return self

    # -- stateless transformations ------------------------------------------------------
    def _chain(self, operation: str, func: Any, name: str, type_info: Any) -> "DataStream":
        node = ChainedTransformation(name=name, inputs=[self._transformation], type_info=type_info,
                                     operation=operation, function=func)
        return DataStream(self._env, node)

    def map(self, func: Union[Callable, MapFunction], output_type: TypeInformation = None) -> "DataStream":
        """Applies ``func`` to every element."""
        _check_type_info(output_type, "Map")
        return self._chain("map", _function(func, MapFunction, "map", "Map"), "Map", output_type)

    def flat_map(self, func: Union[Callable, FlatMapFunction], output_type: TypeInformation = None) -> "DataStream":
        """Applies ``func`` to every element and emits every element of the iterable it returns or yields."""
        _check_type_info(output_type, "FlatMap")
        return self._chain("flat_map", _function(func, FlatMapFunction, "flat_map", "FlatMap"), "FlatMap", output_type)

    def filter(self, func: Union[Callable, FilterFunction]) -> "DataStream":
        """Keeps the elements for which ``func`` returns true."""
        return self._chain("filter", _function(func, FilterFunction, "filter", "Filter"), "Filter",
                           self._transformation.type_info)

    def process(self, func: ProcessFunction, output_type: TypeInformation = None) -> "DataStream":
        """Runs a ProcessFunction on every element; it may emit to side outputs."""
        _check_type_info(output_type, "Process")
        if isinstance(func, KeyedProcessFunction):
            raise TypeError("a KeyedProcessFunction needs a keyed stream: call key_by(...) before process(...)")
        if not hasattr(func, "process_element"):
            raise TypeError(f"process expects a ProcessFunction, got {func!r}")
        return self._chain("process", _function(func, ProcessFunction, "process_element", "Process"), "Process", output_type)

    def project(self, *field_indexes: int) -> "DataStream":
        """Keeps the given fields of tuple elements, in the given order."""
        from kindling.common.typeinfo import TupleTypeInfo

        type_info = self._transformation.type_info
        if not isinstance(type_info, TupleTypeInfo):
            raise TypeError(f"project() is only supported on streams of Types.TUPLE, this stream is {self.get_type()!r}")
        types = type_info.get_field_types()
        for i in field_indexes:
            if not isinstance(i, int) or not 0 <= i < len(types):
                raise IndexError(f"project() field index {i!r} is out of range for {type_info!r}")
        indexes = tuple(field_indexes)
        return self._chain("map", _Project(indexes), "Projection",
                           Types.TUPLE([types[i] for i in indexes]))

    def assign_timestamps_and_watermarks(self, watermark_strategy) -> "DataStream":
        """Assigns event timestamps to elements and generates watermarks from them."""
        from kindling.common.watermark_strategy import WatermarkStrategy

        if not isinstance(watermark_strategy, WatermarkStrategy):
            raise TypeError(f"assign_timestamps_and_watermarks expects a WatermarkStrategy, got {watermark_strategy!r}")
        check_picklable(watermark_strategy, "watermark strategy", "Timestamps/Watermarks")
        return self._chain("timestamps", watermark_strategy, "Timestamps/Watermarks", self._transformation.type_info)

    def union(self, *streams: "DataStream") -> "DataStream":
        """Merges this stream with others of the same type."""
        for s in streams:
            if not isinstance(s, DataStream):
                raise TypeError(f"union expects DataStreams, got {s!r}")
            if s.get_type() != self.get_type():
                raise TypeError(f"cannot union a stream of {s.get_type()!r} with a stream of {self.get_type()!r}")
        node = UnionTransformation(name="Union", inputs=[self._transformation] + [s._transformation for s in streams],
                                   type_info=self._transformation.type_info)
        return DataStream(self._env, node)

    def get_side_output(self, output_tag: OutputTag) -> "DataStream":
        """The elements a process function emitted to ``output_tag``."""
        if not isinstance(output_tag, OutputTag):
            raise TypeError(f"get_side_output expects an OutputTag, got {output_tag!r}")
        node = SideOutputTransformation(name=f"SideOutput({output_tag.tag_id})", inputs=[self._transformation],
                                        type_info=output_tag.type_info, tag_id=output_tag.tag_id)
        return DataStream(self._env, node)

    def key_by(self, key_selector: Union[Callable, KeySelector], key_type: TypeInformation = None) -> "KeyedStream":
        """Partitions the stream by the key ``key_selector`` extracts."""
        _check_type_info(key_type, "KeyBy")
        selector = _function(key_selector, KeySelector, "get_key", "KeyBy")
        node = KeyByTransformation(name="KeyBy", inputs=[self._transformation],
                                   type_info=self._transformation.type_info,
                                   key_selector=selector, key_type=key_type)
        return KeyedStream(self._env, node, self)

    # -- sinks --------------------------------------------------------------------------
    def _sink(self, spec: SinkSpec, name: str) -> "DataStreamSink":
        node = SinkTransformation(name=name, inputs=[self._transformation],
                                  type_info=self._transformation.type_info, sink=spec)
        self._env._add_sink(node)
        return DataStreamSink(node)

    def print(self, sink_identifier: str = None) -> "DataStreamSink":
        """Prints every element on stdout of the driver (``identifier> element``)."""
        return self._sink(PrintSinkSpec(identifier=sink_identifier), "Print to Std. Out")

    def sink_to(self, sink) -> "DataStreamSink":
        """Writes the stream to a ``Sink`` such as ``FileSink``."""
        spec = getattr(sink, "_spec", None)
        if not isinstance(spec, SinkSpec):
            raise TypeError(f"sink_to expects a Sink such as FileSink, got {sink!r}")
        return self._sink(spec, getattr(sink, "_name", type(sink).__name__))

    def add_sink(self, sink_func: SinkFunction) -> "DataStreamSink":
        """Calls ``sink_func.invoke(value, context)`` for every element, in Spark workers (at-least-once)."""
        if not isinstance(sink_func, SinkFunction) and not callable(sink_func):
            raise TypeError(f"add_sink expects a SinkFunction, got {sink_func!r}")
        check_picklable(sink_func, "sink function", "Sink")
        chained = self._chain("sink_function", sink_func, "Sink: " + type(sink_func).__name__, None)
        return chained._sink(DiscardSinkSpec(), "Sink: " + type(sink_func).__name__)

    def execute_and_collect(self, job_execution_name: str = None, limit: int = None):
        """Runs the job and returns its elements: a list of at most ``limit`` elements, or a
        closeable iterator (also a context manager) over all of them."""
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise ValueError(f"limit must be a non-negative int, got {limit!r}")
        iterator = CloseableIterator()
        self._sink(CollectSinkSpec(collector=iterator), "Collect")
        iterator.start(self._env, job_execution_name or "collect")
        if limit is None:
            return iterator
        with iterator:
            result = []
            for value in iterator:
                if len(result) >= limit:
                    break
                result.append(value)
            return result

    def window_all(self, window_assigner) -> "AllWindowedStream":
        """Windows over the whole stream (not keyed): one window operator sees every element."""
        from kindling.datastream.windowed_stream import AllWindowedStream

        return AllWindowedStream(self, window_assigner)

    def connect(self, ds) -> Any:
        raise NotImplementedError("connect is not supported yet")

    def broadcast(self, *args) -> Any:
        raise NotImplementedError("broadcast is not supported yet")

    def partition_custom(self, partitioner, key_selector) -> "DataStream":
        raise NotImplementedError("partition_custom is not supported: Spark partitions by key itself")

    def cache(self) -> Any:
        raise NotImplementedError("cache is not supported yet")


class _Project:
    """Selects tuple fields by index (the function behind ``project``)."""

    def __init__(self, indexes: tuple[int, ...]):
        self.indexes = indexes

    def __call__(self, value):
        return tuple(value[i] for i in self.indexes)


class DataStreamSink:
    """The end of a stream written to a sink; names and hints apply to the sink."""

    def __init__(self, transformation: SinkTransformation):
        self._transformation = transformation

    def name(self, name: str) -> "DataStreamSink":
        self._transformation.name = name
        return self

    def uid(self, uid: str) -> "DataStreamSink":
        self._transformation.uid = uid
        return self

    def set_uid_hash(self, uid_hash: str) -> "DataStreamSink":
        self._transformation.uid = uid_hash
        return self

    def set_description(self, description: str) -> "DataStreamSink":
        return self

    def set_parallelism(self, parallelism: int) -> "DataStreamSink":
        """Recorded for the plan; Spark writes with the parallelism of its input partitions."""
        self._transformation.parallelism = parallelism
        return self

    def disable_chaining(self) -> "DataStreamSink":
        return self

    def slot_sharing_group(self, slot_sharing_group) -> "DataStreamSink":
        return self


class KeyedStream(DataStream):
    """A stream partitioned by key: the entry to keyed state, timers and windows.

    Example::

        counts = (words.map(lambda w: (w, 1))
                       .key_by(lambda t: t[0])
                       .reduce(lambda a, b: (a[0], a[1] + b[1])))
    """

    class AccumulateType(enum.Enum):
        """The rolling aggregations of a keyed stream."""

        MIN = 1
        MAX = 2
        MIN_BY = 3
        MAX_BY = 4
        SUM = 5

    def __init__(self, env: "StreamExecutionEnvironment", transformation: KeyByTransformation, origin: DataStream):
        super().__init__(env, transformation)
        self._origin = origin

    def _keyed(self, factory: Callable, name: str, type_info: Any) -> DataStream:
        node = KeyedTransformation(name=name, inputs=[self._transformation], type_info=type_info,
                                   operator_factory=factory)
        return DataStream(self._env, node)

    def process(self, func: KeyedProcessFunction, output_type: TypeInformation = None) -> DataStream:
        """Runs a KeyedProcessFunction with keyed state and timers."""
        _check_type_info(output_type, "KeyedProcess")
        if not isinstance(func, (KeyedProcessFunction, ProcessFunction)):  # PyFlink accepts both
            raise TypeError(f"KeyedStream.process expects a KeyedProcessFunction, got {func!r}")
        check_picklable(func, "function", "KeyedProcess")
        from kindling.runtime.keyed_operator import KeyedProcessOperator

        return self._keyed(_OperatorFactory(KeyedProcessOperator, func), "KeyedProcess", output_type)

    def reduce(self, func: Union[Callable, ReduceFunction]) -> DataStream:
        """Rolling reduce: emits the reduced value of the key after every element."""
        func = _function(func, ReduceFunction, "reduce", "Reduce")
        from kindling.runtime.keyed_functions import ReduceProcessFunction
        from kindling.runtime.keyed_operator import KeyedProcessOperator

        return self._keyed(_OperatorFactory(KeyedProcessOperator, ReduceProcessFunction(func)), "Reduce",
                           self._transformation.type_info)

    def _aggregate(self, kind: str, position: Union[int, str]) -> DataStream:
        from kindling.runtime.keyed_functions import aggregation_function
        from kindling.runtime.keyed_operator import KeyedProcessOperator

        function = aggregation_function(kind, position, self._transformation.type_info)
        return self._keyed(_OperatorFactory(KeyedProcessOperator, function), kind.capitalize(),
                           self._transformation.type_info)

    def sum(self, position_to_sum: Union[int, str] = 0) -> DataStream:
        """Rolling sum of a field (by position or name) per key."""
        return self._aggregate("sum", position_to_sum)

    def min(self, position_to_min: Union[int, str] = 0) -> DataStream:
        """Rolling minimum of a field per key; other fields are those of the first element."""
        return self._aggregate("min", position_to_min)

    def max(self, position_to_max: Union[int, str] = 0) -> DataStream:
        """Rolling maximum of a field per key; other fields are those of the first element."""
        return self._aggregate("max", position_to_max)

    def min_by(self, position_to_min_by: Union[int, str] = 0) -> DataStream:
        """Rolling element with the minimum field value per key."""
        return self._aggregate("min_by", position_to_min_by)

    def max_by(self, position_to_max_by: Union[int, str] = 0) -> DataStream:
        """Rolling element with the maximum field value per key."""
        return self._aggregate("max_by", position_to_max_by)

    # Stateless operations on a keyed stream need no shuffle: they run on the original stream.
    def map(self, func, output_type: TypeInformation = None) -> DataStream:
        return self._origin.map(func, output_type)

    def flat_map(self, func, output_type: TypeInformation = None) -> DataStream:
        return self._origin.flat_map(func, output_type)

    def filter(self, func) -> DataStream:
        return self._origin.filter(func)

    def key_by(self, key_selector, key_type: TypeInformation = None) -> "KeyedStream":
        return self._origin.key_by(key_selector, key_type)

    def union(self, *streams) -> DataStream:
        return self._origin.union(*streams)

    def project(self, *field_indexes) -> DataStream:
        return self._origin.project(*field_indexes)

    def _sink(self, spec: SinkSpec, name: str) -> DataStreamSink:
        return self._origin._sink(spec, name)

    def add_sink(self, sink_func) -> DataStreamSink:
        return self._origin.add_sink(sink_func)

    def window(self, window_assigner) -> "WindowedStream":
        """Groups each key's elements into windows of ``window_assigner``."""
        from kindling.datastream.windowed_stream import WindowedStream

        return WindowedStream(self, window_assigner)

    def count_window(self, size: int, slide: int = 0) -> "WindowedStream":
        """Windows of ``size`` elements per key, tumbling, or sliding by ``slide`` elements
        (as PyFlink: only full windows fire)."""
        from kindling.datastream.windowed_stream import WindowedStream, count_window_assigner

        return WindowedStream(self, count_window_assigner(size, slide))

    def time_window(self, size, slide=None) -> "WindowedStream":
        """The legacy time windows: tumbling of ``size``, or sliding by ``slide``, in event time."""
        from kindling.datastream.windowed_stream import WindowedStream, time_window_assigner

        return WindowedStream(self, time_window_assigner(self._env, size, slide))


class _OperatorFactory:
    """Builds a runtime keyed operator on the driver: ``factory(function, name)``."""

    def __init__(self, operator_class: type, function: Any):
        self.operator_class = operator_class
        self.function = function

    def __call__(self, name: str) -> Any:
        return self.operator_class(self.function, name)


_END = object()


class CloseableIterator:
    """A closeable iterator (and context manager) over a running job's elements.

    Closing it before the end cancels the job.
    """

    def __init__(self) -> None:
        self._queue: queue.Queue = queue.Queue()
        self._client = None
        self._batches_seen: set[int] = set()
        self._done = False

    def start(self, env, job_name: str) -> None:
        self._client = env.execute_async(job_name)

    # called by the sink writer on the driver
    def add(self, batch_id: int, values: list) -> None:
        if batch_id in self._batches_seen:  # a replayed batch: its values were already delivered
            return
        self._batches_seen.add(batch_id)
        for v in values:
            self._queue.put(v)

    def end(self) -> None:
        self._queue.put(_END)

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        if self._done:
            raise StopIteration
        item = self._queue.get()
        if item is _END:
            self._done = True
            self._client.get_job_execution_result().result()  # raises if the job failed
            raise StopIteration
        return item

    def next(self) -> Any:
        return self.__next__()

    def close(self) -> None:
        if not self._done and self._client is not None:
            self._done = True
            self._client.cancel().result()

    def __enter__(self) -> "CloseableIterator":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# PyFlink defines the windowed streams in this module too.
from kindling.datastream.windowed_stream import AllWindowedStream, WindowedStream  # noqa: E402
