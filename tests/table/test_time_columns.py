"""TIME columns (DataTypes.TIME()) as PyFlink 2.3 gives them: from_elements and collect keep the
datetime.time, a cast to STRING writes HH:mm:ss (Spark carries the microseconds of the day); SQL's
TIME literals and casts to TIME."""
from __future__ import annotations

import datetime

import pytest

from kindling.table import DataTypes
from table_support import quiet_t_env


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_a_time_column_collects_and_casts_to_text_as_flink(spark, mode):
    t_env = quiet_t_env(mode)
    times = [datetime.time(12, 30, 5), datetime.time(0, 0, 0), datetime.time(23, 59, 59)]
    t = t_env.from_elements([(n, tm) for n, tm in enumerate(times)], DataTypes.ROW(
        [DataTypes.FIELD("id", DataTypes.INT()), DataTypes.FIELD("tm", DataTypes.TIME())]))
    t_env.create_temporary_view("t", t)
    with t_env.execute_sql("SELECT id, tm, CAST(tm AS STRING) FROM t").collect() as rows:
        assert sorted(tuple(r) for r in rows) == [(0, times[0], "12:30:05"), (1, times[1], "00:00:00"),
                                                  (2, times[2], "23:59:59")]
    with t_env.execute_sql("SELECT TIME '12:00:00', CAST('10:11:12' AS TIME), CAST(TIME '01:02:03' AS STRING)") \
            .collect() as rows:
        assert [tuple(r) for r in rows] == [(datetime.time(12), datetime.time(10, 11, 12), "01:02:03")]
