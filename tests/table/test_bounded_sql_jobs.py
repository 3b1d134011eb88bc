"""A bounded Flink SQL job over a table with a WATERMARK: it runs in one step when no node's answer
depends on the watermark (the assigner is not run), on micro-batches when one does (a window) or when
the rows go to the DataStream API, but in one step, with Spark's window aggregation, when no row can
be late for its window; a GROUP BY selecting an expression of its keys runs in Spark's
aggregation, and a blackhole counts the changes Flink's aggregation makes (the same as the Python
operator's) in one step, on micro-batches and in BATCH mode."""
from __future__ import annotations

import pytest

from kindling.table.planner.physical import Physical
from table_support import collected, quiet_t_env

EVENTS = "".join(f"{i % 7},{i % 5},2024-01-01 00:00:{i % 60:02d}.{i % 1000:03d}\n" for i in range(300))


def _events(t_env, path) -> None:
    t_env.execute_sql(f"CREATE TABLE ev (k INT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL "
                      f"'0.2' SECOND) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv', "
                      "'csv.null-literal' = 'null')")
    t_env.execute_sql("CREATE TABLE out (a BIGINT, b BIGINT, c BIGINT) WITH ('connector' = 'blackhole')")


GROUP_BY = "INSERT INTO out SELECT CAST(k AS BIGINT), COUNT(*), SUM(v) FROM ev GROUP BY k"


def test_the_run_mode_follows_what_reads_the_watermark(spark, tmp_path):
    path = tmp_path / "ev.csv"
    path.write_text(EVENTS)
    t_env = quiet_t_env()
    _events(t_env, path)
    plan = t_env.explain_sql(GROUP_BY)
    assert "GroupAggregate(groupBy=[k], select=[cast(k, BIGINT) AS EXPR$0, count(1) AS EXPR$1, sum(v) AS EXPR$2]) " \
           "[Spark JVM, one step]" in plan
    assert "WatermarkAssigner(rowtime=[ts], watermark=[ts - 200 ms]) [not run, one step: no node reads the " \
           "watermark]" in plan
    window = t_env.explain_sql("INSERT INTO out SELECT CAST(k AS BIGINT), COUNT(*), SUM(v) FROM TABLE(TUMBLE("
                               "TABLE ev, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end")
    assert "WatermarkAssigner(rowtime=[ts], watermark=[ts - 200 ms]) [Python, micro-batches]" in window
    filtered = t_env.sql_query("SELECT k, v FROM ev WHERE v > 1")
    assert "[Spark JVM, one step]" in filtered.explain()
    stream = Physical(t_env, [filtered._node], final=False)
    assert stream.mode == "micro-batches" and not stream.unread_watermarks  # read by DataStream operators


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_a_blackhole_counts_the_changes_flinks_aggregation_makes(spark, tmp_path, mode, monkeypatch):
    from kindling.spark.table import aggregation

    counted = []
    count = aggregation.one_step_change_count
    monkeypatch.setattr(aggregation, "one_step_change_count", lambda *a: counted.append(a) or count(*a))
    path = tmp_path / "ev.csv"
    path.write_text(EVENTS)
    written = {}
    for spark_aggregation, one_step in ((True, True), (False, True), (True, False)):
        t_env = quiet_t_env(mode)
        t_env.get_config().set("kindling.table.spark-aggregation", str(spark_aggregation).lower())
        t_env.get_config().set("kindling.bounded.one-step", str(one_step).lower())
        _events(t_env, path)
        client = t_env.execute_sql(GROUP_BY).get_job_client()
        result = client.get_job_execution_result().result()
        written[(spark_aggregation, one_step)] = [v for k, v in result.get_all_accumulator_results().items()
                                                  if k.startswith("records-written:")]
    # streaming: +I per group, -U/+U per further row (7 groups, 300 rows); batch: a row per group
    assert all(w == [2 * 300 - 7 if mode == "streaming" else 7] for w in written.values()), written
    assert len(counted) == (mode == "streaming")  # Spark's aggregation in one step: counted, not computed


#: one file, rows out of order by less than the 200 ms delay: no row can be late
IN_DELAY = "".join(f"{i % 7},{i % 5},2024-01-01 00:00:{(i * 10 - i % 3 * 60) // 1000:02d}."
                   f"{(i * 10 - i % 3 * 60) % 1000:03d}\n" for i in range(20, 300))
#: the first row of the second Arrow batch (10,000 rows) is behind the first batch's rows
ARROW_BATCHES = "".join(f"{i % 7},1,2024-01-01 00:00:{10 + i // 1000:02d}.{i % 1000:03d}\n" for i in range(10000)) \
    + "1,1,2024-01-01 00:00:01.000\n" + "".join(f"{i % 7},1,2024-01-01 00:00:25.{i:03d}\n" for i in range(500))
TUMBLE = ("SELECT k, window_start, window_end, window_time, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE ev, "
          "DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end, window_time")
OVER = ("SELECT k, ts, v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT "
        "ROW), COUNT(*) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM ev")
HOP = ("SELECT window_start, window_end, COUNT(*), MAX(v) FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), "
       "INTERVAL '0.5' SECOND, INTERVAL '1' SECOND)) GROUP BY window_start, window_end")


@pytest.mark.parametrize("late, files", [
    ("", {"ev.csv": IN_DELAY}),
    ("a row behind its file's latest by more than the delay", {"ev.csv": IN_DELAY + "1,1,2024-01-01 00:00:01.700\n"}),
    ("another reader's file may be read first", {"a.csv": IN_DELAY, "b.csv": "1,1,2024-01-01 00:00:05.000\n"}),
    ("a null time", {"ev.csv": IN_DELAY + "1,1,null\n"}),
    ("a row behind the rows of an earlier batch of its file", {"ev.csv": ARROW_BATCHES})])
def test_a_window_aggregation_runs_in_spark_when_no_row_can_be_late(spark, tmp_path, late, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    t_env = quiet_t_env()
    _events(t_env, tmp_path)
    for query in (TUMBLE, HOP, OVER):
        window = t_env.explain_sql(query).split("\n")[1 if query != OVER else 2]  # the window's or the OVER's line
        assert ("[Python, micro-batches" if late else "[Spark JVM, one step]") in window, window
    if not late:  # the same rows as the Python window and OVER operators' (Flink drops none)
        python = quiet_t_env()
        python.get_config().set("kindling.table.spark-aggregation", "false")
        python.get_config().set("kindling.table.spark-operators", "false")
        _events(python, tmp_path)
        assert "[Python, micro-batches" in python.explain_sql(TUMBLE).split("\n")[1]
        assert collected(t_env, TUMBLE) == collected(python, TUMBLE)
        assert collected(t_env, OVER) == collected(python, OVER)


def _spark_one_step(tmp_path, insert: str):
    """A TableEnvironment over the events of IN_DELAY whose ``insert`` Spark computes in one step (checked)."""
    (tmp_path / "ev.csv").write_text(IN_DELAY)
    t_env = quiet_t_env()
    _events(t_env, tmp_path)
    assert "[Spark JVM, one step]" in t_env.explain_sql(insert).split("\n")[2]
    return t_env


def _records_written(t_env, insert: str) -> list:
    """Runs the INSERT; the counts of rows its sinks wrote."""
    result = t_env.execute_sql(insert).get_job_client().get_job_execution_result().result()
    return [v for k, v in result.get_all_accumulator_results().items() if k.startswith("records-written:")]


def test_a_window_aggregation_only_a_blackhole_reads_writes_its_rows_in_no_order(spark, tmp_path, monkeypatch):
    """Only how many rows there are can be seen: no sort by window end and arrival, same count."""
    from kindling.spark.table import aggregation

    unordered = []
    in_order = aggregation.in_order
    monkeypatch.setattr(aggregation, "in_order", lambda c, s, *a: unordered.append(not s.ordered) or in_order(c, s, *a))
    insert = ("INSERT INTO out SELECT CAST(k AS BIGINT), COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), "
              "INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end")
    t_env = _spark_one_step(tmp_path, insert)
    written = _records_written(t_env, insert)
    assert unordered == [True]
    assert written == [len(collected(t_env, TUMBLE))] and unordered == [True, False]  # printed rows: in order


def test_an_over_only_a_blackhole_reads_through_a_calc_writes_its_rows_in_no_order(spark, tmp_path, monkeypatch):
    """In one step an OVER's rows come out per instance in time order, unless only blackholes see them
    (through projections and filters): then no sort after the window functions, same count."""
    from kindling.table.planner import physical

    ordered = []
    operator = physical.Physical._over_operator
    monkeypatch.setattr(physical.Physical, "_over_operator", lambda self, n: (
        lambda o: ordered.append(o[3]) or o)(operator(self, n)))
    insert = ("INSERT INTO out SELECT CAST(k AS BIGINT), v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN "
              "UNBOUNDED PRECEDING AND CURRENT ROW) FROM ev WHERE v > 0")
    t_env = _spark_one_step(tmp_path, insert)
    ordered.clear()
    written = _records_written(t_env, insert)
    assert ordered and not any(ordered)
    ordered.clear()
    assert written == [len([r for r in collected(t_env, OVER) if r[2] > 0])]
    assert ordered and all(ordered)  # collected rows: in order


INTERVAL_JOIN = "SELECT a.k, a.v, b.v, a.ts, b.ts FROM ev a {} ev b ON a.k = b.k AND a.ts BETWEEN b.ts - INTERVAL " \
                "'0.05' SECOND AND b.ts + INTERVAL '0.02' SECOND AND a.v <> b.v"
#: no row is late, but rows at 1970-01-01 00:00:00.000: Flink's interval join takes a watermark below 0 as 0
AT_EPOCH = "".join(f"{i % 3},{i % 5},1970-01-01 00:00:00.{i * 10:03d}\n" for i in range(50))


@pytest.mark.parametrize("late, files", [
    ("", {"ev.csv": IN_DELAY}),
    ("a row behind its file's latest by more than the delay", {"ev.csv": IN_DELAY + "1,1,2024-01-01 00:00:01.700\n"}),
    ("another reader's file may be read first", {"a.csv": IN_DELAY, "b.csv": "1,1,2024-01-01 00:00:05.000\n"}),
    ("times at the epoch", {"ev.csv": AT_EPOCH})])
def test_an_interval_join_runs_in_spark_when_no_row_can_be_late(spark, tmp_path, late, files):
    """Each pair within the bounds once, each unmatched row of an outer side padded once: Flink's
    answer when no row can be late (as the Python operator's)."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    t_env = quiet_t_env(parallelism=2)
    _events(t_env, tmp_path)
    python = quiet_t_env(parallelism=2)
    python.get_config().set("kindling.table.spark-operators", "false")
    _events(python, tmp_path)
    for kind in ("JOIN", "LEFT JOIN", "FULL JOIN"):
        query = INTERVAL_JOIN.format(kind)
        join = next(line for line in t_env.explain_sql(query).split("\n") if "IntervalJoin" in line)
        assert ("[Python, micro-batches" if late else "[Spark JVM, one step]") in join, join
        if not late:
            assert "[Python, micro-batches" in next(line for line in python.explain_sql(query).split("\n")
                                                     if "IntervalJoin" in line)
            assert _padded_rows(t_env, query) == _padded_rows(python, query)


def _padded_rows(t_env, query: str) -> list:
    with t_env.execute_sql(query).collect() as rows:
        return sorted((tuple(r) for r in rows), key=repr)


def test_an_interval_joins_padded_rows_come_after_its_pairs_in_one_step(spark, tmp_path):
    """In one step the watermark passes the rows' bounds at the end of input: an instance's padded
    rows come after its pairs."""
    (tmp_path / "ev.csv").write_text(IN_DELAY)
    t_env = quiet_t_env(parallelism=1)
    _events(t_env, tmp_path)
    for kind, side in (("LEFT JOIN", 2), ("RIGHT JOIN", 1)):
        with t_env.execute_sql(INTERVAL_JOIN.format(kind)).collect() as rows:
            padded = [r[side] is None for r in rows]
        assert 0 < sum(padded) < len(padded) and padded == sorted(padded), kind


def test_an_overs_argument_column_crosses_the_exchange_once(spark, tmp_path, monkeypatch):
    """SUM(v) reads v: the window functions' shuffle carries k, v, the order and the arrival, no copy of v."""
    import re

    from kindling.spark import sinks

    plans = []
    write = sinks.DiscardWriter.write
    monkeypatch.setattr(sinks.DiscardWriter, "write", lambda self, df, batch: plans.append(
        df._jdf.queryExecution().explainString(df._sc._jvm.org.apache.spark.sql.execution.ExplainMode.fromString(
            "formatted"))) or write(self, df, batch))
    (tmp_path / "ev.csv").write_text(IN_DELAY)
    t_env = quiet_t_env()
    _events(t_env, tmp_path)
    t_env.execute_sql("INSERT INTO out SELECT CAST(k AS BIGINT), v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS "
                      "BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM ev").wait()
    assert [re.findall(r"Exchange\nInput \[(\d+)\]", p) for p in plans] == [["4"]], plans
