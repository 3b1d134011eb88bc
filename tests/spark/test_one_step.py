"""Bounded STREAMING jobs run in one Spark step (kindling/spark/one_step.py), print() writes
Flink's subtask prefixes, and outputs come in Flink's order within a subtask.

Each behaviour is checked end to end on Spark; where the one-step path replaces the
micro-batch path, the same program runs both ways and must give the same results.
"""
from __future__ import annotations

import os
import re

import pytest

from kindling.common import Configuration, Time, Types, WatermarkStrategy
from kindling.common.watermark_strategy import TimestampAssigner
from kindling.datastream import KeyedProcessFunction, OutputTag, RuntimeContext, StreamExecutionEnvironment
from kindling.datastream.connectors.datagen import DataGeneratorSource, RateLimiterStrategy
from kindling.datastream.connectors.number_seq import NumberSequenceSource
from kindling.datastream.functions import ProcessWindowFunction
from kindling.datastream.state import StateTtlConfig, ValueStateDescriptor
from kindling.datastream.window import TumblingEventTimeWindows
from kindling.runtime.key_groups import assign_key_to_parallel_operator

MIN = -2**63
WORDS = ["to", "be", "or", "not", "to", "be", "that", "is", "the", "question", "whether", "tis", "nobler",
         "in", "the", "mind", "to", "suffer", "the", "slings", "and", "arrows"]


def _env(spark, one_step: bool = True, parallelism: int | None = 2) -> StreamExecutionEnvironment:
    conf = Configuration()
    conf.set_boolean("kindling.progress", False)
    conf.set_boolean("kindling.bounded.one-step", one_step)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    if parallelism:
        env.set_parallelism(parallelism)
    return env


class _ByField(TimestampAssigner):
    def __init__(self, index: int):
        self.index = index

    def extract_timestamp(self, value, record_timestamp):
        return value[self.index]


@pytest.mark.parametrize("one_step", [True, False], ids=["one-step", "micro-batch"])
def test_print_after_key_by_names_the_subtask_flink_gives_the_key(spark, capsys, one_step):
    env = _env(spark, one_step=one_step)
    env.from_collection(WORDS).map(lambda w: (w, 1)).key_by(lambda p: p[0]).sum(1).print()
    env.from_collection(WORDS).key_by(lambda w: len(w)).map(lambda w: w.upper()).print("upper")
    env.execute("prefixes")
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 * len(WORDS)
    seen = set()
    for line in lines:
        found = re.fullmatch(r"upper:(\d)> (\w+)", line)
        if found:
            word = found.group(2).lower()
            assert int(found.group(1)) == assign_key_to_parallel_operator(len(word), 2) + 1, line
        else:
            found = re.fullmatch(r"(\d)> \('(\w+)', (\d+)\)", line)
            assert found, line
            assert int(found.group(1)) == assign_key_to_parallel_operator(found.group(2), 2) + 1, line
        seen.add(int(found.group(1)))
    assert seen == {1, 2}  # both subtasks print


def test_print_at_parallelism_one_has_no_subtask_number(spark, capsys):
    env = _env(spark, parallelism=1)
    ds = env.from_collection(["a", "b"]).key_by(lambda w: w).map(lambda w: w)
    ds.print()
    ds.print("id")
    env.execute("no prefix")
    assert sorted(capsys.readouterr().out.splitlines()) == ["a", "b", "id> a", "id> b"]


def test_default_parallelism_is_the_number_of_cores(spark, capsys):
    env = _env(spark, parallelism=None)
    assert env.get_parallelism() == (os.cpu_count() or 1)
    env.from_collection(["a"]).key_by(lambda w: w).map(lambda w: w).print()
    env.execute("default parallelism")
    expected = "a" if env.get_parallelism() == 1 else f"{assign_key_to_parallel_operator('a', env.get_parallelism()) + 1}> a"
    assert capsys.readouterr().out.splitlines() == [expected]


def test_print_on_a_parallel_source_names_the_split(spark, capsys):
    env = _env(spark)
    env.generate_sequence(1, 6).print()
    env.execute("split prefixes")
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines) == ["1> 1", "1> 2", "1> 3", "2> 4", "2> 5", "2> 6"]


class _SumUntilTimer(KeyedProcessFunction):
    def open(self, runtime_context: RuntimeContext):
        self.total = runtime_context.get_state(ValueStateDescriptor("total", Types.INT()))

    def process_element(self, value, ctx):
        self.total.update((self.total.value() or 0) + value[1])
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 10)
        yield f"element {value[0]} {value[1]} watermark {ctx.timer_service().current_watermark()}"

    def on_timer(self, timestamp, ctx):
        yield f"timer {ctx.get_current_key()} at {timestamp}: total {self.total.value()}"


def test_order_within_a_subtask_is_arrival_then_timer_order(spark):
    """At parallelism 1, element-driven outputs in arrival order across keys, then the
    end-of-input timers in timestamp order across keys (Flink's order)."""
    env = _env(spark, parallelism=1)
    events = env.from_collection([("a", 1, 100), ("b", 2, 105), ("a", 3, 130), ("b", 4, 200), ("a", 5, 201)],
                                 type_info=Types.TUPLE([Types.STRING(), Types.INT(), Types.LONG()]))
    out = events.assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(_ByField(2))) \
        .key_by(lambda e: e[0]).process(_SumUntilTimer()).execute_and_collect(limit=100)
    low = -2**63
    assert out == [f"element a 1 watermark {low}", f"element b 2 watermark {low}", f"element a 3 watermark {low}",
                   f"element b 4 watermark {low}", f"element a 5 watermark {low}",
                   "timer a at 110: total 9", "timer b at 115: total 6", "timer a at 140: total 9",
                   "timer b at 210: total 6", "timer a at 211: total 9"]


def test_order_after_two_keyed_operators(spark):
    """A keyed operator after a keyed operator gets its input in the order the first emitted it."""
    env = _env(spark, parallelism=1)
    out = env.from_collection([("a", 1), ("b", 10), ("a", 2), ("c", 5), ("b", 20)],
                              type_info=Types.TUPLE([Types.STRING(), Types.INT()])) \
        .key_by(lambda e: e[0]).reduce(lambda x, y: (x[0], x[1] + y[1])) \
        .key_by(lambda e: e[1] % 2).map(lambda e: f"{e[0]}={e[1]}").execute_and_collect(limit=100)
    assert out == ["a=1", "b=10", "a=3", "c=5", "b=30"]


class _LastSeen(KeyedProcessFunction):
    def open(self, runtime_context: RuntimeContext):
        descriptor = ValueStateDescriptor("last", Types.STRING())
        descriptor.enable_time_to_live(StateTtlConfig.new_builder(Time.seconds(1))
                                       .set_update_type(StateTtlConfig.UpdateType.OnCreateAndWrite)
                                       .set_state_visibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
                                       .build())
        self.last = runtime_context.get_state(descriptor)

    def process_element(self, value, ctx):
        self.last.update(value[2])
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 1000)

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), self.last.value()


def test_processing_time_ttl_is_not_eaten_by_the_end_of_input(spark):
    env = _env(spark)
    out = env.from_collection([("x", 1, "first"), ("y", 2, "only"), ("x", 3, "second")],
                              type_info=Types.TUPLE([Types.STRING(), Types.LONG(), Types.STRING()])) \
        .assign_timestamps_and_watermarks(
            WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(_ByField(1))) \
        .key_by(lambda e: e[0]).process(_LastSeen()).execute_and_collect(limit=100)
    assert sorted(out) == [("x", "second"), ("x", "second"), ("y", "only")]


def _speeds_program(env):
    """Four splits whose event times advance at different speeds (split k: (k+1) x 100 ms per
    element); per-key tumbling windows of 1 s, counted and summed."""
    return env.generate_sequence(0, 199) \
        .map(lambda v: (f"k{v % 5}", v, (v % 50) * (v // 50 + 1) * 100),
             output_type=Types.TUPLE([Types.STRING(), Types.LONG(), Types.LONG()])) \
        .assign_timestamps_and_watermarks(
            WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(_ByField(2))) \
        .key_by(lambda e: e[0]) \
        .window(TumblingEventTimeWindows.of(Time.seconds(1))) \
        .reduce(lambda a, b: (a[0], a[1] + b[1], max(a[2], b[2])))


def _keyed_reduce_program(env):
    return env.from_collection(WORDS).map(lambda w: (w, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()])) \
        .key_by(lambda p: p[0]).reduce(lambda a, b: (a[0], a[1] + b[1])) \
        .key_by(lambda p: p[1]).map(lambda p: f"{p[1]}:{p[0]}")


def _timers_program(env):
    events = env.from_collection([("a", 1, 100), ("b", 2, 105), ("a", 3, 130), ("b", 4, 200), ("a", 5, 201)],
                                 type_info=Types.TUPLE([Types.STRING(), Types.INT(), Types.LONG()]))
    return events.assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(_ByField(2))) \
        .key_by(lambda e: e[0]).process(_SumUntilTimer())


@pytest.mark.parametrize("program", [_speeds_program, _keyed_reduce_program, _timers_program],
                         ids=lambda p: p.__name__.strip("_"))
def test_one_step_gives_the_micro_batch_results(spark, program):
    results = {}
    for one_step in (True, False):
        env = _env(spark, one_step=one_step, parallelism=4 if program is _speeds_program else 2)
        results[one_step] = sorted(program(env).execute_and_collect(limit=10_000))
    assert results[True] == results[False]
    if program is _speeds_program:
        expected = {}
        for v in range(200):
            ts = (v % 50) * (v // 50 + 1) * 100
            key = (f"k{v % 5}", ts // 1000)
            count, total, last = expected.get(key, (0, 0, 0))
            expected[key] = (count + 1, total + v, max(last, ts))
        assert sorted(results[True]) == sorted((k, total, last) for (k, _), (_, total, last) in expected.items())


def test_checkpointed_and_large_jobs_keep_the_micro_batch_path(spark, tmp_path):
    from kindling.graph.specs import CollectionSourceSpec, FileSourceSpec, SequenceSourceSpec
    from kindling.spark.compiler import TimeSettings
    from kindling.spark.runner import runs_in_one_step

    small = [CollectionSourceSpec(values=[1, 2, 3])]
    env = _env(spark)
    assert runs_in_one_step(env, TimeSettings.of(env), small)
    env.enable_checkpointing(1000)
    assert not runs_in_one_step(env, TimeSettings.of(env), small)
    per_element = _env(spark)
    per_element.get_configuration().set_boolean("kindling.watermark.per-element", True)
    assert not runs_in_one_step(per_element, TimeSettings.of(per_element), small)
    # a parallel instance holds its whole input in memory: large inputs stream in micro-batches
    limited = _env(spark)
    limited.get_configuration().set_integer("kindling.bounded.one-step.max-elements", 100)
    assert runs_in_one_step(limited, TimeSettings.of(limited), [SequenceSourceSpec(start=1, end=100)])
    assert not runs_in_one_step(limited, TimeSettings.of(limited), [SequenceSourceSpec(start=1, end=101)])
    (tmp_path / "big.txt").write_text("x" * 32 * 101)
    assert not runs_in_one_step(limited, TimeSettings.of(limited), [FileSourceSpec(paths=[str(tmp_path)])])
    assert runs_in_one_step(limited, TimeSettings.of(limited), [object()])  # size unknown (a bounded Kafka read)


def test_run_subtask_orders_outputs_by_arrival_then_by_timer():
    """The one-step order without Spark: outputs of elements by arrival across keys, then the
    end-of-input timers by timestamp across keys."""
    from kindling.runtime.keyed_operator import KeyedProcessOperator
    from kindling.spark.one_step import _Key, run_subtask

    class Echo(KeyedProcessFunction):
        def process_element(self, value, ctx):
            ctx.timer_service().register_event_time_timer(value[1])
            yield f"{value[0]}@{value[1]}"

        def on_timer(self, timestamp, ctx):
            yield f"timer {ctx.get_current_key()} {timestamp}"

    op = KeyedProcessOperator(Echo())
    op.open()
    a, b = _Key("a"), _Key("b")
    arrivals = [((0, 0), b, ("b", 30), 30), ((1, 0), a, ("a", 10), 10), ((2, 0), b, ("b", 20), 20),
                ((3, 0), a, ("a", 40), 40)]
    out = [value for _, value, *_ in run_subtask(op, arrivals)]
    assert out == ["b@30", "a@10", "b@20", "a@40", "timer a 10", "timer b 20", "timer b 30", "timer a 40"]


def test_equal_timers_of_two_keys_fire_in_flink_timer_queue_order():
    """PyFlink's event_time_timer example: Alice's and Bob's timers at 5000 fire Bob first, as
    Flink's timer queue (a heap per key group, a heap of their heads) pops them."""
    from kindling.runtime.keyed_operator import KeyedProcessOperator
    from kindling.spark.one_step import _Key, run_subtask

    class Later(KeyedProcessFunction):
        def process_element(self, value, ctx):
            ctx.timer_service().register_event_time_timer(ctx.timestamp() + 2000)

        def on_timer(self, timestamp, ctx):
            yield ctx.get_current_key(), timestamp

    op = KeyedProcessOperator(Later())
    op.open()
    keys = {"Alice": _Key("Alice"), "Bob": _Key("Bob")}
    events = [(1000, "Alice"), (4000, "Bob"), (3000, "Alice"), (2000, "Bob"), (5000, "Alice"), (3000, "Bob"),
              (7000, "Bob"), (10000, "Alice")]
    arrivals = [((i, 0), keys[k], (t, k), t) for i, (t, k) in enumerate(events)]
    out = [value for _, value, *_ in run_subtask(op, arrivals)]
    assert out == [("Alice", 3000), ("Bob", 4000), ("Bob", 5000), ("Alice", 5000), ("Bob", 6000),
                   ("Alice", 7000), ("Bob", 9000), ("Alice", 12000)]


def test_a_one_step_job_can_be_cancelled(spark):
    import time

    from kindling.common import JobStatus
    from kindling.spark.runner import JobCancelledError

    def slow(x):
        time.sleep(30)
        return x

    env = _env(spark)
    env.from_collection([1, 2]).key_by(lambda x: x).map(slow).print()
    client = env.execute_async("cancelled in one step")
    time.sleep(2)
    client.cancel().result(timeout=300)
    with pytest.raises(JobCancelledError):
        client.get_job_execution_result().result()
    assert client.get_job_status().result() == JobStatus.CANCELED


class _Recorder(KeyedProcessFunction):
    """Says what it sees: each element's watermark and processing time, each timer's firing."""

    def process_element(self, value, ctx):
        timers = ctx.timer_service()
        if value[1] == "event":
            timers.register_event_time_timer(value[2])
        elif value[1] == "processing":
            timers.register_processing_time_timer(timers.current_processing_time() + value[2])
        yield f"{value[0]} wm={timers.current_watermark()} pt={timers.current_processing_time()}"

    def on_timer(self, timestamp, ctx):
        yield f"timer {ctx.get_current_key()} {ctx.time_domain().name.lower()} {timestamp}"


def _replayed(arrivals, logs):
    from kindling.runtime.channels import Timeline
    from kindling.runtime.keyed_operator import KeyedProcessOperator
    from kindling.spark.one_step import run_subtask

    op = KeyedProcessOperator(_Recorder())
    op.open()
    return list(run_subtask(op, arrivals, Timeline([a[0] for a in arrivals], logs)))


def test_run_subtask_replays_the_watermark_and_processing_time_of_a_pipelined_run():
    """Timers fire between the elements they fell due between, across keys, before the element
    there: event-time ones where the channels' minimum rose past them, processing-time ones where
    the input's processing time reached them (outputs carry both, for the operators after)."""
    from kindling.spark.one_step import _Key

    a, b = _Key("a"), _Key("b")
    one, two = ("one", ("s", 0, 0)), ("two", ("s", 0, 1))
    arrivals = [((100, 0, 0), a, ("a1", "event", 50), 10), ((100, 0, 1), b, ("b1", "processing", 150), 20),
                ((200, 1, 0), a, ("a2", None, 0), 60), ((210, 1, 1), b, ("b2", "event", 40), 70),
                ((300, 2, 0), a, ("a3", None, 0), 80), ((400, 2, 1), b, ("b3", None, 0), 90)]
    logs = [([((200, 1, 0), one, 55), ((300, 2, 0), one, 75)], [((350, 3, 0), one)]),
            ([((210, 1, 1), two, 65)], [((450, 3, 1), two)])]
    out = _replayed(arrivals, logs)
    assert [o[1] for o in out] == [
        f"a1 wm={MIN} pt=100", f"b1 wm={MIN} pt=100", f"a2 wm={MIN} pt=200",
        "timer a event_time 50",  # the minimum rose to 55 with b2's stamp
        "b2 wm=55 pt=210",
        "timer b event_time 40",  # registered below the watermark: fires where it rises next, with a3's stamp
        "timer b processing_time 250",  # due at 250: fires before a3, read at 300
        "a3 wm=65 pt=300", "b3 wm=65 pt=400"]
    assert [(o[3], o[4]) for o in out][3:7] == [(55, 210), (55, 210), (65, 300), (65, 300)]


def test_run_subtask_drops_late_elements_of_a_window_once_the_watermark_passed_it():
    from kindling.datastream.window import TumblingEventTimeWindows
    from kindling.runtime.channels import Timeline
    from kindling.runtime.window.window_operator import WindowOperator
    from kindling.spark.one_step import _Key, run_subtask

    from kindling.runtime.window.window_operator import CONTENTS_REDUCE

    op = WindowOperator(TumblingEventTimeWindows.of(Time.milliseconds(100)), contents=CONTENTS_REDUCE,
                        function=lambda x, y: x + y)
    op.open()
    key = _Key("k")
    channel = ("c", ("s", 0, 0))
    arrivals = [((1, 0, 0), key, 1, 10), ((2, 1, 0), key, 2, 150), ((3, 2, 0), key, 4, 20), ((9, 3, 0), key, 8, 30)]
    logs = [([((3, 2, 0), channel, 149)], [((9, 4, 0), channel)])]
    out = list(run_subtask(op, arrivals, Timeline([a[0] for a in arrivals], logs)))
    # the window [0, 100) fired before the element of 20, which with 30 is late (dropped)
    assert [(value, ts) for _, value, ts, _, _ in out] == [(1, 99), (2, 199)]
    assert op.take_late_records_dropped() == 2


_WAIT_BEFORE_S = {1: 0.6, 3: 0.8, 4: 0.3, 5: 0.3}


def _read_slowly(v):
    """Split 0 (0-3) waits before 1 and 3 and goes back in event time with 3; split 1 (4-7) is
    far ahead in event time."""
    import time

    time.sleep(_WAIT_BEFORE_S.get(v, 0))
    return "k", v, (0 if v == 3 else v * 1000) + (100_000 if v >= 4 else 0)


class _Values(ProcessWindowFunction):
    def process(self, key, context, elements):
        yield f"[{context.window().start}, {context.window().end}) {[e[1] for e in elements]}"


def _windows_with_late(stream):
    """``stream`` of ``("k", id, ts)`` in 1 s tumbling windows listing their ids, and ``late id``."""
    late = OutputTag("late", Types.TUPLE([Types.STRING(), Types.LONG(), Types.LONG()]))
    windows = stream.assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(_ByField(2))) \
        .key_by(lambda e: e[0]).window(TumblingEventTimeWindows.of(Time.seconds(1))) \
        .side_output_late_data(late).process(_Values(), Types.STRING())
    return windows.union(windows.get_side_output(late).map(lambda e: f"late {e[1]}", Types.STRING()))


def test_time_a_function_takes_does_not_pass_before_the_input_is_read(spark):
    """PyFlink hands a Python function's outputs on in bundles (a fast source's split is one), so
    the watermark does not rise while a function sleeps: element 3, behind split 0's watermark
    by the time it is made, is not late (PyFlink 2.3 prints the same)."""
    env = _env(spark)
    stream = env.from_source(NumberSequenceSource(0, 7), WatermarkStrategy.no_watermarks(), "seq") \
        .map(_read_slowly, output_type=Types.TUPLE([Types.STRING(), Types.LONG(), Types.LONG()]))
    out = sorted(_windows_with_late(stream).execute_and_collect(limit=100))
    assert out == ["[0, 1000) [0, 3]", "[1000, 2000) [1]", "[104000, 105000) [4]", "[105000, 106000) [5]",
                   "[106000, 107000) [6]", "[107000, 108000) [7]", "[2000, 3000) [2]"]


_SLOW_ROWS = 20  # read at 4 a second by 2 splits: 5 s, long against the watermark interval and the tasks' start


def _slow_source(env):
    """``("k", id, ts)`` for ids 0-19 read at 4 a second, ts ``id * 1000`` but 0 for the last id."""
    source = DataGeneratorSource(lambda i: ("k", i, 0 if i == _SLOW_ROWS - 1 else i * 1000), _SLOW_ROWS,
                                 RateLimiterStrategy.per_second(4),
                                 Types.TUPLE([Types.STRING(), Types.LONG(), Types.LONG()]))
    return env.from_source(source, WatermarkStrategy.no_watermarks(), "slow")


def test_watermarks_advance_while_a_slow_source_is_read(spark):
    """Time passes as the source reads, as in a pipelined Flink run: each split emits its watermark
    every 200 ms, the window operator's is the minimum over the splits, so the window [0, 1000)
    fires long before the last element, with timestamp 0, is read: it comes late (PyFlink 2.3 prints
    the same for a datagen table read at 2 rows a second)."""
    out = sorted(_windows_with_late(_slow_source(_env(spark))).execute_and_collect(limit=100))
    assert out == sorted([f"[{i * 1000}, {i * 1000 + 1000}) [{i}]" for i in range(_SLOW_ROWS - 1)]
                         + [f"late {_SLOW_ROWS - 1}"])


class _TimerAfterFirst(KeyedProcessFunction):
    def process_element(self, value, ctx):
        if value[1] == 0:
            ctx.timer_service().register_processing_time_timer(ctx.timer_service().current_processing_time() + 100)
        yield value[1]

    def on_timer(self, timestamp, ctx):
        yield "timer"


def test_processing_time_timers_fire_while_a_slow_source_is_read(spark):
    """A processing-time timer that falls due while the input is read fires there, before the
    elements read after it (PyFlink 2.3: after the first bundle, as here long before the end)."""
    out = _slow_source(_env(spark)).key_by(lambda e: e[0]).process(_TimerAfterFirst()) \
        .execute_and_collect(limit=100)
    assert sorted(out, key=str) == sorted([*range(_SLOW_ROWS), "timer"], key=str)
    assert out.index("timer") < min(out.index(9), out.index(_SLOW_ROWS - 1))  # the last of each split


class _SumPerBundle(KeyedProcessFunction):
    """Sums a key's values and emits the sum when the bundle ends, as the Table API's Python
    aggregate functions do (a processing-time timer at the current time)."""

    emits_per_bundle = True

    def open(self, runtime_context: RuntimeContext):
        self.total = runtime_context.get_state(ValueStateDescriptor("total", Types.LONG()))
        self.pending = runtime_context.get_state(ValueStateDescriptor("pending", Types.BOOLEAN()))

    def process_element(self, value, ctx):
        self.total.update((self.total.value() or 0) + value)
        if not self.pending.value():
            self.pending.update(True)
            ctx.timer_service().register_processing_time_timer(ctx.timer_service().current_processing_time())
        return iter(())

    def on_timer(self, timestamp, ctx):
        self.pending.clear()
        yield f"{ctx.get_current_key()}={self.total.value()}"


def test_run_subtask_ends_an_operators_bundles_where_pyflinks_python_operator_does():
    """An operator that emits per bundle emits a key's sum once per bundle: where PyFlink's check,
    every second of processing time, ends the bundle (the second check after one it ended), and at
    the end of the input; not at each element read later than the one that registered its timer,
    nor at an element read in the same millisecond."""
    from kindling.runtime.channels import Timeline
    from kindling.runtime.keyed_operator import KeyedProcessOperator
    from kindling.spark.one_step import _Key, run_subtask

    a, b = _Key("a"), _Key("b")
    reads = [(0, a, 1), (0, b, 2), (0, a, 3), (400, a, 4), (1200, a, 5), (1300, b, 6), (2100, a, 7), (3100, a, 8)]
    arrivals = [((ms, i, 0), key, value, None) for i, (ms, key, value) in enumerate(reads)]
    timeline = Timeline([place for place, *_ in arrivals], ())
    op = KeyedProcessOperator(_SumPerBundle())
    op.open()
    out = [(value, ms) for _, value, _, _, ms in run_subtask(op, arrivals, timeline,
                                                              bundle_ends=timeline.bundle_ends(1000, 100_000))]
    # bundles: [0, 1000) ends at the check at 1000, [1200, 3000) at 3000 (not 2000, too soon), the rest at the end
    assert out == [("a=8", 1200), ("b=2", 1200), ("a=20", 3100), ("b=8", 3100), ("a=28", 3100)]


def _first_slowly(v):
    """The map instance that gets element 0 waits before it: its task's clock runs ahead of the other's."""
    import time

    if v == 0:
        time.sleep(0.3)
    return v


class _InArrivalOrder(KeyedProcessFunction):
    def process_element(self, value, ctx):
        yield value


def test_elements_rebalanced_from_a_source_keep_the_time_it_read_them(spark):
    """A collection source (parallelism 1) rebalances its elements round robin over 2 map instances;
    the keyed operator after them receives them interleaved, at the time the source handed them, not
    at the time each map instance's task got to them (the time a function takes is not seen
    downstream): the first two, the next two, ... arrive together whatever the map waited."""
    env = _env(spark)
    out = env.from_collection(list(range(6)), Types.LONG()).map(_first_slowly, Types.LONG()) \
        .key_by(lambda v: 0).process(_InArrivalOrder(), Types.LONG()).execute_and_collect(limit=100)
    assert [sorted(out[i:i + 2]) for i in range(0, 6, 2)] == [[0, 1], [2, 3], [4, 5]]
