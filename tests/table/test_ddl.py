"""CREATE TABLE and Schema declarations beyond physical columns: computed columns, PROCTIME(),
metadata columns, WATERMARK FOR (Flink SQL's bounded out-of-orderness, feeding group windows with
the per-split minimum rule), PRIMARY KEY ... NOT ENFORCED and PARTITIONED BY; the schema printed and
described as Flink prints it. tests/conformance/programs/table_ddl.py compares a program with PyFlink."""
from __future__ import annotations

import datetime
import time

import pytest

from kindling.table import DataTypes, EnvironmentSettings, Schema, StreamTableEnvironment, TableDescriptor, \
    TableEnvironment
from kindling.table.ddl import parse_statement
from kindling.table.expressions import col, lit
from kindling.table.window import Tumble

DDL = """CREATE TEMPORARY TABLE IF NOT EXISTS events (
  word STRING,
  n INT NOT NULL,
  ts TIMESTAMP(3),
  ms BIGINT,
  doubled AS n * 2,
  at_ms AS CAST(ms AS TIMESTAMP(3)) COMMENT 'from ms',
  pt AS PROCTIME(),
  record_time TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
  `offset` BIGINT NOT NULL METADATA,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND,
  CONSTRAINT pk PRIMARY KEY (word, n) NOT ENFORCED
) PARTITIONED BY (word) WITH ('connector' = 'filesystem', 'path' = '/nowhere', 'format' = 'csv')"""


def test_create_table_reads_every_kind_of_column():
    kind, name, schema, options, comment, if_not_exists, temporary = parse_statement(DDL)
    assert (kind, name, comment, if_not_exists) == ("create_table", "events", None, True)
    assert options == {"connector": "filesystem", "path": "/nowhere", "format": "csv"}
    assert schema.get_field_names() == ["word", "n", "ts", "ms", "doubled", "at_ms", "pt", "record_time", "offset"]
    assert schema.computed == {"doubled": "`n` * 2", "at_ms": "CAST(`ms` AS TIMESTAMP(3))", "pt": "PROCTIME()"}
    assert schema.metadata == {"record_time": ("timestamp", True), "offset": (None, False)}
    assert schema.watermark_spec == ("ts", "`ts` - INTERVAL '2' SECOND")
    assert schema.comments == {"at_ms": "from ms"}
    assert schema.primary_key == ("pk", ["word", "n"]) and schema.partition_keys == ["word"]
    assert schema.physical_names() == ["word", "n", "ts", "ms"]
    assert schema.persisted().get_field_names() == ["word", "n", "ts", "ms", "offset"]
    assert repr(schema.get_field_data_types()[0]) == "STRING NOT NULL"  # a key column is NOT NULL


@pytest.mark.parametrize("statement, message", [
    ("CREATE TABLE t (a INT, PRIMARY KEY (a)) WITH ('connector' = 'datagen')", "PRIMARY KEY ... NOT ENFORCED"),
    ("CREATE TABLE t (a INT, WATERMARK FOR b AS b) WITH ('connector' = 'datagen')", "'b'.* not one of its columns"),
    ("CREATE TABLE t (a INT, WATERMARK b) WITH ('connector' = 'datagen')", "WATERMARK FOR column AS expression"),
    ("CREATE TABLE t (a INT METADATA FROM k) WITH ('connector' = 'kafka')", "quoted key"),
    ("CREATE TABLE t (a INT, CONSTRAINT u UNIQUE (a)) WITH ('connector' = 'datagen')", "not supported"),
])
def test_wrong_declarations_fail_naming_the_problem(statement, message):
    with pytest.raises(ValueError, match=message):
        parse_statement(statement)


def test_schema_builder_declares_keys_and_metadata():
    schema = Schema.new_builder().column("id", DataTypes.BIGINT()).column("v", DataTypes.STRING()) \
        .column_by_metadata("t", DataTypes.TIMESTAMP_LTZ(3), "timestamp", True).primary_key("id").build()
    assert repr(schema) == ("(\n  `id` BIGINT NOT NULL,\n  `v` STRING,\n  `t` TIMESTAMP_LTZ(3) METADATA FROM "
                            "'timestamp' VIRTUAL,\n  CONSTRAINT `PK_id` PRIMARY KEY (`id`) NOT ENFORCED\n)")
    copy = Schema.new_builder().from_schema(schema).build()
    assert (copy.primary_key, copy.metadata) == (schema.primary_key, schema.metadata)


def _csv(tmp_path, name: str, lines) -> str:
    directory = tmp_path / "in"
    directory.mkdir(exist_ok=True)
    (directory / name).write_text("".join(line + "\n" for line in lines))
    return str(directory)


def test_print_schema_and_describe_as_flink(spark, tmp_path, capsys):
    path = _csv(tmp_path, "a.csv", ["x,1,2024-01-01 00:00:01"])
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql(f"""CREATE TABLE src (word STRING, n INT, ts TIMESTAMP(3), n2 AS n + 1, pt AS PROCTIME(),
        WATERMARK FOR ts AS ts - INTERVAL '2' SECOND, PRIMARY KEY (word) NOT ENFORCED)
        WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')""")
    t_env.from_path("src").print_schema()
    t_env.execute_sql("DESCRIBE src").print()
    assert capsys.readouterr().out.splitlines() == [
        "(",
        "  `word` STRING NOT NULL,",
        "  `n` INT,",
        "  `ts` TIMESTAMP(3) *ROWTIME*,",
        "  `n2` INT AS `n` + 1,",
        "  `pt` TIMESTAMP_LTZ(3) NOT NULL *PROCTIME* AS PROCTIME(),",
        "  WATERMARK FOR `ts`: TIMESTAMP(3) AS `ts` - INTERVAL '2' SECOND,",
        "  CONSTRAINT `PK_word` PRIMARY KEY (`word`) NOT ENFORCED",
        ")",
        "+------+-----------------------------+-------+-----------+---------------+----------------------------+",
        "| name |                        type |  null |       key |        extras |                  watermark |",
        "+------+-----------------------------+-------+-----------+---------------+----------------------------+",
        "| word |                      STRING | FALSE | PRI(word) |               |                            |",
        "|    n |                         INT |  TRUE |           |               |                            |",
        "|   ts |      TIMESTAMP(3) *ROWTIME* |  TRUE |           |               | `ts` - INTERVAL '2' SECOND |",
        "|   n2 |                         INT |  TRUE |           |    AS `n` + 1 |                            |",
        "|   pt | TIMESTAMP_LTZ(3) *PROCTIME* | FALSE |           | AS PROCTIME() |                            |",
        "+------+-----------------------------+-------+-----------+---------------+----------------------------+",
        "5 rows in set",
    ]


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_watermark_feeds_windows_with_the_slowest_split(spark, tmp_path, mode):
    # two files, two splits: a.csv's event time runs to 20 s, b.csv's to 4 s, each out of order by
    # at most 1 s. The windows' watermark is the slower split's, so none of b's rows is late.
    _csv(tmp_path, "a.csv", [f"a,1,2024-01-01 00:00:{s:02d}" for s in (0, 6, 5, 11, 10, 16, 15, 19)])
    path = _csv(tmp_path, "b.csv", [f"b,10,2024-01-01 00:00:{s:02d}" for s in (1, 0, 3, 2, 4)])
    settings = EnvironmentSettings.in_streaming_mode() if mode == "streaming" else EnvironmentSettings.in_batch_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "2")
    t_env.execute_sql(f"""CREATE TABLE clicks (word STRING, n INT, ts TIMESTAMP(3),
        WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '{path}',
        'format' = 'csv')""")
    rows = t_env.from_path("clicks").window(Tumble.over(lit(5).seconds).on(col("ts")).alias("w")) \
        .group_by(col("w")).select(col("w").start.alias("start"), col("n").sum.alias("total")).to_pandas()
    totals = {r.start.second: r.total for r in rows.itertuples()}
    assert totals == {0: 1 + 50, 5: 2, 10: 2, 15: 3}


def test_a_late_row_of_one_split_is_dropped_as_flink_sql_drops_it(spark, tmp_path):
    # Flink SQL's watermark assigner emits as soon as an element moves the watermark: after the
    # row at 7 s the watermark is 6 s, so the row at 3 s that follows is late for [0 s, 5 s)
    path = _csv(tmp_path, "a.csv", ["x,1,2024-01-01 00:00:01", "x,2,2024-01-01 00:00:07", "x,4,2024-01-01 00:00:03"])
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(f"""CREATE TABLE s (word STRING, n INT, ts TIMESTAMP(3), WATERMARK FOR ts AS
        ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')""")
    rows = t_env.from_path("s").window(Tumble.over(lit(5).seconds).on(col("ts")).alias("w")).group_by(col("w")) \
        .select(col("n").sum.alias("total")).to_pandas()
    assert sorted(rows.total) == [1, 2]


def test_computed_and_proctime_columns_of_a_descriptor(spark):
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.create_temporary_table("gen", TableDescriptor.for_connector("datagen").schema(
        Schema.new_builder().column("id", DataTypes.BIGINT()).column_by_expression("tenfold", "id * 10")
        .column_by_expression("pt", "PROCTIME()").build())
        .option("fields.id.kind", "sequence").option("fields.id.start", "1").option("fields.id.end", "3").build())
    before = datetime.datetime.now(datetime.timezone.utc).timestamp()
    rows = t_env.from_path("gen").execute().collect()
    with rows:
        values = [tuple(r) for r in rows]
    assert sorted((i, t) for i, t, _ in values) == [(1, 10), (2, 20), (3, 30)]
    assert all(before - 1 <= pt.to_epoch_milli() / 1000 <= time.time() + 1 for _, _, pt in values)


def test_metadata_a_connector_lacks_fails_naming_what_it_has(spark):
    t_env = StreamTableEnvironment.create()
    t_env.execute_sql("CREATE TABLE g (id INT, t TIMESTAMP_LTZ(3) METADATA FROM 'timestamp') WITH "
                      "('connector' = 'datagen')")
    with pytest.raises(ValueError, match="reads 'timestamp', which the 'datagen' connector does not have"):
        t_env.from_path("g")


def test_a_bytes_column_is_flinks_bytes_and_bytes_stays_a_name(env, tmp_path):
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(f"CREATE TABLE blobs (payload BYTES, bytes INT) WITH ('connector' = 'filesystem', "
                      f"'path' = '{tmp_path}', 'format' = 'json')")
    schema = t_env.from_path("blobs").get_schema()
    assert [repr(t) for t in schema.get_field_data_types()] == ["BYTES", "INT"]
