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
from kindling.datastream import KeyedProcessFunction, RuntimeContext, StreamExecutionEnvironment
from kindling.datastream.state import StateTtlConfig, ValueStateDescriptor
from kindling.datastream.window import TumblingEventTimeWindows
from kindling.runtime.key_groups import assign_key_to_parallel_operator

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
    out = [value for _, value, _ in run_subtask(op, arrivals)]
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
    out = [value for _, value, _ in run_subtask(op, arrivals)]
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
