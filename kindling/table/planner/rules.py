"""Rewrites of the logical plan, and the planner's choices that follow the configuration.

* **Mini-batch aggregation** (:func:`mini_batch`): Flink's ``table.exec.mini-batch.enabled`` makes
  a group aggregation emit a group's changes once per micro-batch (Spark's aggregation honours it;
  kindling/spark/table/aggregation.py).
"""
from __future__ import annotations

__all__ = ["MINI_BATCH", "mini_batch"]

#: Flink's mini-batch aggregation: a group's changes once per micro-batch
MINI_BATCH = "table.exec.mini-batch.enabled"


def mini_batch(t_env) -> bool:
    """Whether group aggregations emit a group's changes once per micro-batch (Flink's mini-batch)."""
    return t_env._env.get_configuration().get_string(MINI_BATCH, "false").lower() == "true"
