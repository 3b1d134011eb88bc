"""SpilledList: appends touch nothing stored; any read loads the spilled elements first."""
from __future__ import annotations

import copy
import pickle

import pytest

from kindling.runtime.spilled_list import RecordPickling, RecordRestoring, SpilledList


class Segments:
    """Segments kept in a dict, counting reads."""

    def __init__(self, **segments):
        self.segments = {int(k[1:]): v for k, v in segments.items()}
        self.reads = 0

    def __call__(self, names):
        self.reads += 1
        return [e for n in names for e in self.segments[n]]


def test_appending_and_length_do_not_read_segments():
    store = Segments(s1=[1, 2], s2=[3])
    lst = SpilledList((1, 2), 3, [4], store)
    lst.append(5)
    lst.extend([6])
    lst += [7]
    assert len(lst) == 7 and bool(lst)
    assert store.reads == 0
    assert lst.tail_length() == 4


@pytest.mark.parametrize("read", [
    list, tuple, sorted, repr, lambda x: x[0], lambda x: x[-1], lambda x: 3 in x, lambda x: x == [1, 2, 3, 4],
    lambda x: x + [9], lambda x: [0] + x, lambda x: x.index(3), lambda x: x.count(1), copy.copy, copy.deepcopy,
    lambda x: list(reversed(x)), lambda x: x.pop(), lambda x: pickle.loads(pickle.dumps(x)),
])
def test_every_read_sees_spilled_elements_first(read):
    store = Segments(s1=[1, 2], s2=[3])
    lst = SpilledList((1, 2), 3, [4], store)
    plain = [1, 2, 3, 4]
    assert read(lst) == read(plain)
    assert store.reads == 1
    assert lst.loaded_segments == (1, 2) and lst.segments == ()


def test_spill_moves_the_held_elements_into_a_segment():
    lst = SpilledList((1,), 2, [3, 4], Segments(s1=[1, 2]))
    assert lst.spill(7) == [3, 4]
    assert lst.segments == (1, 7) and lst.spilled == 4 and lst.tail_length() == 0


def test_a_record_pickles_segment_names_and_restores_with_the_loader():
    lst = SpilledList((1,), 2, [3], None)
    with RecordPickling():
        blob = pickle.dumps({"w": lst})
    store = Segments(s1=[1, 2])
    seen: set = set()
    with RecordRestoring(store, seen):
        restored = pickle.loads(blob)["w"]
    assert seen == {1} and store.reads == 0
    assert list(restored) == [1, 2, 3]


def test_outside_a_record_a_spilled_list_pickles_as_a_plain_list():
    lst = SpilledList((1,), 2, [3], Segments(s1=[1, 2]))
    assert type(pickle.loads(pickle.dumps(lst))) is list
    assert pickle.loads(pickle.dumps(lst)) == [1, 2, 3]


def test_reading_without_a_loader_fails_clearly():
    with pytest.raises(RuntimeError, match="spilled list"):
        list(SpilledList((1,), 1, [], None))
