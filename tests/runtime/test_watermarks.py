from types import SimpleNamespace

import pytest

from kindling.common.time import Duration
from kindling.runtime.task_info import MIN_WATERMARK
from kindling.runtime.watermarks import WatermarkGenerator


def strategy(kind, delay=0, assigner=None):
    return SimpleNamespace(kind=kind, max_out_of_orderness_ms=delay, timestamp_assigner=assigner,
                           idleness_ms=None)


def stamps(gen, tss):
    return [gen.stamp_and_timestamp(None, t) for t in tss]


def test_bounded_out_of_orderness():
    gen = WatermarkGenerator(strategy('bounded', 5))
    assert stamps(gen, [10, 8, 20, 12]) == [(10, MIN_WATERMARK), (8, 4), (20, 4), (12, 14)]
    assert gen.current_watermark == 14


def test_monotonous():
    gen = WatermarkGenerator(strategy('monotonous'))
    assert stamps(gen, [1, 2, 2, 5]) == [(1, MIN_WATERMARK), (2, 0), (2, 1), (5, 1)]
    assert gen.current_watermark == 4


def test_no_watermarks_and_no_strategy():
    for gen in (WatermarkGenerator(strategy('none')), WatermarkGenerator(None)):
        assert stamps(gen, [100, 200]) == [(100, MIN_WATERMARK), (200, MIN_WATERMARK)]
        assert gen.current_watermark == MIN_WATERMARK


def test_elements_without_timestamp_do_not_move_watermark():
    gen = WatermarkGenerator(strategy('bounded', 0))
    assert stamps(gen, [None, 5, None]) == [(None, MIN_WATERMARK), (5, MIN_WATERMARK), (None, 4)]


def test_start_watermark():
    gen = WatermarkGenerator(strategy('bounded', 10), start_watermark=100)
    assert stamps(gen, [50, 120, 105]) == [(50, 100), (120, 100), (105, 109)]


def test_timestamp_assigner_object_and_functions():
    class Assigner:
        def extract_timestamp(self, value, record_timestamp):
            return value[1]
    gen = WatermarkGenerator(strategy('monotonous', assigner=Assigner()))
    assert gen.stamp_and_timestamp(('a', 7), None) == (7, MIN_WATERMARK)
    assert gen.stamp_and_timestamp(('a', 9), None) == (9, 6)
    gen = WatermarkGenerator(strategy('monotonous', assigner=lambda v, ts: v * 10))
    assert gen.stamp_and_timestamp(3, 0) == (30, MIN_WATERMARK)
    gen = WatermarkGenerator(strategy('monotonous', assigner=lambda v: v + 1))
    assert gen.stamp_and_timestamp(3, 0) == (4, MIN_WATERMARK)
    with pytest.raises(TypeError):
        WatermarkGenerator(strategy('monotonous', assigner=5))


def test_duration_delay_and_stamp_all():
    gen = WatermarkGenerator(strategy('bounded', Duration.of_millis(2)))
    assert list(gen.stamp_all([("a", 10), ("b", 20)])) == [("a", 10, MIN_WATERMARK), ("b", 20, 7)]


def test_unknown_kind():
    with pytest.raises(ValueError):
        WatermarkGenerator(strategy('periodic'))
