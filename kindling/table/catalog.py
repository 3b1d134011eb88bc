"""``pyflink.table.catalog``: the in-memory catalog (``'type' = 'generic_in_memory'``), its
databases and Flink's object names (``ObjectPath``: database.object; ``ObjectIdentifier``:
catalog.database.object). Tables and views live in a catalog's databases; the TableEnvironment's
catalog manager (kindling/table/catalog_manager.py) resolves names against them. A table's
ResolvedSchema and its columns are kindling/table/resolved_schema.py's.

Example::

    config = Configuration()
    config.set_string("type", "generic_in_memory")
    t_env.create_catalog("my_catalog", CatalogDescriptor.of("my_catalog", config))
    t_env.get_catalog("my_catalog").create_database("db", CatalogDatabase.create_instance({}), False)
"""
from __future__ import annotations

import functools
from typing import Any, Dict, List, Optional

from kindling.common.unsupported import missing_names, unsupported
from kindling.table.resolved_schema import (Column, ComputedColumn, Constraint, MetadataColumn, PhysicalColumn,  # noqa: F401
                                            ResolvedSchema, UniqueConstraint, WatermarkSpec)

__all__ = ["Catalog", "CatalogDatabase", "CatalogDescriptor", "Column", "ComputedColumn", "Constraint", "MetadataColumn",
           "ObjectIdentifier", "ObjectPath", "PhysicalColumn", "ResolvedSchema", "UniqueConstraint", "WatermarkSpec"]

#: the one catalog type Kindling makes
IN_MEMORY = "generic_in_memory"

__getattr__ = missing_names(__name__, {
    **{name: "Kindling's catalog keeps tables and views (connector tables as TableDescriptors), not Flink's "
             "catalog objects, statistics or partitions"
       for name in ("CatalogBaseTable", "CatalogColumnStatistics", "CatalogFunction", "CatalogPartition",
                    "CatalogPartitionSpec", "CatalogTableStatistics", "Procedure")},
    "HiveCatalog": f"Hive catalogs need Hive's metastore; Kindling has the in-memory catalog ('type' = '{IN_MEMORY}')",
})


def quoted(part: str) -> str:
    """An identifier part as Flink prints it: in backquotes, a backquote doubled."""
    return "`" + part.replace("`", "``") + "`"


@functools.total_ordering
class ObjectPath:
    """A table's or view's name in a catalog: ``database.object``."""

    def __init__(self, database_name: Optional[str] = None, object_name: Optional[str] = None, j_object_path=None):
        if j_object_path is not None:
            raise TypeError("ObjectPath: Kindling has no Java objects; give database_name and object_name")
        if not database_name or not object_name:
            raise ValueError("ObjectPath needs a database name and an object name, both not empty")
        self._database_name, self._object_name = database_name, object_name

    def get_database_name(self) -> str:
        return self._database_name

    def get_object_name(self) -> str:
        return self._object_name

    def get_full_name(self) -> str:
        return f"{self._database_name}.{self._object_name}"

    @staticmethod
    def from_string(full_name: str) -> "ObjectPath":
        """``'db.table'`` as an ObjectPath."""
        parts = full_name.split(".")
        if len(parts) != 2:
            raise ValueError(f"Cannot get split '{full_name}' to get databaseName and objectName")
        return ObjectPath(*parts)

    def compare_to(self, other: "ObjectPath") -> int:
        return (self._key() > other._key()) - (self._key() < other._key())

    def _key(self):
        return self._database_name, self._object_name

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ObjectPath) and self._key() == other._key()

    def __lt__(self, other: "ObjectPath") -> bool:
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return self.get_full_name()


class ObjectIdentifier:
    """An object's full name: ``catalog.database.object``."""

    def __init__(self, catalog_name: str, database_name: str, object_name: str):
        self._parts = (catalog_name, database_name, object_name)

    @staticmethod
    def of(catalog_name: str, database_name: str, object_name: str) -> "ObjectIdentifier":
        return ObjectIdentifier(catalog_name, database_name, object_name)

    def get_catalog_name(self) -> str:
        return self._parts[0]

    def get_database_name(self) -> str:
        return self._parts[1]

    def get_object_name(self) -> str:
        return self._parts[2]

    def to_object_path(self) -> ObjectPath:
        return ObjectPath(self._parts[1], self._parts[2])

    def to_list(self) -> List[str]:
        return list(self._parts)

    def as_serializable_string(self) -> str:
        """```catalog`.`database`.`object```, as SQL reads it back."""
        return ".".join(quoted(p) for p in self._parts)

    def as_summary_string(self) -> str:
        return ".".join(self._parts)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ObjectIdentifier) and self._parts == other._parts

    def __hash__(self) -> int:
        return hash(self._parts)

    def __repr__(self) -> str:
        return self.as_serializable_string()


class CatalogDatabase:
    """A database's properties and comment."""

    def __init__(self, properties: Dict[str, str], comment: Optional[str] = None):
        self._properties, self._comment = dict(properties), comment

    @staticmethod
    def create_instance(properties: Dict[str, str], comment: Optional[str] = None) -> "CatalogDatabase":
        return CatalogDatabase(properties, comment)

    def get_properties(self) -> Dict[str, str]:
        return dict(self._properties)

    def get_comment(self) -> Optional[str]:
        return self._comment

    def copy(self) -> "CatalogDatabase":
        return CatalogDatabase(self._properties, self._comment)

    def get_description(self) -> Optional[str]:
        return self._comment

    def get_detailed_description(self) -> Optional[str]:
        return self._comment


class CatalogDescriptor:
    """What ``TableEnvironment.create_catalog`` makes: a catalog's options (``type``, ``default-database``)."""

    def __init__(self, catalog_name: str, options: Dict[str, str], comment: Optional[str] = None):
        self._catalog_name, self._options, self._comment = catalog_name, dict(options), comment

    @staticmethod
    def of(catalog_name: str, configuration, comment: Optional[str] = None) -> "CatalogDescriptor":
        """The catalog ``catalog_name`` of the options in ``configuration`` (a ``Configuration``)."""
        return CatalogDescriptor(catalog_name, configuration.to_dict(), comment)


def make_catalog(name: str, options: Dict[str, str]) -> "Catalog":
    """The catalog of ``options`` (CREATE CATALOG's WITH clause, a CatalogDescriptor's configuration)."""
    kind = options.get("type")
    if kind is None:
        raise ValueError(f"Unable to create catalog '{name}': Catalog options do not contain an option key 'type' "
                         f"for discovering a catalog; give 'type' = '{IN_MEMORY}'")
    if kind != IN_MEMORY:
        raise ValueError(f"Unable to create catalog '{name}': catalogs of type '{kind}' are not supported by "
                         f"Kindling; it has the in-memory catalog ('type' = '{IN_MEMORY}')")
    unknown = sorted(set(options) - {"type", "default-database"})
    if unknown:
        raise ValueError(f"Unable to create catalog '{name}': unsupported options {unknown}; the in-memory catalog "
                         "takes 'type' and 'default-database'")
    return Catalog(name, options.get("default-database", "default"))


class Catalog:
    """An in-memory catalog: databases of tables (connector tables, as TableDescriptors) and views
    (Tables), kept in the job's process as Flink's ``generic_in_memory`` catalog keeps them."""

    def __init__(self, name: str, default_database: str):
        self._name = name
        self._default_database = default_database
        self._databases: Dict[str, CatalogDatabase] = {default_database: CatalogDatabase({})}
        self._objects: Dict[str, Dict[str, Any]] = {default_database: {}}

    def get_default_database(self) -> str:
        return self._default_database

    def list_databases(self) -> List[str]:
        return list(self._databases)

    def database_exists(self, database_name: str) -> bool:
        return database_name in self._databases

    def get_database(self, database_name: str) -> CatalogDatabase:
        return self._databases[self._existing(database_name)].copy()

    def create_database(self, name: str, database: CatalogDatabase, ignore_if_exists: bool) -> None:
        if name in self._databases:
            if ignore_if_exists:
                return
            raise ValueError(f"Database {name} already exists in Catalog {self._name}.")
        self._databases[name], self._objects[name] = database.copy(), {}

    def drop_database(self, name: str, ignore_if_exists: bool, cascade: bool = False) -> None:
        """Drops the database ``name`` (``ignore_if_exists``: PyFlink's name for ignoring a missing one);
        one holding tables or views only with ``cascade``."""
        if name not in self._databases:
            if ignore_if_exists:
                return
            self._existing(name)
        if self._objects[name] and not cascade:
            raise ValueError(f"Database {name} in catalog {self._name} is not empty; drop its tables and views "
                             "first, or use DROP DATABASE ... CASCADE")
        del self._databases[name], self._objects[name]

    @unsupported("ALTER DATABASE is not there: drop the database and create it again")
    def alter_database(self, name: str, new_database: CatalogDatabase, ignore_if_not_exists: bool): ...

    def list_tables(self, database_name: str) -> List[str]:
        """The names of the database's tables and views."""
        return list(self._objects[self._existing(database_name)])

    def list_views(self, database_name: str) -> List[str]:
        from kindling.table.table import Table

        return [n for n, what in self._objects[self._existing(database_name)].items() if isinstance(what, Table)]

    def table_exists(self, table_path: ObjectPath) -> bool:
        return table_path.get_object_name() in self._objects.get(table_path.get_database_name(), {})

    def drop_table(self, table_path: ObjectPath, ignore_if_not_exists: bool) -> None:
        if self.table_exists(table_path):
            del self._objects[table_path.get_database_name()][table_path.get_object_name()]
        elif not ignore_if_not_exists:
            self._missing(table_path)

    def rename_table(self, table_path: ObjectPath, new_table_name: str, ignore_if_not_exists: bool) -> None:
        if not self.table_exists(table_path):
            if not ignore_if_not_exists:
                self._missing(table_path)
            return
        objects = self._objects[table_path.get_database_name()]
        if new_table_name in objects:
            raise ValueError(f"Table (or view) {table_path.get_database_name()}.{new_table_name} already exists "
                             f"in Catalog {self._name}.")
        objects[new_table_name] = objects.pop(table_path.get_object_name())

    def list_functions(self, database_name: str) -> List[str]:
        """Empty: Kindling's functions are temporary (create_temporary_function), not a catalog's."""
        self._existing(database_name)
        return []

    def list_models(self, database_name: str) -> List[str]:
        self._existing(database_name)
        return []

    list_procedures = list_materialized_tables = list_models

    def function_exists(self, function_path: ObjectPath) -> bool:
        return False

    model_exists = function_exists

    def _table(self, table_path: ObjectPath):
        """The table (TableDescriptor) or view (Table) at ``table_path``, or None."""
        return self._objects.get(table_path.get_database_name(), {}).get(table_path.get_object_name())

    def _create(self, table_path: ObjectPath, what, ignore_if_exists: bool) -> None:
        objects = self._objects[self._existing(table_path.get_database_name())]
        if table_path.get_object_name() in objects:
            if ignore_if_exists:
                return
            raise ValueError(f"Table (or view) {table_path.get_full_name()} already exists in Catalog {self._name}.")
        objects[table_path.get_object_name()] = what

    def _existing(self, database_name: str) -> str:
        if database_name not in self._databases:
            raise ValueError(f"Database {database_name} does not exist in Catalog {self._name}.")
        return database_name

    def _missing(self, table_path: ObjectPath):
        raise ValueError(f"Table (or view) {table_path.get_full_name()} does not exist in Catalog {self._name}.")

    _OBJECTS = "Kindling's catalog keeps tables and views, not Flink's catalog objects (CatalogBaseTable, " \
               "functions, models, partitions, statistics)"

    @unsupported(_OBJECTS)
    def get_table(self, table_path: ObjectPath): ...

    @unsupported(_OBJECTS)
    def create_table(self, table_path: ObjectPath, table, ignore_if_exists: bool): ...

    @unsupported(_OBJECTS)
    def alter_table(self, table_path: ObjectPath, new_table, ignore_if_not_exists): ...

    @unsupported(_OBJECTS)
    def get_procedure(self, procedure_path: ObjectPath): ...

    @unsupported(_OBJECTS)
    def get_function(self, function_path: ObjectPath): ...

    @unsupported(_OBJECTS)
    def create_function(self, function_path: ObjectPath, function, ignore_if_exists: bool): ...

    @unsupported(_OBJECTS)
    def alter_function(self, function_path: ObjectPath, new_function, ignore_if_not_exists: bool): ...

    @unsupported(_OBJECTS)
    def drop_function(self, function_path: ObjectPath, ignore_if_not_exists: bool): ...

    @unsupported(_OBJECTS)
    def get_model(self, model_path: ObjectPath): ...

    @unsupported(_OBJECTS)
    def create_model(self, model_path: ObjectPath, model, ignore_if_exists: bool): ...

    @unsupported(_OBJECTS)
    def alter_model(self, model_path: ObjectPath, new_model, ignore_if_not_exists): ...

    @unsupported(_OBJECTS)
    def drop_model(self, model_path: ObjectPath, ignore_if_not_exists: bool): ...

    @unsupported(_OBJECTS)
    def rename_model(self, model_path: ObjectPath, new_model_name: str, ignore_if_not_exists: bool): ...

    @unsupported(_OBJECTS)
    def list_partitions(self, table_path: ObjectPath, partition_spec=None): ...

    @unsupported(_OBJECTS)
    def partition_exists(self, table_path: ObjectPath, partition_spec) -> bool: ...

    @unsupported(_OBJECTS)
    def get_partition(self, table_path: ObjectPath, partition_spec): ...

    @unsupported(_OBJECTS)
    def create_partition(self, table_path: ObjectPath, partition_spec, partition, ignore_if_exists: bool): ...

    @unsupported(_OBJECTS)
    def alter_partition(self, table_path: ObjectPath, partition_spec, new_partition, ignore_if_not_exists: bool): ...

    @unsupported(_OBJECTS)
    def drop_partition(self, table_path: ObjectPath, partition_spec, ignore_if_not_exists: bool): ...

    @unsupported(_OBJECTS)
    def get_table_statistics(self, table_path: ObjectPath): ...

    @unsupported(_OBJECTS)
    def get_table_column_statistics(self, table_path: ObjectPath): ...

    @unsupported(_OBJECTS)
    def get_partition_statistics(self, table_path: ObjectPath, partition_spec): ...

    @unsupported(_OBJECTS)
    def get_partition_column_statistics(self, table_path: ObjectPath, partition_spec): ...

    @unsupported(_OBJECTS)
    def bulk_get_partition_statistics(self, table_path: ObjectPath, partition_specs): ...

    @unsupported(_OBJECTS)
    def bulk_get_partition_column_statistics(self, table_path: ObjectPath, partition_specs): ...

    @unsupported(_OBJECTS)
    def alter_table_statistics(self, table_path: ObjectPath, table_statistics, ignore_if_not_exists: bool): ...

    @unsupported(_OBJECTS)
    def alter_table_column_statistics(self, table_path: ObjectPath, column_statistics,
                                      ignore_if_not_exists: bool): ...

    @unsupported(_OBJECTS)
    def alter_partition_statistics(self, table_path: ObjectPath, partition_spec, partition_statistics,
                                   ignore_if_not_exists: bool): ...

    @unsupported(_OBJECTS)
    def alter_partition_column_statistics(self, table_path: ObjectPath, partition_spec, column_statistics,
                                          ignore_if_not_exists: bool): ...
