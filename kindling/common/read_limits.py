"""How much a source reads per micro-batch: ``kindling.source.max-records-per-batch`` and
``kindling.source.max-files-per-batch``. The runner gives the limits to the sources
(kindling/spark/runner.py); the planner reads them to choose a ``filesystem`` table's reader
(kindling/table/planner/physical.py: Spark's file stream source limits a batch by files only)."""
from __future__ import annotations

import dataclasses

MAX_RECORDS_PER_BATCH = "kindling.source.max-records-per-batch"
MAX_FILES_PER_BATCH = "kindling.source.max-files-per-batch"
RECORDS_PER_INTERVAL_MS = 100  # the default limit: 100 records per millisecond of checkpoint interval


@dataclasses.dataclass(frozen=True)
class ReadLimits:
    """The records (``records``) and files (``files``) a source reads at most per micro-batch (0: no
    limit); ``records_by_default``: the records limit is the default of checkpointing, not configured."""

    records: int
    files: int
    records_by_default: bool

    @classmethod
    def of(cls, configuration, checkpoint_interval_ms: int) -> "ReadLimits":
        """The limits of a job's configuration (a :class:`~kindling.common.Configuration`) and checkpoint
        interval (0 or less: checkpointing disabled)."""
        records = configuration.get_string(MAX_RECORDS_PER_BATCH, "").strip()
        return cls(max_records_per_batch(int(records) if records else None, checkpoint_interval_ms),
                   max_files_per_batch(configuration.get_string(MAX_FILES_PER_BATCH, "")), not records)


def max_records_per_batch(configured: int | None, checkpoint_interval_ms: int) -> int:
    """The records a source reads at most per micro-batch: ``kindling.source.max-records-per-batch``
    when set (0: no limit), else with checkpointing enabled 100 per millisecond of the checkpoint
    interval (at least 10,000: about one interval's work at ~100k records/s), else no limit."""
    if configured is not None:
        if configured < 0:
            raise ValueError(f"{MAX_RECORDS_PER_BATCH} must be >= 0 (0: no limit), got {configured}")
        return configured
    return max(10_000, checkpoint_interval_ms * RECORDS_PER_INTERVAL_MS) if checkpoint_interval_ms > 0 else 0


def max_files_per_batch(configured: str | None) -> int:
    """The files a file source starts reading at most per micro-batch: ``kindling.source.max-files-per-batch``
    (unset or 0: no limit). Kindling's reader and Spark's file stream source (a ``filesystem``
    table's, kindling/spark/table/scans.py ``csv_stream_frame``) both honour it."""
    if not configured or not configured.strip():
        return 0
    most = int(configured)
    if most < 0:
        raise ValueError(f"{MAX_FILES_PER_BATCH} must be >= 0 (0: no limit), got {most}")
    return most
