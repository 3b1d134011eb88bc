"""Keyed operators: the one runtime operator kind behind everything after ``key_by``.

A :class:`KeyedOperator` is built on the driver, pickled (cloudpickle) to the workers, opened
once per worker process, and then called once per key per micro-batch with that key's
:class:`~kindling.runtime.key_state.KeyState` and its new elements. It never touches Spark.

Outputs are ``(tag_id, value, timestamp)`` triples: ``tag_id`` is None for the main output,
else the ``OutputTag.tag_id`` of a side output. A user function emits to a side output with
``ctx.output(tag, value)`` or, as in PyFlink, by yielding an ``(OutputTag, value)`` pair; see
:func:`append_results` for when such a pair is a side output.

The methods returning outputs are generators: they do their work as they are iterated, and
outputs come out as soon as each element or timer produced them. Exhaust the iterator before
writing the KeyState back; serialize each output as it comes (a later element may mutate an
object that an earlier output still refers to, e.g. a reduce function updating its value in
place).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Iterable, Iterator, Optional, Tuple

from kindling.datastream.functions import KeyedProcessFunction, TimerService
from kindling.datastream.output_tag import OutputTag
from kindling.datastream.time_domain import TimeDomain
from kindling.runtime.chain import is_side_output
from kindling.runtime.errors import failed_on, user_function_failure
from kindling.runtime.key_state import KeyState
from kindling.runtime.keyed_runtime_context import KeyedRuntimeContext
from kindling.runtime.keyed_state import KeyedStateRegistry
from kindling.runtime.task_info import MAX_WATERMARK, MIN_WATERMARK, TaskInfo

Output = Tuple[Optional[str], object, Optional[int]]
Element = Tuple[object, Optional[int], Optional[int]]

_EVENT_TIME = TimeDomain.EVENT_TIME
_PROCESSING_TIME = TimeDomain.PROCESSING_TIME
_INFINITY = float('inf')


class KeyedOperator(ABC):
    """Flink semantics for one keyed operator; see the module docstring for the conventions.

    Watermarks and times are epoch-ms ints; ``MIN_WATERMARK``/``MAX_WATERMARK`` stand for
    Flink's Long.MIN_VALUE/Long.MAX_VALUE.
    """

    name: str = "KeyedOperator"
    #: whether the job reads a side output of this operator (``get_side_output``): only then is a
    #: yielded ``(OutputTag, value)`` pair a side output (see :func:`append_results`)
    has_side_output: bool = True
    #: the operator's KeyedStateRegistry once opened (for inspection by the test harness)
    state_registry: Optional[KeyedStateRegistry] = None

    @abstractmethod
    def open(self, task_info: TaskInfo) -> None:
        """Once per worker process per operator instance; calls the user's ``open``."""

    @abstractmethod
    def process(self, key, state: KeyState, elements: Iterable[Element], watermark_before: int,
                watermark_after: int, processing_time: int) -> Iterator[Output]:
        """Processes the new elements ``(value, timestamp, stamp)`` of one key, in arrival order.

        Before each element the watermark becomes ``max(current, stamp)`` and due event-time
        timers fire; elements without stamp see the current watermark (initially
        ``watermark_before``). Afterwards the watermark advances to ``watermark_after`` (due
        event-time timers fire), then processing-time timers ``<= processing_time`` fire.
        """

    @abstractmethod
    def on_timers(self, key, state: KeyState, watermark: int, processing_time: int) -> Iterator[Output]:
        """No new elements: fires event-time timers ``<= watermark`` and processing-time timers
        ``<= processing_time`` (a Spark timer expired or the watermark moved)."""

    @abstractmethod
    def end_of_input(self, key, state: KeyState, processing_time: int) -> Iterator[Output]:
        """Bounded input ended: the watermark becomes MAX_WATERMARK and every event-time timer
        fires (also those registered while firing), then processing-time timers
        ``<= processing_time``; later processing-time timers never fire (as in Flink)."""

    def close(self) -> None:
        """Once per worker process at the end; calls the user's ``close``."""

    def fire_timers(self, key, state: KeyState, watermark: int, processing_time: int,
                    event_up_to: Optional[int], processing_up_to: Optional[int]) -> Iterator[Output]:
        """Fires event-time timers ``<= event_up_to`` (with the current watermark being
        ``watermark``), then processing-time timers ``<= processing_up_to``; None skips a
        domain. Used by the test harness to fire the timers of all keys in timestamp order.
        The default delegates to :meth:`on_timers`."""
        return self.on_timers(key, state, watermark, processing_time)

    def process_key_batch(self, key, state: KeyState, elements: Iterable, processing_time: int) -> Iterator[Output]:
        """BATCH execution of one key: ``elements`` ``(value, timestamp, ...)`` come sorted by
        timestamp; the watermark stays MIN_WATERMARK while they are processed, then every
        timer fires at the end of the key. The default uses :meth:`process` and
        :meth:`end_of_input`; :class:`KeyedProcessOperator` does it exactly as Flink."""
        yield from self.process(key, state, ((e[0], e[1], None) for e in elements),
                                MIN_WATERMARK, MIN_WATERMARK, MIN_WATERMARK)
        # MAX_WATERMARK as processing time: every processing-time timer fires
        yield from self.end_of_input(key, state, MAX_WATERMARK)


class _FiringOperator(KeyedOperator):
    """The driver of the runtime's keyed operators (keyed process functions and windows):
    :meth:`process`, :meth:`fire_timers` and :meth:`process_key_batch` run the steps a
    subclass implements:

    * ``_bind(key, state, processing_time, out)``: makes the key current, outputs go to ``out``;
    * ``_process_element(value, timestamp)``: one element, at the current watermark ``_wm``;
    * ``_fire_timers(event, up_to)``: fires the key's event-time (``event``) or
      processing-time timers ``<= up_to`` in order;
    * ``_finish(state)``: writes the key back.

    Timers registered while ``_quiesced`` (BATCH's final firing) are ignored.
    """

    _wm: int = MIN_WATERMARK
    _quiesced: bool = False
    _opened: bool = False

    def _setup(self) -> None:
        """Derives the operator's per-process objects (contexts, callables) in :meth:`open`."""

    def _user_functions(self) -> tuple:
        """The user's functions whose ``open``/``close`` the operator calls."""
        return ()

    def open(self, task_info: TaskInfo = None) -> None:
        if task_info is None:
            task_info = TaskInfo(self.name)
        registry = KeyedStateRegistry()
        self._registry = self.state_registry = registry
        self._runtime_context = KeyedRuntimeContext(task_info, registry)
        self._out = []
        self._ks = None
        self._key = None
        self._wm = MIN_WATERMARK
        self._pt = 0
        self._quiesced = False
        self._setup()
        self._opened = True
        try:
            for f in self._user_functions():
                user_open = getattr(f, 'open', None)
                if user_open is not None and not isinstance(f, type):
                    user_open(self._runtime_context)
        except Exception as e:
            raise user_function_failure(self.name, e) from e

    def close(self) -> None:
        if not self._opened:
            return
        self._opened = False
        try:
            for f in self._user_functions():
                user_close = getattr(f, 'close', None)
                if user_close is not None and not isinstance(f, type):
                    user_close()
        except Exception as e:
            raise user_function_failure(self.name, e) from e
        finally:
            self._unbind()

    def _unbind(self) -> None:
        """After close: state objects the user kept no longer reach any key."""
        self._registry.unbind()

    @property
    def runtime_context(self) -> KeyedRuntimeContext:
        return self._runtime_context

    def on_timers(self, key, state, watermark, processing_time):
        return self.fire_timers(key, state, watermark, processing_time, watermark, processing_time)

    def end_of_input(self, key, state, processing_time):
        return self.fire_timers(key, state, MAX_WATERMARK, processing_time, MAX_WATERMARK, processing_time)

    def _bind(self, key, state: KeyState, processing_time, out: list) -> None:
        """Makes ``key`` (with its KeyState ``state``) current; outputs go to ``out``."""
        if not self._opened:
            self.open(TaskInfo(self.name))
        self._key = key
        self._ks = state
        self._pt = processing_time
        self._out = out
        reg = self._registry
        reg.now = processing_time
        reg.bind(state)

    def set_processing_time(self, processing_time: int) -> None:
        """The processing time of what the operator does next for the bound key (a one-step job
        replays each element at the time it was read: kindling/spark/one_step.py)."""
        self._pt = processing_time
        self._registry.now = processing_time

    def _drain(self, key, state, processing_time, out):
        """Hands the outputs so far to the caller; rebinds the key when the caller used this
        operator for another key meanwhile."""
        wm = self._wm
        yield from out
        out.clear()
        if self._ks is not state:
            self._bind(key, state, processing_time, out)
            self._wm = wm

    def _element_loop(self, key, state, elements, processing_time, out):
        """Processes ``elements`` ``(value, timestamp, stamp)`` in order: before each, the
        watermark rises to its stamp and due event-time timers fire."""
        handle = self._process_element
        fire = self._fire_timers
        wm = self._wm
        for value, ts, stamp in elements:
            if stamp is not None and stamp > wm:
                wm = self._wm = stamp
                if wm > state.fired_watermark:
                    fire(True, wm)
            try:
                handle(value, ts)
            except Exception as e:
                failed_on(e, value)
                raise
            if out:
                yield from out
                out.clear()
                if self._ks is not state:
                    self._bind(key, state, processing_time, out)
                    self._wm = wm

    def process(self, key, state, elements, watermark_before, watermark_after, processing_time):
        out = []
        try:
            self._bind(key, state, processing_time, out)
            self._wm = watermark_before
            if watermark_before > state.fired_watermark:
                self._fire_timers(True, watermark_before)
            if out:
                yield from self._drain(key, state, processing_time, out)
            yield from self._element_loop(key, state, elements, processing_time, out)
            if watermark_after > self._wm:
                self._wm = watermark_after
            if self._wm > state.fired_watermark:
                self._fire_timers(True, self._wm)
            if state._pt:
                self._fire_timers(False, processing_time)
            self._finish(state)
        except Exception as e:
            raise user_function_failure(self.name, e) from e
        if out:
            yield from out

    def fire_timers(self, key, state, watermark, processing_time, event_up_to, processing_up_to):
        out = []
        try:
            self._bind(key, state, processing_time, out)
            self._wm = watermark
            if event_up_to is not None:
                self._fire_timers(True, event_up_to)
            if processing_up_to is not None and state._pt:
                self._fire_timers(False, processing_up_to)
            self._finish(state)
        except Exception as e:
            raise user_function_failure(self.name, e) from e
        yield from out

    def process_key_batch(self, key, state, elements, processing_time):
        """As Flink's BATCH mode (BatchExecutionInternalTimeService): watermark MIN while the
        key's elements (sorted by timestamp) are processed, so none is late; at the end of the
        key the watermark becomes MAX, all event-time timers fire in timestamp order, then ALL
        processing-time timers fire in timestamp order; timers registered during this
        end-of-key firing are ignored."""
        out = []
        try:
            self._bind(key, state, processing_time, out)
            self._wm = MIN_WATERMARK
            yield from self._element_loop(key, state, ((e[0], e[1], None) for e in elements),
                                          processing_time, out)
            self._quiesced = True
            self._wm = MAX_WATERMARK
            try:
                self._fire_timers(True, MAX_WATERMARK)
                self._fire_timers(False, _INFINITY)
            finally:
                self._quiesced = False
            self._finish(state)
        except Exception as e:
            raise user_function_failure(self.name, e) from e
        yield from out


# ---------------------------------------------------------------------------------------------


class _TimerServiceImpl(TimerService):

    def __init__(self, op: 'KeyedProcessOperator'):
        self._op = op

    def current_processing_time(self) -> int:
        return self._op._pt

    def current_watermark(self) -> int:
        return self._op._wm

    def register_event_time_timer(self, timestamp: int) -> None:
        op = self._op
        if not op._quiesced:
            op._ks.register_event_timer(timestamp)

    def register_processing_time_timer(self, timestamp: int) -> None:
        op = self._op
        if not op._quiesced:
            op._ks.register_processing_timer(timestamp)

    def delete_event_time_timer(self, timestamp: int) -> None:
        self._op._ks.delete_event_timer(timestamp)

    def delete_processing_time_timer(self, timestamp: int) -> None:
        self._op._ks.delete_processing_timer(timestamp)


class OutputContext:
    """``ctx.output(tag, value)`` of a keyed operator's contexts (which hold ``_op`` and
    ``_ts``): a side output stamped with the context's timestamp."""

    def output(self, output_tag: OutputTag, value) -> None:
        if not isinstance(output_tag, OutputTag):
            raise TypeError("output() expects an OutputTag, got %r" % (output_tag,))
        self._op._out.append((output_tag.tag_id, value, self._ts))


class _Context(OutputContext, KeyedProcessFunction.Context):

    def __init__(self, op: 'KeyedProcessOperator', timer_service: TimerService):
        self._op = op
        self._timer_service = timer_service
        self._ts = None
        self._key = None

    def timestamp(self):
        return self._ts

    def timer_service(self) -> TimerService:
        return self._timer_service

    def get_current_key(self):
        return self._key


class _OnTimerContext(_Context, KeyedProcessFunction.OnTimerContext):

    def __init__(self, op, timer_service):
        super().__init__(op, timer_service)
        self._domain = _EVENT_TIME

    def time_domain(self) -> TimeDomain:
        return self._domain


def _not_iterable(what: str, res) -> TypeError:
    return TypeError("%s must yield its outputs or return an iterable (or None), got %r"
                     % (what, res))


def append_results(res, ts, append, has_side_output: bool, what: str) -> None:
    """Appends what a user function returned or yielded (``res``, not None) as outputs
    stamped ``ts``.

    As in PyFlink, a yielded ``(OutputTag, value)`` pair goes to that tag's side output when the
    operator has side outputs (``has_side_output``); otherwise it is an ordinary element of the
    main output, pair and all.
    """
    try:
        it = iter(res)
    except TypeError:
        raise _not_iterable(what, res) from None
    if has_side_output:
        for r in it:
            if is_side_output(r):
                append((r[0].tag_id, r[1], ts))
            else:
                append((None, r, ts))
    else:
        for r in it:
            append((None, r, ts))


class KeyedProcessOperator(_FiringOperator):
    """Runs a :class:`KeyedProcessFunction` (or any object with ``process_element(value, ctx)``
    and optionally ``on_timer(timestamp, ctx)``, ``open(runtime_context)``, ``close()``).

    Results of ``process_element``/``on_timer`` may be yielded, returned as an iterable, or
    None; ``ctx.output(tag, value)`` goes to a side output, and so does a yielded
    ``(OutputTag, value)`` pair when the operator has side outputs (:func:`append_results`).
    Outputs of ``process_element`` carry the element's timestamp, outputs of
    ``on_timer`` the timer's timestamp (both time domains, as in PyFlink).
    """

    _RUNTIME_ATTRS = ('_registry', 'state_registry', '_runtime_context', '_timer_service', '_ctx',
                      '_tctx', '_out', '_ks', '_key', '_wm', '_pt', '_quiesced', '_pe', '_ot')

    def __init__(self, function, name: str = "KeyedProcess"):
        if not callable(getattr(function, 'process_element', None)):
            raise TypeError("a keyed process operator needs an object with process_element(value, "
                            "ctx), got %r" % (function,))
        self.function = function
        self.name = name
        self._opened = False

    def __getstate__(self):
        d = {k: v for k, v in self.__dict__.items() if k not in self._RUNTIME_ATTRS}
        d['_opened'] = False
        return d

    def __setstate__(self, d):
        self.__dict__.update(d)

    # -- lifecycle --------------------------------------------------------------------------

    def _setup(self) -> None:
        self._timer_service = _TimerServiceImpl(self)
        self._ctx = _Context(self, self._timer_service)
        self._tctx = _OnTimerContext(self, self._timer_service)
        self._pe = self.function.process_element
        self._ot = getattr(self.function, 'on_timer', None)

    def _user_functions(self) -> tuple:
        return (self.function,)

    def take_late_records_dropped(self) -> int:
        """The late elements the function dropped since the last call, when it counts them (the Table
        API's event-time operators do, as Flink's count ``numLateRecordsDropped``)."""
        take = getattr(self.function, "take_late_records_dropped", None)
        return take() if take is not None else 0

    # -- the steps of the driver (_FiringOperator) ----------------------------------------

    def _bind(self, key, state: KeyState, processing_time, out: list) -> None:
        super()._bind(key, state, processing_time, out)
        self._ctx._key = key
        self._tctx._key = key

    def _finish(self, state: KeyState) -> None:
        self._registry.write_back(state)

    def _process_element(self, value, ts) -> None:
        ctx = self._ctx
        ctx._ts = ts
        res = self._pe(value, ctx)
        if res is not None:
            append_results(res, ts, self._out.append, self.has_side_output, "process_element")

    def _emit(self, res, ts) -> None:
        append_results(res, ts, self._out.append, self.has_side_output, "on_timer")

    def _fire_timers(self, event: bool, up_to) -> None:
        """Fires the event-time (``event``) or processing-time timers ``<= up_to``."""
        state = self._ks
        tctx = self._tctx
        ot = self._ot
        if event:
            pop = state.pop_event_timer
            domain = _EVENT_TIME
        else:
            pop = state.pop_processing_timer
            domain = _PROCESSING_TIME
        while True:
            t = pop(up_to)
            if t is None:
                break
            if ot is None:
                continue
            tctx._domain = domain
            tctx._ts = t
            res = ot(t, tctx)
            if res is not None:
                self._emit(res, t)
        if event and up_to > state.fired_watermark:
            state.fired_watermark = up_to
