"""Broadcast state end to end on Spark (two parallel instances: the tests' 2 shuffle partitions):
every instance sees every broadcast element, before the main elements of the same micro-batch,
and keeps its broadcast state across micro-batches. PyFlink's output for a keyed broadcast
program is compared in tests/conformance (broadcast_rules)."""
from __future__ import annotations

import pytest
from collect_support import take, wait_for_path  # tests/: on sys.path (tests/conftest.py)

from kindling.common import Duration, Types, WatermarkStrategy
from kindling.datastream import (BroadcastProcessFunction, KeyedBroadcastProcessFunction, RuntimeExecutionMode)
from kindling.datastream.connectors.file_system import FileSource, StreamFormat
from kindling.datastream.state import MapStateDescriptor, ValueStateDescriptor

limits = MapStateDescriptor("limits", Types.STRING(), Types.INT())


class OverLimit(KeyedBroadcastProcessFunction):
    """Readings ``key,value,time`` against the broadcast limit; a timer a second later reports
    the key's last value against the limit in force then."""

    def open(self, ctx):
        self.last = ctx.get_state(ValueStateDescriptor("last", Types.INT()))

    def process_element(self, line, ctx):
        key, value, _ = line.split(",")
        self.last.update(int(value))
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 1000)
        limit = ctx.get_broadcast_state(limits).get("limit")
        yield f"{key} {value} {'over' if int(value) > limit else 'within'} {limit}"

    def process_broadcast_element(self, line, ctx):
        name, value = line.split(",")
        ctx.get_broadcast_state(limits).put(name, int(value))
        yield f"rule {name}={value}"

    def on_timer(self, timestamp, ctx):
        yield f"timer {ctx.get_current_key()} {self.last.value()} limit {ctx.get_broadcast_state(limits).get('limit')}"


def _lines(env, path):
    source = (FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(path))
              .monitor_continuously(Duration.of_millis(100)).build())
    return env.from_source(source, WatermarkStrategy.no_watermarks(), path.name)


def test_rules_change_between_micro_batches_in_every_instance(env, tmp_path):
    readings_dir, rules_dir = tmp_path / "readings", tmp_path / "rules"
    readings_dir.mkdir()
    rules_dir.mkdir()
    readings = _lines(env, readings_dir).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(lambda line, _: int(line.split(",")[2])))
    rules = _lines(env, rules_dir).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(lambda line, _: 0))
    out = readings.key_by(lambda line: line.split(",")[0]).connect(rules.broadcast(limits)).process(OverLimit())
    (rules_dir / "1.txt").write_text("limit,10\n")
    (readings_dir / "1.txt").write_text("a,5,1000\nb,20,1000\n")
    with out.execute_and_collect() as results:
        first = take(results, 4, timeout=600)
        # each of the two parallel instances applies the rule, before the readings of its batch
        assert sorted(first) == ["a 5 within 10", "b 20 over 10", "rule limit=10", "rule limit=10"]
        (rules_dir / "2.txt").write_text("limit,3\n")
        assert take(results, 2, timeout=600) == ["rule limit=3", "rule limit=3"]
        # a later reading moves the watermark: a's and b's timers read the newest rule
        (readings_dir / "2.txt").write_text("c,4,5000\n")
        later = sorted(take(results, 3, timeout=600))
        assert later == ["c 4 over 3", "timer a 5 limit 3", "timer b 20 limit 3"]


class Tag(BroadcastProcessFunction):
    def process_element(self, value, ctx):
        names = ctx.get_broadcast_state(limits)
        yield f"{value} {sorted(names.keys())} at {ctx.timestamp()}"

    def process_broadcast_element(self, value, ctx):
        ctx.get_broadcast_state(limits).put(value, len(value))
        yield f"saw {value}"


def test_a_non_keyed_stream_reads_the_broadcast_state(env):
    env.set_parallelism(2)
    numbers = env.from_collection([1, 2, 3], Types.INT())
    names = env.from_collection(["x", "yy"], Types.STRING())
    out = numbers.connect(names.broadcast(limits)).process(Tag(), Types.STRING())
    assert sorted(out.execute_and_collect()) == [
        "1 ['x', 'yy'] at None", "2 ['x', 'yy'] at None", "3 ['x', 'yy'] at None",
        "saw x", "saw x", "saw yy", "saw yy"]


def test_broadcast_partitioning_sends_every_element_to_every_instance(env):
    env.set_parallelism(2)
    out = env.from_collection([1, 2], Types.INT()).broadcast().map(lambda v: v * 10, Types.INT())
    assert sorted(out.execute_and_collect()) == [10, 10, 20, 20]


class Writes(BroadcastProcessFunction):
    def process_element(self, value, ctx):
        ctx.get_broadcast_state(limits).put("x", 1)
        yield value

    def process_broadcast_element(self, value, ctx):
        ctx.get_broadcast_state(MapStateDescriptor("other", Types.STRING(), Types.INT())).put("x", 1)


def test_broadcast_misuse_is_reported(env):
    numbers = env.from_collection([1], Types.INT())
    with pytest.raises(TypeError, match="MapStateDescriptor"):
        numbers.broadcast(ValueStateDescriptor("v", Types.INT()))
    with pytest.raises(TypeError, match="KeyedBroadcastProcessFunction"):
        numbers.key_by(lambda v: v).connect(numbers.broadcast(limits)).process(Tag())
    with pytest.raises(TypeError, match="key_by"):
        numbers.connect(numbers.broadcast(limits)).process(OverLimit())


class Counted(KeyedBroadcastProcessFunction):
    def open(self, ctx):
        self.count = ctx.get_state(ValueStateDescriptor("n", Types.INT()))

    def process_element(self, value, ctx):
        n = (self.count.value() or 0) + 1
        self.count.update(n)
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 100)
        yield f"{value} limit={ctx.get_broadcast_state(limits).get(value[0])} n={n}"

    def process_broadcast_element(self, value, ctx):
        ctx.get_broadcast_state(limits).put(value[0], value[1])
        yield f"rule {value}"

    def on_timer(self, timestamp, ctx):
        yield f"timer {ctx.get_current_key()} {timestamp} n={self.count.value()}"


@pytest.mark.parametrize("mode", ["BATCH", "STREAMING"])
def test_bounded_jobs_apply_the_whole_broadcast_input_first(env, mode):
    # BATCH: Flink's order (broadcast input first; each key's elements by timestamp, then its
    # timers); STREAMING runs the bounded job in one step, with the broadcast input first too.
    # The same program on PyFlink 2.3 in BATCH mode prints these lines (sorted).
    env.set_runtime_mode(getattr(RuntimeExecutionMode, mode))
    env.set_parallelism(2)
    events = env.from_collection(
        [("a", 5), ("b", 1), ("a", 3), ("c", 9), ("b", 7), ("a", 2)], Types.TUPLE([Types.STRING(), Types.LONG()])
    ).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(lambda e, _: e[1]))
    rules = env.from_collection([("a", 10), ("b", 20), ("a", 100)], Types.TUPLE([Types.STRING(), Types.INT()]))
    out = events.key_by(lambda e: e[0]).connect(rules.broadcast(limits)).process(Counted(), Types.STRING())
    results = list(out.execute_and_collect())
    rule_lines = ["rule ('a', 10)", "rule ('a', 100)", "rule ('b', 20)"] * 2
    timers = ["timer a 102 n=3", "timer a 103 n=3", "timer a 105 n=3", "timer b 101 n=2", "timer b 107 n=2",
              "timer c 109 n=1"]
    if mode == "BATCH":
        assert sorted(results) == sorted(rule_lines + timers + [
            "('a', 2) limit=100 n=1", "('a', 3) limit=100 n=2", "('a', 5) limit=100 n=3",
            "('b', 1) limit=20 n=1", "('b', 7) limit=20 n=2", "('c', 9) limit=None n=1"])
        assert [r for r in results if r.startswith("('a'")] == [
            "('a', 2) limit=100 n=1", "('a', 3) limit=100 n=2", "('a', 5) limit=100 n=3"]
    else:  # elements in arrival order
        assert sorted(results) == sorted(rule_lines + timers + [
            "('a', 5) limit=100 n=1", "('a', 3) limit=100 n=2", "('a', 2) limit=100 n=3",
            "('b', 1) limit=20 n=1", "('b', 7) limit=20 n=2", "('c', 9) limit=None n=1"])


def test_batch_mode_non_keyed_stream_reads_the_whole_broadcast_state(env):
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    env.set_parallelism(2)
    numbers = env.from_collection([1, 2, 3, 4], Types.INT())
    names = env.from_collection(["x", "yy"], Types.STRING())
    out = numbers.connect(names.broadcast(limits)).process(Tag(), Types.STRING())
    assert sorted(out.execute_and_collect()) == [
        "1 ['x', 'yy'] at None", "2 ['x', 'yy'] at None", "3 ['x', 'yy'] at None", "4 ['x', 'yy'] at None",
        "saw x", "saw x", "saw yy", "saw yy"]



def _rules_job(env, readings_dir, rules_dir, checkpoints):
    env.get_configuration().set_string("execution.checkpointing.dir", str(checkpoints))
    readings = _lines(env, readings_dir).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(lambda line, _: int(line.split(",")[2])))
    rules = _lines(env, rules_dir)
    return readings.key_by(lambda line: line.split(",")[0]).connect(rules.broadcast(limits)).process(OverLimit())


def test_broadcast_state_survives_a_restart_from_the_checkpoint(env, tmp_path):
    from kindling.common import Configuration
    from kindling.datastream import StreamExecutionEnvironment

    readings_dir, rules_dir, checkpoints = tmp_path / "readings", tmp_path / "rules", tmp_path / "checkpoints"
    readings_dir.mkdir()
    rules_dir.mkdir()
    (rules_dir / "1.txt").write_text("limit,10\n")
    (readings_dir / "1.txt").write_text("a,15,1000\n")
    with _rules_job(env, readings_dir, rules_dir, checkpoints).execute_and_collect("rules") as results:
        assert sorted(take(results, 3, timeout=600)) == ["a 15 over 10", "rule limit=10", "rule limit=10"]
        wait_for_path(checkpoints / "rules" / "commits" / "0")  # that micro-batch is committed: not replayed
    # The same job again, on the same checkpoint: the rule is in the restored broadcast state.
    (readings_dir / "2.txt").write_text("b,7,2000\nc,12,2000\n")
    again = StreamExecutionEnvironment.get_execution_environment(Configuration(env.get_configuration()))
    with _rules_job(again, readings_dir, rules_dir, checkpoints).execute_and_collect("rules") as results:
        assert sorted(take(results, 2, timeout=600)) == ["b 7 within 10", "c 12 over 10"]


class RemindOfLimit(OverLimit):
    """A processing-time timer a few seconds after each reading reports the limit then in force."""

    def process_element(self, line, ctx):
        ctx.timer_service().register_processing_time_timer(ctx.timer_service().current_processing_time() + 4000)
        yield f"{line} under limit {ctx.get_broadcast_state(limits).get('limit')}"

    def on_timer(self, timestamp, ctx):
        yield f"timer {ctx.get_current_key()} limit {ctx.get_broadcast_state(limits).get('limit')}"


def test_processing_time_timers_read_the_newest_broadcast_state(env, tmp_path):
    """No watermarks: the operator runs in processing time, and the timer fires in a micro-batch
    without elements, where the key's instance reads the states the driver last published."""
    readings_dir, rules_dir = tmp_path / "readings", tmp_path / "rules"
    readings_dir.mkdir()
    rules_dir.mkdir()
    out = _lines(env, readings_dir).key_by(lambda line: line).connect(
        _lines(env, rules_dir).broadcast(limits)).process(RemindOfLimit())
    (rules_dir / "1.txt").write_text("limit,10\n")
    with out.execute_and_collect() as results:
        assert sorted(take(results, 2, timeout=600)) == ["rule limit=10", "rule limit=10"]
        (readings_dir / "1.txt").write_text("a\n")
        assert take(results, 1, timeout=600) == ["a under limit 10"]
        (rules_dir / "2.txt").write_text("limit,3\n")
        assert take(results, 2, timeout=600) == ["rule limit=3", "rule limit=3"]
        assert take(results, 1, timeout=600) == ["timer a limit 3"]
