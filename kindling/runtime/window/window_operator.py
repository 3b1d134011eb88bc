"""Flink's WindowOperator as a :class:`~kindling.runtime.keyed_operator.KeyedOperator`.

One operator kind runs every window of the DataStream API: any WindowAssigner (merging ones
included), any Trigger (user triggers with window-scoped state and timers included), and the
window functions of ``WindowedStream``/``AllWindowedStream`` (reduce, aggregate, apply,
process, incremental aggregation combined with a window function).

Semantics follow PyFlink 2.3's window operator (fn_execution/datastream/window) and Flink's
WindowOperator:

* an element goes to the windows the assigner gives it; a window is *late* when its cleanup
  time (``max_timestamp + allowed_lateness`` for event time) is ``<=`` the watermark; an
  element all of whose windows are late, and whose ``timestamp + allowed_lateness`` is
  ``<=`` the watermark, goes to the late-data side output, or is dropped and counted in
  :attr:`WindowOperator.num_late_records_dropped`;
* the trigger decides FIRE / PURGE on each element and timer; a window without contents never
  fires; every window gets a cleanup timer (event time: ``max_timestamp + lateness``;
  processing time: ``max_timestamp``) that clears its contents, trigger state and
  per-window state and calls ``ProcessWindowFunction.clear``;
* merging assigners (sessions) keep a merging window set; merged windows merge their contents
  and (through ``on_merge``/``merge_partitioned_state``) their trigger state;
* outputs of a firing carry the timestamp of what caused it, as PyFlink: the timer's
  timestamp (``window.max_timestamp()`` for EventTimeTrigger/ProcessingTimeTrigger), or the
  element's timestamp when the trigger fired on an element (late firings, count triggers).

Layout in the key's :class:`~kindling.runtime.key_state.KeyState` (nothing else is written):

* ``states[CONTENTS]``: window -> contents (reduce: the reduced value; aggregate: the
  accumulator; apply/process: the list of elements). Incremental functions keep one value per
  window, never the elements.
* ``states[WINDOW_STATE]``: window -> {state name: value}: trigger partitioned state and
  ``ProcessWindowFunction`` window state.
* ``states[EVENT_TIMERS]`` / ``states[PROCESSING_TIMERS]``: timestamp -> {window: None}; each
  timestamp is also a KeyState timer, so the Spark adapter registers one Spark timer per key at
  the earliest one.
* ``states[MERGING_WINDOWS]``: the merging window set (window -> state window).
* user global state (``ProcessWindowFunction.Context.global_state()``, count assigners) under
  its own names.

The common case (tumbling or sliding event-time windows with the default EventTimeTrigger)
runs on a fast path: contents keyed by the window start (an int), the KeyState timers alone
(one per window end, plus one per cleanup time when lateness is set), no trigger calls. Its
results are those of the general path.
"""
from __future__ import annotations

from typing import Any, Optional

from kindling.datastream.functions import (
    AllWindowFunction, ProcessAllWindowFunction, ProcessWindowFunction,
    ReduceFunction, WindowFunction,
)
from kindling.datastream.output_tag import OutputTag
from kindling.datastream.state import (
    AggregatingStateDescriptor, ListStateDescriptor, MapStateDescriptor, ReducingStateDescriptor,
    StateDescriptor, ValueStateDescriptor,
)
from kindling.datastream.window import (
    CountSlidingWindowAssigner, CountTrigger, CountTumblingWindowAssigner,
    DynamicEventTimeSessionWindows, DynamicProcessingTimeSessionWindows, EventTimeSessionWindows,
    EventTimeTrigger, MergingWindowAssigner, ProcessingTimeSessionWindows, SlidingEventTimeWindows, TimeWindow, Trigger, TriggerResult,
    TumblingEventTimeWindows, WindowAssigner,
)
from kindling.runtime.errors import user_function_failure
from kindling.runtime.keyed_operator import OutputContext, _FiringOperator, append_results
from kindling.runtime.keyed_runtime_context import KeyedRuntimeContext
from kindling.runtime.keyed_state import KeyedStateRegistry
from kindling.runtime.task_info import MAX_WATERMARK, MIN_WATERMARK, TaskInfo

__all__ = ['WindowOperator', 'CONTENTS_REDUCE', 'CONTENTS_AGGREGATE', 'CONTENTS_LIST',
           'CONTENTS', 'WINDOW_STATE', 'EVENT_TIMERS', 'PROCESSING_TIMERS', 'MERGING_WINDOWS']

CONTENTS_REDUCE = 'reduce'
CONTENTS_AGGREGATE = 'aggregate'
CONTENTS_LIST = 'list'

# reserved names in KeyState.states
CONTENTS = "\x00window-contents"
WINDOW_STATE = "\x00window-state"
EVENT_TIMERS = "\x00window-event-timers"
PROCESSING_TIMERS = "\x00window-processing-timers"
MERGING_WINDOWS = "\x00merging-window-set"
_RESERVED = (CONTENTS, WINDOW_STATE, EVENT_TIMERS, PROCESSING_TIMERS, MERGING_WINDOWS)

_MISSING = object()
_INFINITY = float('inf')
_FIRE = TriggerResult.FIRE
_CONTINUE = TriggerResult.CONTINUE

# window-function modes
_WF_NONE = 0      # emit the (single) value itself
_WF_APPLY = 1     # apply(key, window, inputs) / apply(window, inputs)
_WF_PROCESS = 2   # process(key, ctx, inputs) / process(ctx, inputs)


def _state_kind(descriptor) -> str:
    if isinstance(descriptor, ValueStateDescriptor):
        return 'value'
    if isinstance(descriptor, ListStateDescriptor):
        return 'list'
    if isinstance(descriptor, MapStateDescriptor):
        return 'map'
    if isinstance(descriptor, ReducingStateDescriptor):
        return 'reducing'
    if isinstance(descriptor, AggregatingStateDescriptor):
        return 'aggregating'
    raise TypeError("expected a StateDescriptor (ValueStateDescriptor, ListStateDescriptor, "
                    "MapStateDescriptor, ReducingStateDescriptor or AggregatingStateDescriptor), "
                    "got %r" % (descriptor,))


class _Scope:
    """Stands for a KeyState for KeyedStateRegistry.bind: the states of one window."""
    __slots__ = ('states',)

    def __init__(self):
        self.states = None


# ------------------------------------------------------------------------------- contexts

class _TriggerContext(Trigger.OnMergeContext):

    __slots__ = ('_op', 'window', 'merged_windows')

    def __init__(self, op: 'WindowOperator'):
        self._op = op
        self.window = None
        self.merged_windows = None

    def get_current_processing_time(self) -> int:
        return self._op._pt

    def get_current_watermark(self) -> int:
        return self._op._wm

    def register_processing_time_timer(self, time: int) -> None:
        self._op._register_timer(False, self.window, time)

    def register_event_time_timer(self, time: int) -> None:
        self._op._register_timer(True, self.window, time)

    def delete_processing_time_timer(self, time: int) -> None:
        self._op._delete_timer(False, self.window, time)

    def delete_event_time_timer(self, time: int) -> None:
        self._op._delete_timer(True, self.window, time)

    def get_partitioned_state(self, state_descriptor: StateDescriptor):
        op = self._op
        op._bind_window(self.window)
        return op._wreg.get(state_descriptor, _state_kind(state_descriptor))

    def merge_partitioned_state(self, state_descriptor: StateDescriptor) -> None:
        if self.merged_windows:
            self._op._merge_window_state(state_descriptor, self.window, self.merged_windows)


class _WindowStateStore:
    """``ProcessWindowFunction.Context.window_state()``: states of the key and the window."""

    def __init__(self, op: 'WindowOperator'):
        self._op = op
        self.window = None

    def _get(self, descriptor, kind):
        op = self._op
        if op._merging:
            raise TypeError("Per-window state is not allowed when using merging windows.")
        op._bind_window(self.window)
        return op._wreg.get(descriptor, kind)

    def get_state(self, state_descriptor):
        return self._get(state_descriptor, 'value')

    def get_list_state(self, state_descriptor):
        return self._get(state_descriptor, 'list')

    def get_map_state(self, state_descriptor):
        return self._get(state_descriptor, 'map')

    def get_reducing_state(self, state_descriptor):
        return self._get(state_descriptor, 'reducing')

    def get_aggregating_state(self, state_descriptor):
        return self._get(state_descriptor, 'aggregating')


class _ProcessContext(OutputContext, ProcessWindowFunction.Context, ProcessAllWindowFunction.Context):

    def __init__(self, op: 'WindowOperator'):
        self._op = op
        self._window = None
        self._ts = None
        self._store = _WindowStateStore(op)

    def window(self):
        return self._window

    def current_processing_time(self) -> int:
        return self._op._pt

    def current_watermark(self) -> int:
        return self._op._wm

    def window_state(self):
        self._store.window = self._window
        return self._store

    def global_state(self):
        return self._op._runtime_context


class _AssignerContext(WindowAssigner.WindowAssignerContext):

    def __init__(self, op: 'WindowOperator'):
        self._op = op

    def get_current_processing_time(self) -> int:
        return self._op._pt

    def get_runtime_context(self):
        return self._op._runtime_context


class _MergeResults(MergingWindowAssigner.MergeCallback):

    def __init__(self):
        self.results = {}

    def merge(self, to_be_merged, merge_result) -> None:
        self.results[merge_result] = to_be_merged


# ------------------------------------------------------------------------------- operator

class WindowOperator(_FiringOperator):
    """Runs one windowed operation (see the module docstring).

    :param assigner: the WindowAssigner.
    :param trigger: the Trigger (None: the assigner's default trigger).
    :param contents: CONTENTS_REDUCE (``function`` is a ReduceFunction or a callable
        ``(a, b) -> c``), CONTENTS_AGGREGATE (``function`` is an AggregateFunction) or
        CONTENTS_LIST (``function`` is None; the elements are kept for the window function).
    :param window_function: None (emit the reduced/aggregated value), or a WindowFunction /
        ProcessWindowFunction (AllWindowFunction / ProcessAllWindowFunction when
        ``all_windows``), or a callable taking what ``apply`` takes.
    :param allowed_lateness: ms (event-time windows only).
    :param late_data_tag: the OutputTag (or its tag_id) of late elements, or None to drop them.
    :param all_windows: the stream is ``window_all``'s: window functions get no key.
    """

    #: what is pickled: the configuration (everything else is derived in open())
    _CONFIG_ATTRS = ('assigner', 'trigger', 'contents_kind', 'function', 'window_function',
                     'allowed_lateness', 'late_data_tag_id', 'all_windows', 'name',
                     'num_late_records_dropped', '_late_delta', 'has_side_output')

    def __init__(self, assigner: WindowAssigner, trigger: Optional[Trigger] = None,
                 contents: str = CONTENTS_LIST, function: Any = None, window_function: Any = None,
                 allowed_lateness: int = 0, late_data_tag=None, all_windows: bool = False,
                 name: str = "Window"):
        if not isinstance(assigner, WindowAssigner):
            raise TypeError("a window operator needs a WindowAssigner, got %r" % (assigner,))
        if trigger is None:
            trigger = assigner.get_default_trigger(None)
        if not isinstance(trigger, Trigger):
            raise TypeError("a window operator needs a Trigger, got %r" % (trigger,))
        if contents not in (CONTENTS_REDUCE, CONTENTS_AGGREGATE, CONTENTS_LIST):
            raise ValueError("unknown window contents kind %r" % (contents,))
        if contents == CONTENTS_REDUCE and not (isinstance(function, ReduceFunction) or callable(function)):
            raise TypeError("reduce needs a ReduceFunction or a callable, got %r" % (function,))
        if contents == CONTENTS_AGGREGATE and not callable(getattr(function, 'add', None)):
            raise TypeError("aggregate needs an AggregateFunction, got %r" % (function,))
        if contents == CONTENTS_LIST and window_function is None:
            raise TypeError("a window function is needed to evaluate windows holding elements")
        if isinstance(allowed_lateness, bool) or not isinstance(allowed_lateness, int) or allowed_lateness < 0:
            raise ValueError("allowed lateness must be a non-negative int of ms, got %r" % (allowed_lateness,))
        self.assigner = assigner
        self.trigger = trigger
        self.contents_kind = contents
        self.function = function
        self.window_function = window_function
        self.allowed_lateness = allowed_lateness if assigner.is_event_time() else 0
        if isinstance(late_data_tag, OutputTag):
            late_data_tag = late_data_tag.tag_id
        self.late_data_tag_id = late_data_tag
        self.all_windows = all_windows
        self.name = name
        #: late elements dropped (no late-data side output) by this operator instance so far
        self.num_late_records_dropped = 0
        self._late_delta = 0
        self._opened = False

    def __getstate__(self):
        d = {k: self.__dict__[k] for k in self._CONFIG_ATTRS if k in self.__dict__}
        d['_opened'] = False
        return d

    def __setstate__(self, d):
        self.__dict__.update(d)

    def take_late_records_dropped(self) -> int:
        """Late elements dropped since the previous call (for the runner's metrics)."""
        n = self._late_delta
        self._late_delta = 0
        return n

    @property
    def runtime_context(self) -> KeyedRuntimeContext:
        return self._runtime_context

    # -- lifecycle --------------------------------------------------------------------------

    def open(self, task_info: TaskInfo = None) -> None:
        if task_info is None:
            task_info = TaskInfo(self.name)
        registry = KeyedStateRegistry()
        self._registry = self.state_registry = registry
        self._wreg = KeyedStateRegistry()
        self._scope = _Scope()
        self._runtime_context = KeyedRuntimeContext(task_info, registry)
        self._tctx = _TriggerContext(self)
        self._pctx = _ProcessContext(self)
        self._actx = _AssignerContext(self)
        self._out = []
        self._ks = None
        self._key = None
        self._wm = MIN_WATERMARK
        self._pt = 0
        self._quiesced = False
        self._setup()
        self._opened = True
        try:
            for f in (self.function, self.window_function):
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
            for f in (self.function, self.window_function):
                user_close = getattr(f, 'close', None)
                if user_close is not None and not isinstance(f, type):
                    user_close()
        except Exception as e:
            raise user_function_failure(self.name, e) from e
        finally:
            self._registry.unbind()
            self._wreg.unbind()

    def _setup(self) -> None:
        """Derives the per-process callables and flags from the configuration."""
        a = self.assigner
        self._event_time = a.is_event_time()
        self._merging = isinstance(a, MergingWindowAssigner)
        self._time_sessions = type(a) in (EventTimeSessionWindows, ProcessingTimeSessionWindows,
                                          DynamicEventTimeSessionWindows,
                                          DynamicProcessingTimeSessionWindows)
        kind = self.contents_kind
        f = self.function
        if kind == CONTENTS_REDUCE:
            self._reduce = f.reduce if isinstance(f, ReduceFunction) else f
        elif kind == CONTENTS_AGGREGATE:
            self._agg_create = f.create_accumulator
            self._agg_add = f.add
            self._agg_result = f.get_result
        wf = self.window_function
        if wf is None:
            self._wf_mode = _WF_NONE
            self._wf_call = None
        elif isinstance(wf, (ProcessWindowFunction, ProcessAllWindowFunction)) or (
                not isinstance(wf, (WindowFunction, AllWindowFunction))
                and callable(getattr(wf, 'process', None))):
            self._wf_mode = _WF_PROCESS
            self._wf_call = wf.process
        elif callable(getattr(wf, 'apply', None)):
            self._wf_mode = _WF_APPLY
            self._wf_call = wf.apply
        elif callable(wf):
            self._wf_mode = _WF_APPLY
            self._wf_call = wf
        else:
            raise TypeError("a window function needs apply() or process(), got %r" % (wf,))
        self._wf_clear = getattr(wf, 'clear', None) if self._wf_mode == _WF_PROCESS else None
        t = self.trigger
        self._fast = (not self._merging and type(t) is EventTimeTrigger
                      and type(a) in (TumblingEventTimeWindows, SlidingEventTimeWindows))
        if self._fast:
            self._size = a._size
            self._slide = a._size if type(a) is TumblingEventTimeWindows else a._slide
            self._offset = a._offset
        # count windows with their default CountTrigger fire exactly once, at their last
        # element, and never get elements again: drop them after firing (PyFlink keeps them
        # forever) so that state stays bounded.
        self._drop_after_fire = (
            type(t) is CountTrigger
            and type(a) in (CountTumblingWindowAssigner, CountSlidingWindowAssigner)
            and t._window_size == a._window_size)

    # -- per-key binding ----------------------------------------------------------------------

    def _bind(self, key, state, processing_time, out) -> None:
        if not self._opened:
            self.open(TaskInfo(self.name))
        self._key = key
        self._ks = state
        self._pt = processing_time
        self._out = out
        states = state.states
        self._contents = states.get(CONTENTS)
        if self._contents is None:
            self._contents = states[CONTENTS] = {}
        if not self._fast:
            self._etimers = states.get(EVENT_TIMERS)
            if self._etimers is None:
                self._etimers = states[EVENT_TIMERS] = {}
            self._ptimers = states.get(PROCESSING_TIMERS)
            if self._ptimers is None:
                self._ptimers = states[PROCESSING_TIMERS] = {}
            if self._merging:
                self._mapping = states.get(MERGING_WINDOWS)
                if self._mapping is None:
                    self._mapping = states[MERGING_WINDOWS] = {}
        self._wstates = states.get(WINDOW_STATE)
        if self._wstates is None:
            self._wstates = states[WINDOW_STATE] = {}
        reg = self._registry
        reg.now = processing_time
        reg.bind(state)
        self._wreg.now = processing_time

    def _finish(self, state) -> None:
        """After a key's work: drops empty containers so that an empty key is empty."""
        states = state.states
        ws = states.get(WINDOW_STATE)
        if ws:
            empty = [w for w, d in ws.items() if not d]
            for w in empty:
                del ws[w]
        for name in _RESERVED:
            if name in states and not states[name]:
                del states[name]
        self._registry.write_back(state)

    def _bind_window(self, window) -> None:
        ws = self._wstates
        d = ws.get(window)
        if d is None:
            d = ws[window] = {}
        scope = self._scope
        scope.states = d
        self._wreg.bind(scope)

    # -- timers (general path) ----------------------------------------------------------------

    def _register_timer(self, event: bool, window, t) -> None:
        if self._quiesced:
            return
        if type(t) is not int:
            if isinstance(t, bool) or not hasattr(t, '__index__'):
                raise TypeError("a timer timestamp must be an int of epoch milliseconds, got %r" % (t,))
            t = t.__index__()
        idx = self._etimers if event else self._ptimers
        d = idx.get(t)
        if d is None:
            idx[t] = {window: None}
            if event:
                self._ks.register_event_timer(t)
            else:
                self._ks.register_processing_timer(t)
        else:
            d[window] = None

    def _delete_timer(self, event: bool, window, t) -> None:
        idx = self._etimers if event else self._ptimers
        d = idx.get(t)
        if d is not None and window in d:
            del d[window]
            if not d:
                del idx[t]
                if event:
                    self._ks.delete_event_timer(t)
                else:
                    self._ks.delete_processing_timer(t)

    def _cleanup_time(self, window) -> int:
        mts = window.max_timestamp()
        if self._event_time:
            t = mts + self.allowed_lateness
            return t if t < MAX_WATERMARK else MAX_WATERMARK
        return mts

    def _register_cleanup_timer(self, window) -> None:
        t = self._cleanup_time(window)
        if t >= MAX_WATERMARK:
            return
        self._tctx.window = window
        self._register_timer(self._event_time, window, t)

    def _delete_cleanup_timer(self, window) -> None:
        t = self._cleanup_time(window)
        if t >= MAX_WATERMARK:
            return
        self._delete_timer(self._event_time, window, t)

    def _fire_timers(self, event: bool, up_to) -> None:
        ks = self._ks
        pop = ks.pop_event_timer if event else ks.pop_processing_timer
        idx = self._etimers if event else self._ptimers
        on_timer = self._on_timer
        while True:
            t = pop(up_to)
            if t is None:
                break
            d = idx.get(t)
            while d:
                w = next(iter(d))
                del d[w]
                if not d:
                    del idx[t]
                on_timer(event, t, w)
                d = idx.get(t)
        if event and up_to > ks.fired_watermark:
            ks.fired_watermark = up_to

    # -- window contents ----------------------------------------------------------------------

    def _add(self, sw, value) -> None:
        contents = self._contents
        kind = self.contents_kind
        if kind == CONTENTS_REDUCE:
            cur = contents.get(sw, _MISSING)
            contents[sw] = value if cur is _MISSING else self._reduce(cur, value)
        elif kind == CONTENTS_AGGREGATE:
            acc = contents.get(sw, _MISSING)
            if acc is _MISSING:
                acc = self._agg_create()
            contents[sw] = self._agg_add(value, acc)
        else:
            lst = contents.get(sw)
            if lst is None:
                contents[sw] = [value]
            else:
                lst.append(value)

    def _merge_contents(self, target, sources) -> None:
        contents = self._contents
        merged = _MISSING
        kind = self.contents_kind
        for s in sources:
            v = contents.pop(s, _MISSING)
            if v is _MISSING:
                continue
            merged = v if merged is _MISSING else self._merge_two(kind, merged, v)
        if merged is _MISSING:
            return
        cur = contents.get(target, _MISSING)
        contents[target] = merged if cur is _MISSING else self._merge_two(kind, cur, merged)

    def _merge_two(self, kind, a, b):
        if kind == CONTENTS_REDUCE:
            return self._reduce(a, b)
        if kind == CONTENTS_AGGREGATE:
            return self.function.merge(a, b)
        return a + b

    def _merge_window_state(self, descriptor, target, sources) -> None:
        """``OnMergeContext.merge_partitioned_state``: merges the state ``descriptor`` of the
        windows ``sources`` into that of ``target``."""
        kind = _state_kind(descriptor)
        if kind not in ('reducing', 'aggregating', 'list'):
            raise TypeError("The given state descriptor does not refer to a mergeable state "
                            "(MergingState): %r" % (descriptor,))
        ttl = descriptor.get_ttl_config()
        if ttl is not None and ttl.is_enabled():
            raise NotImplementedError("merging window state with a time-to-live is not supported")
        self._bind_window(target)
        self._wreg.get(descriptor, kind)   # registers it, checks the kind
        name = descriptor.name
        if kind == 'reducing':
            f = descriptor.get_reduce_function()
            combine = f.reduce if isinstance(f, ReduceFunction) else f
        elif kind == 'aggregating':
            combine = descriptor.get_agg_function().merge
        else:
            def combine(a, b):
                return a + b
        ws = self._wstates
        merged = _MISSING
        for s in sources:
            d = ws.get(s)
            if not d:
                continue
            v = d.pop(name, _MISSING)
            if v is _MISSING:
                continue
            merged = v if merged is _MISSING else combine(merged, v)
        if merged is _MISSING:
            return
        td = ws.get(target)
        if td is None:
            td = ws[target] = {}
        cur = td.get(name, _MISSING)
        td[name] = merged if cur is _MISSING else combine(cur, merged)

    # -- evaluation ---------------------------------------------------------------------------

    def _emit(self, window, contents, ts) -> None:
        """Evaluates the window function over ``contents`` (a window's stored contents)."""
        kind = self.contents_kind
        if kind == CONTENTS_AGGREGATE:
            value = self._agg_result(contents)
        elif kind == CONTENTS_REDUCE:
            value = contents
        else:
            value = None
        mode = self._wf_mode
        if mode == _WF_NONE:
            self._out.append((None, value, ts))
            return
        inputs = list(contents) if kind == CONTENTS_LIST else [value]
        if mode == _WF_PROCESS:
            pctx = self._pctx
            pctx._window = window
            pctx._ts = ts
            if self.all_windows:
                res = self._wf_call(pctx, inputs)
            else:
                res = self._wf_call(self._key, pctx, inputs)
        elif self.all_windows:
            res = self._wf_call(window, inputs)
        else:
            res = self._wf_call(self._key, window, inputs)
        if res is not None:
            append_results(res, ts, self._out.append, self.has_side_output, "the window function")

    def _clear_function_state(self, window) -> None:
        """``ProcessWindowFunction.clear`` and removal of the window's state scope."""
        if self._wf_clear is not None:
            pctx = self._pctx
            pctx._window = window
            pctx._ts = None
            self._wf_clear(pctx)
        ws = self._wstates
        d = ws.get(window)
        if d is not None and not d:
            del ws[window]

    def _late(self, value, ts) -> None:
        """An element all of whose windows were late."""
        if ts is not None and ts + self.allowed_lateness <= self._wm:
            tag = self.late_data_tag_id
            if tag is not None:
                self._out.append((tag, value, ts))
            else:
                self.num_late_records_dropped += 1
                self._late_delta += 1

    # -- general path ---------------------------------------------------------------------------

    def _process_element(self, value, ts) -> None:
        windows = self.assigner.assign_windows(value, ts, self._actx)
        if self._merging:
            self._process_merging(value, ts, windows)
            return
        skipped = True
        event_time = self._event_time
        tctx = self._tctx
        trigger = self.trigger
        contents = self._contents
        for w in windows:
            if event_time and self._cleanup_time(w) <= self._wm:
                continue
            skipped = False
            self._add(w, value)
            tctx.window = w
            res = trigger.on_element(value, ts, w, tctx)
            if res.value[0]:
                c = contents.get(w, _MISSING)
                if c is not _MISSING and (self.contents_kind != CONTENTS_LIST or c):
                    self._emit(w, c, ts)
                    if self._drop_after_fire:
                        contents.pop(w, None)
                        tctx.window = w
                        trigger.clear(w, tctx)
                        self._clear_function_state_silently(w)
                        continue
            if res.value[1]:
                contents.pop(w, None)
            self._register_cleanup_timer(w)
        if skipped and event_time:
            self._late(value, ts)

    def _clear_function_state_silently(self, window) -> None:
        self._wstates.pop(window, None)

    def _process_merging(self, value, ts, windows) -> None:
        skipped = True
        event_time = self._event_time
        tctx = self._tctx
        trigger = self.trigger
        contents = self._contents
        mapping = self._mapping
        for w in windows:
            actual = self._add_window(w)
            if event_time and self._cleanup_time(actual) <= self._wm:
                mapping.pop(actual, None)
                continue
            skipped = False
            sw = mapping.get(actual)
            if sw is None:
                raise RuntimeError("Window %s is not in in-flight window set." % (actual,))
            self._add(sw, value)
            tctx.window = actual
            tctx.merged_windows = None
            res = trigger.on_element(value, ts, actual, tctx)
            if res.value[0]:
                c = contents.get(sw, _MISSING)
                if c is not _MISSING and (self.contents_kind != CONTENTS_LIST or c):
                    self._emit(actual, c, ts)
            if res.value[1]:
                contents.pop(sw, None)
            self._register_cleanup_timer(actual)
        if skipped and event_time:
            self._late(value, ts)

    def _add_window(self, new_window):
        """MergingWindowSet.add_window: adds ``new_window``, merging as the assigner says;
        returns the window ``new_window`` ended up in."""
        mapping = self._mapping
        cb = _MergeResults()
        if self._time_sessions and type(new_window) is TimeWindow and new_window not in mapping:
            # the built-in session assigners merge overlapping TimeWindows; the windows of the
            # set never overlap each other, so only those overlapping the new one can merge
            # (the same result as TimeWindow.merge_windows over all of them, without sorting
            # every open window)
            ns, ne = new_window.start, new_window.end
            hits = [w for w in mapping if w.start <= ne and w.end >= ns]
            if hits:
                hits.append(new_window)
                hits.sort()
                members = set()
                cover_start, cover_end = hits[0].start, hits[0].end
                for w in hits:
                    members.add(w)
                    if w.end > cover_end:
                        cover_end = w.end
                cb.results[TimeWindow(cover_start, cover_end)] = members
        else:
            windows = list(mapping)
            windows.append(new_window)
            self.assigner.merge_windows(windows, cb)
        result_window = new_window
        merged_new = False
        for merge_result, merged in cb.results.items():
            if not isinstance(merged, set):
                merged = set(merged)
            if new_window in merged:
                merged_new = True
                merged.discard(new_window)
                result_window = merge_result
            if not merged:
                continue
            state_window = mapping[next(iter(merged))]
            merged_state_windows = []
            for m in merged:
                sw = mapping.pop(m, None)
                if sw is not None:
                    merged_state_windows.append(sw)
            mapping[merge_result] = state_window
            merged_state_windows.remove(state_window)
            if merge_result not in merged or len(merged) != 1:
                self._on_merge(merge_result, merged, state_window, merged_state_windows)
        if not cb.results or (result_window == new_window and not merged_new):
            mapping[result_window] = result_window
        return result_window

    def _on_merge(self, merge_result, merged_windows, state_window, merged_state_windows) -> None:
        if self._event_time:
            if merge_result.max_timestamp() + self.allowed_lateness <= self._wm:
                raise ValueError("The end timestamp of an event-time window cannot become earlier "
                                 "than the current watermark by merging. Current watermark: %d "
                                 "window: %s" % (self._wm, merge_result))
        elif merge_result.max_timestamp() <= self._pt:
            raise ValueError("The end timestamp of a processing-time window cannot become earlier "
                             "than the current processing time by merging. Current processing "
                             "time: %d window: %s" % (self._pt, merge_result))
        tctx = self._tctx
        tctx.window = merge_result
        tctx.merged_windows = merged_windows
        try:
            self.trigger.on_merge(merge_result, tctx)
        finally:
            tctx.merged_windows = None
        for m in merged_windows:
            tctx.window = m
            self.trigger.clear(m, tctx)
            self._delete_cleanup_timer(m)
            d = self._wstates.get(m)
            if d is not None and not d:
                del self._wstates[m]
        self._merge_contents(state_window, merged_state_windows)

    def _on_timer(self, event: bool, t, window) -> None:
        if self._fast:
            self._on_fast_timer(t)
            return
        contents = self._contents
        if self._merging:
            sw = self._mapping.get(window)
            if sw is None:
                # a timer of a window that no longer exists (a trigger did not delete it)
                return
        else:
            sw = window
        tctx = self._tctx
        tctx.window = window
        tctx.merged_windows = None
        trigger = self.trigger
        res = (trigger.on_event_time(t, window, tctx) if event
               else trigger.on_processing_time(t, window, tctx))
        if res.value[0]:
            c = contents.get(sw, _MISSING)
            if c is not _MISSING and (self.contents_kind != CONTENTS_LIST or c):
                self._emit(window, c, t)
        if res.value[1]:
            contents.pop(sw, None)
        if event == self._event_time and self._cleanup_time(window) == t:
            contents.pop(sw, None)
            tctx.window = window
            trigger.clear(window, tctx)
            self._clear_function_state(window)
            if self._merging:
                self._mapping.pop(window, None)

    # -- fast path (tumbling/sliding event time + EventTimeTrigger) -----------------------------

    def _fast_element(self, value, ts) -> None:
        if ts is None:
            raise ValueError(_no_timestamp())
        size = self._size
        slide = self._slide
        wm = self._wm
        lateness = self.allowed_lateness
        contents = self._contents
        kind = self.contents_kind
        last_start = ts - (ts - self._offset + slide) % slide
        skipped = True
        start = last_start
        lowest = ts - size
        while start > lowest:
            mts = start + size - 1
            if mts + lateness > wm:
                skipped = False
                cur = contents.get(start, _MISSING)
                if cur is _MISSING:
                    if kind == CONTENTS_REDUCE:
                        contents[start] = value
                    elif kind == CONTENTS_AGGREGATE:
                        contents[start] = self._agg_add(value, self._agg_create())
                    else:
                        contents[start] = [value]
                    if not self._quiesced:
                        ks = self._ks
                        if mts > wm:
                            ks.register_event_timer(mts)
                        if lateness and mts + lateness < MAX_WATERMARK:
                            ks.register_event_timer(mts + lateness)
                elif kind == CONTENTS_REDUCE:
                    contents[start] = self._reduce(cur, value)
                elif kind == CONTENTS_AGGREGATE:
                    contents[start] = self._agg_add(value, cur)
                else:
                    cur.append(value)
                if mts <= wm:
                    # late firing within the allowed lateness
                    self._emit(TimeWindow(start, start + size), contents[start], ts)
            start -= slide
        if skipped:
            self._late(value, ts)

    def _on_fast_timer(self, t) -> None:
        contents = self._contents
        size = self._size
        start = t + 1 - size
        if start in contents:
            self._emit(TimeWindow(start, start + size), contents[start], t)
        start -= self.allowed_lateness
        if start in contents:
            del contents[start]
            if self._wf_clear is not None or self._wstates:
                self._clear_function_state(TimeWindow(start, start + size))

    def _fire_fast_timers(self, up_to) -> None:
        ks = self._ks
        pop = ks.pop_event_timer
        on_timer = self._on_fast_timer
        while True:
            t = pop(up_to)
            if t is None:
                break
            on_timer(t)
        if up_to > ks.fired_watermark:
            ks.fired_watermark = up_to

    # -- the KeyedOperator contract -------------------------------------------------------------

    def _fire_event(self, up_to) -> None:
        if self._fast:
            self._fire_fast_timers(up_to)
        else:
            self._fire_timers(True, up_to)

    def _process_fast(self, key, state, elements, watermark_after, processing_time, out):
        """The fast path's element loop, inlined: contents keyed by window start, one KeyState
        timer per window end (and per cleanup time with lateness). Every timer it registers is
        later than the watermark, so timers need firing only when the watermark passes the
        earliest one (``due``)."""
        wm = self._wm
        contents = self._contents
        get = contents.get
        kind = self.contents_kind
        is_reduce = kind == CONTENTS_REDUCE
        is_agg = kind == CONTENTS_AGGREGATE
        reduce = self._reduce if is_reduce else None
        agg_add = self._agg_add if is_agg else None
        agg_create = self._agg_create if is_agg else None
        size = self._size
        slide = self._slide
        offset = self._offset
        lateness = self.allowed_lateness
        size_1 = size - 1
        cleanup_off = size_1 + lateness
        register = state.register_event_timer
        next_timer = state.next_event_timer
        fire = self._fire_fast_timers
        missing = _MISSING
        quiesced = self._quiesced
        due = next_timer()
        if due is None:
            due = _INFINITY
        if slide == size and is_reduce:
            # tumbling windows with a reduce function: the most common case, kept minimal
            drop_below = wm - cleanup_off     # windows starting at or before are late
            fire_below = wm - size_1          # windows starting at or before fire on elements
            value = ts = None
            try:
                for value, ts, stamp in elements:
                    if stamp is not None and stamp > wm:
                        wm = stamp
                        drop_below = wm - cleanup_off
                        fire_below = wm - size_1
                        if due <= wm:
                            self._wm = wm
                            fire(wm)
                            due = next_timer()
                            if due is None:
                                due = _INFINITY
                    start = ts - (ts - offset + size) % size
                    if start <= drop_below:
                        self._wm = wm
                        self._late(value, ts)
                    else:
                        cur = get(start, missing)
                        if cur is missing:
                            contents[start] = value
                            if not quiesced:
                                t = start + size_1
                                if t > wm:
                                    register(t)
                                    if t < due:
                                        due = t
                                if lateness:
                                    t = start + cleanup_off
                                    if t < MAX_WATERMARK:
                                        register(t)
                                        if t < due:
                                            due = t
                        else:
                            contents[start] = reduce(cur, value)
                        if start <= fire_below:
                            self._wm = wm
                            self._emit(TimeWindow(start, start + size), contents[start], ts)
                    if out:
                        yield from out
                        out.clear()
                        if self._ks is not state:
                            self._bind(key, state, processing_time, out)
                            self._wm = wm
            except TypeError:
                if ts is None:
                    raise ValueError(_no_timestamp()) from None
                raise
            self._wm = wm
            elements = ()
        for value, ts, stamp in elements:
            if stamp is not None and stamp > wm:
                wm = self._wm = stamp
                if due <= wm:
                    fire(wm)
                    due = next_timer()
                    if due is None:
                        due = _INFINITY
            if ts is None:
                raise ValueError(_no_timestamp())
            start = ts - (ts - offset + slide) % slide
            lowest = ts - size
            skipped = True
            while start > lowest:
                if start + cleanup_off > wm:
                    skipped = False
                    cur = get(start, missing)
                    if cur is missing:
                        if is_reduce:
                            contents[start] = value
                        elif is_agg:
                            contents[start] = agg_add(value, agg_create())
                        else:
                            contents[start] = [value]
                        if not quiesced:
                            t = start + size_1
                            if t > wm:
                                register(t)
                                if t < due:
                                    due = t
                            if lateness:
                                t = start + cleanup_off
                                if t < MAX_WATERMARK:
                                    register(t)
                                    if t < due:
                                        due = t
                    elif is_reduce:
                        contents[start] = reduce(cur, value)
                    elif is_agg:
                        contents[start] = agg_add(value, cur)
                    else:
                        cur.append(value)
                    if start + size_1 <= wm:
                        # late firing within the allowed lateness
                        self._emit(TimeWindow(start, start + size), contents[start], ts)
                start -= slide
            if skipped:
                self._late(value, ts)
            if out:
                yield from out
                out.clear()
                if self._ks is not state:
                    self._bind(key, state, processing_time, out)
                    self._wm = wm
        if watermark_after > wm:
            wm = self._wm = watermark_after
        if wm > state.fired_watermark:
            fire(wm)

    def process(self, key, state, elements, watermark_before, watermark_after, processing_time):
        if not self._opened:
            self.open(TaskInfo(self.name))
        return self._process_key(key, state, elements, watermark_before, watermark_after,
                                 processing_time)

    def _process_key(self, key, state, elements, watermark_before, watermark_after,
                     processing_time):
        out = []
        try:
            self._bind(key, state, processing_time, out)
            wm = self._wm = watermark_before
            if wm > state.fired_watermark:
                self._fire_event(wm)
            if out:
                yield from out
                out.clear()
                if self._ks is not state:
                    self._bind(key, state, processing_time, out)
                    self._wm = wm
            if self._fast:
                yield from self._process_fast(key, state, elements, watermark_after,
                                              processing_time, out)
            else:
                handle = self._process_element
                for value, ts, stamp in elements:
                    if stamp is not None and stamp > wm:
                        wm = self._wm = stamp
                        if wm > state.fired_watermark:
                            self._fire_event(wm)
                    handle(value, ts)
                    if out:
                        yield from out
                        out.clear()
                        if self._ks is not state:
                            self._bind(key, state, processing_time, out)
                            self._wm = wm
                if watermark_after > wm:
                    wm = self._wm = watermark_after
                if wm > state.fired_watermark:
                    self._fire_event(wm)
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
                self._fire_event(event_up_to)
            if processing_up_to is not None and state._pt and not self._fast:
                self._fire_timers(False, processing_up_to)
            self._finish(state)
        except Exception as e:
            raise user_function_failure(self.name, e) from e
        yield from out

    def process_key_batch(self, key, state, elements, processing_time):
        """BATCH execution of one key, as Flink's BATCH mode: the watermark stays MIN while the
        key's elements (sorted by timestamp) are processed, so no element is late; then the
        watermark becomes MAX, every event-time timer fires in order, then every
        processing-time timer; timers registered during this final firing are ignored."""
        out = []
        try:
            self._bind(key, state, processing_time, out)
            self._wm = MIN_WATERMARK
            handle = self._fast_element if self._fast else self._process_element
            for e in elements:
                handle(e[0], e[1])
                if out:
                    yield from out
                    out.clear()
                    if self._ks is not state:
                        self._bind(key, state, processing_time, out)
                        self._wm = MIN_WATERMARK
            self._quiesced = True
            self._wm = MAX_WATERMARK
            try:
                self._fire_event(MAX_WATERMARK)
                if not self._fast:
                    self._fire_timers(False, _INFINITY)
            finally:
                self._quiesced = False
            self._finish(state)
        except Exception as e:
            raise user_function_failure(self.name, e) from e
        yield from out

    def __repr__(self) -> str:
        return "WindowOperator(%r, %r, %s)" % (self.assigner, self.trigger, self.contents_kind)


def _no_timestamp() -> str:
    from kindling.datastream.window import _NO_TIMESTAMP
    return _NO_TIMESTAMP
