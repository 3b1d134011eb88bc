import pickle

import cloudpickle
import pytest

from kindling.runtime.key_state import KeyState
from kindling.runtime.task_info import MIN_WATERMARK


def test_fresh_key_state_is_empty():
    ks = KeyState()
    assert ks.is_empty()
    assert ks.next_event_timer() is None
    assert ks.next_processing_timer() is None
    assert ks.fired_watermark == MIN_WATERMARK
    assert ks.ttl_expiry is None


def test_timers_collapse_and_order():
    ks = KeyState()
    for t in (30, 10, 20, 10, 30):
        ks.register_event_timer(t)
    assert ks.num_event_timers() == 3
    assert ks.event_timers() == [10, 20, 30]
    assert ks.next_event_timer() == 10
    assert not ks.is_empty()
    assert ks.pop_event_timer(5) is None
    assert ks.pop_event_timer(20) == 10
    assert ks.pop_event_timer(20) == 20
    assert ks.pop_event_timer(20) is None
    assert ks.pop_event_timer(100) == 30
    assert ks.is_empty()


def test_delete_and_reregister_timer():
    ks = KeyState()
    ks.register_processing_timer(5)
    ks.register_processing_timer(7)
    ks.delete_processing_timer(5)
    assert ks.next_processing_timer() == 7
    ks.register_processing_timer(5)
    assert ks.processing_timers() == [5, 7]
    assert ks.pop_processing_timer(100) == 5
    assert ks.pop_processing_timer(100) == 7
    assert ks.pop_processing_timer(100) is None
    ks.delete_processing_timer(42)  # deleting an absent timer is fine
    assert ks.is_empty()


def test_deleting_last_timer_empties():
    ks = KeyState()
    ks.register_event_timer(1)
    ks.delete_event_timer(1)
    assert ks.is_empty()
    assert ks.next_event_timer() is None


def test_timer_timestamp_must_be_int():
    ks = KeyState()
    with pytest.raises(TypeError):
        ks.register_event_timer(1.5)
    with pytest.raises(TypeError):
        ks.register_processing_timer("1")


def test_bytes_round_trip():
    ks = KeyState()
    ks.states['v'] = 3
    ks.states['l'] = [1, 2]
    ks.register_event_timer(20)
    ks.register_event_timer(10)
    ks.register_processing_timer(99)
    ks.fired_watermark = 7
    ks.ttl_expiry = 1000
    b = ks.to_bytes()
    assert isinstance(b, bytes)
    back = KeyState.from_bytes(b)
    assert back.states == {'v': 3, 'l': [1, 2]}
    assert back.event_timers() == [10, 20]
    assert back.processing_timers() == [99]
    assert back.fired_watermark == 7
    assert back.ttl_expiry == 1000
    assert back.pop_event_timer(15) == 10


def test_plain_pickle_and_cloudpickle():
    ks = KeyState()
    ks.states['x'] = {'a': 1}
    ks.register_event_timer(3)
    for mod in (pickle, cloudpickle):
        back = mod.loads(mod.dumps(ks))
        assert back.states == {'x': {'a': 1}}
        assert back.event_timers() == [3]


def test_to_bytes_falls_back_to_cloudpickle_for_lambdas():
    ks = KeyState()
    ks.states['f'] = lambda x: x + 1
    back = KeyState.from_bytes(ks.to_bytes())
    assert back.states['f'](1) == 2


def test_empty_round_trip_is_small():
    assert len(KeyState().to_bytes()) < 40
