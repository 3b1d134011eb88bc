"""The adapters that run co-functions and broadcast functions as one-input functions (no Spark)."""
from __future__ import annotations

import pytest

from kindling.common import Types
from kindling.datastream import BroadcastProcessFunction, KeyedCoProcessFunction, OutputTag
from kindling.datastream.state import MapStateDescriptor
from kindling.runtime.co_functions import (BROADCAST, BroadcastProcessAdapter, KeyedCoProcessAdapter,
                                           SideKeySelector, Tagged)

rules = MapStateDescriptor("rules", Types.STRING(), Types.INT())
late = OutputTag("late", Types.STRING())


class Ctx:
    def timestamp(self):
        return 7


class Join(KeyedCoProcessFunction):
    def process_element1(self, value, ctx):
        yield "first", value

    def process_element2(self, value, ctx):
        yield "second", value

    def on_timer(self, timestamp, ctx):
        yield "timer", timestamp


def test_tagged_elements_reach_their_side_and_their_key():
    adapter = KeyedCoProcessAdapter(Join())
    adapter.open(None)
    assert list(adapter.process_element(Tagged(0)("a"), Ctx())) == [("first", "a")]
    assert list(adapter.process_element(Tagged(1)("b"), Ctx())) == [("second", "b")]
    assert list(adapter.on_timer(5, Ctx())) == [("timer", 5)]
    keys = SideKeySelector(lambda v: v.upper(), len)
    assert keys((0, "ab")) == "AB" and keys((1, "ab")) == 2
    assert SideKeySelector(len)((1, "x")) is BROADCAST


class Rules(BroadcastProcessFunction):
    def process_element(self, value, ctx):
        state = ctx.get_broadcast_state(rules)
        if value == "write":
            state.put("x", 1)
        yield value, state.get("limit"), ctx.timestamp()

    def process_broadcast_element(self, value, ctx):
        ctx.get_broadcast_state(rules).put(value[0], value[1])
        yield late, f"rule {value[0]}"
        ctx.output(late, f"again {value[0]}")


def test_broadcast_elements_write_and_main_elements_read():
    adapter = BroadcastProcessAdapter(Rules(), [rules])
    adapter.open(None)
    out = adapter.process_broadcast([((1, ("limit", 3)), 10), ((1, ("limit", 4)), 11)], 0, 0)
    assert out == [("late", "rule limit", 10), ("late", "again limit", 10),
                   ("late", "rule limit", 11), ("late", "again limit", 11)]
    assert adapter.version == 2 and adapter.states == {"rules": {"limit": 4}}
    assert list(adapter.process_element((0, "read"), Ctx())) == [("read", 4, 7)]
    with pytest.raises(RuntimeError, match="read-only"):
        list(adapter.process_element((0, "write"), Ctx()))
    with pytest.raises(ValueError, match="no broadcast state 'other'"):
        adapter.state_of(MapStateDescriptor("other", Types.STRING(), Types.INT()))
