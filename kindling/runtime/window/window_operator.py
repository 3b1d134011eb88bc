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
runs *aligned*: contents keyed by the window start (an int), the KeyState timers alone (one
per window end, plus one per cleanup time when lateness is set), no window objects or
trigger calls. Only the element loop (:meth:`WindowOperator._aligned_elements`) and the timer
step (:meth:`WindowOperator._on_aligned_timer`) differ from the general path; timer firing,
evaluation, lateness and the STREAMING/BATCH drivers are shared. Its results are those of the general path.

Contexts given to user code are in :mod:`.contexts`; the merging window set in :mod:`.merging`.
"""
from __future__ import annotations

from typing import Any, Optional

from kindling.datastream.functions import (
    AllWindowFunction, ProcessAllWindowFunction, ProcessWindowFunction, ReduceFunction,
    WindowFunction,
)
from kindling.datastream.output_tag import OutputTag
from kindling.datastream.window import (
    CountSlidingWindowAssigner, CountTrigger, CountTumblingWindowAssigner,
    DynamicEventTimeSessionWindows, DynamicProcessingTimeSessionWindows, EventTimeSessionWindows,
    EventTimeTrigger, MergingWindowAssigner, ProcessingTimeSessionWindows, SlidingEventTimeWindows,
    TimeWindow, Trigger, TumblingEventTimeWindows, WindowAssigner,
)
from kindling.datastream.window.assigners import _NO_TIMESTAMP
from kindling.runtime.keyed_operator import _FiringOperator, append_results
from kindling.runtime.keyed_state import KeyedStateRegistry
from kindling.runtime.task_info import MAX_WATERMARK
from kindling.runtime.window.contexts import (
    AssignerContext, ProcessContext, Scope, TriggerContext, state_kind,
)
from kindling.runtime.window.merging import add_window

__all__ = ['WindowOperator', 'CONTENTS_REDUCE', 'CONTENTS_AGGREGATE', 'CONTENTS_LIST',
           'CONTENTS', 'WINDOW_STATE', 'EVENT_TIMERS', 'PROCESSING_TIMERS', 'MERGING_WINDOWS']

# how a window keeps its contents (the values of kindling.graph.specs.WINDOW_CONTENTS)
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

# window-function modes
_WF_NONE = 0      # emit the (single) value itself
_WF_APPLY = 1     # apply(key, window, inputs) / apply(window, inputs)
_WF_PROCESS = 2   # process(key, ctx, inputs) / process(ctx, inputs)
_TIME_SESSIONS = (EventTimeSessionWindows, ProcessingTimeSessionWindows,
                  DynamicEventTimeSessionWindows, DynamicProcessingTimeSessionWindows)


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

    # -- lifecycle --------------------------------------------------------------------------

    def _user_functions(self) -> tuple:
        return (self.function, self.window_function)

    def _unbind(self) -> None:
        super()._unbind()
        self._wreg.unbind()

    def _setup(self) -> None:
        """Derives the per-process contexts, callables and flags from the configuration."""
        self._wreg = KeyedStateRegistry()
        self._scope = Scope()
        self._tctx = TriggerContext(self)
        self._pctx = ProcessContext(self)
        self._actx = AssignerContext(self)
        a = self.assigner
        self._event_time = a.is_event_time()
        self._merging = isinstance(a, MergingWindowAssigner)
        self._time_sessions = type(a) in _TIME_SESSIONS
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
        self._aligned = (not self._merging and type(t) is EventTimeTrigger
                         and type(a) in (TumblingEventTimeWindows, SlidingEventTimeWindows))
        if self._aligned:
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
        super()._bind(key, state, processing_time, out)
        states = state.states
        self._contents = states.setdefault(CONTENTS, {})
        self._wstates = states.setdefault(WINDOW_STATE, {})
        if not self._aligned:
            self._etimers = states.setdefault(EVENT_TIMERS, {})
            self._ptimers = states.setdefault(PROCESSING_TIMERS, {})
            if self._merging:
                self._mapping = states.setdefault(MERGING_WINDOWS, {})
        self._wreg.now = processing_time

    def set_processing_time(self, processing_time: int) -> None:
        super().set_processing_time(processing_time)
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

    # -- timers ----------------------------------------------------------------

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
        """Fires the event-time (``event``) or processing-time timers ``<= up_to`` in order."""
        ks = self._ks
        pop = ks.pop_event_timer if event else ks.pop_processing_timer
        t = pop(up_to)
        if self._aligned:
            on_aligned_timer = self._on_aligned_timer
            while t is not None:
                on_aligned_timer(t)
                t = pop(up_to)
        else:
            idx = self._etimers if event else self._ptimers
            on_timer = self._on_timer
            while t is not None:
                d = idx.get(t)
                while d:
                    w = next(iter(d))
                    del d[w]
                    if not d:
                        del idx[t]
                    on_timer(event, t, w)
                    d = idx.get(t)
                t = pop(up_to)
        if event and up_to > ks.fired_watermark:
            ks.fired_watermark = up_to

    # -- window contents ----------------------------------------------------------------------

    def _add(self, sw, value) -> None:
        """Adds ``value`` to the contents of the state window ``sw``."""
        contents = self._contents
        cur = contents.get(sw, _MISSING)
        kind = self.contents_kind
        if kind == CONTENTS_REDUCE:
            contents[sw] = value if cur is _MISSING else self._reduce(cur, value)
        elif kind == CONTENTS_AGGREGATE:
            contents[sw] = self._agg_add(value, self._agg_create() if cur is _MISSING else cur)
        elif cur is _MISSING:
            contents[sw] = [value]
        else:
            cur.append(value)

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
        kind = state_kind(descriptor)
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

    def _fire(self, window, state_window, ts) -> bool:
        """Evaluates ``window`` (its contents stored under ``state_window``) unless it has
        none; True when it was evaluated."""
        c = self._contents.get(state_window, _MISSING)
        if c is _MISSING or (self.contents_kind == CONTENTS_LIST and not c):
            return False
        self._emit(window, c, ts)
        return True

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

    # -- the general path: assigner and trigger -------------------------------------------------

    def _process_element(self, value, ts) -> None:
        """Flink's WindowOperator.processElement: the element goes to the windows the assigner
        gives it (merged into the merging window set with a merging assigner), then the
        trigger decides."""
        windows = self.assigner.assign_windows(value, ts, self._actx)
        event_time = self._event_time
        tctx = self._tctx
        trigger = self.trigger
        contents = self._contents
        mapping = self._mapping if self._merging else None
        skipped = True
        for w in windows:
            if mapping is not None:
                w = add_window(mapping, w, self.assigner, self._time_sessions, self._on_merge)
            if event_time and self._cleanup_time(w) <= self._wm:
                if mapping is not None:
                    mapping.pop(w, None)
                continue
            skipped = False
            if mapping is None:
                sw = w
            else:
                sw = mapping.get(w)
                if sw is None:
                    raise RuntimeError("Window %s is not in in-flight window set." % (w,))
            self._add(sw, value)
            tctx.window = w
            tctx.merged_windows = None
            res = trigger.on_element(value, ts, w, tctx)
            if res.value[0] and self._fire(w, sw, ts) and self._drop_after_fire:
                contents.pop(sw, None)
                trigger.clear(w, tctx)
                self._wstates.pop(w, None)
                continue
            if res.value[1]:
                contents.pop(sw, None)
            self._register_cleanup_timer(w)
        if skipped and event_time:
            self._late(value, ts)

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
            self._fire(window, sw, t)
        if res.value[1]:
            contents.pop(sw, None)
        if event == self._event_time and self._cleanup_time(window) == t:
            contents.pop(sw, None)
            tctx.window = window
            trigger.clear(window, tctx)
            self._clear_function_state(window)
            if self._merging:
                self._mapping.pop(window, None)

    # -- aligned windows (tumbling/sliding event time + EventTimeTrigger) ------------------------

    def _aligned_elements(self, key, state, elements, processing_time, out):
        """The element loop (``_FiringOperator._element_loop``) for aligned windows, with what :meth:`_process_element` does for
        them inlined (the hot loop of the common case): contents on window starts, no window
        objects or trigger calls; a new window registers a timer at its end (and at its
        cleanup time with lateness). Every such timer is later than the watermark, so timers
        need firing only once the watermark passes the earliest one (``due``)."""
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
        fire = self._fire_timers
        missing = _MISSING
        quiesced = self._quiesced
        due = next_timer()
        if due is None:
            due = _INFINITY
        drop_below = wm - cleanup_off     # windows starting at or below it are late
        fire_below = wm - size_1          # windows starting at or below it fire on elements
        value = ts = None
        try:
            for value, ts, stamp in elements:
                if stamp is not None and stamp > wm:
                    wm = self._wm = stamp
                    drop_below = wm - cleanup_off
                    fire_below = wm - size_1
                    if due <= wm:
                        fire(True, wm)
                        due = next_timer()
                        if due is None:
                            due = _INFINITY
                start = ts - (ts - offset + slide) % slide   # of the newest window of ts
                if start <= drop_below:
                    # so are the older ones: every window of the element is late
                    self._late(value, ts)
                else:
                    lowest = ts - size      # the windows of ts start above it ...
                    if drop_below > lowest:
                        lowest = drop_below     # ... and above drop_below are not late
                    while True:
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
                        if start <= fire_below:
                            # late firing within the allowed lateness
                            self._emit(TimeWindow(start, start + size), contents[start], ts)
                        start -= slide
                        if start <= lowest:
                            break
                if out:
                    yield from self._drain(key, state, processing_time, out)
        except TypeError:
            if ts is None:
                raise ValueError(_NO_TIMESTAMP) from None
            raise

    def _on_aligned_timer(self, t) -> None:
        """A timer of aligned windows: the end of the window starting at ``t + 1 - size``
        (fire it), or the cleanup time of the one starting ``allowed_lateness`` earlier."""
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

    def _element_loop(self, key, state, elements, processing_time, out):
        if self._aligned:
            return self._aligned_elements(key, state, elements, processing_time, out)
        return super()._element_loop(key, state, elements, processing_time, out)

    def __repr__(self) -> str:
        return "WindowOperator(%r, %r, %s)" % (self.assigner, self.trigger, self.contents_kind)
