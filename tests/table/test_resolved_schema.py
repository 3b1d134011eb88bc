"""ResolvedSchema and its columns (pyflink.table.catalog): built by hand and from a declared table."""
from __future__ import annotations

import pytest

from kindling.common.unsupported import UnsupportedError
from kindling.table import DataTypes
from kindling.table.catalog import Column, ResolvedSchema, UniqueConstraint, WatermarkSpec


def test_columns_copy_rename_and_comment_without_changing_the_original():
    column = Column.physical("a", DataTypes.BIGINT())
    assert str(column.with_comment("it's a")) == "`a` BIGINT COMMENT 'it''s a'"
    assert str(column.rename("b")) == "`b` BIGINT" and str(column.copy(DataTypes.INT())) == "`a` INT"
    assert str(column) == "`a` BIGINT" and column == Column.physical("a", DataTypes.BIGINT())
    virtual = Column.metadata("o", DataTypes.BIGINT(), "offset", True)
    assert (virtual.is_physical(), virtual.is_persisted(), virtual.get_metadata_key()) == (False, False, "offset")
    assert Column.metadata("t", DataTypes.BIGINT(), None, False).is_persisted()


def test_row_types_keep_the_columns_each_side_reads_or_writes():
    schema = ResolvedSchema([Column.physical("a", DataTypes.BIGINT()),
                             Column.metadata("o", DataTypes.BIGINT(), "offset", True),
                             Column.metadata("t", DataTypes.BIGINT(), None, False)],
                            [WatermarkSpec("a", "`a`", DataTypes.BIGINT())], UniqueConstraint.primary_key("pk", ["a"]))
    assert [f.name for f in schema.to_source_row_data_type().fields] == ["a", "o", "t"]
    assert [f.name for f in schema.to_physical_row_data_type().fields] == ["a"]
    assert [f.name for f in schema.to_sink_row_data_type().fields] == ["a", "t"]
    assert schema.get_primary_key_indexes() == [0] and schema.get_column(2).get_name() == "t"
    assert str(schema).splitlines()[-2] == "  CONSTRAINT `pk` PRIMARY KEY (`a`) NOT ENFORCED,"[:-1]


def test_resolved_expressions_are_refused_by_name():
    with pytest.raises(UnsupportedError, match="resolved expressions belong to Flink's planner"):
        Column.computed("c", None)
    with pytest.raises(UnsupportedError, match="resolved expressions"):
        WatermarkSpec.of("ts", None)


def test_a_declared_table_resolves_its_comments_keys_and_time_attributes(env, tmp_path):
    from kindling.table import StreamTableEnvironment

    t_env = StreamTableEnvironment.create(env)
    (tmp_path / "t.csv").write_text("")
    t_env.execute_sql("CREATE TABLE t (k STRING COMMENT 'key', ts TIMESTAMP(3), n AS CHAR_LENGTH(k) COMMENT 'len', "
                      "WATERMARK FOR ts AS ts, PRIMARY KEY (k) NOT ENFORCED) COMMENT 'tbl' "
                      f"WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/t.csv', 'format' = 'csv')")
    schema = t_env.from_path("t").get_resolved_schema()
    assert [str(c) for c in schema.get_columns()] == [
        "`k` STRING NOT NULL COMMENT 'key'", "`ts` TIMESTAMP(3) *ROWTIME*", "`n` INT NOT NULL AS CHAR_LENGTH(`k`) COMMENT 'len'"]
    assert schema.get_primary_key().get_columns() == ["k"]
    assert [w.get_rowtime_attribute() for w in schema.get_watermark_specs()] == ["ts"]
    rows = list(t_env.execute_sql("SHOW CREATE TABLE t").collect())
    assert "COMMENT 'tbl'\n" in rows[0][0] and "`k` VARCHAR(2147483647) NOT NULL COMMENT 'key'" in rows[0][0]


def test_a_lateral_join_keeps_the_rows_time_attributes(env, tmp_path):
    """As Flink's Correlate: the row's columns keep their time attributes (a window may follow join_lateral)."""
    from kindling.table import StreamTableEnvironment
    from kindling.table.expressions import col
    from kindling.table.udf import udtf

    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql("CREATE TABLE t (k STRING, ts TIMESTAMP(3), pt AS PROCTIME(), WATERMARK FOR ts AS ts) "
                      f"WITH ('connector' = 'filesystem', 'path' = '{tmp_path}', 'format' = 'csv')")
    same = udtf(lambda s: [(s,)], result_types=[DataTypes.STRING()])
    t_env.create_temporary_function("same", same)
    t = t_env.from_path("t")
    for table in (t.join_lateral(same(col("k")).alias("x")), t.left_outer_join_lateral(same(col("k")).alias("x")),
                  t_env.sql_query("SELECT * FROM t, LATERAL TABLE(same(k)) AS T(x)")):
        assert [str(c) for c in table.get_resolved_schema().get_columns()] == [
            "`k` STRING", "`ts` TIMESTAMP(3) *ROWTIME*", "`pt` TIMESTAMP_LTZ(3) NOT NULL *PROCTIME*", "`x` STRING"]
