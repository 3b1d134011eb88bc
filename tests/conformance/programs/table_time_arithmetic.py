"""Time arithmetic and date parts in SQL and the Table API: a time plus or minus an interval of
milliseconds or of months, TIMESTAMPADD, QUARTER/DAYOFWEEK/DAYOFYEAR..., exact decimal literals, and
a SELECT without FROM; with their column types (UTC session time zone)."""
import datetime

from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.expressions import col, lit

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.get_config().set("table.local-time-zone", "UTC")
events = t_env.from_elements(
    [(1, datetime.datetime(2024, 1, 31, 10, 20, 30, 123000), datetime.date(2024, 2, 29)),
     (2, datetime.datetime(1999, 12, 31, 23, 59, 59), datetime.date(2000, 1, 1)),
     (3, None, None)],
    DataTypes.ROW([DataTypes.FIELD('id', DataTypes.BIGINT()), DataTypes.FIELD('ts', DataTypes.TIMESTAMP(3)),
                   DataTypes.FIELD('d', DataTypes.DATE())]))
ts, d = col('ts'), col('d')
shifted = events.select(col('id'), ts + lit(90).minutes, lit(2).days + ts, ts - lit(1).months, ts + lit(1).years,
                        d - lit(25).hours, d + lit(1).quarters, d - lit(1).years)
shifted.print_schema()
shifted.execute().print()
t_env.create_temporary_view('events', events)
t_env.execute_sql(
    "SELECT id, ts + INTERVAL '90' MINUTE, d - INTERVAL '1' DAY, ts - INTERVAL '2' MONTH, d + INTERVAL '1' YEAR, "
    "INTERVAL '1' WEEK + ts, TIMESTAMPADD(MONTH, 1, ts), TIMESTAMPADD(QUARTER, -1, d), TIMESTAMPADD(HOUR, 1, d), "
    "QUARTER(ts), DAYOFWEEK(d), DAYOFYEAR(ts), DAYOFMONTH(d), WEEK(d), MONTH(ts), HOUR(ts), MINUTE(ts), SECOND(ts) "
    "FROM events").print()
t_env.execute_sql("SELECT 3 * 2.55, CAST(3 * 2.55 AS DECIMAL(5, 1)), 1.5 + 1, 0.1 + 0.2 = 0.3, "
                  "TIMESTAMP '2024-05-03 10:00:00' - INTERVAL '1' MONTH").print()
