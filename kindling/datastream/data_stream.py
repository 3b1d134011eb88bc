"""DataStream, KeyedStream and DataStreamSink, as in ``pyflink.datastream.data_stream``.

Each method adds a transformation to the job graph; nothing runs until ``execute``.
"""
from __future__ import annotations

import collections
import enum
import itertools
import math
import threading
import weakref
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, NoReturn, Union


from kindling.common.typeinfo import TypeInformation, Types
from kindling.common.unsupported import UnsupportedError
from kindling.datastream.picklable import check_picklable
from kindling.common.types import Row
from kindling.datastream.functions import (
    BroadcastProcessFunction,
    CoFlatMapFunction,
    CoMapFunction,
    CoProcessFunction,
    FilterFunction,
    FlatMapFunction,
    Function,
    KeyedBroadcastProcessFunction,
    KeyedCoProcessFunction,
    KeyedProcessFunction,
    KeySelector,
    MapFunction,
    Partitioner,
    ProcessFunction,
    ReduceFunction,
    SinkFunction,
)
from kindling.datastream.output_tag import OutputTag
from kindling.datastream.state import MapStateDescriptor
from kindling.graph.parallelism import non_parallel
from kindling.graph.specs import CollectSinkSpec, DiscardSinkSpec, PrintSinkSpec, SinkSpec
from kindling.graph.transformation import (
    CacheTransformation,
    ChainedTransformation,
    KeyByTransformation,
    KeyedTransformation,
    PartitionTransformation,
    SideOutputTransformation,
    SinkTransformation,
    Transformation,
    TwoInputTransformation,
    UnionTransformation,
)

if TYPE_CHECKING:
    from kindling.datastream.stream_execution_environment import StreamExecutionEnvironment


def _function(func: Any, cls: type, method: str, operator: str) -> Any:
    """Validates a user function: an instance of ``cls`` or a plain callable."""
    if isinstance(func, cls):
        pass
    elif isinstance(func, type) and issubclass(func, Function):  # int or str are callables like any other
        raise TypeError(f"{operator} expects an instance of {cls.__name__} or a callable, got the class {func.__name__}; instantiate it")
    elif not callable(func) and not hasattr(func, method):
        raise TypeError(f"{operator} expects a {cls.__name__} or a callable, got {func!r} ({type(func).__name__})")
    check_picklable(func, "function", operator)
    return func


def _check_type_info(type_info: Any, operator: str) -> None:
    if type_info is not None and not isinstance(type_info, TypeInformation):
        raise TypeError(f"output_type of '{operator}' must be a TypeInformation such as Types.INT(), got {type_info!r}")


def _checked_parallelism(parallelism: Any) -> int:
    if isinstance(parallelism, bool) or not isinstance(parallelism, int) or parallelism < 1:
        raise ValueError(f"parallelism must be a positive int, got {parallelism!r}")
    return parallelism


def _checked_max_parallelism(max_parallelism: Any) -> int:
    if isinstance(max_parallelism, bool) or not isinstance(max_parallelism, int) or not 0 < max_parallelism <= 32768:
        raise ValueError(f"max parallelism must be an int in 1..32768 (Flink's key groups), got {max_parallelism!r}")
    return max_parallelism


def _unsupported(message: str) -> Callable:
    """A method that raises as PyFlink's does, for what a kind of stream cannot do."""

    def method(self, *args, **kwargs):
        raise Exception(message)

    method.__doc__ = f"Raises, as in PyFlink: {message}"
    return method


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
        self._transformation.description = description
        return self

    def get_type(self) -> TypeInformation:
        return self._transformation.type_info or Types.PICKLED_BYTE_ARRAY()

    def get_execution_environment(self) -> "StreamExecutionEnvironment":
        return self._env

    def get_execution_config(self):
        return self._env.get_config()

    def set_parallelism(self, parallelism: int) -> "DataStream":
        """How many parallel instances run this operator: its Spark stage gets as many partitions
        (elements reach them as Flink sends them: docs/architecture.md, "Parallelism")."""
        if non_parallel(self._transformation) and parallelism != 1:
            raise ValueError("The parallelism of non parallel operator must be 1.")  # as Flink refuses it
        self._transformation.parallelism = _checked_parallelism(parallelism)
        return self

    def set_max_parallelism(self, max_parallelism: int) -> "DataStream":
        """A keyed operator's number of key groups (1..32768), which decides the parallel instance
        of each key, as in Flink (default: 128 up to parallelism 85)."""
        self._transformation.max_parallelism = _checked_max_parallelism(max_parallelism)
        return self

    def force_non_parallel(self) -> "DataStream":
        self._transformation.parallelism = 1
        return self

    def set_buffer_timeout(self, timeout_millis: int) -> "DataStream":
        """Accepted for compatibility: Spark ships data per micro-batch, not per network buffer."""
        return self

    def start_new_chain(self) -> "DataStream":
        """Starts a new chain at this operator in the execution plan (get_execution_plan); Kindling
        fuses every stateless chain into one Python pass all the same."""
        self._transformation.chaining = "HEAD"
        return self

    def disable_chaining(self) -> "DataStream":
        """Chains this operator with no other in the execution plan (get_execution_plan); Kindling
        fuses every stateless chain into one Python pass all the same."""
        self._transformation.chaining = "NEVER"
        return self

    def slot_sharing_group(self, slot_sharing_group) -> "DataStream":
        """Recorded for the execution plan's chaining (operators of different groups do not chain);
        Spark schedules tasks itself: there are no slots."""
        name = slot_sharing_group if isinstance(slot_sharing_group, str) else slot_sharing_group.get_name()
        self._transformation.slot_sharing_group = name
        return self

    def _partition(self, strategy: str) -> "DataStream":
        node = PartitionTransformation(name=strategy.title(), inputs=[self._transformation],
                                       type_info=self._transformation.type_info, strategy=strategy)
        return DataStream(self._env, node)

    def forward(self) -> "DataStream":
        """Each element stays in its parallel instance: the next operator must run at this one's
        parallelism (it runs in the same Spark task)."""
        return self._partition("FORWARD")

    def rebalance(self) -> "DataStream":
        """Spreads the elements over the next operator's parallel instances in turn (round robin)."""
        return self._partition("REBALANCE")

    def rescale(self) -> "DataStream":
        """Spreads each instance's elements in turn over the next operator's instances it is
        connected to (Flink's pointwise connection: 1 to 4 instances feeds each of them, 4 to 2
        feeds each from two)."""
        return self._partition("RESCALE")

    def shuffle(self) -> "DataStream":
        """Sends each element to a parallel instance of the next operator picked at random."""
        return self._partition("SHUFFLE")

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
        if isinstance(self._transformation, (KeyedTransformation, TwoInputTransformation)):
            self._transformation.has_side_output = True
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
        legacy = getattr(sink_func, "_sink", None)  # a legacy connector's Sink (FlinkKafkaProducer)
        if callable(legacy) and not isinstance(sink_func, type):
            return self.sink_to(legacy())
        if not isinstance(sink_func, SinkFunction) and not callable(sink_func):
            raise TypeError(f"add_sink expects a SinkFunction, got {sink_func!r}")
        check_picklable(sink_func, "sink function", "Sink")
        chained = self._chain("sink_function", sink_func, "Sink: " + type(sink_func).__name__, None)
        return chained._sink(DiscardSinkSpec(), "Sink: " + type(sink_func).__name__)

    def execute_and_collect(self, job_execution_name: str = None, limit: int = None):
        """Runs the job and returns its elements: a list of at most ``limit`` elements (the job is
        cancelled once it has them), or a :class:`CloseableIterator` over all of them.

        Elements wait on the driver in a buffer of at most ``kindling.collect.buffer-size``
        elements (default 10,000); while it is full the job waits for the iterator to be read
        (backpressure). Closing the iterator (``close()``, leaving a ``with`` block, or dropping
        the last reference to it) cancels the job."""
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise ValueError(f"limit must be a positive int (the number of elements to collect), got {limit!r}")
        capacity = self._env.get_configuration().get_integer(COLLECT_BUFFER_SIZE, DEFAULT_COLLECT_BUFFER_SIZE)
        if capacity < 1:
            raise ValueError(f"{COLLECT_BUFFER_SIZE} must be a positive number of elements, got {capacity}")
        buffer = CollectBuffer(capacity)
        self._sink(CollectSinkSpec(collector=buffer), "Collect")
        iterator = CloseableIterator(buffer, self._env.execute_async(job_execution_name or "DataStream Collect"))
        if limit is None:
            return iterator
        with iterator:
            return list(itertools.islice(iterator, limit))

    def window_all(self, window_assigner) -> "AllWindowedStream":
        """Windows over the whole stream (not keyed): one window operator sees every element."""
        from kindling.datastream.windowed_stream import AllWindowedStream

        return AllWindowedStream(self, window_assigner)

    def connect(self, ds: Union["DataStream", "BroadcastStream"]) -> Union["ConnectedStreams",
                                                                          "BroadcastConnectedStream"]:
        """Connects this stream with ``ds`` (possibly of another type) for a co-function:
        ``map(CoMapFunction)``, ``flat_map(CoFlatMapFunction)``, ``process(CoProcessFunction)``,
        or, after ``key_by(selector1, selector2)``, ``process(KeyedCoProcessFunction)`` with
        keyed state and timers shared by both inputs. With a :class:`BroadcastStream`:
        ``process((Keyed)BroadcastProcessFunction)``."""
        if isinstance(ds, BroadcastStream):
            return BroadcastConnectedStream(self, ds, ds.broadcast_state_descriptors)
        if not isinstance(ds, DataStream):
            raise TypeError(f"connect expects a DataStream or a BroadcastStream, got {ds!r}")
        return ConnectedStreams(self, ds)

    def broadcast(self, *broadcast_state_descriptors: MapStateDescriptor) -> Union["DataStream", "BroadcastStream"]:
        """Without arguments: every element goes to every parallel instance of the next
        operator. With MapStateDescriptors: a :class:`BroadcastStream` whose elements update
        those broadcast states in every parallel instance of the operator it is connected to."""
        if not broadcast_state_descriptors:
            return self._partition("BROADCAST")
        for descriptor in broadcast_state_descriptors:
            if not isinstance(descriptor, MapStateDescriptor):
                raise TypeError(f"broadcast state must be described by a MapStateDescriptor, got {descriptor!r}")
        return BroadcastStream(self, list(broadcast_state_descriptors))

    def partition_custom(self, partitioner: Union[Callable, Partitioner],
                         key_selector: Union[Callable, KeySelector]) -> "DataStream":
        """Asks ``partitioner.partition(key, number_of_instances)`` which parallel instance of the
        next operator gets each element; an index out of range fails the job, as in Flink."""
        partitioner = _function(partitioner, Partitioner, "partition", "PartitionCustom")
        key_selector = _function(key_selector, KeySelector, "get_key", "PartitionCustom")
        node = PartitionTransformation(name="PartitionCustom", inputs=[self._transformation],
                                       type_info=self._transformation.type_info, strategy="CUSTOM",
                                       partitioner=partitioner, key_selector=key_selector)
        return DataStream(self._env, node)

    def cache(self) -> "CachedDataStream":
        """Keeps this bounded stream's elements once a BATCH job has computed them, so that later
        jobs of the session read them instead of computing them again (in STREAMING mode the
        stream is computed as usual). ``invalidate()`` releases them."""
        node = CacheTransformation(name="Cache", inputs=[self._transformation], type_info=self._transformation.type_info)
        return CachedDataStream(self._env, node)

    def iterate(self, *args, **kwargs) -> NoReturn:
        """Refused: a feedback loop (Flink 1.x's ``iterate``, gone from PyFlink 2.x) cannot be a
        Spark plan, which has no cycles."""
        raise UnsupportedError(
            "DataStream.iterate is not supported by Kindling: Spark plans cannot have cycles (and PyFlink 2.x "
            "has no iterations either). Loop inside a process function (keyed state and timers carry the "
            "iteration), or feed results back through a Kafka topic read by the same job's source.")


class CachedDataStream(DataStream):
    """A stream whose elements the first BATCH job computing them keeps (in Spark's cache) for the
    later jobs that read it (made by :meth:`DataStream.cache`).

    Example::

        env.set_runtime_mode(RuntimeExecutionMode.BATCH)
        cleaned = env.from_collection(rows).map(clean).cache()
        cleaned.print(); env.execute()                                   # computes and keeps
        cleaned.filter(lambda r: r[1] > 0).print(); env.execute()        # reads what was kept
        cleaned.invalidate()
    """

    def invalidate(self) -> None:
        """Releases the kept elements; a later job computes them again."""
        frame = self._transformation.handle.pop("frame", None)
        if frame is not None:
            frame.unpersist()

    set_parallelism = _unsupported("Set parallelism for CachedDataStream is not supported.")
    name = _unsupported("Set name for CachedDataStream is not supported.")
    get_name = _unsupported("Get name of CachedDataStream is not supported.")
    uid = _unsupported("Set uid for CachedDataStream is not supported.")
    set_uid_hash = _unsupported("Set uid hash for CachedDataStream is not supported.")
    set_max_parallelism = _unsupported("Set max parallelism for CachedDataStream is not supported.")
    force_non_parallel = _unsupported("Set force non-parallel for CachedDataStream is not supported.")
    set_buffer_timeout = _unsupported("Set buffer timeout for CachedDataStream is not supported.")
    start_new_chain = _unsupported("Start new chain for CachedDataStream is not supported.")
    disable_chaining = _unsupported("Disable chaining for CachedDataStream is not supported.")
    slot_sharing_group = _unsupported("Setting slot sharing group for CachedDataStream is not supported.")


class ConnectedStreams:
    """Two streams, possibly of different types, processed together by a co-function.

    Example::

        class Enrich(KeyedCoProcessFunction):
            def open(self, ctx):
                self.name = ctx.get_state(ValueStateDescriptor("name", Types.STRING()))

            def process_element1(self, order, ctx):   # (user_id, amount)
                yield order[0], self.name.value(), order[1]

            def process_element2(self, user, ctx):    # (user_id, name)
                self.name.update(user[1])

        orders.connect(users).key_by(lambda o: o[0], lambda u: u[0]).process(Enrich())
    """

    def __init__(self, stream1: DataStream, stream2: DataStream):
        self.stream1 = stream1
        self.stream2 = stream2

    def key_by(self, key_selector1: Union[Callable, KeySelector], key_selector2: Union[Callable, KeySelector],
               key_type: TypeInformation = None) -> "ConnectedStreams":
        """Partitions both inputs by a common key: ``key_selector1`` for the first, ``key_selector2``
        for the second."""
        first = self.stream1._origin if isinstance(self.stream1, KeyedStream) else self.stream1
        second = self.stream2._origin if isinstance(self.stream2, KeyedStream) else self.stream2
        return ConnectedStreams(first.key_by(key_selector1, key_type), second.key_by(key_selector2, key_type))

    def _is_keyed_stream(self) -> bool:
        return isinstance(self.stream1, KeyedStream) and isinstance(self.stream2, KeyedStream)

    def _co_process(self, func: Any, name: str, output_type: Any) -> DataStream:
        _check_type_info(output_type, name)
        check_picklable(func, "function", name)
        node = TwoInputTransformation(name=name, inputs=[self.stream1._transformation, self.stream2._transformation],
                                      type_info=output_type, function=func)
        return DataStream(self.stream1._env, node)

    def map(self, func: CoMapFunction, output_type: TypeInformation = None) -> DataStream:
        """``map1`` for every element of the first input, ``map2`` for the second; one output each."""
        if not isinstance(func, CoMapFunction):
            raise TypeError("The input function must be a CoMapFunction!")
        return self._co_process(_CoMapProcess(func), "Co-Map", output_type)

    def flat_map(self, func: CoFlatMapFunction, output_type: TypeInformation = None) -> DataStream:
        """``flat_map1``/``flat_map2`` for the elements of each input; every element they yield."""
        if not isinstance(func, CoFlatMapFunction):
            raise TypeError("The input function must be a CoFlatMapFunction!")
        return self._co_process(_CoFlatMapProcess(func), "Co-Flat Map", output_type)

    def process(self, func: Union[CoProcessFunction, KeyedCoProcessFunction],
                output_type: TypeInformation = None) -> DataStream:
        """Runs a CoProcessFunction, or on keyed inputs a KeyedCoProcessFunction (state and timers
        per key, shared by both inputs); both may emit to side outputs."""
        if not isinstance(func, (CoProcessFunction, KeyedCoProcessFunction)):
            raise TypeError("The input must be a CoProcessFunction or KeyedCoProcessFunction!")
        keyed = self._is_keyed_stream()
        if isinstance(func, KeyedCoProcessFunction) and not keyed:
            raise TypeError("a KeyedCoProcessFunction needs keyed inputs: call key_by(key_selector1, key_selector2) "
                            "on the connected streams (or connect two KeyedStreams) before process(...)")
        return self._co_process(func, "Keyed Co-Process" if keyed else "Co-Process", output_type)


class BroadcastStream:
    """A stream whose elements reach every parallel instance of the operator it is connected
    to, where ``process_broadcast_element`` writes them into broadcast state (made by
    :meth:`DataStream.broadcast` with MapStateDescriptors)."""

    def __init__(self, input_stream: DataStream, broadcast_state_descriptors: list):
        self.input_stream = input_stream
        self.broadcast_state_descriptors = broadcast_state_descriptors


class BroadcastConnectedStream:
    """A stream connected with a :class:`BroadcastStream`.

    Example (dynamic rules: each rule reaches every parallel instance)::

        rules_state = MapStateDescriptor("rules", Types.STRING(), Types.INT())

        class Apply(KeyedBroadcastProcessFunction):
            def process_element(self, value, ctx):
                limit = ctx.get_broadcast_state(rules_state).get("limit")
                if limit is not None and value[1] > limit:
                    yield value

            def process_broadcast_element(self, rule, ctx):
                ctx.get_broadcast_state(rules_state).put(rule[0], rule[1])

        readings.key_by(lambda r: r[0]).connect(rules.broadcast(rules_state)).process(Apply())
    """

    def __init__(self, non_broadcast_stream: DataStream, broadcast_stream: BroadcastStream,
                 broadcast_state_descriptors: list):
        self.non_broadcast_stream = non_broadcast_stream
        self.broadcast_stream = broadcast_stream
        self.broadcast_state_descriptors = broadcast_state_descriptors

    def process(self, func: Union[BroadcastProcessFunction, KeyedBroadcastProcessFunction],
                output_type: TypeInformation = None) -> DataStream:
        """Runs ``func``: ``process_element`` for the elements of this stream (reading the
        broadcast state; keyed state and timers on a keyed stream), ``process_broadcast_element``
        for the broadcast elements (writing it)."""
        keyed = isinstance(self.non_broadcast_stream, KeyedStream)
        if keyed and not isinstance(func, KeyedBroadcastProcessFunction):
            raise TypeError("a keyed stream connected with a broadcast stream needs a KeyedBroadcastProcessFunction, "
                            f"got {func!r}")
        if not keyed and not isinstance(func, BroadcastProcessFunction):
            raise TypeError("a non-keyed stream connected with a broadcast stream needs a BroadcastProcessFunction, "
                            f"got {func!r}" + (" (or call key_by(...) first)"
                                               if isinstance(func, KeyedBroadcastProcessFunction) else ""))
        name = "Keyed-Co-Process-Broadcast" if keyed else "Co-Process-Broadcast"
        _check_type_info(output_type, name)
        check_picklable(func, "function", name)
        node = TwoInputTransformation(
            name=name, inputs=[self.non_broadcast_stream._transformation,
                               self.broadcast_stream.input_stream._transformation],
            type_info=output_type, function=func, broadcast_states=tuple(self.broadcast_state_descriptors))
        return DataStream(self.non_broadcast_stream._env, node)


class _CoFunctionProcess(CoProcessFunction):
    """A CoMapFunction or CoFlatMapFunction run as a co-process function, as PyFlink runs them."""

    def __init__(self, function: Any):
        self.function = function

    def open(self, runtime_context) -> None:
        self.function.open(runtime_context)

    def close(self) -> None:
        self.function.close()


class _CoMapProcess(_CoFunctionProcess):
    def process_element1(self, value, ctx):
        return (self.function.map1(value),)

    def process_element2(self, value, ctx):
        return (self.function.map2(value),)


class _CoFlatMapProcess(_CoFunctionProcess):
    def process_element1(self, value, ctx):
        return self.function.flat_map1(value) or ()

    def process_element2(self, value, ctx):
        return self.function.flat_map2(value) or ()


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
        self._transformation.description = description
        return self

    def set_parallelism(self, parallelism: int) -> "DataStreamSink":
        """How many parallel instances write: a file sink writes a part file per instance that
        received data, ``print()`` names the instance in its ``n> `` prefix above 1."""
        parallelism = _checked_parallelism(parallelism)
        self._transformation.parallelism = parallelism
        function = self._transformation.inputs[0]  # add_sink's function runs as the sink
        if isinstance(function, ChainedTransformation) and function.operation == "sink_function":
            function.parallelism = parallelism
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

    def _keyed(self, operation: str, name: str, type_info: Any, **spec: Any) -> DataStream:
        """Adds the keyed graph node of ``operation`` (fields of KeyedTransformation in
        ``spec``); the Spark compiler chooses its runtime operator."""
        node = KeyedTransformation(name=name, inputs=[self._transformation], type_info=type_info,
                                   operation=operation, **spec)
        return DataStream(self._env, node)

    def process(self, func: KeyedProcessFunction, output_type: TypeInformation = None) -> DataStream:
        """Runs a KeyedProcessFunction with keyed state and timers."""
        _check_type_info(output_type, "KeyedProcess")
        if not isinstance(func, KeyedProcessFunction):
            raise TypeError(f"KeyedProcessFunction is required for KeyedStream, got {func!r}: subclass "
                            "KeyedProcessFunction (it has keyed state and timers), or call process() before key_by(...)")
        check_picklable(func, "function", "KeyedProcess")
        return self._keyed("process", "KeyedProcess", output_type, function=func)

    def map(self, func: Union[Callable, MapFunction], output_type: TypeInformation = None) -> DataStream:
        """Applies ``func`` to every element, per key: a MapFunction's ``open`` gets the keyed
        RuntimeContext, so its state is the current key's (as PyFlink runs it)."""
        _check_type_info(output_type, "Map")
        func = _function(func, MapFunction, "map", "Map")
        return self._keyed("map", "Map", output_type, function=func)

    def flat_map(self, func: Union[Callable, FlatMapFunction], output_type: TypeInformation = None) -> DataStream:
        """Applies ``func`` to every element, per key, and emits every element it returns or
        yields; keyed state as in :meth:`map`."""
        _check_type_info(output_type, "FlatMap")
        func = _function(func, FlatMapFunction, "flat_map", "FlatMap")
        return self._keyed("flat_map", "FlatMap", output_type, function=func)

    def filter(self, func: Union[Callable, FilterFunction]) -> DataStream:
        """Keeps the elements for which ``func`` is true, per key; keyed state as in :meth:`map`."""
        func = _function(func, FilterFunction, "filter", "Filter")
        return self._keyed("filter", "Filter", self._transformation.type_info, function=func)

    def reduce(self, func: Union[Callable, ReduceFunction]) -> DataStream:
        """Rolling reduce: emits the reduced value of the key after every element."""
        func = _function(func, ReduceFunction, "reduce", "Reduce")
        return self._keyed("reduce", "Reduce", self._transformation.type_info, function=func)

    def _aggregate(self, kind: str, position: Union[int, str]) -> DataStream:
        if isinstance(position, bool) or not isinstance(position, (int, str)):
            raise TypeError("The field position must be of int or str type to locate the value to "
                            "calculate for min, max, min_by, max_by and sum.The given type is: %s"
                            % type(position))
        return self._keyed(kind, kind.capitalize(), self._transformation.type_info, position=position)

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

    # Operations that need no key run on the stream before key_by.
    def key_by(self, key_selector, key_type: TypeInformation = None) -> "KeyedStream":
        return self._origin.key_by(key_selector, key_type)

    def union(self, *streams) -> DataStream:
        return DataStream.union(self, *streams)

    def project(self, *field_indexes) -> DataStream:
        return self._origin.project(*field_indexes)

    def _sink(self, spec: SinkSpec, name: str) -> DataStreamSink:
        return self._origin._sink(spec, name)

    def execute_and_collect(self, job_execution_name: str = None, limit: int = None):
        """As in PyFlink, a keyed stream collects as ``Row(f0=key, f1=value)``: the pairs Flink's
        keyed stream carries."""
        selector = self._transformation.key_selector
        get_key = getattr(selector, "get_key", selector)
        pairs = self._origin.map(lambda value: Row(f0=get_key(value), f1=value))
        return pairs.execute_and_collect(job_execution_name, limit)

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

    # As in PyFlink, a KeyedStream is not an operator: it has no name, uid, parallelism or
    # chaining of its own, and its partitioning is the key's.
    name = _unsupported("Set name for KeyedStream is not supported. Name the operation after "
                        "key_by(...) instead, e.g. key_by(f).process(g).name('...').")
    get_name = _unsupported("Get name of KeyedStream is not supported.")
    uid = _unsupported("Set uid for KeyedStream is not supported. Set it on the operation after key_by(...).")
    set_uid_hash = _unsupported("Set uid hash for KeyedStream is not supported.")
    set_parallelism = _unsupported("Set parallelism for KeyedStream is not supported. Set it on the "
                                   "operation after key_by(...).")
    set_max_parallelism = _unsupported("Set max parallelism for KeyedStream is not supported.")
    force_non_parallel = _unsupported("Set force non-parallel for KeyedStream is not supported.")
    set_buffer_timeout = _unsupported("Set buffer timeout for KeyedStream is not supported.")
    start_new_chain = _unsupported("Start new chain for KeyedStream is not supported.")
    disable_chaining = _unsupported("Disable chaining for KeyedStream is not supported.")
    slot_sharing_group = _unsupported("Setting slot sharing group for KeyedStream is not supported.")
    cache = _unsupported("Cache for KeyedStream is not supported.")
    shuffle = rescale = rebalance = forward = broadcast = partition_custom = _unsupported(
        "Cannot override partitioning for KeyedStream.")


COLLECT_BUFFER_SIZE = "kindling.collect.buffer-size"
DEFAULT_COLLECT_BUFFER_SIZE = 10_000
_END = object()


class CollectBuffer:
    """Elements on their way from a job's collect sink to its :class:`CloseableIterator`.

    The sink writer (the job's micro-batch thread on the driver) never lets more than
    ``capacity`` elements wait, so an unbounded job is held back by its reader instead of filling
    the driver's memory; a writer held back goes on once its list fits or half the buffer is free.
    Once the reader closes, writing stops at once. Elements pass in lists (the writer's chunks,
    the reader taking a whole list at a time), so the two threads meet once per list, not once
    per element (a writer let go on at every element taken met the reader once per element).
    """

    def __init__(self, capacity: int = DEFAULT_COLLECT_BUFFER_SIZE):
        self._chunks: collections.deque = collections.deque()
        self._capacity = capacity
        self._lock = threading.Condition()
        self._ended = False
        self._closed = False
        self._batch_id = -1  # the latest batch written, and how many of its elements were
        self._batch_written = 0
        self._reading: list = []  # the reader's list, taken from ``_chunks``, and its next element
        self._next = 0
        self._added = 0  # elements added, and elements taken (or dropped), since the start
        self._taken = 0
        self._wake_writer_at: float = math.inf  # the reader lets a waiting writer go on at this count taken

    def __reduce__(self):
        # A copy in another process (a sink writer run by Spark Connect's server) cannot reach
        # the reader, nor hold the job back: it fails clearly instead of losing the elements.
        return _DetachedCollectBuffer, ()

    @property
    def waiting(self) -> int:
        """How many elements wait for the reader."""
        return self._added - self._taken

    def put_batch(self, batch_id: int, values: Iterable) -> int:
        """Adds one batch's elements, waiting while the buffer is full; returns how many it
        added. A replayed batch adds only what was not added before."""
        return self.put_chunks(batch_id, _lists_of(values, max(1, min(self._capacity, 1000))))

    def put_chunks(self, batch_id: int, chunks: Iterable[list]) -> int:
        """As :meth:`put_batch`, the batch's elements given as lists."""
        lock = self._lock
        if batch_id < self._batch_id:
            return 0
        skip = self._batch_written if batch_id == self._batch_id else 0
        self._batch_id, self._batch_written = batch_id, skip
        added = 0
        for chunk in chunks:
            if skip:
                chunk, skip = chunk[skip:], max(0, skip - len(chunk))
            while chunk:
                with lock:
                    room_needed = min(len(chunk), (self._capacity + 1) // 2)
                    while self._capacity - self.waiting < room_needed and not self._closed:
                        self._wake_writer_at = self._added - self._capacity + room_needed
                        lock.wait()
                    self._wake_writer_at = math.inf
                    if self._closed:
                        return added
                    room = self._capacity - self.waiting
                    part, chunk = (chunk, []) if len(chunk) <= room else (chunk[:room], chunk[room:])
                    self._chunks.append(part)
                    self._added += len(part)
                    lock.notify_all()
                added += len(part)
                self._batch_written += len(part)
        return added

    def drain(self) -> list:
        """Takes every element waiting now, without waiting for more."""
        with self._lock:
            items = self._reading[self._next:]
            for chunk in self._chunks:
                items.extend(chunk)
            self._drop()
            return items

    def end(self) -> None:
        """The job ended: the reader gets what is buffered, then the end."""
        with self._lock:
            self._ended = True
            self._lock.notify_all()

    def take(self) -> Any:
        """The next element, waiting for one; ``_END`` after the last."""
        if self._next < len(self._reading):
            value = self._reading[self._next]
            self._next += 1
            self._taken += 1
            if self._taken >= self._wake_writer_at:
                with self._lock:
                    self._wake_writer_at = math.inf  # once: the writer sets it again if it still waits
                    self._lock.notify_all()
            return value
        lock = self._lock
        with lock:
            lock.notify_all()  # the writer may wait for the room this reader made
            while not self._chunks and not self._ended and not self._closed:
                lock.wait()
            if not self._chunks:
                return _END
            self._reading, self._next = self._chunks.popleft(), 1
            self._taken += 1
            return self._reading[0]

    def close(self) -> None:
        """The reader is gone: drop what is buffered and release a waiting writer."""
        with self._lock:
            self._closed = True
            self._drop()

    def _drop(self) -> None:
        """Drops every element waiting (the lock held)."""
        self._chunks.clear()
        self._reading, self._next = [], 0
        self._taken = self._added
        self._lock.notify_all()


def _lists_of(values: Iterable, size: int) -> Iterator[list]:
    """``values`` in lists of ``size``; when ``values`` fails, what it gave before, then its error."""
    chunk: list = []
    try:
        for value in values:
            chunk.append(value)
            if len(chunk) == size:
                yield chunk
                chunk = []
    except Exception:
        if chunk:
            yield chunk
        raise
    if chunk:
        yield chunk


class _DetachedCollectBuffer(CollectBuffer):
    """What a CollectBuffer becomes when it is pickled: it refuses elements."""

    def put_chunks(self, batch_id: int, chunks: Iterable[list]) -> int:
        raise RuntimeError(
            "execute_and_collect hands elements to the Python process that called it, but this job's sink "
            "runs in another process (e.g. with Spark Connect, where foreachBatch runs on the server), so "
            "it cannot deliver them; write the stream to a sink instead (sink_to(FileSink...), add_sink(...))")

    def end(self) -> None:
        pass


class CloseableIterator:
    """An iterator (and context manager) over the elements of a running job, as PyFlink's.

    Closing it before the end, leaving its ``with`` block, or dropping it cancels the job.
    """

    def __init__(self, buffer: CollectBuffer, client: Any):
        self._buffer = buffer
        self._client = client
        self._done = False
        # Dropping the iterator (or leaving the interpreter) cancels the job; the finalizer holds
        # no reference to the iterator.
        self._finalizer = weakref.finalize(self, _cancel_in_background, buffer, client)

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        if self._done:
            raise StopIteration("No more data.")
        item = self._buffer.take()
        if item is _END:
            self._done = True
            self._finalizer.detach()
            self._client.get_job_execution_result().result()  # raises if the job failed
            raise StopIteration("No more data.")
        return item

    def next(self) -> Any:
        return self.__next__()

    def close(self) -> None:
        """Stops reading; a job still running is cancelled (this waits until it has stopped)."""
        if self._done:
            return
        self._done = True
        self._finalizer.detach()
        self._buffer.close()
        self._client.cancel().result()

    def __enter__(self) -> "CloseableIterator":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _cancel_in_background(buffer: CollectBuffer, client: Any) -> None:
    """Cancels the job of an iterator that was dropped unclosed, without waiting: this runs
    wherever the garbage collector ran, possibly on a thread the job needs to stop."""
    buffer.close()
    threading.Thread(target=client.cancel, name="kindling-collect-cancel", daemon=True).start()


# PyFlink defines the windowed streams in this module too.
from kindling.datastream.windowed_stream import AllWindowedStream, WindowedStream  # noqa: E402
