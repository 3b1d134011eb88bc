"""Counters, gauges, meters and distributions registered through
``runtime_context.get_metrics_group()``, as in ``pyflink.metrics.metricbase``.

Each parallel instance keeps its metrics in the Spark Python worker that runs it; at the end of
every Spark task the worker reports what changed (:func:`take_updates`) and the job result
holds them merged over the parallel instances, as ``metrics:<operator>.<group>.<name>``
accumulators: a counter's count, a meter's count, a distribution's count/sum/min/max, and each
instance's last gauge value. Kindling reports to no external metrics system.
"""
from __future__ import annotations

import time
from typing import Callable, Dict, Tuple


class Metric:
    """Base of the metric types."""


class Counter(Metric):
    """A count that goes up (``inc``) and down (``dec``)."""

    def __init__(self) -> None:
        self._count = 0

    def inc(self, n: int = 1) -> None:
        self._count += n

    def dec(self, n: int = 1) -> None:
        self._count -= n

    def get_count(self) -> int:
        return self._count


class Meter(Metric):
    """Events marked over time: the total count and the rate over the last
    ``time_span_in_seconds``."""

    def __init__(self, time_span_in_seconds: int = 60) -> None:
        if time_span_in_seconds <= 0:
            raise ValueError(f"time_span_in_seconds must be positive, got {time_span_in_seconds!r}")
        self._time_span = time_span_in_seconds
        self._count = 0
        self._marks: list[Tuple[float, int]] = []

    def mark_event(self, value: int = 1) -> None:
        now = time.monotonic()
        self._count += value
        self._marks.append((now, value))
        while self._marks and self._marks[0][0] < now - self._time_span:
            self._marks.pop(0)

    def get_count(self) -> int:
        return self._count

    def get_rate(self) -> float:
        """Events per second over the meter's time span."""
        horizon = time.monotonic() - self._time_span
        return sum(v for t, v in self._marks if t >= horizon) / self._time_span


class Distribution(Metric):
    """Statistics of the values passed to ``update``: count, sum, min, max and mean."""

    def __init__(self) -> None:
        self._count = 0
        self._sum = 0
        self._min = None
        self._max = None

    def update(self, value) -> None:
        self._count += 1
        self._sum += value
        self._min = value if self._min is None else min(self._min, value)
        self._max = value if self._max is None else max(self._max, value)

    def get_count(self) -> int:
        return self._count

    def get_sum(self):
        return self._sum

    def get_min(self):
        return self._min

    def get_max(self):
        return self._max

    def get_mean(self) -> float | None:
        return self._sum / self._count if self._count else None


class Gauge(Metric):
    """A value read on demand from a function (``group.gauge(name, lambda: ...)``)."""

    def __init__(self, obj: Callable[[], int]) -> None:
        if not callable(obj):
            raise TypeError(f"a gauge needs a function returning its value, got {obj!r}")
        self._obj = obj

    def get_value(self):
        return self._obj()


class MetricGroup:
    """Named metrics of one parallel instance of a function, with nested groups.

    Registering a name twice returns the metric registered first.
    """

    def __init__(self, scope: Tuple[str, ...] = ()) -> None:
        self._scope = scope
        self._groups: Dict[Tuple[str, ...], MetricGroup] = {}
        self._metrics: Dict[str, Metric] = {}

    def add_group(self, name: str, extra: str = None) -> "MetricGroup":
        """A nested group ``name``, or with ``extra`` the key-value group ``name=extra``."""
        key = (name,) if extra is None else (name, extra)
        if key not in self._groups:
            self._groups[key] = MetricGroup(self._scope + key)
        return self._groups[key]

    def counter(self, name: str) -> Counter:
        return self._register(name, Counter)

    def gauge(self, name: str, obj: Callable[[], int]) -> None:
        self._register(name, lambda: Gauge(obj))

    def meter(self, name: str, time_span_in_seconds: int = 60) -> Meter:
        return self._register(name, lambda: Meter(time_span_in_seconds))

    def distribution(self, name: str) -> Distribution:
        return self._register(name, Distribution)

    def get_metrics(self) -> Dict[str, Metric]:
        """Every metric of this group and its nested groups, by dotted scope and name."""
        found = {".".join(self._scope + (name,)): metric for name, metric in self._metrics.items()}
        for group in self._groups.values():
            found.update(group.get_metrics())
        return found

    def _register(self, name: str, make: Callable[[], Metric]):
        if not isinstance(name, str) or not name:
            raise ValueError(f"a metric name must be a non-empty str, got {name!r}")
        if name not in self._metrics:
            self._metrics[name] = make()
        return self._metrics[name]


# (operator name, subtask) -> its MetricGroup, in this worker; a later job's instance of the
# same name replaces an earlier one's
_tracked: dict = {}


def track(operator: str, subtask: int, group: MetricGroup) -> None:
    """Makes ``group`` (of ``operator``'s parallel instance ``subtask``) part of the reports."""
    _tracked[(operator, subtask)] = group


def untrack(operator: str, subtask: int) -> None:
    """``operator``'s parallel instance ``subtask`` ended with its job: its metrics leave the
    reports (a gauge would otherwise report its last value into every later job of the worker)."""
    _tracked.pop((operator, subtask), None)


def take_updates() -> dict:
    """What this worker's metrics did since the last call: ``{"operator.metric": (kind, value)}``
    (merged by :func:`merge_update`)."""
    updates: dict = {}
    for (operator, subtask), group in _tracked.items():
        for name, metric in group.get_metrics().items():
            update = _update_of(metric, subtask)
            if update is not None:
                key = f"{operator}.{name}"
                updates[key] = merge_update(updates[key], update) if key in updates else update
    return updates


def _update_of(metric: Metric, subtask: int):
    if isinstance(metric, Gauge):
        return ("gauge", {subtask: metric.get_value()})
    if isinstance(metric, Distribution):
        last = getattr(metric, "_reported", (0, 0))
        if metric._count == last[0]:
            return None
        metric._reported = (metric._count, metric._sum)
        return ("distribution", (metric._count - last[0], metric._sum - last[1], metric._min, metric._max))
    count = metric.get_count()
    delta = count - getattr(metric, "_reported", 0)
    if not delta:
        return None
    metric._reported = count
    return ("meter" if isinstance(metric, Meter) else "counter", delta)


def merge_update(a: tuple, b: tuple) -> tuple:
    """Two updates of one metric merged: counts add up, extremes take the extreme, gauges keep
    each instance's latest value."""
    kind, x = a
    y = b[1]
    if kind == "gauge":
        return kind, {**x, **y}
    if kind == "distribution":
        low = [v for v in (x[2], y[2]) if v is not None]
        high = [v for v in (x[3], y[3]) if v is not None]
        return kind, (x[0] + y[0], x[1] + y[1], min(low) if low else None, max(high) if high else None)
    return kind, x + y
