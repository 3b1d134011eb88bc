"""ROW, ARRAY and MAP columns of a print table: written from SQL constructors (a ROW cast by position to
the sink's field names), from typed elements, with NULLs inside and outside, as Flink's print writes them;
CAST to ROW, ARRAY and MAP.
"""
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql("CREATE TABLE s (a INT, f ARRAY<STRING>, g ROW<a INT, b STRING, c TIMESTAMP(3), d ARRAY<INT>>, "
                  "h MAP<STRING, INT>, n ARRAY<BIGINT>) WITH ('connector' = 'print')")
t_env.execute_sql("INSERT INTO s SELECT 1, ARRAY['hello', CAST(NULL AS STRING)], ROW(1, 'hello', TIMESTAMP "
                  "'1970-01-01 00:00:00.123', ARRAY[1, 2]), MAP['k', 1], CAST(NULL AS ARRAY<BIGINT>)").wait()
t_env.execute_sql("INSERT INTO s SELECT 2, ARRAY['x'], CAST(NULL AS ROW<a INT, b STRING, c TIMESTAMP(3), d ARRAY<INT>>), "
                  "MAP['a', CAST(NULL AS INT)], ARRAY[CAST(5 AS BIGINT)]").wait()
row_type = DataTypes.ROW([DataTypes.FIELD("a", DataTypes.INT()), DataTypes.FIELD("f", DataTypes.ARRAY(DataTypes.STRING())),
                          DataTypes.FIELD("g", DataTypes.ROW([DataTypes.FIELD("a", DataTypes.INT()),
                                                              DataTypes.FIELD("b", DataTypes.STRING()),
                                                              DataTypes.FIELD("c", DataTypes.TIMESTAMP(3)),
                                                              DataTypes.FIELD("d", DataTypes.ARRAY(DataTypes.INT()))])),
                          DataTypes.FIELD("h", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())),
                          DataTypes.FIELD("n", DataTypes.ARRAY(DataTypes.BIGINT()))])
t_env.from_elements([(3, ['p', 'q'], (7, 'r', None, [3]), {'z': 9}, [1, 2])], row_type).execute_insert("s").wait()
t_env.execute_sql("SELECT CAST(ROW(1, 'a') AS ROW<x STRING, y STRING>) AS r, CAST(ARRAY[1, 2] AS ARRAY<STRING>) AS s, "
                  "CAST(MAP['k', 1] AS MAP<STRING, DOUBLE>) AS m").print()
