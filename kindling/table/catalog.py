"""``pyflink.table.catalog`` is not supported by Kindling: catalogs (Hive, JDBC, custom) are not there: tables live in the TableEnvironment's one catalog, 'default_catalog'."""
from kindling.common.unsupported import missing_module

missing_module(__name__, "catalogs (Hive, JDBC, custom) are not there: tables live in the TableEnvironment's one catalog, 'default_catalog'")
