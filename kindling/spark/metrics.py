"""User metrics into the job result: every Spark task adds what its worker's metrics did
(``kindling.metrics.metricbase.take_updates``) to one accumulator per job, which the runner
reads into ``JobExecutionResult`` as ``metrics:<operator>.<name>``."""
from __future__ import annotations

from typing import Any

from pyspark.accumulators import AccumulatorParam

from kindling.metrics.metricbase import merge_update, take_updates


class MetricsParam(AccumulatorParam):
    """Merges metric updates (``{"operator.metric": (kind, value)}``)."""

    def zero(self, value):
        return {}

    def addInPlace(self, value1, value2):
        for key, update in value2.items():
            value1[key] = merge_update(value1[key], update) if key in value1 else update
        return value1


SKIPPED_RECORDS = "numRecordsInErrors"  # Flink's connector metric of records skipped as unreadable


def report_skipped(accumulator: Any, source: str, count: int) -> None:
    """Counts ``count`` records a source skipped (a format told to ignore parse errors) in the job's metrics."""
    if count and accumulator is not None:
        accumulator.add({f"{source}.{SKIPPED_RECORDS}": ("counter", count)})


class MaxParam(AccumulatorParam):
    """Accumulates the largest value added (None: nothing added yet)."""

    def zero(self, value):
        return None

    def addInPlace(self, a, b):
        if a is None:
            return b
        if b is None:
            return a
        return max(a, b)


def report_metrics(accumulator: Any) -> None:
    """Adds this worker's metric updates since its last report to ``accumulator`` (in a Spark task)."""
    if accumulator is not None:
        updates = take_updates()
        if updates:
            accumulator.add(updates)


def metric_results(accumulator: Any) -> dict:
    """The job result's view of the merged metrics: ``{"metrics:operator.metric": value}``."""
    out = {}
    for key, (kind, value) in (accumulator.value if accumulator is not None else {}).items():
        if kind == "distribution":
            count, total, low, high = value
            value = {"count": count, "sum": total, "min": low, "max": high}
        out[f"metrics:{key}"] = value
    return out
