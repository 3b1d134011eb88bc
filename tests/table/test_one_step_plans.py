"""What Spark runs of a bounded CSV query besides Flink's work: a cast of an integral type to a wider
one is Spark's plain cast (every value fits: no exact value wrapped around), and the check that every
field of a record reads is a plain condition in the generated code (no array and lambda per row)."""
from __future__ import annotations

import re

from table_support import quiet_t_env


def _t_env(path):
    t_env = quiet_t_env()
    t_env.execute_sql(f"CREATE TABLE ev (k INT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '0.2' "
                      f"SECOND) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')")
    t_env.execute_sql("CREATE TABLE out (a BIGINT, b INT) WITH ('connector' = 'blackhole')")
    return t_env


def test_a_widening_integral_cast_is_a_plain_cast_and_every_field_is_read_by_a_plain_condition(
        spark, tmp_path, monkeypatch):
    """CAST(k AS BIGINT) of an INT: no DECIMAL value wrapped around (a narrowing cast still wraps, as
    Java's); the filter keeping every field's parse is an OR of conditions, not exists() over an array."""
    from kindling.spark import sinks

    plans = []
    write = sinks.DiscardWriter.write
    monkeypatch.setattr(sinks.DiscardWriter, "write", lambda self, df, batch: plans.append(
        df._jdf.queryExecution().executedPlan().toString()) or write(self, df, batch))
    (tmp_path / "ev.csv").write_text("1,4294967297,2024-01-01 00:00:00.000\n-3,-2147483649,2024-01-01 00:00:00.001\n")
    t_env = _t_env(tmp_path)
    t_env.execute_sql("INSERT INTO out SELECT CAST(k AS BIGINT), CAST(v AS INT) FROM ev").wait()
    assert len(plans) == 1
    assert re.search(r"cast\(k#\d+ as bigint\) AS", plans[0]), plans[0]
    assert plans[0].count("pmod") == 1  # the BIGINT to INT cast only
    assert "exists(" not in plans[0] and re.search(r"Filter \(+isnull\(k#\d+\) OR", plans[0]), plans[0]
    with t_env.execute_sql("SELECT CAST(k AS BIGINT), CAST(v AS INT), CAST(CAST(k AS SMALLINT) AS INT) FROM ev"
                           ).collect() as rows:
        assert sorted(tuple(r) for r in rows) == [(-3, 2147483647, -3), (1, 1, 1)]


def test_a_field_no_column_reads_still_fails_the_job(spark, tmp_path):
    (tmp_path / "ev.csv").write_text("1,2,2024-01-01 00:00:00.000\n2,3,not a time\n")
    t_env = _t_env(tmp_path)
    try:
        t_env.execute_sql("INSERT INTO out SELECT CAST(k AS BIGINT), 1 FROM ev").wait()
    except Exception as error:  # noqa: BLE001 - the job's failure, whichever wrapper carries it
        assert "column 'ts': cannot read 'not a time' as TIMESTAMP(3)" in str(error)
    else:
        raise AssertionError("the unreadable time did not fail the job")
