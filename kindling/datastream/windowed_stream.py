"""WindowedStream and AllWindowedStream, as in ``pyflink.datastream.data_stream``.

``KeyedStream.window(assigner)`` returns a :class:`WindowedStream`; ``DataStream.window_all``
an :class:`AllWindowedStream` (all elements under one key). Configure the trigger, the allowed
lateness and the late-data side output, then evaluate the windows with ``reduce``,
``aggregate``, ``apply`` or ``process``::

    late = OutputTag("late", Types.TUPLE([Types.STRING(), Types.INT()]))
    sums = (stream.key_by(lambda e: e[0])
                  .window(TumblingEventTimeWindows.of(Time.seconds(5)))
                  .allowed_lateness(1000)
                  .side_output_late_data(late)
                  .reduce(lambda a, b: (a[0], a[1] + b[1])))
    late_stream = sums.get_side_output(late)

Each windowed operation becomes one keyed graph node holding a
:class:`~kindling.graph.specs.WindowSpec`; the Spark compiler runs it with the runtime's
``WindowOperator``.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Union

from kindling.common.time import to_millis
from kindling.common.typeinfo import TypeInformation, Types
from kindling.datastream.functions import (
    AggregateFunction, AllWindowFunction, KeySelector, ProcessAllWindowFunction,
    ProcessWindowFunction, ReduceFunction, WindowFunction,
)
from kindling.datastream.output_tag import OutputTag
from kindling.datastream.picklable import check_picklable
from kindling.graph.specs import WindowSpec
from kindling.datastream.window import (
    CountSlidingWindowAssigner, CountTumblingWindowAssigner, MergingWindowAssigner,
    SlidingEventTimeWindows, SlidingProcessingTimeWindows, Trigger, TumblingEventTimeWindows,
    TumblingProcessingTimeWindows, WindowAssigner,
)

__all__ = ['WindowedStream', 'AllWindowedStream', 'count_window_assigner', 'time_window_assigner']


def count_window_assigner(size: int, slide: int = 0) -> WindowAssigner:
    """The assigner of ``KeyedStream.count_window(size, slide)`` (as PyFlink: tumbling when
    ``slide`` is 0, else sliding; only full windows fire)."""
    if slide == 0:
        return CountTumblingWindowAssigner(size)
    return CountSlidingWindowAssigner(size, slide)


def time_window_assigner(env, size, slide=None) -> WindowAssigner:
    """The assigner of the legacy ``time_window(size[, slide])``: event-time windows, unless
    the environment's time characteristic is processing time."""
    processing = False
    get_tc = getattr(env, 'get_stream_time_characteristic', None)
    if get_tc is not None:
        try:
            processing = 'processing' in str(get_tc()).lower()
        except Exception:
            processing = False
    if slide is None:
        cls = TumblingProcessingTimeWindows if processing else TumblingEventTimeWindows
        return cls.of(size)
    cls = SlidingProcessingTimeWindows if processing else SlidingEventTimeWindows
    return cls.of(size, slide)


def _check_type_info(type_info: Any, what: str) -> None:
    if type_info is not None and not isinstance(type_info, TypeInformation):
        raise TypeError("%s of a window operation must be a TypeInformation such as Types.INT(), "
                        "got %r" % (what, type_info))


class _ConstantKeySelector(KeySelector):
    """Keys every element by 0: the key of ``window_all``."""

    def get_key(self, value):
        return 0


class _WindowedBase:

    _all = False

    def _init(self, keyed_stream, window_assigner):
        if not isinstance(window_assigner, WindowAssigner):
            if isinstance(window_assigner, type) and issubclass(window_assigner, WindowAssigner):
                raise TypeError("expected a WindowAssigner instance, got the class %s; use e.g. "
                                "%s.of(...)" % (window_assigner.__name__, window_assigner.__name__))
            raise TypeError("expected a WindowAssigner such as TumblingEventTimeWindows.of(...), "
                            "got %r" % (window_assigner,))
        if not callable(getattr(keyed_stream, '_keyed', None)):
            raise TypeError("a windowed stream needs a KeyedStream, got %r" % (keyed_stream,))
        self._keyed_stream = keyed_stream
        self._window_assigner = window_assigner
        self._allowed_lateness = 0
        self._late_data_output_tag: Optional[OutputTag] = None
        self._window_trigger: Optional[Trigger] = None

    def get_execution_environment(self):
        return self._keyed_stream.get_execution_environment()

    def get_input_type(self):
        return self._keyed_stream.get_type()

    def _set_trigger(self, trigger):
        if not isinstance(trigger, Trigger):
            raise TypeError("trigger() expects a Trigger such as CountTrigger.of(10), got %r"
                            % (trigger,))
        self._window_trigger = trigger

    def _set_allowed_lateness(self, time_ms):
        try:
            millis = to_millis(time_ms)
        except TypeError:
            raise TypeError("allowed_lateness expects int milliseconds (or a Time/Duration), "
                            "got %r" % (time_ms,)) from None
        if millis < 0:
            raise ValueError("The allowed lateness cannot be negative, got %d" % millis)
        self._allowed_lateness = millis

    def _set_late_tag(self, output_tag):
        if not isinstance(output_tag, OutputTag):
            raise TypeError("side_output_late_data expects an OutputTag, got %r" % (output_tag,))
        self._late_data_output_tag = output_tag

    # -- building ---------------------------------------------------------------------------

    def _window_function(self, window_function, operation: str):
        if window_function is None:
            return None
        if self._all:
            ok = (AllWindowFunction, ProcessAllWindowFunction)
            names = "an AllWindowFunction or a ProcessAllWindowFunction"
        else:
            ok = (WindowFunction, ProcessWindowFunction)
            names = "a WindowFunction or a ProcessWindowFunction"
        if isinstance(window_function, type):
            raise TypeError("%s expects %s instance, got the class %s; instantiate it"
                            % (operation, names, window_function.__name__))
        if not isinstance(window_function, ok):
            raise TypeError("the window_function of %s should be %s, got %r"
                            % (operation, names, window_function))
        check_picklable(window_function, "window function", "Window")
        return window_function

    def _build(self, contents: str, function, window_function, output_type):
        assigner = self._window_assigner
        trigger = self._window_trigger
        if trigger is None:
            trigger = assigner.get_default_trigger(self.get_execution_environment())
        check_picklable(assigner, "window assigner", "Window")
        check_picklable(trigger, "trigger", "Window")
        spec = WindowSpec(
            assigner=assigner, trigger=trigger, contents=contents, function=function,
            window_function=window_function, allowed_lateness=self._allowed_lateness,
            late_data_tag=(self._late_data_output_tag.tag_id
                           if self._late_data_output_tag is not None else None),
            all_windows=self._all)
        name = type(assigner).__name__
        return self._keyed_stream._keyed("window", name, output_type, window=spec)

    def _reduce(self, reduce_function, window_function, output_type):
        if isinstance(reduce_function, type):
            raise TypeError("reduce expects a ReduceFunction instance or a callable, got the "
                            "class %s; instantiate it" % reduce_function.__name__)
        if not isinstance(reduce_function, ReduceFunction) and not callable(reduce_function):
            raise TypeError("reduce expects a ReduceFunction or a callable (a, b) -> c, got %r"
                            % (reduce_function,))
        _check_type_info(output_type, "output_type")
        wf = self._window_function(window_function, "reduce")
        check_picklable(reduce_function, "reduce function", "Window")
        if wf is None and output_type is None:
            output_type = self._input_type_info()
        return self._build("reduce", reduce_function, wf, output_type)

    def _aggregate(self, aggregate_function, window_function, accumulator_type, output_type):
        if not isinstance(aggregate_function, AggregateFunction):
            raise TypeError("aggregate expects an AggregateFunction, got %r" % (aggregate_function,))
        if isinstance(accumulator_type, list):
            accumulator_type = Types.ROW(accumulator_type)
        _check_type_info(accumulator_type, "accumulator_type")
        _check_type_info(output_type, "output_type")
        wf = self._window_function(window_function, "aggregate")
        check_picklable(aggregate_function, "aggregate function", "Window")
        return self._build("aggregate", aggregate_function, wf, output_type)

    def _apply_or_process(self, window_function, output_type, operation: str, process: bool):
        _check_type_info(output_type, "output_type")
        if window_function is None:
            raise TypeError("%s needs a window function" % operation)
        if self._all:
            cls = ProcessAllWindowFunction if process else AllWindowFunction
        else:
            cls = ProcessWindowFunction if process else WindowFunction
        method = 'process' if process else 'apply'
        if isinstance(window_function, type):
            raise TypeError("%s expects a %s instance, got the class %s; instantiate it"
                            % (operation, cls.__name__, window_function.__name__))
        if not isinstance(window_function, cls) and not callable(getattr(window_function, method, None)) \
                and (process or not callable(window_function)):
            raise TypeError("%s expects a %s, got %r" % (operation, cls.__name__, window_function))
        check_picklable(window_function, "window function", "Window")
        return self._build("list", None, window_function, output_type)

    def _input_type_info(self):
        t = getattr(getattr(self._keyed_stream, '_transformation', None), 'type_info', None)
        return t


class WindowedStream(_WindowedBase):
    """A keyed stream split into windows by a :class:`WindowAssigner`, per key.

    :param keyed_stream: the KeyedStream.
    :param window_assigner: the WindowAssigner.
    """

    def __init__(self, keyed_stream, window_assigner: WindowAssigner):
        self._init(keyed_stream, window_assigner)

    def trigger(self, trigger: Trigger) -> 'WindowedStream':
        """Sets the Trigger that decides when windows are evaluated."""
        self._set_trigger(trigger)
        return self

    def allowed_lateness(self, time_ms: int) -> 'WindowedStream':
        """Keeps event-time windows for ``time_ms`` after their end: late elements within that
        time update the window and fire it again. Default 0."""
        self._set_allowed_lateness(time_ms)
        return self

    def side_output_late_data(self, output_tag: OutputTag) -> 'WindowedStream':
        """Sends elements later than the allowed lateness to the side output ``output_tag``
        (read it with ``get_side_output`` on the result) instead of dropping them."""
        self._set_late_tag(output_tag)
        return self

    def reduce(self, reduce_function: Union[Callable, ReduceFunction],
               window_function: Union[WindowFunction, ProcessWindowFunction] = None,
               output_type: TypeInformation = None):
        """Reduces each window incrementally (one value per window is kept); with a
        ``window_function`` the reduced value is handed to it as the only element."""
        return self._reduce(reduce_function, window_function, output_type)

    def aggregate(self, aggregate_function: AggregateFunction,
                  window_function: Union[WindowFunction, ProcessWindowFunction] = None,
                  accumulator_type: TypeInformation = None,
                  output_type: TypeInformation = None):
        """Aggregates each window incrementally with an AggregateFunction (one accumulator per
        window); with a ``window_function`` the result is handed to it as the only element."""
        return self._aggregate(aggregate_function, window_function, accumulator_type, output_type)

    def apply(self, window_function: WindowFunction, output_type: TypeInformation = None):
        """Evaluates each window with ``window_function.apply(key, window, elements)`` (the
        elements are kept until the window fires)."""
        return self._apply_or_process(window_function, output_type, "apply", False)

    def process(self, process_window_function: ProcessWindowFunction,
                output_type: TypeInformation = None):
        """Evaluates each window with ``process(key, context, elements)``."""
        return self._apply_or_process(process_window_function, output_type, "process", True)


class AllWindowedStream(_WindowedBase):
    """A (non-keyed) stream split into windows: all elements go to one key, so one task
    evaluates every window (as in Flink, where ``window_all`` runs with parallelism 1).

    :param data_stream: the DataStream.
    :param window_assigner: the WindowAssigner.
    """

    _all = True

    def __init__(self, data_stream, window_assigner: WindowAssigner):
        if not callable(getattr(data_stream, 'key_by', None)):
            raise TypeError("window_all needs a DataStream, got %r" % (data_stream,))
        self._init(data_stream.key_by(_ConstantKeySelector(), Types.INT()), window_assigner)

    def trigger(self, trigger: Trigger) -> 'AllWindowedStream':
        """Sets the Trigger; a merging assigner (sessions) needs one whose ``can_merge()`` is
        True."""
        if isinstance(self._window_assigner, MergingWindowAssigner) and isinstance(trigger, Trigger) \
                and trigger.can_merge() is not True:
            raise TypeError("A merging window assigner cannot be used with a trigger that does "
                            "not support merging.")
        self._set_trigger(trigger)
        return self

    def allowed_lateness(self, time_ms: int) -> 'AllWindowedStream':
        self._set_allowed_lateness(time_ms)
        return self

    def side_output_late_data(self, output_tag: OutputTag) -> 'AllWindowedStream':
        self._set_late_tag(output_tag)
        return self

    def reduce(self, reduce_function: Union[Callable, ReduceFunction],
               window_function: Union[AllWindowFunction, ProcessAllWindowFunction] = None,
               output_type: TypeInformation = None):
        return self._reduce(reduce_function, window_function, output_type)

    def aggregate(self, aggregate_function: AggregateFunction,
                  window_function: Union[AllWindowFunction, ProcessAllWindowFunction] = None,
                  accumulator_type: TypeInformation = None,
                  output_type: TypeInformation = None):
        return self._aggregate(aggregate_function, window_function, accumulator_type, output_type)

    def apply(self, window_function: AllWindowFunction, output_type: TypeInformation = None):
        """Evaluates each window with ``window_function.apply(window, elements)``."""
        return self._apply_or_process(window_function, output_type, "apply", False)

    def process(self, process_window_function: ProcessAllWindowFunction,
                output_type: TypeInformation = None):
        """Evaluates each window with ``process(context, elements)``."""
        return self._apply_or_process(process_window_function, output_type, "process", True)
