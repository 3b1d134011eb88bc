"""kindling/common/read_limits.py: the micro-batch read limits the runner gives the sources and the
planner reads to choose a ``filesystem`` table's reader."""
from __future__ import annotations

import pytest

from kindling.common import Configuration
from kindling.common.read_limits import ReadLimits, max_files_per_batch, max_records_per_batch


def test_micro_batch_size_follows_the_checkpoint_interval_unless_configured():
    assert max_records_per_batch(None, 0) == 0  # no checkpointing: everything available at once
    assert max_records_per_batch(None, -1) == 0  # the interval of disabled checkpointing
    assert max_records_per_batch(None, 1000) == 100_000 and max_records_per_batch(None, 10) == 10_000
    assert max_records_per_batch(500, 1000) == 500 and max_records_per_batch(0, 1000) == 0
    with pytest.raises(ValueError, match="kindling.source.max-records-per-batch must be >= 0"):
        max_records_per_batch(-1, 0)


def test_a_files_limit_is_unset_zero_or_positive():
    assert max_files_per_batch(None) == max_files_per_batch("") == max_files_per_batch("0") == 0
    assert max_files_per_batch("3") == 3
    with pytest.raises(ValueError, match="kindling.source.max-files-per-batch must be >= 0"):
        max_files_per_batch("-2")


def _limits(interval: int, **options: str) -> ReadLimits:
    configuration = Configuration()
    for key, value in options.items():
        configuration.set_string(f"kindling.source.{key}", value)
    return ReadLimits.of(configuration, interval)


def test_the_limits_of_a_configuration_say_whether_the_records_limit_is_checkpointings_default():
    assert _limits(-1) == ReadLimits(0, 0, True)
    assert _limits(1000) == ReadLimits(100_000, 0, True)
    assert _limits(1000, **{"max-files-per-batch": "2"}) == ReadLimits(100_000, 2, True)
    assert _limits(1000, **{"max-records-per-batch": " 50 "}) == ReadLimits(50, 0, False)
    assert _limits(1000, **{"max-records-per-batch": "0"}) == ReadLimits(0, 0, False)
