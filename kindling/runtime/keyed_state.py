"""Runtime implementations of keyed state over :class:`~kindling.runtime.key_state.KeyState`.

One :class:`KeyedStateRegistry` per operator instance creates the state objects from their
descriptors and re-binds them to the current key's ``KeyState.states`` dict whenever the key
changes (``bind``), so the objects a function obtained in ``open()`` follow the current key,
as in Flink. Reads and writes are plain dict operations; nothing is pickled per element.

What ``KeyState.states[name]`` holds (a name is absent when the state is empty):

=============  =========================  ==========================================
kind           without TTL                with TTL (``ts`` = last access, epoch ms)
=============  =========================  ==========================================
value          the value                  ``(value, ts)``
list           ``[v, ...]``               ``[(v, ts), ...]``
map            ``{k: v}``                 ``{k: (v, ts)}``
reducing       the reduced value          ``(value, ts)``
aggregating    the accumulator            ``(accumulator, ts)``
=============  =========================  ==========================================

TTL is judged on the registry's ``now`` (the operator's processing time): a value expires
when ``ts + ttl <= now``. Expired values are removed when read, and by ``write_back`` (called
by the operator after each key's work) unless background cleanup is disabled.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from kindling.datastream.state import (
    AggregatingState, AggregatingStateDescriptor, ListState, ListStateDescriptor, MapState,
    MapStateDescriptor, ReducingState, ReducingStateDescriptor, StateDescriptor, StateTtlConfig,
    ValueState, ValueStateDescriptor,
)
from kindling.runtime.type_check import checker_for, type_error

_MISSING = object()


class _NoKeyStates(dict):
    """Stands for the states of 'no current key': any access fails clearly."""

    def _fail(self, *args, **kwargs):
        raise RuntimeError("keyed state can only be used while an element or a timer of a key "
                           "is being processed (not in open() or close())")

    get = pop = setdefault = __getitem__ = __setitem__ = __delitem__ = __contains__ = _fail


_NO_KEY = _NoKeyStates()


class _InternalState:
    kind = ''

    def __init__(self, descriptor: StateDescriptor, registry: 'KeyedStateRegistry', ttl: Optional[StateTtlConfig]):
        self._name = descriptor.name
        self._descriptor = descriptor
        self._reg = registry
        self._d = registry._current
        self._type_info = descriptor.type_info
        if ttl is not None:
            self._ttl = ttl.get_ttl_millis()
            self._read_upd = ttl.get_update_type() is StateTtlConfig.UpdateType.OnReadAndWrite
            self._ret_exp = (ttl.get_state_visibility()
                             is StateTtlConfig.StateVisibility.ReturnExpiredIfNotCleanedUp)
            self._clean_on_write_back = ttl.get_cleanup_strategies().cleans_on_write_back()

    def clear(self) -> None:
        self._d.pop(self._name, None)

    def _fail_type(self, value, type_info=None, what="value"):
        raise type_error(self._name, value, type_info if type_info is not None else self._type_info, what)

    def __repr__(self) -> str:
        return "<%s state %r>" % (self.kind, self._name)


# ------------------------------------------------------------------------------------- value

class _ValueState(_InternalState, ValueState):
    kind = 'value'

    def __init__(self, descriptor, registry, ttl=None):
        super().__init__(descriptor, registry, ttl)
        self._check = checker_for(descriptor.type_info)

    def value(self):
        return self._d.get(self._name)

    def update(self, value) -> None:
        if value is None:
            self._d.pop(self._name, None)
            return
        check = self._check
        if check is not None and not check(value):
            self._fail_type(value)
        self._d[self._name] = value

    def _peek(self, stored, now):
        return stored


class _TtlValueState(_ValueState):

    def value(self):
        d = self._d
        e = d.get(self._name)
        if e is None:
            return None
        now = self._reg.now
        if e[1] + self._ttl <= now:
            del d[self._name]
            return e[0] if self._ret_exp else None
        if self._read_upd and e[1] != now:
            d[self._name] = (e[0], now)
        return e[0]

    def update(self, value) -> None:
        if value is None:
            self._d.pop(self._name, None)
            return
        check = self._check
        if check is not None and not check(value):
            self._fail_type(value)
        self._d[self._name] = (value, self._reg.now)

    def _cleanup(self, d, now):
        e = d.get(self._name)
        if e is None:
            return None
        if e[1] + self._ttl <= now:
            del d[self._name]
            return None
        return e[1] + self._ttl

    def _peek(self, e, now):
        return e[0] if (self._ret_exp or e[1] + self._ttl > now) else None


# -------------------------------------------------------------------------------------- list

class _ListState(_InternalState, ListState):
    kind = 'list'

    def __init__(self, descriptor, registry, ttl=None):
        super().__init__(descriptor, registry, ttl)
        self._elem_type = getattr(descriptor, 'elem_type_info', None)
        self._check = checker_for(self._elem_type)

    def _checked(self, value):
        if value is None:
            raise TypeError("state '%s': cannot add None to a ListState" % self._name)
        check = self._check
        if check is not None and not check(value):
            self._fail_type(value, self._elem_type, "element")
        return value

    def get(self):
        lst = self._d.get(self._name)
        return list(lst) if lst else []

    def add(self, value) -> None:
        self._checked(value)
        lst = self._d.get(self._name)
        if lst is None:
            self._d[self._name] = [value]
        else:
            lst.append(value)

    def add_all(self, values) -> None:
        if values is None:
            raise TypeError("state '%s': add_all expects a list of values, got None" % self._name)
        new = [self._checked(v) for v in values]
        if not new:
            return
        lst = self._d.get(self._name)
        if lst is None:
            self._d[self._name] = new
        else:
            lst.extend(new)

    def update(self, values) -> None:
        new = [self._checked(v) for v in values] if values is not None else None
        if new:
            self._d[self._name] = new
        else:
            self._d.pop(self._name, None)

    def _peek(self, stored, now):
        return list(stored)


class _TtlListState(_ListState):

    def get(self):
        d = self._d
        lst = d.get(self._name)
        if not lst:
            return []
        now = self._reg.now
        ttl = self._ttl
        alive = [e for e in lst if e[1] + ttl > now]
        if len(alive) != len(lst):
            result = [e[0] for e in (lst if self._ret_exp else alive)]
            if alive:
                d[self._name] = [(e[0], now) for e in alive] if self._read_upd else alive
            else:
                del d[self._name]
            return result
        if self._read_upd:
            d[self._name] = [(e[0], now) for e in lst]
        return [e[0] for e in lst]

    def add(self, value) -> None:
        self._checked(value)
        lst = self._d.get(self._name)
        if lst is None:
            self._d[self._name] = [(value, self._reg.now)]
        else:
            lst.append((value, self._reg.now))

    def add_all(self, values) -> None:
        if values is None:
            raise TypeError("state '%s': add_all expects a list of values, got None" % self._name)
        now = self._reg.now
        new = [(self._checked(v), now) for v in values]
        if not new:
            return
        lst = self._d.get(self._name)
        if lst is None:
            self._d[self._name] = new
        else:
            lst.extend(new)

    def update(self, values) -> None:
        now = self._reg.now
        new = [(self._checked(v), now) for v in values] if values is not None else None
        if new:
            self._d[self._name] = new
        else:
            self._d.pop(self._name, None)

    def _cleanup(self, d, now):
        lst = d.get(self._name)
        if not lst:
            return None
        ttl = self._ttl
        alive = [e for e in lst if e[1] + ttl > now]
        if not alive:
            del d[self._name]
            return None
        if len(alive) != len(lst):
            d[self._name] = alive
        return min(e[1] for e in alive) + ttl

    def _peek(self, lst, now):
        return [e[0] for e in lst if self._ret_exp or e[1] + self._ttl > now]


# --------------------------------------------------------------------------------------- map

class _MapState(_InternalState, MapState):
    kind = 'map'

    def __init__(self, descriptor, registry, ttl=None):
        super().__init__(descriptor, registry, ttl)
        self._key_type = getattr(descriptor, 'key_type_info', None)
        self._value_type = getattr(descriptor, 'value_type_info', None)
        self._kcheck = checker_for(self._key_type)
        self._vcheck = checker_for(self._value_type)

    def _check_kv(self, key, value):
        kc = self._kcheck
        if kc is not None and not kc(key):
            self._fail_type(key, self._key_type, "map key")
        vc = self._vcheck
        if value is not None and vc is not None and not vc(value):
            self._fail_type(value, self._value_type, "map value")

    def get(self, key):
        m = self._d.get(self._name)
        return m.get(key) if m else None

    def put(self, key, value) -> None:
        self._check_kv(key, value)
        m = self._d.get(self._name)
        if m is None:
            self._d[self._name] = {key: value}
        else:
            m[key] = value

    def put_all(self, dict_value) -> None:
        for k, v in dict_value.items():
            self.put(k, v)

    def remove(self, key) -> None:
        d = self._d
        m = d.get(self._name)
        if m:
            m.pop(key, None)
            if not m:
                del d[self._name]

    def contains(self, key) -> bool:
        m = self._d.get(self._name)
        return bool(m) and key in m

    def items(self):
        m = self._d.get(self._name)
        return list(m.items()) if m else []

    def keys(self):
        m = self._d.get(self._name)
        return list(m) if m else []

    def values(self):
        m = self._d.get(self._name)
        return list(m.values()) if m else []

    def is_empty(self) -> bool:
        return not self._d.get(self._name)

    def _peek(self, m, now):
        return dict(m)


class _TtlMapState(_MapState):

    def _entry(self, key):
        """The (value, ts) of ``key`` after the TTL check (and read refresh), or None."""
        d = self._d
        m = d.get(self._name)
        if not m:
            return None
        e = m.get(key)
        if e is None:
            return None
        now = self._reg.now
        if e[1] + self._ttl <= now:
            del m[key]
            if not m:
                del d[self._name]
            return e if self._ret_exp else None
        if self._read_upd and e[1] != now:
            m[key] = (e[0], now)
        return e

    def get(self, key):
        e = self._entry(key)
        return None if e is None else e[0]

    def put(self, key, value) -> None:
        self._check_kv(key, value)
        m = self._d.get(self._name)
        if m is None:
            self._d[self._name] = {key: (value, self._reg.now)}
        else:
            m[key] = (value, self._reg.now)

    def contains(self, key) -> bool:
        return self._entry(key) is not None

    def _visible(self):
        """[(key, value)] visible to a read, after removing expired entries."""
        d = self._d
        m = d.get(self._name)
        if not m:
            return []
        now = self._reg.now
        ttl = self._ttl
        out = []
        expired = []
        for k, e in m.items():
            if e[1] + ttl <= now:
                expired.append(k)
                if self._ret_exp:
                    out.append((k, e[0]))
            else:
                out.append((k, e[0]))
        if expired:
            for k in expired:
                del m[k]
        if self._read_upd:
            for k in m:
                m[k] = (m[k][0], now)
        if not m:
            del d[self._name]
        return out

    def items(self):
        return self._visible()

    def keys(self):
        return [k for k, _ in self._visible()]

    def values(self):
        return [v for _, v in self._visible()]

    def is_empty(self) -> bool:
        return not self._visible()

    def _cleanup(self, d, now):
        m = d.get(self._name)
        if not m:
            return None
        ttl = self._ttl
        expired = [k for k, e in m.items() if e[1] + ttl <= now]
        for k in expired:
            del m[k]
        if not m:
            del d[self._name]
            return None
        return min(e[1] for e in m.values()) + ttl

    def _peek(self, m, now):
        return {k: e[0] for k, e in m.items() if self._ret_exp or e[1] + self._ttl > now}


# ---------------------------------------------------------------------------------- reducing

class _ReducingState(_InternalState, ReducingState):
    kind = 'reducing'

    def __init__(self, descriptor, registry, ttl=None):
        super().__init__(descriptor, registry, ttl)
        from kindling.datastream.functions import ReduceFunction
        f = descriptor.get_reduce_function()
        self._reduce = f.reduce if isinstance(f, ReduceFunction) else f
        self._check = checker_for(descriptor.type_info)

    def get(self):
        return self._d.get(self._name)

    def add(self, value) -> None:
        d = self._d
        if value is None:
            d.pop(self._name, None)
            return
        cur = d.get(self._name)
        new = value if cur is None else self._reduce(cur, value)
        if new is None:
            d.pop(self._name, None)
            return
        check = self._check
        if check is not None and not check(new):
            self._fail_type(new)
        d[self._name] = new

    def _peek(self, stored, now):
        return stored


class _TtlReducingState(_ReducingState):

    def _current(self):
        d = self._d
        e = d.get(self._name)
        if e is None:
            return None
        now = self._reg.now
        if e[1] + self._ttl <= now:
            del d[self._name]
            return e if self._ret_exp else None
        if self._read_upd and e[1] != now:
            d[self._name] = (e[0], now)
        return e

    def get(self):
        e = self._current()
        return None if e is None else e[0]

    def add(self, value) -> None:
        d = self._d
        if value is None:
            d.pop(self._name, None)
            return
        e = self._current()
        new = value if e is None else self._reduce(e[0], value)
        if new is None:
            d.pop(self._name, None)
            return
        check = self._check
        if check is not None and not check(new):
            self._fail_type(new)
        d[self._name] = (new, self._reg.now)

    _cleanup = _TtlValueState._cleanup
    _peek = _TtlValueState._peek


# ------------------------------------------------------------------------------- aggregating

class _AggregatingState(_InternalState, AggregatingState):
    kind = 'aggregating'

    def __init__(self, descriptor, registry, ttl=None):
        super().__init__(descriptor, registry, ttl)
        self._agg = descriptor.get_agg_function()
        self._check = checker_for(descriptor.type_info)

    def get(self):
        acc = self._d.get(self._name, _MISSING)
        if acc is _MISSING:
            return None
        return self._agg.get_result(acc)

    def add(self, value) -> None:
        d = self._d
        if value is None:
            d.pop(self._name, None)
            return
        agg = self._agg
        acc = d.get(self._name, _MISSING)
        if acc is _MISSING:
            acc = agg.create_accumulator()
        acc = agg.add(value, acc)
        check = self._check
        if check is not None and acc is not None and not check(acc):
            self._fail_type(acc, what="accumulator")
        d[self._name] = acc

    def _peek(self, acc, now):
        return self._agg.get_result(acc)


class _TtlAggregatingState(_AggregatingState):

    _current = _TtlReducingState._current

    def get(self):
        e = self._current()
        return None if e is None else self._agg.get_result(e[0])

    def add(self, value) -> None:
        d = self._d
        if value is None:
            d.pop(self._name, None)
            return
        agg = self._agg
        e = self._current()
        acc = agg.create_accumulator() if e is None else e[0]
        acc = agg.add(value, acc)
        check = self._check
        if check is not None and acc is not None and not check(acc):
            self._fail_type(acc, what="accumulator")
        d[self._name] = (acc, self._reg.now)

    _cleanup = _TtlValueState._cleanup

    def _peek(self, e, now):
        if self._ret_exp or e[1] + self._ttl > now:
            return self._agg.get_result(e[0])
        return None


_KINDS = {
    'value': (ValueStateDescriptor, _ValueState, _TtlValueState),
    'list': (ListStateDescriptor, _ListState, _TtlListState),
    'map': (MapStateDescriptor, _MapState, _TtlMapState),
    'reducing': (ReducingStateDescriptor, _ReducingState, _TtlReducingState),
    'aggregating': (AggregatingStateDescriptor, _AggregatingState, _TtlAggregatingState),
}

class KeyedStateRegistry:
    """The keyed states of one operator instance, bound to the current key.

    ``get(descriptor, kind)`` creates (or returns the already created) state of that name;
    ``bind(key_state)`` points every state at ``key_state``; ``now`` is the processing time
    TTL is judged against; ``write_back(key_state)`` removes expired values and sets
    ``key_state.ttl_expiry``.
    """

    def __init__(self):
        self.now = 0
        self._by_name: Dict[str, _InternalState] = {}
        self._all: List[_InternalState] = []
        self._ttl: List[_InternalState] = []
        self._current = _NO_KEY

    def get(self, descriptor: StateDescriptor, kind: str):
        desc_cls, plain_cls, ttl_cls = _KINDS[kind]
        if not isinstance(descriptor, desc_cls):
            raise TypeError("expected a %s, got %r" % (desc_cls.__name__, descriptor))
        existing = self._by_name.get(descriptor.name)
        if existing is not None:
            if existing.kind != kind:
                raise ValueError("state '%s' is already registered as %s state, cannot get it as %s "
                                 "state" % (descriptor.name, existing.kind, kind))
            return existing
        ttl = descriptor.get_ttl_config()
        if ttl is not None and ttl.is_enabled():
            state = ttl_cls(descriptor, self, ttl)
            self._ttl.append(state)
        else:
            state = plain_cls(descriptor, self)
        self._by_name[descriptor.name] = state
        self._all.append(state)
        return state

    @property
    def has_ttl(self) -> bool:
        return bool(self._ttl)

    def names(self) -> List[str]:
        return list(self._by_name)

    def list_state_names(self) -> List[str]:
        """Names of the list states without TTL (their lists may be kept outside the key's record)."""
        return [s._name for s in self._all if s.kind == 'list' and s not in self._ttl]

    def kind_of(self, name: str) -> Optional[str]:
        s = self._by_name.get(name)
        return s.kind if s is not None else None

    def bind(self, key_state) -> None:
        d = key_state.states
        if d is self._current:
            return
        self._current = d
        for s in self._all:
            s._d = d

    def unbind(self) -> None:
        self._current = _NO_KEY
        for s in self._all:
            s._d = _NO_KEY

    def write_back(self, key_state) -> None:
        """Removes expired TTL values of ``key_state`` and records its next TTL expiry."""
        if not self._ttl:
            return
        d = key_state.states
        now = self.now
        earliest = None
        for s in self._ttl:
            if not s._clean_on_write_back:
                continue
            t = s._cleanup(d, now)
            if t is not None and (earliest is None or t < earliest):
                earliest = t
        key_state.ttl_expiry = earliest

    def peek(self, key_state, name: str) -> Any:
        """What a read of state ``name`` would return for ``key_state``, without side effects
        (list -> list, map -> dict, aggregating -> get_result)."""
        s = self._by_name.get(name)
        if s is None:
            raise KeyError("no state named %r is registered (known: %s)" % (name, sorted(self._by_name)))
        stored = key_state.states.get(name, _MISSING)
        if stored is _MISSING:
            return {'list': [], 'map': {}}.get(s.kind)
        return s._peek(stored, self.now)
