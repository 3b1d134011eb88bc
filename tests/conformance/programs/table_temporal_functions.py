"""Built-in date and time functions of the Table API and SQL: parsing, formatting, extracting, flooring,
differences and epoch conversions, with their column types (UTC session time zone)."""
import datetime

from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment
from pyflink.table.expression import TimeIntervalUnit, TimePointUnit
from pyflink.table.expressions import (col, date_format, from_unixtime, lit, timestamp_diff, to_date, to_timestamp,
                                       to_timestamp_ltz, unix_timestamp)

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.get_config().set("table.local-time-zone", "UTC")
events = t_env.from_elements(
    [(1, datetime.datetime(2024, 3, 15, 10, 20, 30, 123000), datetime.date(2024, 2, 29), '2024-03-15 10:20:30', 100),
     (2, datetime.datetime(1999, 12, 31, 23, 59, 59), datetime.date(2000, 1, 1), '2000-02-29 12:00:00', -86400)],
    DataTypes.ROW([DataTypes.FIELD('id', DataTypes.BIGINT()), DataTypes.FIELD('ts', DataTypes.TIMESTAMP(3)),
                   DataTypes.FIELD('d', DataTypes.DATE()), DataTypes.FIELD('s', DataTypes.STRING()),
                   DataTypes.FIELD('n', DataTypes.BIGINT())]))
ts, d, s, n = col('ts'), col('d'), col('s'), col('n')
times = events.select(
    col('id'), ts.extract(TimeIntervalUnit.YEAR), ts.extract(TimeIntervalUnit.MONTH), ts.extract(TimeIntervalUnit.DAY),
    ts.extract(TimeIntervalUnit.HOUR), ts.extract(TimeIntervalUnit.MINUTE), ts.extract(TimeIntervalUnit.SECOND),
    ts.extract(TimeIntervalUnit.QUARTER), d.extract(TimeIntervalUnit.YEAR), ts.floor(TimeIntervalUnit.HOUR),
    ts.floor(TimeIntervalUnit.DAY), ts.ceil(TimeIntervalUnit.HOUR), date_format(ts, 'yyyy/MM/dd HH:mm:ss'),
    to_date(s), to_timestamp(s), s.to_timestamp, to_timestamp('2024-01-02 03:04:05'), to_date('20240102', 'yyyyMMdd'),
    unix_timestamp(s), unix_timestamp('1970-01-01 00:01:40'), from_unixtime(n), from_unixtime(n, 'yyyy-MM-dd'),
    to_timestamp_ltz(n, 0), to_timestamp_ltz(n * 1000, 3),
    timestamp_diff(TimePointUnit.DAY, ts, to_timestamp('2024-03-20 00:00:00')),
    timestamp_diff(TimePointUnit.HOUR, to_timestamp('2024-03-20 00:00:00'), ts),
    timestamp_diff(TimePointUnit.MONTH, ts, to_timestamp('2024-06-15 10:20:30')),
    ts.cast(DataTypes.STRING()), d.cast(DataTypes.STRING()), d.cast(DataTypes.TIMESTAMP(3)),
    lit('2024-05-06').cast(DataTypes.DATE()), ts.cast(DataTypes.DATE()))
times.print_schema()
times.execute().print()
t_env.create_temporary_view('events', events)
t_env.execute_sql(
    "SELECT id, EXTRACT(YEAR FROM ts), EXTRACT(MONTH FROM d), FLOOR(ts TO HOUR), DATE_FORMAT(ts, 'yyyy-MM-dd'), "
    "TO_DATE(s), TO_TIMESTAMP(s), UNIX_TIMESTAMP(s), FROM_UNIXTIME(n), TIMESTAMPDIFF(DAY, ts, TIMESTAMP '2024-03-20 00:00:00'), "
    "CAST(ts AS STRING), CAST('2024-05-06' AS DATE), DATE '2024-01-01', TIMESTAMP '2024-01-01 12:00:00' "
    "FROM events").print()
