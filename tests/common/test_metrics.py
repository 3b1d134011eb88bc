"""Metrics of user functions (``runtime_context.get_metrics_group()``), as in ``pyflink.metrics``."""
from __future__ import annotations

import pytest

from kindling.metrics import Counter, Distribution, Meter, MetricGroup


def test_counter_meter_distribution_gauge():
    group = MetricGroup()
    counter = group.counter("records")
    counter.inc()
    counter.inc(4)
    counter.dec()
    assert counter.get_count() == 4
    assert group.counter("records") is counter

    meter = group.meter("events", 60)
    meter.mark_event()
    meter.mark_event(2)
    assert meter.get_count() == 3 and meter.get_rate() == pytest.approx(3 / 60)

    distribution = group.distribution("sizes")
    for value in (3, 1, 2):
        distribution.update(value)
    assert (distribution.get_count(), distribution.get_sum(), distribution.get_min(), distribution.get_max(),
            distribution.get_mean()) == (3, 6, 1, 3, 2)

    seen = []
    group.add_group("operator", "map").gauge("last", lambda: len(seen))
    seen.append(1)
    metrics = group.get_metrics()
    assert set(metrics) == {"records", "events", "sizes", "operator.map.last"}
    assert metrics["operator.map.last"].get_value() == 1
    assert isinstance(metrics["records"], Counter) and isinstance(metrics["events"], Meter)
    assert isinstance(metrics["sizes"], Distribution)


def test_bad_metric_arguments_are_named():
    with pytest.raises(ValueError, match="non-empty str"):
        MetricGroup().counter("")
    with pytest.raises(TypeError, match="function returning its value"):
        MetricGroup().gauge("g", 3)
    with pytest.raises(ValueError, match="time_span_in_seconds must be positive"):
        MetricGroup().meter("m", 0)


def test_functions_count_with_metrics_on_spark(env):
    """PyFlink's own metrics test: a keyed map counts and meters its records in ``open``-made metrics."""
    from kindling.common import Row, Types
    from kindling.datastream import MapFunction, RuntimeContext

    class Counting(MapFunction):
        def open(self, runtime_context: RuntimeContext):
            group = runtime_context.get_metrics_group()
            assert group is runtime_context.get_metrics_group()
            self.counter = group.counter("my_counter")
            self.meter = group.meter("my_meter", 1)
            self.distribution = group.distribution("my_distribution")
            self.seen = 0
            group.gauge("my_gauge", lambda: self.seen)

        def map(self, value):
            self.counter.inc()
            self.meter.mark_event(1)
            self.seen += 1
            self.distribution.update(len(value[0]))
            return Row(value[0], self.counter.get_count() == self.meter.get_count() == self.seen)

    env.set_parallelism(2)
    out = (env.from_collection([("ab", "a"), ("bdc", "a"), ("cfgs", "b"), ("deeefg", "b")],
                               type_info=Types.TUPLE([Types.STRING(), Types.STRING()]))
           .key_by(lambda v: v[1])
           .map(Counting(), output_type=Types.ROW([Types.STRING(), Types.BOOLEAN()])))
    assert sorted(tuple(r) for r in out.execute_and_collect(limit=10)) == [
        ("ab", True), ("bdc", True), ("cfgs", True), ("deeefg", True)]


class _Measured:
    """A map function's metrics, as PyFlink users register them in open()."""

    def open(self, runtime_context):
        group = runtime_context.get_metrics_group().add_group("io")
        self.records = group.counter("records")
        self.sizes = group.distribution("sizes")
        self.last = 0
        group.gauge("last", lambda: self.last)

    def map(self, value):
        self.records.inc()
        self.sizes.update(value)
        self.last = value
        return value


@pytest.mark.parametrize("mode", ["one-step", "micro-batch", "BATCH"])
def test_metrics_of_every_parallel_instance_reach_the_job_result(env, mode):
    from kindling.datastream import MapFunction, RuntimeExecutionMode

    class Plain(_Measured, MapFunction):
        pass

    class Keyed(_Measured, MapFunction):
        pass

    env.set_parallelism(2)
    if mode == "BATCH":
        env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    env.get_configuration().set_boolean("kindling.bounded.one-step", mode == "one-step")
    numbers = env.from_collection(list(range(1, 11))).map(Plain()).name("plain")
    numbers.key_by(lambda x: x % 3).map(Keyed()).name("keyed").print()
    result = env.execute("metrics")
    for operator in ("plain", "keyed"):
        assert result.get_accumulator_result(f"metrics:{operator}.io.records") == 10
        assert result.get_accumulator_result(f"metrics:{operator}.io.sizes") == {"count": 10, "sum": 55, "min": 1,
                                                                                 "max": 10}
        last = result.get_accumulator_result(f"metrics:{operator}.io.last")
        assert set(last) <= {0, 1} and set(last.values()) <= set(range(11))
