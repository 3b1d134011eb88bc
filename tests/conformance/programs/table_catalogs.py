"""Catalogs and databases: CREATE CATALOG (in memory), CREATE/USE/DROP DATABASE, tables and views
named by one, two and three parts, a temporary table shadowing a permanent one, the SHOW statements
and the TableEnvironment's listings, queries and INSERT INTO across catalogs."""
from pyflink.common import Configuration
from pyflink.table import DataTypes, EnvironmentSettings, Schema, TableDescriptor, TableEnvironment
from pyflink.table.catalog import CatalogDescriptor
from pyflink.table.expressions import col

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
for statement in ("SHOW CATALOGS", "SHOW CURRENT CATALOG", "SHOW DATABASES", "SHOW CURRENT DATABASE"):
    t_env.execute_sql(statement).print()

t_env.execute_sql("CREATE CATALOG sales WITH ('type' = 'generic_in_memory')").print()
config = Configuration()
config.set_string("type", "generic_in_memory")
config.set_string("default-database", "main")
t_env.create_catalog("archive", CatalogDescriptor.of("archive", config))
print(t_env.list_catalogs(), t_env.get_catalog("archive").list_databases())

t_env.execute_sql("USE CATALOG sales")
t_env.execute_sql("CREATE DATABASE eu COMMENT 'Europe'")
t_env.execute_sql("CREATE DATABASE IF NOT EXISTS eu")
t_env.execute_sql("CREATE DATABASE sales.us")
t_env.execute_sql("SHOW DATABASES").print()
t_env.execute_sql("USE eu")
t_env.execute_sql("SHOW CURRENT CATALOG").print()
t_env.execute_sql("SHOW CURRENT DATABASE").print()
print(t_env.get_current_catalog(), t_env.get_current_database(), t_env.list_databases())
t_env.execute_sql("SELECT CURRENT_DATABASE() AS db").print()

t_env.execute_sql("CREATE TABLE orders (id INT, amount INT) WITH ('connector' = 'datagen', 'number-of-rows' = '5', "
                  "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5', "
                  "'fields.amount.kind' = 'sequence', 'fields.amount.start' = '10', 'fields.amount.end' = '14')")
t_env.create_table("us.orders", TableDescriptor.for_connector("datagen")
                   .schema(Schema.new_builder().column("id", DataTypes.INT()).column("amount", DataTypes.INT()).build())
                   .option("number-of-rows", "2").option("fields.id.kind", "sequence").option("fields.id.start", "7")
                   .option("fields.id.end", "8").option("fields.amount.kind", "sequence")
                   .option("fields.amount.start", "70").option("fields.amount.end", "71").build())
t_env.execute_sql("CREATE VIEW big AS SELECT id, amount FROM orders WHERE amount > 11")
t_env.execute_sql("CREATE TEMPORARY VIEW small AS SELECT id FROM sales.eu.orders WHERE amount <= 11")
t_env.create_temporary_view("doubled", t_env.from_path("sales.us.orders").select(col("id"), col("amount") * 2))
t_env.execute_sql("SHOW TABLES").print()
t_env.execute_sql("SHOW VIEWS").print()
t_env.execute_sql("SHOW TABLES FROM sales.us").print()
print(t_env.list_tables(), t_env.list_views(), t_env.list_temporary_tables(), t_env.list_temporary_views())
t_env.execute_sql("DESCRIBE sales.us.orders").print()
t_env.execute_sql("DESC big").print()
t_env.execute_sql("SHOW CREATE TABLE orders").print()

t_env.execute_sql("SELECT * FROM big").print()
t_env.execute_sql("SELECT * FROM eu.small").print()
t_env.execute_sql("SELECT o.id, o.amount, u.amount AS us_amount FROM orders AS o "
                  "JOIN (SELECT id - 6 AS id, amount FROM `sales`.`us`.`orders`) AS u ON o.id = u.id").print()
t_env.use_catalog("default_catalog")
t_env.from_path("sales.eu.big").select(col("id")).execute().print()
t_env.execute_sql("SELECT * FROM sales.eu.doubled").print()

t_env.execute_sql("CREATE TABLE archive.main.totals (id INT, amount INT) WITH ('connector' = 'print')")
t_env.execute_sql("INSERT INTO archive.main.totals SELECT id, amount FROM sales.eu.orders WHERE id = 3").wait()

# a temporary table shadows the permanent one of the same name until dropped
t_env.execute_sql("CREATE TEMPORARY TABLE sales.eu.orders (id INT) WITH ('connector' = 'datagen', "
                  "'number-of-rows' = '1', 'fields.id.kind' = 'sequence', 'fields.id.start' = '99', "
                  "'fields.id.end' = '99')")
t_env.execute_sql("SELECT * FROM sales.eu.orders").print()
t_env.execute_sql("DROP TEMPORARY TABLE sales.eu.orders").print()
t_env.execute_sql("SELECT COUNT(*) AS n FROM sales.eu.orders").print()

t_env.execute_sql("DROP VIEW sales.eu.big")
t_env.execute_sql("DROP TABLE IF EXISTS sales.eu.nothing")
t_env.execute_sql("DROP DATABASE sales.eu CASCADE")
t_env.execute_sql("SHOW DATABASES FROM sales").print()
t_env.execute_sql("DROP CATALOG archive")
t_env.execute_sql("SHOW CATALOGS").print()
