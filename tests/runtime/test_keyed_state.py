import datetime
import decimal

import pytest

from kindling.common.time import Time
from kindling.common.typeinfo import Types
from kindling.common.types import Row
from kindling.datastream.functions import AggregateFunction, ReduceFunction
from kindling.datastream.state import (
    AggregatingState, AggregatingStateDescriptor, ListState, ListStateDescriptor, MapState,
    MapStateDescriptor, ReducingState, ReducingStateDescriptor, StateTtlConfig, ValueState,
    ValueStateDescriptor,
)
from kindling.runtime.key_state import KeyState
from kindling.runtime.keyed_state import KeyedStateRegistry


class Avg(AggregateFunction):
    def create_accumulator(self):
        return [0, 0]

    def add(self, value, acc):
        return [acc[0] + value, acc[1] + 1]

    def get_result(self, acc):
        return acc[0] / acc[1]


class Max(ReduceFunction):
    def reduce(self, a, b):
        return max(a, b)


@pytest.fixture
def reg():
    r = KeyedStateRegistry()
    r.bind(KeyState())
    return r


def ttl(ms, read=False, visible=False, background=True):
    b = StateTtlConfig.new_builder(Time.milliseconds(ms))
    if read:
        b.update_ttl_on_read_and_write()
    if visible:
        b.return_expired_if_not_cleaned_up()
    if not background:
        b.disable_cleanup_in_background()
    return b.build()


def with_ttl(desc, cfg):
    desc.enable_time_to_live(cfg)
    return desc


# ---------------------------------------------------------------------------- plain states

def test_value_state(reg):
    s = reg.get(ValueStateDescriptor("v", Types.LONG()), 'value')
    assert isinstance(s, ValueState)
    assert s.value() is None
    s.update(5)
    assert s.value() == 5
    s.update(None)
    assert s.value() is None
    s.update(6)
    s.clear()
    assert s.value() is None
    assert reg._current == {}


def test_states_follow_the_bound_key(reg):
    s = reg.get(ValueStateDescriptor("v", Types.LONG()), 'value')
    a, b = KeyState(), KeyState()
    reg.bind(a)
    s.update(1)
    reg.bind(b)
    assert s.value() is None
    s.update(2)
    reg.bind(a)
    assert s.value() == 1
    assert a.states == {'v': 1} and b.states == {'v': 2}


def test_same_name_returns_same_state_and_kind_conflict(reg):
    s1 = reg.get(ValueStateDescriptor("v", Types.LONG()), 'value')
    s2 = reg.get(ValueStateDescriptor("v", Types.LONG()), 'value')
    assert s1 is s2
    with pytest.raises(ValueError, match="already registered as value state"):
        reg.get(ListStateDescriptor("v", Types.LONG()), 'list')
    with pytest.raises(TypeError):
        reg.get(ListStateDescriptor("x", Types.LONG()), 'value')


def test_unbound_access_fails():
    r = KeyedStateRegistry()
    s = r.get(ValueStateDescriptor("v", Types.LONG()), 'value')
    with pytest.raises(RuntimeError, match="only be used while"):
        s.value()


def test_list_state(reg):
    s = reg.get(ListStateDescriptor("l", Types.INT()), 'list')
    assert isinstance(s, ListState)
    assert list(s.get()) == []
    s.add(1)
    s.add_all([2, 3])
    assert list(s.get()) == [1, 2, 3]
    assert list(s) == [1, 2, 3]
    got = s.get()
    got.append(99)  # a copy: does not change the state
    assert list(s.get()) == [1, 2, 3]
    s.update([7])
    assert list(s.get()) == [7]
    s.update([])
    assert list(s.get()) == [] and 'l' not in reg._current
    s.add_all([])
    assert 'l' not in reg._current
    s.add(4)
    s.clear()
    assert list(s.get()) == []
    with pytest.raises(TypeError, match="None"):
        s.add(None)
    with pytest.raises(TypeError):
        s.add_all(None)


def test_list_state_iterating_while_adding(reg):
    s = reg.get(ListStateDescriptor("l", Types.INT()), 'list')
    s.add_all([1, 2])
    for v in s.get():
        s.add(v * 10)
    assert list(s.get()) == [1, 2, 10, 20]


def test_map_state(reg):
    s = reg.get(MapStateDescriptor("m", Types.STRING(), Types.INT()), 'map')
    assert isinstance(s, MapState)
    assert s.is_empty()
    assert s.get("x") is None
    assert not s.contains("x")
    s.put("a", 1)
    s.put_all({"b": 2, "c": 3})
    s["d"] = 4
    assert s.get("a") == 1 and s["b"] == 2
    assert "c" in s and s.contains("d")
    assert sorted(s.keys()) == ["a", "b", "c", "d"]
    assert sorted(s.values()) == [1, 2, 3, 4]
    assert sorted(s.items()) == [("a", 1), ("b", 2), ("c", 3), ("d", 4)]
    assert sorted(s) == ["a", "b", "c", "d"]
    for k in s.keys():  # removing while iterating is fine
        s.remove(k)
    assert s.is_empty() and 'm' not in reg._current
    s.put("n", None)  # null values are allowed, as in Flink
    assert s.contains("n") and s.get("n") is None
    del s["n"]
    assert s.is_empty()
    s.put("z", 1)
    s.clear()
    assert s.is_empty()


def test_reducing_state(reg):
    s = reg.get(ReducingStateDescriptor("r", lambda a, b: a + b, Types.LONG()), 'reducing')
    assert isinstance(s, ReducingState)
    assert s.get() is None
    s.add(1)
    s.add(2)
    assert s.get() == 3
    s.clear()
    assert s.get() is None
    m = reg.get(ReducingStateDescriptor("m", Max(), Types.LONG()), 'reducing')
    for v in (3, 9, 4):
        m.add(v)
    assert m.get() == 9


def test_aggregating_state(reg):
    s = reg.get(AggregatingStateDescriptor("a", Avg(), Types.LIST(Types.LONG())), 'aggregating')
    assert isinstance(s, AggregatingState)
    assert s.get() is None
    s.add(1)
    s.add(4)
    assert s.get() == 2.5
    assert reg._current['a'] == [5, 2]
    s.clear()
    assert s.get() is None


# ---------------------------------------------------------------------------- type checks

@pytest.mark.parametrize("type_info,good,bad", [
    (Types.LONG(), 5, "5"),
    (Types.INT(), 2 ** 31 - 1, 2 ** 31),
    (Types.BYTE(), -128, 200),
    (Types.STRING(), "s", 1),
    (Types.BOOLEAN(), True, 1),
    (Types.DOUBLE(), 1.5, "1.5"),
    (Types.FLOAT(), 2, None),
    (Types.CHAR(), "c", "cc"),
    (Types.BIG_DEC(), decimal.Decimal("1.5"), 1.5),
    (Types.SQL_DATE(), datetime.date(2024, 1, 1), "2024-01-01"),
    (Types.SQL_TIMESTAMP(), datetime.datetime(2024, 1, 1), datetime.date(2024, 1, 1)),
    (Types.LIST(Types.INT()), [1, None, 3], [1, "x"]),
    (Types.PRIMITIVE_ARRAY(Types.BYTE()), b"ab", "ab"),
    (Types.MAP(Types.STRING(), Types.LONG()), {"a": 1}, {1: 1}),
    (Types.TUPLE([Types.STRING(), Types.INT()]), ("a", 1), ("a", 1, 2)),
    (Types.ROW([Types.STRING(), Types.INT()]), Row("a", 1), Row("a", "b")),
    (Types.ROW_NAMED(["k", "v"], [Types.STRING(), Types.INT()]), Row(k="a", v=1), 5),
])
def test_value_type_checks(reg, type_info, good, bad):
    s = reg.get(ValueStateDescriptor("st", type_info), 'value')
    s.update(good)
    assert s.value() == good
    if bad is None:
        return
    with pytest.raises(TypeError) as info:
        s.update(bad)
    msg = str(info.value)
    assert "'st'" in msg and repr(bad)[:20] in msg and repr(type_info) in msg
    assert s.value() == good  # unchanged


def test_pickled_and_untyped_accept_anything(reg):
    for i, t in enumerate((Types.PICKLED_BYTE_ARRAY(), None)):
        s = reg.get(ValueStateDescriptor("p%d" % i, t), 'value')
        s.update(object)
        s.update({"any": [1, "thing"]})


def test_collection_type_checks(reg):
    lst = reg.get(ListStateDescriptor("l", Types.LONG()), 'list')
    with pytest.raises(TypeError, match="element 'x'"):
        lst.add("x")
    with pytest.raises(TypeError):
        lst.update([1, "x"])
    assert list(lst.get()) == []
    m = reg.get(MapStateDescriptor("m", Types.STRING(), Types.LONG()), 'map')
    with pytest.raises(TypeError, match="map key"):
        m.put(1, 1)
    with pytest.raises(TypeError, match="map value"):
        m.put("a", "b")
    r = reg.get(ReducingStateDescriptor("r", lambda a, b: str(a) + str(b), Types.LONG()), 'reducing')
    r.add(1)
    with pytest.raises(TypeError, match="'r'"):
        r.add(2)
    a = reg.get(AggregatingStateDescriptor("a", Avg(), Types.STRING()), 'aggregating')
    with pytest.raises(TypeError, match="accumulator"):
        a.add(1)


# ---------------------------------------------------------------------------- TTL

def test_ttl_value_on_create_and_write(reg):
    s = reg.get(with_ttl(ValueStateDescriptor("v", Types.LONG()), ttl(100)), 'value')
    reg.now = 1000
    s.update(1)
    reg.now = 1099
    assert s.value() == 1
    reg.now = 1100  # expires when last_access + ttl <= now
    assert s.value() is None
    assert reg._current == {}


def test_ttl_value_on_read_and_write_extends(reg):
    s = reg.get(with_ttl(ValueStateDescriptor("v", Types.LONG()), ttl(100, read=True)), 'value')
    reg.now = 0
    s.update(1)
    reg.now = 90
    assert s.value() == 1
    reg.now = 180
    assert s.value() == 1
    reg.now = 280
    assert s.value() is None


def test_ttl_write_refreshes_but_read_does_not_by_default(reg):
    s = reg.get(with_ttl(ValueStateDescriptor("v", Types.LONG()), ttl(100)), 'value')
    reg.now = 0
    s.update(1)
    reg.now = 90
    assert s.value() == 1
    reg.now = 100
    assert s.value() is None
    s.update(2)
    reg.now = 199
    assert s.value() == 2


def test_ttl_return_expired_if_not_cleaned_up(reg):
    s = reg.get(with_ttl(ValueStateDescriptor("v", Types.LONG()), ttl(10, visible=True)), 'value')
    reg.now = 0
    s.update(7)
    reg.now = 50
    assert s.value() == 7      # expired but still stored: returned, and cleaned up
    assert s.value() is None


def test_ttl_list_per_element(reg):
    s = reg.get(with_ttl(ListStateDescriptor("l", Types.INT()), ttl(100)), 'list')
    reg.now = 0
    s.add(1)
    reg.now = 50
    s.add_all([2, 3])
    reg.now = 120
    assert list(s.get()) == [2, 3]
    assert len(reg._current['l']) == 2
    reg.now = 150
    assert list(s.get()) == []
    assert 'l' not in reg._current
    s.update([5, 6])
    reg.now = 249
    assert list(s.get()) == [5, 6]


def test_ttl_list_read_refresh_and_visibility(reg):
    s = reg.get(with_ttl(ListStateDescriptor("l", Types.INT()), ttl(100, read=True)), 'list')
    reg.now = 0
    s.add(1)
    reg.now = 80
    assert list(s.get()) == [1]
    reg.now = 170
    assert list(s.get()) == [1]
    v = reg.get(with_ttl(ListStateDescriptor("v", Types.INT()), ttl(10, visible=True)), 'list')
    reg.now = 200
    v.add(1)
    reg.now = 205
    v.add(2)
    reg.now = 212
    assert list(v.get()) == [1, 2]   # 1 is expired but returned once
    assert list(v.get()) == [2]


def test_ttl_map_per_entry(reg):
    s = reg.get(with_ttl(MapStateDescriptor("m", Types.STRING(), Types.INT()), ttl(100)), 'map')
    reg.now = 0
    s.put("a", 1)
    reg.now = 60
    s.put("b", 2)
    reg.now = 100
    assert s.get("a") is None
    assert not s.contains("a")
    assert s.get("b") == 2
    assert s.items() == [("b", 2)]
    assert s.keys() == ["b"] and s.values() == [2]
    assert not s.is_empty()
    reg.now = 160
    assert s.is_empty()
    assert 'm' not in reg._current


def test_ttl_map_read_refresh(reg):
    s = reg.get(with_ttl(MapStateDescriptor("m", Types.STRING(), Types.INT()), ttl(100, read=True)), 'map')
    reg.now = 0
    s.put("a", 1)
    s.put("b", 2)
    reg.now = 90
    assert s.get("a") == 1
    reg.now = 150
    assert s.get("a") == 1
    assert s.get("b") is None


def test_ttl_reducing_and_aggregating(reg):
    r = reg.get(with_ttl(ReducingStateDescriptor("r", lambda a, b: a + b, Types.LONG()), ttl(100)),
                'reducing')
    a = reg.get(with_ttl(AggregatingStateDescriptor("a", Avg(), None), ttl(100)), 'aggregating')
    reg.now = 0
    r.add(1)
    a.add(2)
    reg.now = 50
    r.add(2)
    a.add(4)
    assert r.get() == 3 and a.get() == 3.0
    reg.now = 149
    assert r.get() == 3 and a.get() == 3.0
    reg.now = 150
    assert r.get() is None and a.get() is None
    r.add(10)   # starts afresh after expiry
    a.add(10)
    assert r.get() == 10 and a.get() == 10.0


def test_ttl_reducing_return_expired_keeps_reducing(reg):
    r = reg.get(with_ttl(ReducingStateDescriptor("r", lambda a, b: a + b, Types.LONG()),
                         ttl(10, visible=True)), 'reducing')
    reg.now = 0
    r.add(1)
    reg.now = 20
    r.add(2)
    assert r.get() == 3


def test_write_back_removes_expired_and_sets_next_expiry():
    reg = KeyedStateRegistry()
    ks = KeyState()
    reg.bind(ks)
    v = reg.get(with_ttl(ValueStateDescriptor("v", Types.LONG()), ttl(100)), 'value')
    lst = reg.get(with_ttl(ListStateDescriptor("l", Types.LONG()), ttl(100)), 'list')
    m = reg.get(with_ttl(MapStateDescriptor("m", Types.LONG(), Types.LONG()), ttl(100)), 'map')
    r = reg.get(with_ttl(ReducingStateDescriptor("r", max, Types.LONG()), ttl(100)), 'reducing')
    plain = reg.get(ValueStateDescriptor("plain", Types.LONG()), 'value')
    reg.now = 0
    v.update(1)
    lst.add(1)
    m.put(1, 1)
    r.add(1)
    reg.now = 30
    lst.add(2)
    m.put(2, 2)
    reg.write_back(ks)
    assert ks.ttl_expiry == 100
    reg.now = 100
    reg.write_back(ks)
    assert ks.states == {'l': [(2, 30)], 'm': {2: (2, 30)}}
    assert ks.ttl_expiry == 130
    reg.now = 130
    reg.write_back(ks)
    assert ks.is_empty() and ks.ttl_expiry is None
    plain.update(5)
    reg.write_back(ks)
    assert ks.states == {'plain': 5} and ks.ttl_expiry is None


def test_write_back_skipped_without_background_cleanup():
    reg = KeyedStateRegistry()
    ks = KeyState()
    reg.bind(ks)
    v = reg.get(with_ttl(ValueStateDescriptor("v", Types.LONG()), ttl(10, background=False)), 'value')
    reg.now = 0
    v.update(1)
    reg.now = 100
    reg.write_back(ks)
    assert 'v' in ks.states          # only removed when read
    assert v.value() is None
    assert ks.is_empty()


def test_disabled_ttl_is_plain_state(reg):
    cfg = StateTtlConfig.new_builder(Time.milliseconds(1)).set_update_type(
        StateTtlConfig.UpdateType.Disabled).build()
    s = reg.get(with_ttl(ValueStateDescriptor("v", Types.LONG()), cfg), 'value')
    reg.now = 0
    s.update(1)
    reg.now = 10 ** 9
    assert s.value() == 1
    assert reg._current == {'v': 1}


def test_peek_has_no_side_effects():
    reg = KeyedStateRegistry()
    ks = KeyState()
    reg.bind(ks)
    v = reg.get(with_ttl(ValueStateDescriptor("v", Types.LONG()), ttl(10)), 'value')
    a = reg.get(AggregatingStateDescriptor("a", Avg(), None), 'aggregating')
    reg.get(ListStateDescriptor("l", Types.LONG()), 'list')
    reg.get(MapStateDescriptor("m", Types.LONG(), Types.LONG()), 'map')
    reg.now = 0
    v.update(3)
    a.add(2)
    assert reg.peek(ks, "v") == 3
    assert reg.peek(ks, "a") == 2.0
    assert reg.peek(ks, "l") == [] and reg.peek(ks, "m") == {}
    reg.now = 10
    assert reg.peek(ks, "v") is None
    assert 'v' in ks.states
    with pytest.raises(KeyError):
        reg.peek(ks, "nope")
