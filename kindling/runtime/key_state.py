"""All Flink state of ONE key, and the key's pending timers, in one picklable record.

On Spark the record is one binary ValueState of ``transformWithState``: it is read once and
written once per key per micro-batch (``to_bytes``/``from_bytes``), and one Spark timer per
key stands for the earliest pending timer.

Layout: ``states`` maps a state name to what the runtime state keeps for it (a value, a list,
a dict, or the same wrapped with last-access times when TTL is on; see
``kindling.runtime.keyed_state``). A name is absent when its state is empty, so
``is_empty()`` is exact. Timers are sets of epoch-ms ints (duplicates collapse, as in Flink)
with lazy-deletion heaps for ordered firing.
"""
from __future__ import annotations

import heapq
import pickle

from kindling.runtime.task_info import MIN_WATERMARK

_heappush = heapq.heappush
_heappop = heapq.heappop

_FORMAT = 1


def _timer_ts(t) -> int:
    if type(t) is int:
        return t
    if isinstance(t, bool) or not hasattr(t, '__index__'):
        raise TypeError("a timer timestamp must be an int of epoch milliseconds, got %r" % (t,))
    return t.__index__()


class KeyState:
    """States and timers of one key.

    ``fired_watermark`` is the watermark up to which this key's event-time timers have been
    fired; ``ttl_expiry`` the earliest processing time at which a TTL'd value of this key
    expires (None when nothing expires), computed when the operator writes the key back.
    """

    __slots__ = ("states", "_ev", "_evh", "_pt", "_pth", "fired_watermark", "ttl_expiry")

    def __init__(self):
        self.states = {}
        self._ev = None    # set of event-time timer timestamps, or None
        self._evh = None   # heap over _ev (may hold deleted entries)
        self._pt = None
        self._pth = None
        self.fired_watermark = MIN_WATERMARK
        self.ttl_expiry = None

    # -- serialisation ------------------------------------------------------------------

    def _to_tuple(self):
        return (_FORMAT, self.states or None,
                sorted(self._ev) if self._ev else None,
                sorted(self._pt) if self._pt else None,
                self.fired_watermark, self.ttl_expiry)

    @staticmethod
    def _from_tuple(t) -> "KeyState":
        if t[0] != _FORMAT:
            raise ValueError("unknown KeyState format %r" % (t[0],))
        ks = KeyState()
        if t[1]:
            ks.states = t[1]
        if t[2]:
            ks._ev = set(t[2])
            ks._evh = list(t[2])   # sorted: a valid heap
        if t[3]:
            ks._pt = set(t[3])
            ks._pth = list(t[3])
        ks.fired_watermark = t[4]
        ks.ttl_expiry = t[5]
        return ks

    def to_bytes(self) -> bytes:
        """Pickles this record (cloudpickle when plain pickle cannot handle a value)."""
        data = self._to_tuple()
        try:
            return pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as plain_error:
            try:
                import cloudpickle
            except ImportError:  # pragma: no cover
                raise plain_error
            try:
                return cloudpickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as e:
                raise TypeError("the keyed state %s cannot be pickled: %s"
                                % (sorted(self.states), e)) from e

    @staticmethod
    def from_bytes(b: bytes) -> "KeyState":
        return KeyState._from_tuple(pickle.loads(b))

    def __reduce__(self):
        return KeyState._from_tuple, (self._to_tuple(),)

    # -- facts ----------------------------------------------------------------------------

    def is_empty(self) -> bool:
        """No state and no timers: the record can be deleted."""
        return not self.states and not self._ev and not self._pt

    def next_event_timer(self):
        """The earliest pending event-time timer, or None."""
        ev = self._ev
        if not ev:
            return None
        h = self._evh
        while h[0] not in ev:
            _heappop(h)
        return h[0]

    def next_processing_timer(self):
        """The earliest pending processing-time timer, or None."""
        pt = self._pt
        if not pt:
            return None
        h = self._pth
        while h[0] not in pt:
            _heappop(h)
        return h[0]

    def event_timers(self) -> list:
        """Pending event-time timers, sorted."""
        return sorted(self._ev) if self._ev else []

    def processing_timers(self) -> list:
        """Pending processing-time timers, sorted."""
        return sorted(self._pt) if self._pt else []

    def num_event_timers(self) -> int:
        return len(self._ev) if self._ev else 0

    def num_processing_timers(self) -> int:
        return len(self._pt) if self._pt else 0

    # -- timers -----------------------------------------------------------------------------

    def register_event_timer(self, t) -> None:
        if type(t) is not int:
            t = _timer_ts(t)
        ev = self._ev
        if ev is None:
            self._ev = {t}
            self._evh = [t]
        elif t not in ev:
            ev.add(t)
            _heappush(self._evh, t)

    def delete_event_timer(self, t) -> None:
        ev = self._ev
        if ev:
            ev.discard(t)
            if not ev:
                self._ev = self._evh = None

    def register_processing_timer(self, t) -> None:
        if type(t) is not int:
            t = _timer_ts(t)
        pt = self._pt
        if pt is None:
            self._pt = {t}
            self._pth = [t]
        elif t not in pt:
            pt.add(t)
            _heappush(self._pth, t)

    def delete_processing_timer(self, t) -> None:
        pt = self._pt
        if pt:
            pt.discard(t)
            if not pt:
                self._pt = self._pth = None

    def pop_event_timer(self, up_to):
        """Removes and returns the earliest event-time timer if it is <= ``up_to``; else None."""
        ev = self._ev
        if not ev:
            return None
        h = self._evh
        while h[0] not in ev:
            _heappop(h)
        t = h[0]
        if t > up_to:
            return None
        _heappop(h)
        ev.discard(t)
        if not ev:
            self._ev = self._evh = None
        return t

    def pop_processing_timer(self, up_to):
        """Removes and returns the earliest processing-time timer if it is <= ``up_to``."""
        pt = self._pt
        if not pt:
            return None
        h = self._pth
        while h[0] not in pt:
            _heappop(h)
        t = h[0]
        if t > up_to:
            return None
        _heappop(h)
        pt.discard(t)
        if not pt:
            self._pt = self._pth = None
        return t

    def __repr__(self) -> str:
        return "KeyState(states=%r, event_timers=%r, processing_timers=%r)" % (
            self.states, self.event_timers(), self.processing_timers())
