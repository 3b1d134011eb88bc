"""Connected streams end to end on Spark: co-map, co-flat-map, co-process and keyed co-process
(state and timers shared by both inputs, the watermark the minimum of both inputs' channels).
What PyFlink prints for the same operators is compared in tests/conformance (connected_streams)."""
from __future__ import annotations

import pytest
from collect_support import take  # tests/: on sys.path (tests/conftest.py)

from kindling.common import Types, WatermarkStrategy
from kindling.common.watermark_strategy import TimestampAssigner
from kindling.datastream import (CoFlatMapFunction, CoMapFunction, CoProcessFunction, KeyedCoProcessFunction,
                                 OutputTag, Partitioner)
from kindling.datastream.connectors.number_seq import NumberSequenceSource
from kindling.datastream.state import ListStateDescriptor

SPEED = [10, 40, 90, 250]  # ms of event time per element in the splits of 0-99, 100-199, 200-299, 300-399


def event_time(n: int) -> int:
    return (n % 100) * SPEED[n // 100]


class BySplitSpeed(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return event_time(value)


class Tick(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value * 2500


class CountUpToTick(KeyedCoProcessFunction):
    """Keeps the event times of the first input; a tick of the second registers a timer at its
    time, which reports how many of the key's events are at or before it."""

    def open(self, ctx):
        self.times = ctx.get_list_state(ListStateDescriptor("times", Types.LONG()))

    def process_element1(self, value, ctx):
        self.times.add(ctx.timestamp())

    def process_element2(self, value, ctx):
        ctx.timer_service().register_event_time_timer(ctx.timestamp())

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), timestamp, sum(1 for t in self.times.get() if t <= timestamp)


def test_a_timer_fires_once_both_inputs_and_all_their_splits_pass_it(env):
    # Four splits whose event times advance at different speeds, and ticks on a second input:
    # a tick's timer fires only when the minimum over every channel of both inputs reaches it,
    # so it has seen every event of its key up to its time, whatever the interleaving.
    env.get_configuration().set_boolean("kindling.watermark.per-element", True)
    env.set_parallelism(4)
    events = env.from_source(NumberSequenceSource(0, 399), WatermarkStrategy.no_watermarks(), "events") \
        .assign_timestamps_and_watermarks(WatermarkStrategy.for_monotonous_timestamps()
                                          .with_timestamp_assigner(BySplitSpeed()))
    ticks = env.from_collection(list(range(10)), Types.LONG()) \
        .assign_timestamps_and_watermarks(WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(Tick()))
    out = events.connect(ticks).key_by(lambda n: n % 3, lambda t: t % 3, Types.LONG()) \
        .process(CountUpToTick(), Types.TUPLE([Types.LONG(), Types.LONG(), Types.INT()]))
    expected = sorted((t % 3, t * 2500, sum(1 for n in range(400) if n % 3 == t % 3 and event_time(n) <= t * 2500))
                      for t in range(10))
    assert sorted(out.execute_and_collect()) == expected


class Describe(CoMapFunction):
    def map1(self, value):
        return f"number {value}"

    def map2(self, value):
        return f"word {value}"


class Letters(CoFlatMapFunction):
    def flat_map1(self, value):
        yield from (f"{value}:{i}" for i in range(value))

    def flat_map2(self, value):
        yield from value


small = OutputTag("small", Types.INT())
long_words = OutputTag("long", Types.STRING())


class Route(CoProcessFunction):
    def process_element1(self, value, ctx):
        if value < 2:
            yield small, value
        else:
            yield value * 10

    def process_element2(self, value, ctx):
        if len(value) > 2:
            ctx.output(long_words, value)
        else:
            yield len(value)


def test_co_map_co_flat_map_and_co_process_with_side_outputs(any_env):
    env = any_env
    env.set_parallelism(2)
    numbers = env.from_collection([1, 2, 3], Types.INT())
    words = env.from_collection(["ab", "cde"], Types.STRING())
    mapped = numbers.connect(words).map(Describe(), Types.STRING())
    assert sorted(mapped.execute_and_collect()) == ["number 1", "number 2", "number 3", "word ab", "word cde"]
    flat = numbers.connect(words).flat_map(Letters(), Types.STRING())
    assert sorted(flat.execute_and_collect()) == sorted(["1:0", "2:0", "2:1", "3:0", "3:1", "3:2",
                                                         "a", "b", "c", "d", "e"])
    routed = numbers.connect(words).process(Route(), Types.INT())
    routed.get_side_output(small).map(lambda v: f"small {v}", Types.STRING()).print("side")
    routed.get_side_output(long_words).map(lambda v: f"long {v}", Types.STRING()).print("side")
    assert sorted(routed.execute_and_collect()) == [2, 20, 30]


def test_connected_keyed_streams_share_state_per_key(env):
    class Pair(KeyedCoProcessFunction):
        def open(self, ctx):
            self.seen = ctx.get_list_state(ListStateDescriptor("seen", Types.STRING()))

        def process_element1(self, value, ctx):
            self.seen.add(f"a{value}")
            yield ctx.get_current_key(), sorted(self.seen.get())

        def process_element2(self, value, ctx):
            self.seen.add(f"b{value}")
            yield ctx.get_current_key(), sorted(self.seen.get())

    env.set_parallelism(2)
    a = env.from_collection([1, 2, 3, 4], Types.INT()).key_by(lambda v: v % 2)
    b = env.from_collection([5, 6], Types.INT()).key_by(lambda v: v % 2)
    final = {}
    for key, seen in a.connect(b).process(Pair()).execute_and_collect():
        if len(seen) > len(final.get(key, [])):
            final[key] = seen
    assert final == {0: ["a2", "a4", "b6"], 1: ["a1", "a3", "b5"]}


def test_co_functions_are_checked_when_the_job_is_built(env):
    numbers = env.from_collection([1], Types.INT())
    connected = numbers.connect(numbers)
    with pytest.raises(TypeError, match="CoMapFunction"):
        connected.map(lambda v: v)
    with pytest.raises(TypeError, match="CoFlatMapFunction"):
        connected.flat_map(Describe())
    with pytest.raises(TypeError, match="key_by"):
        connected.process(CountUpToTick())
    with pytest.raises(TypeError, match="connect expects a DataStream"):
        numbers.connect([1, 2])


class ByParity(Partitioner):
    def partition(self, key, num_partitions):
        return key % num_partitions


def test_partition_custom_runs_the_partitioner(env):
    env.set_parallelism(2)
    numbers = env.from_collection([1, 2, 3], Types.INT())
    assert sorted(numbers.partition_custom(ByParity(), lambda v: v).map(lambda v: v + 1).execute_and_collect()) \
        == [2, 3, 4]
    with pytest.raises(Exception, match="partitioner of partition_custom chose partition 2"):
        list(numbers.partition_custom(lambda key, n: n, lambda v: v).map(lambda v: v).execute_and_collect())


def test_iterate_is_refused_naming_what_to_do_instead(env):
    with pytest.raises(NotImplementedError, match="Spark plans cannot have cycles.*process function"):
        env.from_collection([1, 2]).iterate()


class PairWithinASecond(KeyedCoProcessFunction):
    """An order (first input) waits one second of processing time for its payment (second input)."""

    def open(self, ctx):
        from kindling.datastream.state import ValueStateDescriptor

        self.paid = ctx.get_state(ValueStateDescriptor("paid", Types.BOOLEAN()))

    def process_element1(self, order, ctx):
        ctx.timer_service().register_processing_time_timer(ctx.timer_service().current_processing_time() + 1000)

    def process_element2(self, payment, ctx):
        self.paid.update(True)

    def on_timer(self, timestamp, ctx):
        yield f"{ctx.get_current_key()} {'paid' if self.paid.value() else 'unpaid'}"


def test_processing_time_timers_of_a_keyed_co_process_function(env, tmp_path):
    
    from kindling.common import Duration
    from kindling.datastream.connectors.file_system import FileSource, StreamFormat

    def lines(folder):
        folder.mkdir()
        source = (FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(folder))
                  .monitor_continuously(Duration.of_millis(100)).build())
        return env.from_source(source, WatermarkStrategy.no_watermarks(), folder.name)

    env.set_parallelism(2)
    orders, payments = lines(tmp_path / "orders"), lines(tmp_path / "payments")
    out = orders.connect(payments).key_by(lambda o: o, lambda p: p).process(PairWithinASecond(), Types.STRING())
    (tmp_path / "payments" / "1.txt").write_text("b\nc\n")
    (tmp_path / "orders" / "1.txt").write_text("a\nb\nc\n")
    with out.execute_and_collect() as results:
        assert sorted(take(results, 3, timeout=600)) == ["a unpaid", "b paid", "c paid"]
