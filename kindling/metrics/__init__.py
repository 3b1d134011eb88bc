"""Metrics of user functions, as in ``pyflink.metrics``."""
from kindling.metrics.metricbase import Counter, Distribution, Gauge, Meter, Metric, MetricGroup

__all__ = ["MetricGroup", "Metric", "Counter", "Meter", "Distribution", "Gauge"]
