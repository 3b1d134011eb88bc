"""With checkpointing enabled a large bounded input is not read in one micro-batch: sources admit
at most ``kindling.source.max-records-per-batch`` records each (by default 100 per millisecond of
the checkpoint interval), so the job commits several times and the FileSink publishes part files
as each micro-batch commits, at least the minimum pause apart (end to end on Spark, parallelism 2)."""
from __future__ import annotations

import os
import re

import pytest

from kindling.common import Types
from kindling.common.serialization import Encoder
from kindling.datastream.connectors.file_system import FileSink


def _part_files(base) -> dict[str, list[str]]:
    found = {}
    for root, dirs, files in os.walk(base):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]
        for name in files:
            if not name.startswith((".", "_")):
                with open(os.path.join(root, name)) as f:
                    found[name] = f.read().splitlines()
    return found


@pytest.mark.parametrize("interval_ms, configured, count, most", [
    pytest.param(100, None, 30_000, 10_000, marks=pytest.mark.slow),  # the default: 100 per ms of interval, >= 10,000
    (1000, 1000, 3000, 1000),
])
def test_a_bounded_input_commits_in_micro_batches_of_bounded_size(env, tmp_path, capsys, interval_ms, configured,
                                                                    count, most):
    conf = env.get_configuration()
    conf.set_boolean("kindling.progress", True)
    conf.set_integer("kindling.progress.after-ms", 0)
    if configured is not None:
        conf.set_integer("kindling.source.max-records-per-batch", configured)
    env.set_parallelism(2)
    env.enable_checkpointing(interval_ms)
    env.generate_sequence(1, count).map(str, Types.STRING()) \
        .sink_to(FileSink.for_row_format(str(tmp_path / "out"), Encoder.simple_string_encoder()).build())
    env.get_checkpoint_config().set_min_pause_between_checkpoints(1000)
    result = env.execute("micro-batches")
    assert result.get_net_runtime() >= 1000 * (count // most - 1)  # the minimum pause between micro-batches
    rows = [int(n) for n in re.findall(r"micro-batches: batch \d+, (\d+) input rows", capsys.readouterr().err)]
    assert sum(1 for n in rows if n > 0) >= count // most and max(rows) <= most + 3  # + control rows: 2 splits end, the input
    parts = _part_files(tmp_path / "out")
    assert len(parts) >= count // most  # published as each micro-batch committed
    assert sorted(int(v) for lines in parts.values() for v in lines) == list(range(1, count + 1))
