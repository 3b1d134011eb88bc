"""Flink's built-in time functions in a session time zone with daylight saving (America/New_York), on
edge values (NULLs, the epoch, the days the clocks change, negative epoch seconds), in SQL, with their
column types (print_schema)."""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.get_config().set("table.local-time-zone", "America/New_York")
edge = t_env.from_elements(
    [(1, 0, '1970-01-01 00:00:00'), (2, 1710054000, '2024-03-10 02:30:00'), (3, None, None),
     (4, 1730613600, '2024-11-03 01:30:00'), (5, -86400, '')],
    DataTypes.ROW([DataTypes.FIELD('id', DataTypes.BIGINT()), DataTypes.FIELD('secs', DataTypes.BIGINT()),
                   DataTypes.FIELD('s', DataTypes.STRING())]))
t_env.create_temporary_view('e', edge)
CALLS = [
    ["FROM_UNIXTIME(secs)", "TO_TIMESTAMP_LTZ(secs, 0)", "UNIX_TIMESTAMP(s)",
     "CONVERT_TZ(s, 'UTC', 'America/New_York')", "CONVERT_TZ(s, 'America/New_York', 'Asia/Kolkata')"],
    ["CAST(TO_TIMESTAMP_LTZ(secs, 0) AS STRING)", "CAST(TO_TIMESTAMP_LTZ(secs, 0) AS TIMESTAMP(3))",
     "DATE_FORMAT(TO_TIMESTAMP_LTZ(secs, 0), 'yyyy-MM-dd HH:mm')", "EXTRACT(HOUR FROM TO_TIMESTAMP_LTZ(secs, 0))"],
]
for calls in CALLS:
    table = t_env.sql_query(f"SELECT id, {', '.join(calls)} FROM e")
    table.print_schema()
    table.execute().print()
