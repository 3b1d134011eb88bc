"""DataStream.cache(): a BATCH job keeps a stream's elements for the later jobs of the session."""
from __future__ import annotations

import pytest

from kindling.common import Types
from kindling.datastream import RuntimeExecutionMode


class Counting:
    """A map that appends a line to a file per call: how often the cached stream was computed."""

    def __init__(self, path):
        self.path = str(path)

    def __call__(self, value):
        with open(self.path, "a") as f:
            f.write(f"{value}\n")
        return value * 10


def calls(path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_a_cached_stream_is_computed_once_until_invalidated(env, tmp_path):
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    env.set_parallelism(2)
    log = tmp_path / "calls.txt"
    cached = env.from_collection([1, 2, 3], Types.INT()).map(Counting(log), Types.INT()).cache()
    assert sorted(cached.execute_and_collect()) == [10, 20, 30]
    assert calls(log) == 3
    assert sorted(cached.map(lambda v: v + 1, Types.INT()).execute_and_collect()) == [11, 21, 31]
    assert calls(log) == 3  # read from the cache
    cached.invalidate()
    assert sorted(cached.filter(lambda v: v > 10).execute_and_collect()) == [20, 30]
    assert calls(log) == 6  # computed again, and kept again
    cached.invalidate()


def test_in_streaming_mode_a_cached_stream_is_computed_as_usual(env, tmp_path):
    log = tmp_path / "calls.txt"
    cached = env.from_collection([1, 2], Types.INT()).map(Counting(log), Types.INT()).cache()
    assert sorted(cached.execute_and_collect()) == [10, 20]
    assert sorted(cached.execute_and_collect()) == [10, 20]
    assert calls(log) == 4


def test_a_cached_stream_is_not_an_operator(env):
    cached = env.from_collection([1], Types.INT()).cache()
    with pytest.raises(Exception, match="Set parallelism for CachedDataStream is not supported."):
        cached.set_parallelism(2)
    with pytest.raises(Exception, match="Cache for KeyedStream is not supported."):
        env.from_collection([1], Types.INT()).key_by(lambda v: v).cache()
