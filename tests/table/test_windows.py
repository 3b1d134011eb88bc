"""Group windows of the Table API on Spark: event time declared in a Schema over a source of two
splits whose event times advance at different speeds (the watermark is the slower one's), and
PyFlink's own windowing examples (where apache-flink is installed to read them from) print what
PyFlink prints. tests/conformance/programs/table_windows.py compares another program line for line."""
from __future__ import annotations

import os
import re
import sys
from collections import defaultdict

import pytest

from kindling.common import Types
from kindling.common.time import Instant
from kindling.common.watermark_strategy import WatermarkStrategy
from kindling.datastream.connectors.number_seq import NumberSequenceSource
from kindling.table import DataTypes, Schema, StreamTableEnvironment
from kindling.table.expressions import col, lit
from kindling.table.window import Slide, Tumble

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "datastream"))
from remote_model_inference_driver import example_path  # noqa: E402

N = 4000


def _event(n: int):
    # split 0 holds n < 2000 (event time 0..10 s), split 1 the rest (10..20 s, ahead from the start)
    return Instant.of_epoch_milli(n * 5), n % 3, n


def _clicks(env):
    t_env = StreamTableEnvironment.create(env)
    numbers = env.from_source(NumberSequenceSource(0, N - 1), WatermarkStrategy.no_watermarks(), "numbers")
    events = numbers.map(_event, output_type=Types.ROW([Types.INSTANT(), Types.LONG(), Types.LONG()]))
    return t_env, t_env.from_data_stream(events, Schema.new_builder()
                                         .column_by_expression("ts", "CAST(f0 AS TIMESTAMP(3))")
                                         .column("f1", DataTypes.BIGINT()).column("f2", DataTypes.BIGINT())
                                         .watermark("ts", "ts - INTERVAL '1' SECOND").build())


@pytest.mark.parametrize("one_step", ["true", "false"])
def test_tumbling_windows_over_splits_at_different_speeds_lose_nothing(env, one_step):
    from kindling.common import Configuration

    env.set_parallelism(2)
    env.configure(Configuration().set_string("kindling.bounded.one-step", one_step))
    _, clicks = _clicks(env)
    sums = clicks.window(Tumble.over(lit(1).seconds).on(col('ts')).alias('w')).group_by(col('f1'), col('w')) \
        .select(col('f1'), col('w').start, col('f2').sum.alias('total'), lit(1).count.alias('n'))
    expected = defaultdict(lambda: [0, 0])
    for n in range(N):
        window = expected[(n % 3, (n * 5) // 1000)]
        window[0] += n
        window[1] += 1
    got = {(r[0], r[1].second + 60 * r[1].minute): [r[2], r[3]] for r in sums.execute().collect()}
    assert got == dict(expected)


def test_sliding_windows_and_their_properties(env):
    env.set_parallelism(2)
    _, clicks = _clicks(env)
    counts = clicks.window(Slide.over(lit(2).seconds).every(lit(1).seconds).on(col('ts')).alias('w')) \
        .group_by(col('w')).select(col('w').end, col('w').rowtime, lit(1).count.alias('n'))
    rows = sorted(tuple(r) for r in counts.execute().collect())
    assert len(rows) == 21 and sum(r[2] for r in rows) == 2 * N
    assert all((r[0] - r[1]).total_seconds() == 0.001 for r in rows)


def test_a_window_needs_the_tables_event_time_column(env):
    t_env = StreamTableEnvironment.create(env)
    table = t_env.from_elements([(1, 'a')], ['n', 's'])
    with pytest.raises(ValueError, match="'n' is not the table's event-time column"):
        table.window(Tumble.over(lit(1).seconds).on(col('n')).alias('w'))
    with pytest.raises(ValueError, match="takes a time interval"):
        Tumble.over(lit(1))


# PyFlink 2.3's output of its own examples (examples/table/windowing), in no defined order
PYFLINK_WINDOWS = {
    "tumble_window.py": """+I[Alice, 130.1, 1970-01-01T00:00:00Z, 1970-01-01T00:00:05Z]
+I[Bob, 86.4, 1970-01-01T00:00:00Z, 1970-01-01T00:00:05Z]
+I[Bob, 16.1, 1970-01-01T00:00:05Z, 1970-01-01T00:00:10Z]
+I[Alice, 13.1, 1970-01-01T00:00:05Z, 1970-01-01T00:00:10Z]
+I[Alice, 20.1, 1970-01-01T00:00:10Z, 1970-01-01T00:00:15Z]""",
    "sliding_window.py": """+I[Alice, 110.1, 1969-12-31T23:59:58Z, 1970-01-01T00:00:03Z]
+I[Bob, 53.1, 1969-12-31T23:59:58Z, 1970-01-01T00:00:03Z]
+I[Alice, 130.1, 1970-01-01T00:00:00Z, 1970-01-01T00:00:05Z]
+I[Bob, 86.399994, 1970-01-01T00:00:00Z, 1970-01-01T00:00:05Z]
+I[Bob, 86.399994, 1970-01-01T00:00:02Z, 1970-01-01T00:00:07Z]
+I[Alice, 33.1, 1970-01-01T00:00:02Z, 1970-01-01T00:00:07Z]
+I[Alice, 13.1, 1970-01-01T00:00:04Z, 1970-01-01T00:00:09Z]
+I[Bob, 46.300003, 1970-01-01T00:00:04Z, 1970-01-01T00:00:09Z]
+I[Bob, 16.1, 1970-01-01T00:00:06Z, 1970-01-01T00:00:11Z]
+I[Alice, 20.1, 1970-01-01T00:00:06Z, 1970-01-01T00:00:11Z]
+I[Alice, 20.1, 1970-01-01T00:00:08Z, 1970-01-01T00:00:13Z]
+I[Alice, 20.1, 1970-01-01T00:00:10Z, 1970-01-01T00:00:15Z]""",
    "session_window.py": """+I[Alice, 130.1, 1970-01-01T00:00:01Z, 1970-01-01T00:00:08Z]
+I[Bob, 99.4, 1970-01-01T00:00:02Z, 1970-01-01T00:00:13Z]
+I[Alice, 20.1, 1970-01-01T00:00:10Z, 1970-01-01T00:00:15Z]""",
}


@pytest.mark.slow
@pytest.mark.parametrize("example", sorted(PYFLINK_WINDOWS))
def test_pyflinks_windowing_examples_print_what_pyflink_prints(spark, capsys, example):
    path = example_path(os.path.join("examples", "table", "windowing", example))
    if path is None:
        pytest.skip("the example is part of apache-flink, which is not installed here")
    with open(path) as f:
        source = re.sub(r"\bpyflink\b", "kindling", f.read())
    namespace = {"__name__": "example", "__file__": path}
    exec(compile(source, path, "exec"), namespace)
    namespace[example.replace(".py", "_demo")]()
    assert sorted(capsys.readouterr().out.splitlines()) == sorted(PYFLINK_WINDOWS[example].splitlines())
