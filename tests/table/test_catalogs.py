"""Catalogs and databases (kindling/table/catalog_manager.py): Flink's object identifiers
(catalog.database.object) in SQL and the Table API, temporary objects shadowing permanent ones,
and Flink's errors for what is not there; the wording was taken from PyFlink 2.3."""
from __future__ import annotations

import pytest

from kindling.common import Configuration
from kindling.table import DataTypes, EnvironmentSettings, Schema, TableDescriptor, TableEnvironment
from kindling.table.catalog import Catalog, CatalogDatabase, CatalogDescriptor, ObjectIdentifier, ObjectPath
from kindling.table.catalog_manager import path_parts, path_text
from table_support import collected, quiet_t_env


def _t_env() -> TableEnvironment:
    return TableEnvironment.create(EnvironmentSettings.in_batch_mode())


def _descriptor(*columns: str) -> TableDescriptor:
    schema = Schema.new_builder()
    for name in columns:
        schema.column(name, DataTypes.BIGINT())
    return TableDescriptor.for_connector("datagen").schema(schema.build()).option("number-of-rows", "3").build()


def _in_memory(**options: str) -> CatalogDescriptor:
    config = Configuration()
    for key, value in {"type": "generic_in_memory", **options}.items():
        config.set_string(key.replace("_", "-"), value)
    return CatalogDescriptor.of("c", config)


def test_paths_of_one_to_three_parts_in_backquotes():
    assert path_parts("t") == ["t"]
    assert path_parts("db.t") == ["db", "t"]
    assert path_parts("`my.cat`.`d``b`.t") == ["my.cat", "d`b", "t"]
    assert path_text(["my.cat", "db", "UnnamedTable$0"]) == "`my.cat`.db.`UnnamedTable$0`"
    for bad in ("a.b.c.d", "a..b", "`a", ""):
        with pytest.raises(ValueError, match="Invalid SQL identifier"):
            path_parts(bad)


def test_object_names_print_as_flink_prints_them():
    assert ObjectPath("db", "t").get_full_name() == "db.t" and ObjectPath.from_string("db.t") == ObjectPath("db", "t")
    with pytest.raises(ValueError, match="Cannot get split 'dbt'"):
        ObjectPath.from_string("dbt")
    identifier = ObjectIdentifier.of("c", "d", "t")
    assert identifier.as_serializable_string() == "`c`.`d`.`t`" and identifier.as_summary_string() == "c.d.t"
    assert identifier.to_object_path() == ObjectPath("d", "t") and identifier.to_list() == ["c", "d", "t"]


def test_the_built_in_catalog_and_an_in_memory_one():
    t_env = _t_env()
    assert (t_env.get_current_catalog(), t_env.get_current_database()) == ("default_catalog", "default_database")
    t_env.create_catalog("c", _in_memory(default_database="mydb"))
    assert t_env.list_catalogs() == ["c", "default_catalog"]
    catalog = t_env.get_catalog("c")
    assert isinstance(catalog, Catalog) and catalog.list_databases() == ["mydb"] and t_env.get_catalog("x") is None
    t_env.use_catalog("c")
    assert (t_env.get_current_catalog(), t_env.get_current_database()) == ("c", "mydb")
    catalog.create_database("db", CatalogDatabase.create_instance({"k": "v"}, "second"), False)
    assert catalog.get_database("db").get_properties() == {"k": "v"} and catalog.get_database("db").get_comment() == \
        "second"
    t_env.use_database("db")
    assert t_env.list_databases() == ["db", "mydb"]
    other = _t_env()
    other.register_catalog("shared", catalog)
    assert other.get_catalog("shared") is catalog


def test_catalogs_kindling_does_not_make_are_refused_by_name():
    t_env = _t_env()
    config = Configuration()
    config.set_string("type", "hive")
    with pytest.raises(ValueError, match="catalogs of type 'hive' are not supported by Kindling"):
        t_env.create_catalog("h", CatalogDescriptor.of("h", config))
    with pytest.raises(ValueError, match="Catalog options do not contain an option key 'type'"):
        t_env.execute_sql("CREATE CATALOG x WITH ('default-database' = 'd')")
    with pytest.raises(ImportError, match="HiveCatalog is not supported by Kindling yet: Hive catalogs"):
        from kindling.table.catalog import HiveCatalog  # noqa: F401
    with pytest.raises(ValueError, match="ALTER DATABASE is not supported by Kindling yet"):
        t_env.execute_sql("ALTER DATABASE default_database SET ('k' = 'v')")
    with pytest.raises(NotImplementedError, match="get_table is not supported by Kindling yet"):
        t_env.get_catalog("default_catalog").get_table(ObjectPath("default_database", "t"))


def test_tables_and_views_by_one_two_and_three_part_paths():
    t_env = _t_env()
    t_env.execute_sql("CREATE CATALOG c WITH ('type' = 'generic_in_memory')")
    t_env.execute_sql("CREATE DATABASE c.db")
    t_env.create_table("c.db.src", _descriptor("x"))
    t_env.create_table("src", _descriptor("y"))
    t_env.create_temporary_table("tmp", _descriptor("z"))
    t_env.create_view("c.db.v", t_env.from_path("c.db.src"))
    t_env.create_temporary_view("db.tv", t_env.from_path("src"))  # a temporary object needs no database
    assert t_env.from_path("c.db.src").get_schema().get_field_names() == ["x"]
    assert t_env.from_path("default_database.src").get_schema().get_field_names() == ["y"]
    assert (t_env.list_tables(), t_env.list_temporary_tables(), t_env.list_views()) == (["src", "tmp"], ["tmp"], [])
    t_env.use_catalog("c")
    t_env.use_database("db")
    assert (t_env.list_tables(), t_env.list_views(), t_env.list_temporary_views()) == (["src", "v"], ["v"], [])
    assert t_env.get_catalog("c").list_views("db") == ["v"]
    assert t_env.from_path("src").get_schema().get_field_names() == ["x"]
    assert t_env.from_path("default_catalog.db.tv").get_schema().get_field_names() == ["y"]
    with pytest.raises(ValueError, match=r"Table \(or view\) db.src already exists in Catalog c."):
        t_env.create_table("src", _descriptor("x"))
    t_env.create_table("src", _descriptor("x"), True)
    with pytest.raises(ValueError, match="Database nodb does not exist in Catalog c."):
        t_env.create_table("nodb.t", _descriptor("x"))
    assert t_env.drop_view("v") and not t_env.drop_view("v") and t_env.drop_table("c.db.src")
    with pytest.raises(ValueError, match="Table with identifier 'c.db.src' does not exist."):
        t_env.drop_table("c.db.src", False)


def test_a_temporary_table_shadows_the_permanent_one_until_dropped():
    t_env = _t_env()
    t_env.execute_sql("CREATE TABLE src (x BIGINT) WITH ('connector' = 'datagen')")
    t_env.execute_sql("CREATE TEMPORARY TABLE src (x BIGINT, y BIGINT) WITH ('connector' = 'datagen')")
    assert t_env.from_path("src").get_schema().get_field_names() == ["x", "y"]
    assert t_env.list_tables() == ["src"] and t_env.list_temporary_tables() == ["src"]
    with pytest.raises(ValueError, match=r"Temporary table with identifier '`default_catalog`.`default_database`."
                                         r"`src`' exists. Drop it first before removing the permanent table."):
        t_env.execute_sql("DROP TABLE src")
    t_env.execute_sql("DROP TEMPORARY TABLE src")
    assert t_env.from_path("src").get_schema().get_field_names() == ["x"]
    with pytest.raises(ValueError, match="Temporary table with identifier 'default_catalog.default_database.src' "
                                         "does not exist."):
        t_env.execute_sql("DROP TEMPORARY TABLE src")


def test_sql_catalog_and_database_statements_and_their_errors():
    t_env = _t_env()
    t_env.execute_sql("CREATE CATALOG c WITH ('type' = 'generic_in_memory')")
    t_env.execute_sql("CREATE CATALOG IF NOT EXISTS c WITH ('type' = 'generic_in_memory')")
    with pytest.raises(ValueError, match="Catalog c already exists."):
        t_env.execute_sql("CREATE CATALOG c WITH ('type' = 'generic_in_memory')")
    with pytest.raises(ValueError, match=r"A catalog with name \[nope\] does not exist"):
        t_env.execute_sql("USE CATALOG nope")
    t_env.execute_sql("USE CATALOG c")
    t_env.execute_sql("CREATE DATABASE db COMMENT 'd' WITH ('k' = 'v')")
    t_env.execute_sql("CREATE DATABASE IF NOT EXISTS db")
    with pytest.raises(ValueError, match="Database db already exists in Catalog c."):
        t_env.execute_sql("CREATE DATABASE db")
    with pytest.raises(ValueError, match=r"A database with name \[nodb\] does not exist in the catalog: \[c\]."):
        t_env.execute_sql("USE nodb")
    t_env.execute_sql("USE db")
    t_env.execute_sql("CREATE TABLE t (a INT) WITH ('connector' = 'datagen')")
    t_env.execute_sql("CREATE VIEW v AS SELECT a FROM t")
    with pytest.raises(ValueError, match="Cannot drop a database which is currently in use."):
        t_env.execute_sql("DROP DATABASE db")
    t_env.execute_sql("USE c.`default`")
    with pytest.raises(ValueError, match="Database db in catalog c is not empty"):
        t_env.execute_sql("DROP DATABASE db RESTRICT")
    with pytest.raises(ValueError, match="Database nodb does not exist in Catalog c."):
        t_env.execute_sql("DROP DATABASE nodb")
    t_env.execute_sql("DROP DATABASE IF EXISTS nodb")
    with pytest.raises(ValueError, match="View with identifier 'c.db.t' does not exist."):
        t_env.execute_sql("DROP VIEW c.db.t")
    t_env.execute_sql("DROP DATABASE db CASCADE")
    assert t_env.list_databases() == ["default"]
    with pytest.raises(ValueError, match="Cannot drop a catalog which is currently in use."):
        t_env.execute_sql("DROP CATALOG c")
    t_env.execute_sql("USE CATALOG default_catalog")
    t_env.execute_sql("DROP CATALOG c")
    with pytest.raises(ValueError, match="Catalog c does not exist."):
        t_env.execute_sql("DROP CATALOG c")
    t_env.execute_sql("DROP CATALOG IF EXISTS c")
    assert t_env.list_catalogs() == ["default_catalog"]


def test_an_unknown_table_names_what_is_missing():
    t_env = _t_env()
    t_env.execute_sql("CREATE CATALOG c WITH ('type' = 'generic_in_memory')")
    for path, missing in (("nocat.db.t", "the catalog nocat does not exist"),
                          ("c.nodb.t", "the database nodb does not exist in the catalog c"),
                          ("c.`default`.t", r"tables of c.default: \[\]")):
        with pytest.raises(ValueError, match=f"Object .* not found \\({missing}"):
            t_env.sql_query(f"SELECT * FROM {path}")


def test_show_statements_print_as_flink_prints_them(capsys):  # the text PyFlink 2.3 prints
    t_env = _t_env()
    t_env.execute_sql("CREATE CATALOG c WITH ('type' = 'generic_in_memory')")
    t_env.execute_sql("CREATE DATABASE c.db")
    t_env.execute_sql("CREATE TABLE c.db.t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3')")
    t_env.execute_sql("SHOW CATALOGS").print()
    t_env.execute_sql("SHOW TABLES FROM c.db").print()
    t_env.execute_sql("SHOW CREATE TABLE c.db.t").print()
    assert capsys.readouterr().out == """\
+-----------------+
|    catalog name |
+-----------------+
|               c |
| default_catalog |
+-----------------+
2 rows in set
+------------+
| table name |
+------------+
|          t |
+------------+
1 row in set
+----------------------------------------------------------------------------------------------------------------------------------+
|                                                                                                                           result |
+----------------------------------------------------------------------------------------------------------------------------------+
| CREATE TABLE `c`.`db`.`t` (
  `a` INT,
  `b` VARCHAR(2147483647)
)
WITH (
  'connector' = 'datagen',
  'number-of-rows' = '3'
)
 |
+----------------------------------------------------------------------------------------------------------------------------------+
1 row in set
"""


def test_qualified_names_in_queries_and_insert_into(spark, tmp_path):
    t_env = quiet_t_env("batch")
    t_env.execute_sql("CREATE CATALOG c WITH ('type' = 'generic_in_memory')")
    t_env.execute_sql("CREATE DATABASE c.db")
    t_env.execute_sql("CREATE TABLE c.db.src (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '4', "
                      "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '4')")
    t_env.execute_sql(f"CREATE TABLE c.db.snk (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}', "
                      "'format' = 'csv')")
    t_env.use_catalog("c")
    t_env.execute_sql("INSERT INTO db.snk SELECT id * 10 FROM `c`.`db`.src WHERE id > 2").wait()
    t_env.use_database("db")
    assert collected(t_env, "SELECT id FROM snk") == [(30,), (40,)]
    table = t_env.from_path("c.db.src")
    t_env.use_catalog("default_catalog")  # an unnamed table keeps its full name
    assert collected(t_env, f"SELECT COUNT(*) FROM {table}") == [(4,)]


def test_show_create_table_writes_every_kind_of_column_as_flink_does():
    t_env = _t_env()
    t_env.execute_sql("CREATE TABLE k (id BIGINT NOT NULL, name STRING, price DECIMAL(10, 2), ts TIMESTAMP(3), "
                      "total AS price * 2, pt AS PROCTIME(), m TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' "
                      "VIRTUAL, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (id) NOT ENFORCED) "
                      "PARTITIONED BY (name) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'csv')")
    rows = list(t_env.execute_sql("SHOW CREATE TABLE k").collect())
    assert rows[0][0] == """\
CREATE TABLE `default_catalog`.`default_database`.`k` (
  `id` BIGINT NOT NULL,
  `name` VARCHAR(2147483647),
  `price` DECIMAL(10, 2),
  `ts` TIMESTAMP(3),
  `total` AS `price` * 2,
  `pt` AS PROCTIME(),
  `m` TIMESTAMP(3) WITH LOCAL TIME ZONE METADATA FROM 'timestamp' VIRTUAL,
  WATERMARK FOR `ts` AS `ts` - INTERVAL '5' SECOND,
  CONSTRAINT `PK_id` PRIMARY KEY (`id`) NOT ENFORCED
)
PARTITIONED BY (`name`)
WITH (
  'connector' = 'filesystem',
  'format' = 'csv',
  'path' = '/tmp/x'
)
"""
    with pytest.raises(ValueError, match="SHOW 'CREATE VIEW v' is not supported by Kindling yet"):
        t_env.execute_sql("SHOW CREATE VIEW v")


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_current_database_is_the_one_current_when_the_query_runs(spark, mode):
    from kindling.table.expressions import col, current_database

    t_env = quiet_t_env(mode)
    t_env.execute_sql("CREATE DATABASE db1")
    t = t_env.from_elements([(1,), (2,)], ["a"])
    built_before = t.select(col("a"), current_database().alias("d")).where(current_database() == "db1")
    query_before = t_env.sql_query("SELECT a, CURRENT_DATABASE() AS d FROM %s WHERE CURRENT_DATABASE() = 'db1'" % t)
    t_env.use_database("db1")
    grouped = t.group_by(col("a")).select(col("a").count.alias("n"), current_database().upper_case)
    for table, expected in ((built_before, [(1, "db1"), (2, "db1")]), (query_before, [(1, "db1"), (2, "db1")]),
                            (grouped, [(1, "DB1"), (1, "DB1")])):
        with table.execute().collect() as rows:
            assert sorted(tuple(r) for r in rows) == expected
    assert collected(t_env, "SELECT DISTINCT CURRENT_DATABASE() FROM %s" % t) == [("db1",)]
    t_env.use_database("default_database")
    with built_before.execute().collect() as rows:
        assert list(rows) == []
