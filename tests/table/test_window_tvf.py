"""Window table-valued functions in SQL (TUMBLE, HOP, CUMULATE, SESSION) on Spark: window aggregations
over a source of two splits whose event times advance at different speeds (nothing is late: the
watermark is the slower split's), in streaming and batch mode, and the errors for what Flink refuses.
tests/conformance/programs/table_window_tvf*.py compare many more queries with PyFlink line for line."""
from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from event_views import event_view

from kindling.datastream.window.assigners import CumulativeEventTimeWindows
from kindling.table import StreamTableEnvironment

N = 2000


def clicks(env, parallelism: int = 2):
    env.set_parallelism(parallelism)
    t_env = StreamTableEnvironment.create(env)
    # split 0 holds n < 1000 (event time 0..5 s), split 1 the rest (5..10 s, ahead from the start)
    event_view(env, t_env, "clicks", N, lambda n: (n * 5, n % 3, n))
    return t_env


def _seconds(timestamp) -> float:
    return timestamp.minute * 60 + timestamp.second + timestamp.microsecond / 1e6


def test_tumble_and_cumulate_aggregations_over_splits_at_different_speeds_lose_nothing(any_env):
    t_env = clicks(any_env)
    tumbling = t_env.sql_query(
        "SELECT k, window_start, SUM(v) AS total, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), "
        "INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end")
    cumulating = t_env.sql_query(
        "SELECT window_start, window_end, MAX(v) AS top, COUNT(*) AS n FROM TABLE(CUMULATE(TABLE clicks, "
        "DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND)) GROUP BY window_start, window_end")
    expected = defaultdict(lambda: [0, 0])
    for n in range(N):
        window = expected[(n % 3, (n * 5) // 1000)]
        window[0] += n
        window[1] += 1
    got = {(r[0], round(_seconds(r[1]))): [r[2], r[3]] for r in tumbling.execute().collect()}
    assert got == dict(expected)
    windows = Counter()
    tops = {}
    assigner = CumulativeEventTimeWindows.of(4000, 1000)
    for n in range(N):
        for w in assigner.assign_windows(None, n * 5, None):
            windows[(w.start, w.end)] += 1
            tops[(w.start, w.end)] = n
    got = {(round(_seconds(r[0]) * 1000), round(_seconds(r[1]) * 1000)): (r[2], r[3])
           for r in cumulating.execute().collect()}
    assert got == {w: (tops[w], count) for w, count in windows.items()}


def test_session_windows_and_hop_rows_in_streaming(env):
    t_env = clicks(env)
    sessions = t_env.sql_query(
        "SELECT k, window_start, window_end, COUNT(*) AS n FROM TABLE(SESSION(TABLE clicks PARTITION BY k, "
        "DESCRIPTOR(ts), INTERVAL '0.02' SECOND)) WHERE v % 100 <> 50 GROUP BY k, window_start, window_end")
    expected = []
    for k in range(3):  # a key's rows are 15 ms apart: a filtered row leaves a gap that ends a session
        times = [n * 5 for n in range(N) if n % 3 == k and n % 100 != 50]
        start = previous = times[0]
        count = 0
        for t in times:
            if t - previous >= 20:
                expected.append((k, start, previous + 20, count))
                start, count = t, 0
            previous, count = t, count + 1
        expected.append((k, start, previous + 20, count))
    got = sorted((r[0], round(_seconds(r[1]) * 1000), round(_seconds(r[2]) * 1000), r[3])
                 for r in sessions.execute().collect())
    assert got == sorted(expected)
    hops = t_env.sql_query("SELECT v, window_start FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), "
                           "INTERVAL '1' SECOND, INTERVAL '2' SECOND)) WHERE v < 400")
    assert Counter(r[0] for r in hops.execute().collect()) == {v: 2 for v in range(400)}


@pytest.mark.parametrize("query, message", [
    ("SELECT * FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(k), INTERVAL '1' SECOND))",
     r"DESCRIPTOR\(k\) is not a time attribute of the table \(event time: ts"),
    ("SELECT * FROM TABLE(TUMBLE(TABLE clicks PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' SECOND))",
     "PARTITION BY is for SESSION windows only"),
    ("SELECT * FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))", "HOP: missing SIZE"),
    ("SELECT * FROM TABLE(CUMULATE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '3' SECOND))",
     "integral multiple"),
    ("SELECT * FROM TABLE(TUMBLE(TABLE clicks, ts, INTERVAL '1' SECOND))", r"DESCRIPTOR\(column\)"),
    ("SELECT * FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), 5))", "not a time interval"),
])
def test_window_tvfs_refuse_what_flink_refuses(env, query, message):
    t_env = clicks(env, 1)
    with pytest.raises(ValueError, match=message):
        t_env.sql_query(query)
