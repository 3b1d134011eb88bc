"""A TableEnvironment's catalogs and the resolution of object names, as Flink's CatalogManager:
a path of one, two or three parts (``t``, ``db.t``, ``cat.db.t``, each part maybe in backquotes)
is completed with the current catalog and database; a temporary object shadows a permanent one
of the same identifier. SQL (kindling/table/ddl.py, sql.py) and the Table API both resolve here."""
from __future__ import annotations

import collections
import itertools
import re
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from kindling.table.catalog import Catalog, CatalogDatabase, ObjectIdentifier, make_catalog, quoted

__all__ = ["CatalogManager", "DEFAULT_CATALOG", "DEFAULT_DATABASE", "path_parts", "path_text"]

#: the names of the built-in catalog and its database, as Flink names them
DEFAULT_CATALOG, DEFAULT_DATABASE = "default_catalog", "default_database"


def path_parts(path: str) -> List[str]:
    """The parts of ``path``: split at dots outside backquotes, a doubled backquote one backquote."""
    parts, current, quoted_, i = [], [], False, 0
    while i < len(path):
        char = path[i]
        if char == "`":
            if quoted_ and path[i + 1:i + 2] == "`":
                current.append("`")
                i += 1
            else:
                quoted_ = not quoted_
        elif char == "." and not quoted_:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        i += 1
    parts.append("".join(current))
    if quoted_ or not 1 <= len(parts) <= 3 or not all(parts):
        raise ValueError(f"Invalid SQL identifier {path}: a path is [[catalog.]database.]object, each part "
                         "maybe in backquotes")
    return parts


def path_text(parts: Sequence[str]) -> str:
    """The path of ``parts`` as text that :func:`path_parts` reads back (a part in backquotes unless it
    is a plain identifier)."""
    return ".".join(p if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", p) else quoted(p) for p in parts)


class CatalogManager:
    """The catalogs by name, the current catalog and database, and the temporary tables and views."""

    def __init__(self):
        self._catalogs: Dict[str, Catalog] = {DEFAULT_CATALOG: Catalog(DEFAULT_CATALOG, DEFAULT_DATABASE)}
        self.current_catalog, self.current_database = DEFAULT_CATALOG, DEFAULT_DATABASE
        self._temporary: Dict[ObjectIdentifier, Any] = {}
        self._unnamed: Dict[str, Iterator[int]] = collections.defaultdict(itertools.count)

    # -- catalogs and databases -----------------------------------------------------------------

    def create_catalog(self, name: str, options: Dict[str, str], ignore_if_exists: bool = False) -> None:
        if name in self._catalogs:
            if ignore_if_exists:
                return
            raise ValueError(f"Catalog {name} already exists.")
        self._catalogs[name] = make_catalog(name, options)

    def register_catalog(self, name: str, catalog: Catalog) -> None:
        if not isinstance(catalog, Catalog):
            raise TypeError(f"register_catalog expects a Catalog (get_catalog's), got {catalog!r}")
        if name in self._catalogs:
            raise ValueError(f"Catalog {name} already exists.")
        self._catalogs[name] = catalog

    def drop_catalog(self, name: str, ignore_if_not_exists: bool) -> None:
        if name == self.current_catalog:
            raise ValueError("Cannot drop a catalog which is currently in use.")
        if self._catalogs.pop(name, None) is None and not ignore_if_not_exists:
            raise ValueError(f"Catalog {name} does not exist.")
        self._temporary = {i: what for i, what in self._temporary.items() if i.get_catalog_name() != name}

    def get_catalog(self, name: str) -> Optional[Catalog]:
        return self._catalogs.get(name)

    def catalog(self, name: str) -> Catalog:
        """The catalog ``name``; fails naming the catalogs there are."""
        if name not in self._catalogs:
            raise ValueError(f"A catalog with name [{name}] does not exist; catalogs: {self.list_catalogs()}")
        return self._catalogs[name]

    def list_catalogs(self) -> List[str]:
        return sorted(self._catalogs)

    def use_catalog(self, name: str) -> None:
        catalog = self.catalog(name)
        self.current_catalog, self.current_database = name, catalog.get_default_database()

    def use_database(self, name: str, catalog_name: Optional[str] = None) -> None:
        catalog_name = catalog_name or self.current_catalog
        if not self.catalog(catalog_name).database_exists(name):
            raise ValueError(f"A database with name [{name}] does not exist in the catalog: [{catalog_name}].")
        self.current_catalog, self.current_database = catalog_name, name

    def database_path(self, path: str) -> Tuple[str, str]:
        """(catalog, database) of ``[catalog.]database``."""
        parts = path_parts(path)
        if len(parts) > 2:
            raise ValueError(f"Invalid database name {path}: it is [catalog.]database")
        return (self.current_catalog, parts[0]) if len(parts) == 1 else (parts[0], parts[1])

    def create_database(self, path: str, database: CatalogDatabase, ignore_if_exists: bool) -> None:
        catalog_name, name = self.database_path(path)
        self.catalog(catalog_name).create_database(name, database, ignore_if_exists)

    def drop_database(self, path: str, ignore_if_not_exists: bool, cascade: bool) -> None:
        catalog_name, name = self.database_path(path)
        if (catalog_name, name) == (self.current_catalog, self.current_database):
            raise ValueError("Cannot drop a database which is currently in use.")
        self.catalog(catalog_name).drop_database(name, ignore_if_not_exists, cascade)

    def list_databases(self) -> List[str]:
        return sorted(self.catalog(self.current_catalog).list_databases())

    # -- tables and views -------------------------------------------------------------------------

    def identifier(self, path: str) -> ObjectIdentifier:
        """The full identifier of ``path``, completed with the current catalog and database."""
        parts = path_parts(path)
        return ObjectIdentifier(*([self.current_catalog, self.current_database][:3 - len(parts)] + parts))

    def find(self, path: str) -> Tuple[ObjectIdentifier, Any]:
        """The identifier of ``path`` and its temporary object or else its permanent one (None if neither)."""
        identifier = self.identifier(path)
        if identifier in self._temporary:
            return identifier, self._temporary[identifier]
        catalog = self._catalogs.get(identifier.get_catalog_name())
        return identifier, catalog._table(identifier.to_object_path()) if catalog else None

    def lookup(self, path: str) -> Any:
        """The table (TableDescriptor) or view (Table) ``path`` names; fails naming what is missing."""
        identifier, what = self.find(path)
        if what is None:
            catalog_name, database_name = identifier.get_catalog_name(), identifier.get_database_name()
            if catalog_name not in self._catalogs:
                where = f"the catalog {catalog_name} does not exist; catalogs: {self.list_catalogs()}"
            elif not self._catalogs[catalog_name].database_exists(database_name):
                where = f"the database {database_name} does not exist in the catalog {catalog_name}"
            else:
                where = f"tables of {catalog_name}.{database_name}: {self.list_tables(catalog_name, database_name)}"
            raise ValueError(f"Object '{path_text(path_parts(path))}' not found ({where}): create it first "
                             "(CREATE TABLE, create_table, create_temporary_view)")
        return what

    def create(self, path: str, what: Any, temporary: bool, ignore_if_exists: bool = False) -> ObjectIdentifier:
        """Registers the table or view ``what`` as ``path``: temporary (in the session), or permanent (in its
        catalog's database, which must exist)."""
        identifier = self.identifier(path)
        if temporary:
            if identifier in self._temporary:
                if ignore_if_exists:
                    return identifier
                raise ValueError(f"Temporary table '{identifier.as_serializable_string()}' already exists")
            self.catalog(identifier.get_catalog_name())
            self._temporary[identifier] = what
        else:
            self.catalog(identifier.get_catalog_name())._create(identifier.to_object_path(), what, ignore_if_exists)
        return identifier

    def drop(self, path: str, view: bool, temporary: bool, ignore_if_not_exists: bool) -> bool:
        """Drops the table (``view``: the view) ``path``: the temporary one, or the permanent one (refused
        while a temporary one shadows it), as Flink's DROP [TEMPORARY] TABLE|VIEW."""
        from kindling.table.table import Table

        identifier = self.identifier(path)
        kind = "View" if view else "Table"
        if temporary:
            if isinstance(self._temporary.get(identifier), Table) == view and identifier in self._temporary:
                del self._temporary[identifier]
                return True
            if ignore_if_not_exists:
                return False
            raise ValueError(f"Temporary {kind.lower()} with identifier '{identifier.as_summary_string()}' does "
                             "not exist.")
        if identifier in self._temporary:
            raise ValueError(f"Temporary {kind.lower()} with identifier '{identifier.as_serializable_string()}' "
                             f"exists. Drop it first before removing the permanent {kind.lower()}.")
        catalog = self._catalogs.get(identifier.get_catalog_name())
        what = catalog._table(identifier.to_object_path()) if catalog else None
        if what is None or isinstance(what, Table) != view:
            if ignore_if_not_exists:
                return False
            raise ValueError(f"{kind} with identifier '{identifier.as_summary_string()}' does not exist.")
        catalog.drop_table(identifier.to_object_path(), False)
        return True

    def name_of(self, what: Any) -> Optional[ObjectIdentifier]:
        """The identifier of the temporary object ``what`` (the same object), if registered."""
        return next((i for i, registered in self._temporary.items() if registered is what), None)

    def unnamed_name(self, prefix: str) -> str:
        """``prefix`` with a number not given before: the name of an unnamed table (``UnnamedTable$<n>``)."""
        return f"{prefix}{next(self._unnamed[prefix])}"

    def list_tables(self, catalog_name: Optional[str] = None, database_name: Optional[str] = None,
                    views: bool = False, temporary_only: bool = False) -> List[str]:
        """The sorted names of the tables and views (only ``views``; only the ``temporary_only`` ones) of a
        database (the current one by default), temporary and permanent."""
        from kindling.table.table import Table

        catalog_name = catalog_name or self.current_catalog
        database_name = database_name or self.current_database
        names = {i.get_object_name() for i, what in self._temporary.items()
                 if (i.get_catalog_name(), i.get_database_name()) == (catalog_name, database_name)
                 and (not views or isinstance(what, Table))}
        if not temporary_only:
            catalog = self.catalog(catalog_name)
            names |= set(catalog.list_views(database_name) if views else catalog.list_tables(database_name))
        return sorted(names)

    def is_temporary(self, identifier: ObjectIdentifier) -> bool:
        return identifier in self._temporary
