"""User function interfaces of the DataStream API, as in ``pyflink.datastream.functions``.

Every function may override ``open(runtime_context)`` and ``close()``; Kindling calls
``open`` once per operator instance in each Spark Python worker, as Flink does once per
parallel operator instance.
"""
from __future__ import annotations

import abc
from enum import Enum
from typing import Any, Callable, Generic, Iterable, List, Optional, TypeVar

from kindling.common.unsupported import unsupported
from kindling.datastream.output_tag import OutputTag
from kindling.metrics.metricbase import MetricGroup, track

# Type parameters of the generic function classes: ``MapFunction[int, str]`` and the like are
# type hints only (as in PyFlink); types of the stream come from ``output_type``/``type_info``.
T = TypeVar("T")
IN = TypeVar("IN")
IN1 = TypeVar("IN1")
IN2 = TypeVar("IN2")
OUT = TypeVar("OUT")
ACC = TypeVar("ACC")
KEY = TypeVar("KEY")
W = TypeVar("W")
W2 = TypeVar("W2")


class Function(abc.ABC):
    """Base of all user functions: lifecycle hooks called around processing."""

    def open(self, runtime_context: "RuntimeContext") -> None:
        pass

    def close(self) -> None:
        pass


class RuntimeContext(abc.ABC):
    """What a function may ask about the task it runs in, and how it reaches keyed state."""

    @abc.abstractmethod
    def get_task_name(self) -> str: ...

    @abc.abstractmethod
    def get_number_of_parallel_subtasks(self) -> int: ...

    @abc.abstractmethod
    def get_max_number_of_parallel_subtasks(self) -> int: ...

    @abc.abstractmethod
    def get_index_of_this_subtask(self) -> int: ...

    @abc.abstractmethod
    def get_attempt_number(self) -> int: ...

    @abc.abstractmethod
    def get_task_name_with_subtasks(self) -> str: ...

    @abc.abstractmethod
    def get_job_parameter(self, key: str, default_value: str): ...

    def get_metrics_group(self) -> MetricGroup:
        """The metric group of this parallel instance (counters, gauges, meters,
        distributions); the job result holds them merged over the instances
        (``metrics:<operator>.<name>`` accumulators)."""
        group = self.__dict__.get("_metric_group")
        if group is None:
            group = self.__dict__["_metric_group"] = MetricGroup()
            track(self.get_task_name(), self.get_index_of_this_subtask(), group)
        return group

    def get_state(self, state_descriptor):
        raise TypeError("keyed state is only available on a KeyedStream (after key_by)")

    def get_list_state(self, state_descriptor):
        raise TypeError("keyed state is only available on a KeyedStream (after key_by)")

    def get_map_state(self, state_descriptor):
        raise TypeError("keyed state is only available on a KeyedStream (after key_by)")

    def get_reducing_state(self, state_descriptor):
        raise TypeError("keyed state is only available on a KeyedStream (after key_by)")

    def get_aggregating_state(self, state_descriptor):
        raise TypeError("keyed state is only available on a KeyedStream (after key_by)")


class MapFunction(Function, Generic[IN, OUT]):
    """One element in, one element out.

    Example::

        class AddOne(MapFunction):
            def map(self, value):
                return value + 1
    """

    @abc.abstractmethod
    def map(self, value): ...


class FlatMapFunction(Function, Generic[IN, OUT]):
    """One element in, zero or more out: ``flat_map`` returns or yields an iterable."""

    @abc.abstractmethod
    def flat_map(self, value): ...


class FilterFunction(Function, Generic[IN]):
    """Keeps the elements for which ``filter`` returns true."""

    @abc.abstractmethod
    def filter(self, value) -> bool: ...


class KeySelector(Function, Generic[IN, KEY]):
    """Extracts the key of an element for ``key_by``."""

    @abc.abstractmethod
    def get_key(self, value): ...


class ReduceFunction(Function, Generic[T]):
    """Combines two values of the same type into one."""

    @abc.abstractmethod
    def reduce(self, value1, value2): ...


class AggregateFunction(Function, Generic[IN, ACC, OUT]):
    """Incremental aggregation through an accumulator."""

    @abc.abstractmethod
    def create_accumulator(self): ...

    @abc.abstractmethod
    def add(self, value, accumulator): ...

    @abc.abstractmethod
    def get_result(self, accumulator): ...

    def merge(self, acc_a, acc_b):
        raise NotImplementedError("this AggregateFunction does not implement merge()")


class TimerService(abc.ABC):
    """Time and timers as seen by a process function."""

    @abc.abstractmethod
    def current_processing_time(self) -> int: ...

    @abc.abstractmethod
    def current_watermark(self) -> int: ...

    @abc.abstractmethod
    def register_processing_time_timer(self, timestamp: int) -> None: ...

    @abc.abstractmethod
    def register_event_time_timer(self, timestamp: int) -> None: ...

    @abc.abstractmethod
    def delete_processing_time_timer(self, timestamp: int) -> None: ...

    @abc.abstractmethod
    def delete_event_time_timer(self, timestamp: int) -> None: ...


class BaseContext(abc.ABC):
    """Element context shared by the process functions."""

    @abc.abstractmethod
    def timestamp(self) -> int | None: ...

    @abc.abstractmethod
    def timer_service(self) -> TimerService: ...

    @abc.abstractmethod
    def output(self, output_tag: OutputTag, value) -> None: ...


class ProcessFunction(Function, Generic[IN, OUT]):
    """Low-level processing of each element, with side outputs.

    Example::

        class Split(ProcessFunction):
            def process_element(self, value, ctx):
                if value < 0:
                    ctx.output(NEGATIVE, value)
                else:
                    yield value
    """

    class Context(BaseContext, abc.ABC):
        pass

    @abc.abstractmethod
    def process_element(self, value, ctx: "ProcessFunction.Context"): ...


class KeyedProcessFunction(Function, Generic[KEY, IN, OUT]):
    """Processes each element of a keyed stream with keyed state and timers.

    Example::

        class CountPerKey(KeyedProcessFunction):
            def open(self, ctx):
                self.count = ctx.get_state(ValueStateDescriptor("count", Types.LONG()))
            def process_element(self, value, ctx):
                self.count.update((self.count.value() or 0) + 1)
                yield ctx.get_current_key(), self.count.value()
    """

    class Context(BaseContext, abc.ABC):
        @abc.abstractmethod
        def get_current_key(self): ...

    class OnTimerContext(Context, abc.ABC):
        @abc.abstractmethod
        def time_domain(self): ...

    @abc.abstractmethod
    def process_element(self, value, ctx: "KeyedProcessFunction.Context"): ...

    def on_timer(self, timestamp: int, ctx: "KeyedProcessFunction.OnTimerContext"):
        pass


class CoMapFunction(Function, Generic[IN1, IN2, OUT]):
    """Maps the elements of two connected streams."""

    @abc.abstractmethod
    def map1(self, value): ...

    @abc.abstractmethod
    def map2(self, value): ...


class CoFlatMapFunction(Function, Generic[IN1, IN2, OUT]):
    """Flat-maps the elements of two connected streams."""

    @abc.abstractmethod
    def flat_map1(self, value): ...

    @abc.abstractmethod
    def flat_map2(self, value): ...


class CoProcessFunction(Function, Generic[IN1, IN2, OUT]):
    """Processes the elements of two connected streams."""

    class Context(BaseContext, abc.ABC):
        pass

    @abc.abstractmethod
    def process_element1(self, value, ctx: "CoProcessFunction.Context"): ...

    @abc.abstractmethod
    def process_element2(self, value, ctx: "CoProcessFunction.Context"): ...


class KeyedCoProcessFunction(Function, Generic[KEY, IN1, IN2, OUT]):
    """Processes the elements of two connected keyed streams with shared keyed state and timers."""

    class Context(BaseContext, abc.ABC):
        @abc.abstractmethod
        def get_current_key(self): ...

    class OnTimerContext(Context, abc.ABC):
        @abc.abstractmethod
        def time_domain(self): ...

    @abc.abstractmethod
    def process_element1(self, value, ctx: "KeyedCoProcessFunction.Context"): ...

    @abc.abstractmethod
    def process_element2(self, value, ctx: "KeyedCoProcessFunction.Context"): ...

    def on_timer(self, timestamp: int, ctx: "KeyedCoProcessFunction.OnTimerContext"):
        pass


class SinkFunction(Function, Generic[IN]):
    """A user sink: ``invoke(value, context)`` is called for every element (at-least-once)."""

    def invoke(self, value, context=None) -> None:
        raise NotImplementedError(f"{type(self).__name__} must override invoke(value, context)")


class SourceFunction(Function, Generic[OUT]):
    """PyFlink's wrapper of a Java source function (``SourceFunction("org.example.MySource")``).

    Kindling runs without Flink's JVM, so a Java source cannot run: constructing one raises
    :class:`~kindling.common.unsupported.UnsupportedError`. Read a ``Source`` with
    ``env.from_source(...)`` or a collection with ``env.from_collection(...)`` instead.
    """

    @unsupported("SourceFunction wraps a Java source function and Kindling runs without Flink's JVM; "
                 "use env.from_source(...) with a Source, or env.from_collection(...)")
    def __init__(self, source_func=None):
        pass


class Partitioner(Function, Generic[KEY]):
    """Chooses a partition for a key."""

    @abc.abstractmethod
    def partition(self, key: Any, num_partitions: int) -> int: ...


# -------------------------------------------------------------------------------------------
# Window functions (``WindowedStream.apply/process`` and ``AllWindowedStream.apply/process``)


class WindowFunction(Function, Generic[IN, OUT, KEY, W]):
    """Evaluates a keyed window: ``apply(key, window, inputs)`` returns or yields the outputs.

    Example::

        class CountPerWindow(WindowFunction):
            def apply(self, key, window, inputs):
                yield key, window.start, window.end, len(list(inputs))
    """

    @abc.abstractmethod
    def apply(self, key, window, inputs: Iterable): ...


class AllWindowFunction(Function, Generic[IN, OUT, W]):
    """Evaluates a non-keyed window (``window_all``): ``apply(window, inputs)``."""

    @abc.abstractmethod
    def apply(self, window, inputs: Iterable): ...


class ProcessWindowFunction(Function, Generic[IN, OUT, KEY, W]):
    """Evaluates a keyed window with a :class:`ProcessWindowFunction.Context`:
    ``process(key, context, elements)`` returns or yields the outputs.

    ``context.window_state()`` holds state of this key and window (clean it up in
    :meth:`clear`, called when the window is removed); ``context.global_state()`` holds state
    of the key across windows.
    """

    class Context(abc.ABC, Generic[W2]):
        """Metadata and state of the window being evaluated."""

        @abc.abstractmethod
        def window(self): ...

        @abc.abstractmethod
        def current_processing_time(self) -> int: ...

        @abc.abstractmethod
        def current_watermark(self) -> int: ...

        @abc.abstractmethod
        def window_state(self): ...

        @abc.abstractmethod
        def global_state(self): ...

        def output(self, output_tag: OutputTag, value) -> None:
            raise NotImplementedError

    @abc.abstractmethod
    def process(self, key, context: "ProcessWindowFunction.Context", elements: Iterable): ...

    def clear(self, context: "ProcessWindowFunction.Context") -> None:
        """Called when the window is removed (watermark past its end plus the allowed
        lateness): delete the per-window state here."""
        pass


class ProcessAllWindowFunction(Function, Generic[IN, OUT, W]):
    """Evaluates a non-keyed window (``window_all``) with a context:
    ``process(context, elements)``."""

    class Context(abc.ABC, Generic[W2]):
        """Metadata and state of the window being evaluated."""

        @abc.abstractmethod
        def window(self): ...

        @abc.abstractmethod
        def window_state(self): ...

        @abc.abstractmethod
        def global_state(self): ...

        def current_processing_time(self) -> int:
            raise NotImplementedError

        def current_watermark(self) -> int:
            raise NotImplementedError

        def output(self, output_tag: OutputTag, value) -> None:
            raise NotImplementedError

    @abc.abstractmethod
    def process(self, context: "ProcessAllWindowFunction.Context", elements: Iterable): ...

    def clear(self, context: "ProcessAllWindowFunction.Context") -> None:
        """Called when the window is removed: delete the per-window state here."""
        pass



# -------------------------------------------------------------------------------------------
# Broadcast process functions: the interfaces, as in PyFlink. The streams that run them
# (``DataStream.broadcast(...)``/``connect``) are not supported by Kindling yet, and say so when used.


class BaseBroadcastProcessFunction(Function):
    """Base of the functions applied to a stream connected with a broadcast stream."""

    class BaseContext(abc.ABC):
        """Element context shared by both sides."""

        @abc.abstractmethod
        def timestamp(self) -> int: ...

        @abc.abstractmethod
        def current_processing_time(self) -> int: ...

        @abc.abstractmethod
        def current_watermark(self) -> int: ...

    class Context(BaseContext):
        """Context of a broadcast element: the broadcast state may be written."""

        @abc.abstractmethod
        def get_broadcast_state(self, state_descriptor: "MapStateDescriptor") -> "BroadcastState": ...

    class ReadOnlyContext(BaseContext):
        """Context of a non-broadcast element: the broadcast state may only be read."""

        @abc.abstractmethod
        def get_broadcast_state(self, state_descriptor: "MapStateDescriptor") -> "ReadOnlyBroadcastState": ...


class BroadcastProcessFunction(BaseBroadcastProcessFunction, Generic[IN1, IN2, OUT]):
    """Processes a non-keyed stream (``process_element``) connected with a broadcast stream
    (``process_broadcast_element``)."""

    class Context(BaseBroadcastProcessFunction.Context, abc.ABC):
        pass

    class ReadOnlyContext(BaseBroadcastProcessFunction.ReadOnlyContext, abc.ABC):
        pass

    @abc.abstractmethod
    def process_element(self, value: IN1, ctx: "BroadcastProcessFunction.ReadOnlyContext"): ...

    @abc.abstractmethod
    def process_broadcast_element(self, value: IN2, ctx: "BroadcastProcessFunction.Context"): ...


class KeyedBroadcastProcessFunction(BaseBroadcastProcessFunction, Generic[KEY, IN1, IN2, OUT]):
    """Processes a keyed stream (``process_element``, with keyed state and timers) connected
    with a broadcast stream (``process_broadcast_element``)."""

    class Context(BaseBroadcastProcessFunction.Context, abc.ABC):
        pass

    class ReadOnlyContext(BaseBroadcastProcessFunction.ReadOnlyContext, abc.ABC):
        @abc.abstractmethod
        def timer_service(self) -> TimerService: ...

        @abc.abstractmethod
        def get_current_key(self): ...

    class OnTimerContext(ReadOnlyContext, abc.ABC):
        @abc.abstractmethod
        def time_domain(self): ...

    @abc.abstractmethod
    def process_element(self, value: IN1, ctx: "KeyedBroadcastProcessFunction.ReadOnlyContext"): ...

    @abc.abstractmethod
    def process_broadcast_element(self, value: IN2, ctx: "KeyedBroadcastProcessFunction.Context"): ...

    def on_timer(self, timestamp: int, ctx: "KeyedBroadcastProcessFunction.OnTimerContext"):
        pass


class AsyncRetryPredicate(abc.ABC, Generic[OUT]):
    """When an attempt of ``async_invoke`` is retried: on its result, on its exception (each optional)."""

    @abc.abstractmethod
    def result_predicate(self) -> Optional[Callable[[List[OUT]], bool]]:
        """A predicate on a result that asks for another attempt, or None."""

    @abc.abstractmethod
    def exception_predicate(self) -> Optional[Callable[[Exception], bool]]:
        """A predicate on an exception that asks for another attempt, or None."""


class AsyncRetryStrategy(abc.ABC, Generic[OUT]):
    """How often and after which delay ``async_invoke`` is attempted again (see
    ``kindling.datastream.async_retry_strategies``)."""

    @abc.abstractmethod
    def can_retry(self, current_attempts: int) -> bool:
        """Whether another attempt may follow attempt number ``current_attempts`` (from 1)."""

    @abc.abstractmethod
    def get_backoff_time_millis(self, current_attempts: int) -> int:
        """The delay before the attempt after attempt number ``current_attempts``."""

    @abc.abstractmethod
    def get_retry_predicate(self) -> AsyncRetryPredicate[OUT]:
        """The predicates that decide whether an attempt is retried."""

    @staticmethod
    def no_restart() -> "AsyncRetryStrategy":
        from kindling.datastream import async_retry_strategies

        return async_retry_strategies.NO_RETRY_STRATEGY

    @staticmethod
    def fixed_delay(max_attempts: int, backoff_time_millis: int,
                    result_predicate: Optional[Callable[[List[OUT]], bool]],
                    exception_predicate: Optional[Callable[[Exception], bool]]) -> "AsyncRetryStrategy":
        from kindling.datastream.async_retry_strategies import FixedDelayRetryStrategy

        return FixedDelayRetryStrategy(max_attempts, backoff_time_millis, result_predicate, exception_predicate)

    @staticmethod
    def exponential_backoff(max_attempts: int, initial_delay: int, max_retry_delay: int, multiplier: float,
                            result_predicate: Optional[Callable[[List[OUT]], bool]],
                            exception_predicate: Optional[Callable[[Exception], bool]]) -> "AsyncRetryStrategy":
        from kindling.datastream.async_retry_strategies import ExponentialBackoffDelayRetryStrategy

        return ExponentialBackoffDelayRetryStrategy(max_attempts, initial_delay, max_retry_delay, multiplier,
                                                    result_predicate, exception_predicate)


class AsyncFunction(Function, Generic[IN, OUT]):
    """Asynchronous I/O per element: ``async def async_invoke(value)`` returns the list of
    outputs; many elements are in flight at once (see ``AsyncDataStream``)."""

    @abc.abstractmethod
    async def async_invoke(self, value: IN) -> List[OUT]:
        """Starts the request for ``value`` and returns its outputs; an exception fails the job."""

    def timeout(self, value: IN) -> List[OUT]:
        """Called when ``async_invoke`` times out; by default the job fails, as in PyFlink."""
        raise TimeoutError("Async function call has timed out for input: " + str(value))


class AsyncFunctionDescriptor:
    """An async function with its timeout, capacity, retry strategy and output mode."""

    class OutputMode(Enum):
        ORDERED = 0
        UNORDERED = 1

    def __init__(self, async_function: AsyncFunction, timeout: Any, capacity: int,
                 async_retry_strategy: AsyncRetryStrategy, output_mode: "AsyncFunctionDescriptor.OutputMode"):
        self.async_function = async_function
        self.timeout = timeout
        self.capacity = capacity
        self.async_retry_strategy = async_retry_strategy
        self.output_mode = output_mode
