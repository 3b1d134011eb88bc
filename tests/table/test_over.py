"""OVER aggregations on Spark: a ROWS frame over two splits whose event times advance at different
speeds (each row waits for the slower split's watermark: none is late), a RANGE frame in batch mode,
late rows dropped and counted as Flink drops them, PyFlink's own over_window example, and Flink's
errors. tests/conformance/programs/table_over*.py compare more queries with PyFlink line for line."""
from __future__ import annotations

import os
import re
import sys

import pytest

from event_views import event_view, late_row_view

from kindling.table import EnvironmentSettings, StreamTableEnvironment

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "datastream"))
from remote_model_inference_driver import example_path  # noqa: E402

N = 1200


def _events(env, settings=None):
    env.set_parallelism(2)
    t_env = StreamTableEnvironment.create(env, settings)
    # split 0 holds n < 600 (event time 1..4 s), split 1 the rest (4..7 s, ahead from the start)
    event_view(env, t_env, "events", N, lambda n: (1000 + n * 5, n % 4, n))
    return t_env


def test_a_rows_frame_over_splits_at_different_speeds(env):
    t_env = _events(env)
    rows = t_env.sql_query("SELECT v, SUM(v) OVER w, COUNT(*) OVER w FROM events WINDOW w AS "
                           "(PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)")
    got = sorted(tuple(r) for r in rows.execute().collect())
    # a key's rows are 4 apart: the frame holds the row and the key's two rows before it
    assert got == [(v, sum(x for x in (v - 8, v - 4, v) if x >= 0), min(3, v // 4 + 1)) for v in range(N)]


def test_a_range_frame_in_batch_mode(env):
    t_env = _events(env, EnvironmentSettings.in_batch_mode())
    rows = t_env.sql_query("SELECT v, MAX(v) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '0.012' SECOND PRECEDING "
                           "AND CURRENT ROW), COUNT(v) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '0.012' SECOND "
                           "PRECEDING AND CURRENT ROW) FROM events")
    assert sorted(tuple(r) for r in rows.execute().collect()) == [(v, v, min(3, v + 1)) for v in range(N)]


def test_late_rows_are_dropped_and_counted(env):
    t_env = StreamTableEnvironment.create(env)
    late_row_view(env, t_env)
    result = t_env.sql_query("SELECT f1, SUM(f1) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) "
                             "FROM t").execute()
    with result.collect() as rows:
        assert [tuple(r) for r in rows] == [(1, 1), (2, 3), (4, 7)]  # 1500 is behind the watermark (4000)
    accumulators = result.get_job_client().get_job_execution_result().result().get_all_accumulator_results()
    assert sum(v for k, v in accumulators.items() if k.startswith("numLateRecordsDropped")) == 1


@pytest.mark.parametrize("query, message", [
    ("SELECT SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM events",
     "OVER RANGE FOLLOWING windows are not supported yet."),
    ("SELECT SUM(v) OVER (PARTITION BY k ORDER BY ts DESC) FROM events", "ordered in ASCENDING mode"),
    ("SELECT SUM(v) OVER (PARTITION BY k ORDER BY v) FROM events", "'v' is not one"),
    ("SELECT SUM(v) OVER (ORDER BY ts), MAX(v) OVER (PARTITION BY k ORDER BY ts) FROM events", "the same window"),
    ("SELECT SUM(v) OVER (ORDER BY ts) FROM (SELECT k, MAX(ts) AS ts, SUM(v) AS v FROM events GROUP BY k)",
     "an updating table"),
])
def test_over_windows_refuse_what_flink_refuses(env, query, message):
    t_env = _events(env)
    with pytest.raises(ValueError, match=message):
        t_env.sql_query(query)


def test_a_descending_range_of_an_interval_is_refused_by_name_in_batch(env):
    from kindling.datastream import RuntimeExecutionMode

    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    t_env = _events(env)
    with pytest.raises(ValueError, match="RANGE BETWEEN INTERVAL ... PRECEDING of a descending order"):
        t_env.sql_query("SELECT SUM(v) OVER (PARTITION BY k ORDER BY ts DESC RANGE BETWEEN INTERVAL '1' SECOND "
                        "PRECEDING AND CURRENT ROW) FROM events")


def test_star_beside_over_aggregates_is_the_tables_columns(env):
    t_env = _events(env)
    table = t_env.sql_query("SELECT *, SUM(v) OVER (PARTITION BY k ORDER BY ts) AS s FROM events")
    assert table.get_schema().get_field_names() == ["ts", "k", "v", "s"]


# PyFlink 2.3's output of its example examples/table/windowing/over_window.py (in timestamp order)
PYFLINK_OVER_WINDOW = """+I[Alice, 110.1]
+I[Bob, 53.1]
+I[Alice, 110.1]
+I[Bob, 53.1]
+I[Bob, 53.1]
+I[Alice, 110.1]
+I[Bob, 30.2]
+I[Alice, 20.1]"""


@pytest.mark.slow
def test_pyflinks_over_window_example_prints_what_pyflink_prints(spark, capsys):
    path = example_path(os.path.join("examples", "table", "windowing", "over_window.py"))
    if path is None:
        pytest.skip("the example is part of apache-flink, which is not installed here")
    with open(path) as f:
        source = re.sub(r"\bpyflink\b", "kindling", f.read())
    namespace = {"__name__": "example", "__file__": path}
    exec(compile(source, path, "exec"), namespace)
    namespace["tumble_window_demo"]()
    # each name's rows in timestamp order, as PyFlink's; Kindling emits one partition's rows after another
    assert sorted(capsys.readouterr().out.splitlines()) == sorted(PYFLINK_OVER_WINDOW.splitlines())
