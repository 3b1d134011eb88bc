"""How a job runs on Spark (chosen by kindling/spark/runner.py, ``run_mode``)."""
from __future__ import annotations

from enum import Enum


class RunMode(str, Enum):
    """A Spark batch job of Flink's BATCH semantics; a bounded STREAMING job as one Spark batch job
    (kindling/spark/one_step.py); or a Structured Streaming query of micro-batches. Its values are
    the names the Table planner reads (kindling/table/planner/physical.py)."""

    BATCH = "batch"
    ONE_STEP = "one_step"
    MICRO_BATCH = "micro_batch"

    @property
    def micro_batches(self) -> bool:
        """Whether the job is a Spark streaming query (else one Spark batch job)."""
        return self is RunMode.MICRO_BATCH
