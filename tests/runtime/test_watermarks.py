"""Watermark generators (periodic and per-element emission) and the per-channel minimum."""
from types import SimpleNamespace

import pytest

from kindling.common.time import Duration
from kindling.runtime.channels import ChannelTable, ReadLog, Replay, Timeline
from kindling.runtime.task_info import MIN_WATERMARK
from kindling.runtime.watermarks import Generators, WatermarkGenerator, generator_for


def strategy(kind, delay=0, assigner=None, idleness_ms=None):
    return SimpleNamespace(kind=kind, max_out_of_orderness_ms=delay, timestamp_assigner=assigner,
                           idleness_ms=idleness_ms)


class Clock:
    """Processing time that moves only when a test says so."""

    def __init__(self, now=0):
        self.now = now

    def __call__(self):
        return self.now


def per_element(s):
    return WatermarkGenerator(s, per_element=True)


def stamps(gen, tss):
    return [gen.stamp_and_timestamp(None, t) for t in tss]


# -- per-element emission (Kindling's deterministic mode) ----------------------------------

def test_bounded_out_of_orderness():
    gen = per_element(strategy('bounded', 5))
    assert stamps(gen, [10, 8, 20, 12]) == [(10, MIN_WATERMARK), (8, 4), (20, 4), (12, 14)]
    assert gen.current_watermark == 14


def test_monotonous():
    gen = per_element(strategy('monotonous'))
    assert stamps(gen, [1, 2, 2, 5]) == [(1, MIN_WATERMARK), (2, 0), (2, 1), (5, 1)]
    assert gen.current_watermark == 4


def test_no_watermarks_and_no_strategy():
    for gen in (per_element(strategy('none')), per_element(None), WatermarkGenerator(None)):
        assert stamps(gen, [100, 200]) == [(100, MIN_WATERMARK), (200, MIN_WATERMARK)]
        assert gen.level() == MIN_WATERMARK


def test_elements_without_timestamp_do_not_move_watermark():
    gen = per_element(strategy('bounded', 0))
    assert stamps(gen, [None, 5, None]) == [(None, MIN_WATERMARK), (5, MIN_WATERMARK), (None, 4)]


def test_timestamp_assigner_object_and_functions():
    class Assigner:
        def extract_timestamp(self, value, record_timestamp):
            return value[1]
    gen = per_element(strategy('monotonous', assigner=Assigner()))
    assert gen.stamp_and_timestamp(('a', 7), None) == (7, MIN_WATERMARK)
    assert gen.stamp_and_timestamp(('a', 9), None) == (9, 6)
    gen = per_element(strategy('monotonous', assigner=lambda v, ts: v * 10))
    assert gen.stamp_and_timestamp(3, 0) == (30, MIN_WATERMARK)
    gen = per_element(strategy('monotonous', assigner=lambda v: v + 1))
    assert gen.stamp_and_timestamp(3, 0) == (4, MIN_WATERMARK)
    with pytest.raises(TypeError):
        WatermarkGenerator(strategy('monotonous', assigner=5))


def test_duration_delay_and_stamp_all():
    gen = per_element(strategy('bounded', Duration.of_millis(2)))
    assert list(gen.stamp_all([("a", 10), ("b", 20)])) == [("a", 10, MIN_WATERMARK), ("b", 20, 7)]


def test_unknown_kind():
    with pytest.raises(ValueError):
        WatermarkGenerator(strategy('periodic'))


# -- periodic emission, as Flink's pipeline.auto-watermark-interval ----------------------

def test_periodic_emission_follows_processing_time():
    clock = Clock(1000)
    gen = WatermarkGenerator(strategy('bounded', 5), interval_ms=200, clock=clock)
    assert stamps(gen, [10, 20]) == [(10, MIN_WATERMARK), (20, MIN_WATERMARK)]  # read within one interval
    clock.now = 1199
    assert stamps(gen, [30]) == [(30, MIN_WATERMARK)]
    clock.now = 1200  # the first periodic emission: one interval after start, before the next element
    assert stamps(gen, [40, 50]) == [(40, 24), (50, 24)]
    clock.now = 1300
    assert stamps(gen, [60]) == [(60, 24)]  # the next emission is due at 1400
    clock.now = 1400
    assert stamps(gen, [5]) == [(5, 54)]
    assert gen.level() == 54  # end of the read: emits what it reached (60 - 5 - 1)


def test_small_input_sees_no_watermark_before_its_end():
    """PyFlink's event_time_timer example: a collection read within one interval."""
    gen = WatermarkGenerator(strategy('bounded', 2000), clock=Clock(0))
    out = stamps(gen, [1000, 4000, 3000, 2000, 5000, 3000, 7000, 10000])
    assert {stamp for _, stamp in out} == {MIN_WATERMARK}
    assert gen.level() == 7999


def test_interval_zero_turns_periodic_emission_off():
    clock = Clock(0)
    gen = WatermarkGenerator(strategy('monotonous'), interval_ms=0, clock=clock)
    clock.now = 10**9
    assert stamps(gen, [5, 6]) == [(5, MIN_WATERMARK), (6, MIN_WATERMARK)]
    assert gen.level() == MIN_WATERMARK  # nothing until the end of input (MAX_WATERMARK)
    assert gen.emit() == 5


def test_generators_share_settings():
    clock = Clock(0)
    generators = Generators(interval_ms=0, per_element=True, clock=clock)
    gen = generator_for(generators, "a", strategy('monotonous', idleness_ms=300))
    assert generator_for(generators, "a", None) is gen and gen.idleness_ms == 300
    assert stamps(gen, [5, 6]) == [(5, MIN_WATERMARK), (6, 4)]
    assert generator_for({}, "b", strategy('monotonous')).level() == MIN_WATERMARK


# -- the minimum over channels ----------------------------------------------------------

def report(**channels):
    """``{channel: (level, finished, had_elements, idleness_ms)}``"""
    return {name: entry for name, entry in channels.items()}


def test_watermark_is_the_minimum_over_channels():
    table = ChannelTable()
    table.apply([report(fast=(5000, False, True, None)), report(slow=(1000, False, True, None))], now=0)
    assert table.floor == 1000
    table.apply([report(slow=(7000, False, True, None))], now=10)
    assert table.floor == 5000


def test_finished_channel_stops_holding_back_and_all_finished_gives_the_maximum():
    table = ChannelTable()
    table.apply([report(a=(100, False, True, None), b=(900, False, True, None))], now=0)
    table.apply([report(a=(150, True, True, None))], now=1)
    assert table.floor == 900 and list(table.channels) == ["b"]
    table.apply([report(b=(950, True, True, None))], now=2)
    assert table.floor == 950 and not table.channels


def test_idle_channel_stops_counting_until_it_has_elements_again():
    table = ChannelTable()
    table.apply([report(busy=(5000, False, True, None), quiet=(1000, False, True, 300))], now=0)
    assert table.floor == 1000
    table.apply([report(busy=(6000, False, True, None))], now=299)
    assert table.floor == 1000
    table.apply([report(busy=(7000, False, True, None))], now=300)  # quiet: no elements for 300 ms
    assert table.floor == 7000
    replay = table.begin_batch([report(quiet=(1200, False, True, 300))], now=400)
    assert replay.levels == {"quiet": 1000, "busy": 7000}  # active again: counts (its elements are late)
    assert replay.before == 7000 and replay.after == 7000  # the watermark never goes back


def test_all_idle_gives_the_maximum():
    table = ChannelTable()
    table.apply([report(a=(10, False, True, 5), b=(20, False, True, 5))], now=0)
    assert table.floor == 10
    table.apply([], now=100)
    assert table.floor == 20


def test_new_channel_holds_the_watermark_where_it_was():
    table = ChannelTable()
    table.apply([report(a=(500, True, True, None))], now=0)
    assert table.floor == 500
    replay = table.begin_batch([report(b=(800, False, True, None))], now=1)
    before, out, after = replay.run([("b", 0, [("x", 300, MIN_WATERMARK), ("y", 900, 700)])])
    assert before == 500 and [w for _, _, w in out] == [500, 700] and after == 800


def test_replay_merges_channels_by_stamp_with_the_minimum_before_each_element():
    table = ChannelTable()
    replay = table.begin_batch([report(fast=(2999, True, True, None)), report(slow=(499, True, True, None))], now=0)
    fast = ("fast", 0, [("f1", 1000, MIN_WATERMARK), ("f2", 2000, 999), ("f3", 3000, 1999)])
    slow = ("slow", 0, [("s1", 100, MIN_WATERMARK), ("s2", 300, 99), ("s3", 500, 299)])
    before, out, after = replay.run([fast, slow])
    assert before == MIN_WATERMARK and after == 2999
    # by stamp, then channel; each element sees min(fast, slow) as they stood: nothing is late
    assert out == [("f1", 1000, MIN_WATERMARK), ("s1", 100, MIN_WATERMARK), ("s2", 300, MIN_WATERMARK),
                   ("s3", 500, MIN_WATERMARK), ("f2", 2000, 299), ("f3", 3000, 299)]
    assert all(ts > wm for _, ts, wm in out)


def test_replay_keeps_each_channels_order_across_rows():
    replay = Replay({"a": MIN_WATERMARK}, MIN_WATERMARK, 50)
    rows = [("a", 1, [("third", 30, 19)]), ("a", 0, [("first", 10, MIN_WATERMARK), ("second", 20, 9)])]
    _, out, _ = replay.run(rows)
    assert [v for v, _, _ in out] == ["first", "second", "third"]
    assert [w for _, _, w in out] == [MIN_WATERMARK, 9, 19]


def test_elements_without_channel_see_the_current_watermark():
    replay = Replay({}, 100, 100)
    assert replay.run([(None, 0, [("x", None, None)])]) == (100, [("x", None, 100)], 100)


def test_table_round_trip():
    table = ChannelTable()
    table.apply([report(a=(10, False, True, 7))], now=3)
    assert ChannelTable.from_tuple(table.to_tuple()).to_tuple() == table.to_tuple()


def test_time_settings_from_the_environment():
    from kindling.common import Configuration
    from kindling.common.execution_config import ExecutionConfig
    from kindling.spark.compiler import TimeSettings

    class Env:
        def __init__(self, conf):
            self.conf, self.config = conf, ExecutionConfig()

        def get_configuration(self):
            return self.conf

        def get_config(self):
            return self.config

    env = Env(Configuration())
    assert TimeSettings.of(env) == TimeSettings(200, False)
    env.conf.set_string("pipeline.auto-watermark-interval", "1 s")
    env.conf.set_boolean("kindling.watermark.per-element", True)
    assert TimeSettings.of(env) == TimeSettings(1000, True)
    env.config.set_auto_watermark_interval(0)  # set_auto_watermark_interval wins over the key
    assert TimeSettings.of(env).interval_ms == 0
    env.conf.set_string("pipeline.auto-watermark-interval", "soon")
    env.config.set_auto_watermark_interval(200)
    with pytest.raises(ValueError, match="auto-watermark-interval"):
        TimeSettings.of(env)
    env.conf.set_string("pipeline.auto-watermark-interval", "200 ms")
    assert (TimeSettings.of(env).bundle_time_ms, TimeSettings.of(env).bundle_size) == (1000, 100_000)
    env.conf.set_string("python.fn-execution.bundle.time", "2000")
    env.conf.set_string("python.fn-execution.bundle.size", "0")  # PyFlink's default where not positive
    assert (TimeSettings.of(env).bundle_time_ms, TimeSettings.of(env).bundle_size) == (2000, 100_000)
    env.conf.set_string("python.fn-execution.bundle.time", "1 s")
    with pytest.raises(ValueError, match="python.fn-execution.bundle.time must be a whole number"):
        TimeSettings.of(env)


def test_idle_channel_that_reports_without_elements_does_not_count():
    table = ChannelTable()
    table.apply([report(busy=(100, False, True, None), quiet=(50, False, True, 10))], now=0)
    replay = table.begin_batch([report(busy=(900, False, True, None), quiet=(50, False, False, 10))], now=20)
    assert replay.levels == {"busy": 100}
    _, out, after = replay.run([("busy", 0, [("x", 600, 500)])])
    assert out == [("x", 600, 500)] and after == 900


def test_channel_without_elements_in_the_batch_does_not_hold_the_replay_back():
    table = ChannelTable()
    replay = table.begin_batch([report(data=(4799, True, True, None)), report(empty=(MIN_WATERMARK, True, False, None)),
                                report(quiet=(300, False, False, None))], now=0)
    assert replay.levels == {"data": MIN_WATERMARK, "quiet": 300}
    _, out, after = replay.run([("data", 0, [("a", 1000, MIN_WATERMARK), ("b", 900, 1899)])])
    assert [w for _, _, w in out] == [MIN_WATERMARK, 300] and after == 300  # quiet still counts


# -- one-step jobs: the read logs and the timeline they give ----------------------------------

def test_read_log_places_elements_and_records_where_a_channels_stamps_change():
    log = ReadLog(("stage", 0, 3), 3)
    assert log.place(b"a|p3", MIN_WATERMARK, 1000) == (1000, 0, 3)
    assert log.place(b"a|p3", 499, 1200) == (1200, 1, 3)
    assert log.place(b"a|p3", 499, 1100) == (1200, 2, 3)  # places never go back within a task
    assert log.take(final=False) == ([((1200, 1, 3), (b"a|p3", ("stage", 0, 3)), 499)], [])
    log.place(b"a|p3", 999, 1300)
    changes, ends = log.take(final=True, processing_time=1400)
    assert changes == [((1300, 3, 3), (b"a|p3", ("stage", 0, 3)), 999)]
    assert ends == [((1400, 4, 3), (b"a|p3", ("stage", 0, 3)))]


def test_read_log_of_a_task_without_elements_ends_its_default_channel():
    assert ReadLog(("s", 0, 1), 1).take(True, b"a|p1", 50) == ([], [((50, 0, 1), (b"a|p1", ("s", 0, 1)))])


def test_read_log_counts_unnamed_stamps_only_with_their_processing_time():
    """An upstream keyed operator's watermark (no channel name) counts where its replay hands it on
    with a processing time, not after a union, where its parallel instances' rows meet."""
    log = ReadLog(("s", 0, 0), 0)
    log.place(None, 700, None)
    assert log.take(False) == ([], [])
    place = log.place(None, 700, 5)
    assert log.take(False)[0] == [(place, (None, ("s", 0, 0)), 700)]


def test_timeline_gives_each_point_the_minimum_over_the_channels_that_have_not_ended():
    fast, slow = ("fast", ("s", 0, 0)), ("slow", ("s", 0, 1))
    logs = [([((10, 1, 0), fast, 1000), ((20, 2, 0), fast, 3000)], [((40, 6, 0), fast)]),
            ([((15, 1, 1), slow, 200)], [((22, 2, 1), slow)])]
    places = [(10, 0, 0), (10, 1, 0), (12, 0, 1), (15, 1, 1), (20, 2, 0), (30, 5, 0)]
    timeline = Timeline(places, logs)
    watermarks = [timeline.wm[k] for k in timeline.element_points]
    # the change an element's stamp made comes before it; a channel that ended stops holding
    assert watermarks == [MIN_WATERMARK, MIN_WATERMARK, MIN_WATERMARK, 200, 200, 3000]
    assert [timeline.ms[k] for k in timeline.element_points] == [10, 10, 12, 15, 20, 30]
    assert timeline.end_ms == 40 and timeline.end_wm == 3000  # the last channel's end: no rise to MAX
    assert [timeline.wm[k] for k in timeline.steps] == [200, 3000]


def test_timeline_tells_where_timers_fall_due():
    ch = ("c", ("s", 0, 0))
    timeline = Timeline([(0, 0, 0), (5, 2, 0), (9, 4, 0)],
                        [([((5, 1, 0), ch, 100), ((9, 3, 0), ch, 300)], [((9, 5, 0), ch)])])
    # points: element 0, change to 100, element, change to 300, element, end
    assert timeline.wm == [MIN_WATERMARK, 100, 100, 300, 300, 300]
    assert timeline.event_firing(100, 0) == 1 and timeline.event_firing(101, 0) == 3
    assert timeline.event_firing(50, 2) == 3  # fires where the watermark rises next
    assert timeline.event_firing(301, 0) is None  # not before the end of the input
    assert timeline.processing_firing(5, 0) == 1 and timeline.processing_firing(5, 3) == 3
    assert timeline.processing_firing(10, 0) is None


def test_timeline_ends_bundles_where_a_pyflink_python_operator_does():
    """PyFlink's check every period from the operator's start ends a bundle holding elements,
    unless it ended one a period or less before; a full bundle ends at once; watermarks end none."""
    ch = ("c", ("s", 0, 0))
    reads = [0, 500, 1200, 1500, 2100, 2900, 3000, 3100, 9000, 9400, 10000]
    places = [(ms, i, 0) for i, ms in enumerate(reads)]
    timeline = Timeline(places, [([((1500, 3, 0), ch, 100)], [((10000, 11, 0), ch)])])
    at = {timeline.ms[k]: k for k in reversed(timeline.element_points)}
    # 1000 ends [0, 500]; 2000 comes too soon after it, 3000 ends [1200, 2900] (before the element
    # read at 3000); 4000 ends [3000, 3100]; after a pause, 9000 comes when the bundle is empty and
    # 10000 ends [9000, 9400]
    assert timeline.bundle_ends(1000, 100_000) == [at[1200], at[3000], at[9000], at[10000]]
    # three elements end a bundle before the next: [1200, 1500, 2100] and [2900, 3000, 3100]
    assert timeline.bundle_ends(1000, 3) == [at[1200], at[2900], at[9000], at[10000]]
    assert Timeline([], ()).bundle_ends(1000, 3) == []


def test_timeline_without_channels_keeps_the_watermark_at_min():
    timeline = Timeline([(1, 0, 0), (2, 1, 0)], ())
    assert timeline.wm == [MIN_WATERMARK, MIN_WATERMARK] and timeline.steps == [] and timeline.end_ms == 2
