"""Processing-time lookup joins (Flink SQL's ``JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON
o.k = d.id``) against ``jdbc`` tables: each probe row is joined with the rows of the database table
whose key equals its own at the time the row is processed; later changes of the table do not touch
earlier results, so the result is append-only (inner: a row without a match is dropped; LEFT: kept
with NULLs).

The lookup is a stateless operator of the probe stream (it fuses into the job's Python pass): an
async wait operation whose function gathers the keys of the rows in flight (up to
:data:`LOOKUP_BATCH` per parallel instance) and reads all their distinct keys in one query
(``WHERE id IN (...)``), through the JDBC connector's drivers (kindling/spark/jdbc.py). Flink's
lookup options: ``lookup.cache`` ``NONE`` or ``PARTIAL`` (``lookup.partial-cache.max-rows``,
``.expire-after-write``, ``.expire-after-access``, ``.cache-missing-key``; a cache per parallel
instance, as Flink's), the older ``lookup.cache.max-rows`` / ``lookup.cache.ttl`` /
``lookup.cache.caching-missing-key``, and ``lookup.max-retries``."""
from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

from kindling.common.types import _create_row
from kindling.datastream.functions import AsyncFunction
from kindling.graph.specs import JdbcSourceSpec

__all__ = ["LOOKUP_KEYS", "lookup_function", "lookup_join"]

#: the jdbc table options of lookups
LOOKUP_KEYS = {"lookup.cache", "lookup.partial-cache.max-rows", "lookup.partial-cache.expire-after-write",
               "lookup.partial-cache.expire-after-access", "lookup.partial-cache.cache-missing-key",
               "lookup.cache.max-rows", "lookup.cache.ttl", "lookup.cache.caching-missing-key", "lookup.max-retries"}
LOOKUP_BATCH = 1000  # the most probe rows in flight per parallel instance: their distinct keys make one query
KEYS_PER_QUERY = 500  # SQLite's older builds take at most 999 parameters a statement
SUPPORTED = ("Kindling supports processing-time lookup joins against jdbc tables: JOIN dim FOR SYSTEM_TIME AS OF "
             "o.proc_time AS d ON o.k = d.id, where proc_time is a PROCTIME() column of the probe table")
_INTEGERS = ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT")


def lookup_join(probe, node, dim, dim_columns: List[str], condition, time_attribute, side: str):
    """The probe table joined by lookups with the jdbc table ``node`` names (``dim``: its table,
    columns renamed as the join names them; ``dim_columns`` their names in the database);
    ``condition`` the ON expression, ``time_attribute`` the FOR SYSTEM_TIME AS OF one."""
    from kindling.table.connectors import physical
    from kindling.table.join import equi_keys
    from kindling.table.planner import nodes
    from kindling.table.schema import Schema
    from kindling.table.table import Table

    from kindling.table.ddl import table_path

    name = node.name
    declared = probe._t_env._lookup(table_path(node))
    attribute = getattr(time_attribute, "_name", None)
    left_names, right_names = probe.get_schema().get_field_names(), dim.get_schema().get_field_names()
    left_keys, right_keys = equi_keys(condition, left_names, right_names)
    if attribute is not None and attribute == probe._rowtime:  # an event-time temporal join
        from kindling.table.temporal_join import temporal_join

        if not left_keys:
            raise ValueError(f"sql_query: the temporal join of {name} needs an equality of a column of each table "
                             f"in ON (o.k = r.k), got {condition}")
        if side not in ("", "LEFT"):
            raise ValueError(f"sql_query: a temporal join of {name} is INNER or LEFT, got {side} JOIN")
        declared_key = None if isinstance(declared, Table) else getattr(declared.get_schema(), "primary_key", None)
        return temporal_join(probe, dim, left_keys, right_keys, condition, side == "LEFT", declared_key is not None)
    if attribute is None or attribute != probe._proctime:
        raise ValueError(f"sql_query: JOIN {name} FOR SYSTEM_TIME AS OF {time_attribute}: not a time attribute of "
                         f"the probe table. {SUPPORTED}; event-time temporal joins take the probe's rowtime "
                         "attribute")
    connector = None if isinstance(declared, Table) else declared.get_options().get("connector")
    if connector != "jdbc":
        what = "a view" if connector is None else f"a '{connector}' table"
        raise ValueError(f"sql_query: JOIN {name} FOR SYSTEM_TIME AS OF: {name} is {what}; temporal joins against "
                         f"versioned tables are not supported by Kindling yet. {SUPPORTED}")
    if side not in ("", "LEFT"):
        raise ValueError(f"sql_query: a lookup join of {name} is INNER or LEFT, got {side} JOIN")
    if physical(declared.get_schema()).get_field_names() != declared.get_schema().get_field_names():
        raise ValueError(f"sql_query: the lookup table {name} has computed or metadata columns; Kindling looks up "
                         "tables of physical columns")
    if not left_keys:
        raise ValueError(f"sql_query: the lookup join of {name} needs an equality of a column of the probe table "
                         f"and a column of {name} in ON (o.k = d.id), got {condition}")
    types = {**probe._types(), **dim._types()}
    for left, right in zip(left_keys, right_keys):
        a, b = types[left].type_name, types[right].type_name
        if a != b and not (a in _INTEGERS and b in _INTEGERS):
            raise ValueError(f"sql_query: a lookup join requires equivalent condition of the same type, but the "
                             f"condition is {left}[{types[left]}]={dim_columns[right_names.index(right)]}"
                             f"[{types[right]}]; CAST one side")
    options = declared.get_options()
    spec = lookup_spec(options, name, dim_columns, dim.get_schema().row_type_info())
    schema = Schema(left_names + right_names, probe.get_schema().get_field_data_types() +
                    dim.get_schema().get_field_data_types())
    return probe._with(nodes.LookupJoin(
        input=probe._node, table=name, spec=spec, dim_names=tuple(right_names), dim_columns=tuple(dim_columns),
        left_keys=tuple(left_keys), right_keys=tuple(right_keys), condition=condition, outer=side == "LEFT",
        out=nodes.Output(schema, rowtime=probe._rowtime, proctime=probe._proctime)))


def lookup_function(node) -> "LookupFunction":
    """The function of a lookup join's plan node (kindling/table/planner/nodes.py ``LookupJoin``)."""
    left_names = node.input.out.names
    positions = [node.dim_names.index(k) for k in node.right_keys]
    return LookupFunction(node.spec, [node.dim_columns[p] for p in positions],
                          [left_names.index(k) for k in node.left_keys], positions,
                          left_names + list(node.dim_names), node.condition, node.outer)


@dataclass(eq=False)
class LookupSpec(JdbcSourceSpec):
    """A jdbc table's lookups: its connection, columns and options."""

    max_retries: int = 3
    cache: bool = False
    max_rows: Optional[int] = None
    expire_after_write_ms: Optional[int] = None
    expire_after_access_ms: Optional[int] = None
    cache_missing_key: bool = True


def lookup_spec(options: Dict[str, str], name: str, columns: List[str], type_info) -> LookupSpec:
    """The lookups of the jdbc table ``name`` its ``options`` declare (failing on a wrong one)."""
    from kindling.table.connectors import _required, duration_ms

    def number(key: str) -> Optional[int]:
        value = options.get(key)
        if value is None:
            return None
        if not value.strip().isdigit():
            raise ValueError(f"jdbc: {key} of {name} is a number of rows, got {value!r}")
        return int(value)

    def flag(key: str) -> Optional[bool]:
        value = options.get(key)
        if value is not None and value.lower() not in ("true", "false"):
            raise ValueError(f"jdbc: {key} of {name} is 'true' or 'false', got {value!r}")
        return None if value is None else value.lower() == "true"

    def duration(key: str) -> Optional[int]:
        return duration_ms(options[key], key) if key in options else None

    cache = options.get("lookup.cache", "").upper()
    legacy = "lookup.cache.max-rows" in options or "lookup.cache.ttl" in options
    if cache not in ("", "NONE", "PARTIAL"):
        raise ValueError(f"jdbc: lookup.cache of {name} is 'NONE' or 'PARTIAL' (Kindling has no FULL cache yet), "
                         f"got {options['lookup.cache']!r}")
    spec = LookupSpec(url=_required("jdbc", options, "url"), table=_required("jdbc", options, "table-name"),
                      columns=columns, user_name=options.get("username"), password=options.get("password"),
                      max_retries=number("lookup.max-retries") if "lookup.max-retries" in options else 3)
    spec.type_info = type_info
    if cache == "PARTIAL":
        spec.cache, spec.max_rows = True, number("lookup.partial-cache.max-rows")
        spec.expire_after_write_ms = duration("lookup.partial-cache.expire-after-write")
        spec.expire_after_access_ms = duration("lookup.partial-cache.expire-after-access")
        missing = flag("lookup.partial-cache.cache-missing-key")
    elif cache == "" and legacy:  # Flink's older options: both needed, as there
        if "lookup.cache.max-rows" not in options or "lookup.cache.ttl" not in options:
            raise ValueError(f"jdbc: lookup.cache.max-rows and lookup.cache.ttl of {name} go together")
        spec.cache, spec.max_rows = True, number("lookup.cache.max-rows")
        spec.expire_after_write_ms = duration("lookup.cache.ttl")
        missing = flag("lookup.cache.caching-missing-key")
    else:
        missing = None
    if spec.cache and spec.max_rows is None and spec.expire_after_write_ms is None and \
            spec.expire_after_access_ms is None:
        raise ValueError(f"jdbc: the PARTIAL lookup cache of {name} needs lookup.partial-cache.max-rows, "
                         ".expire-after-write or .expire-after-access")
    spec.cache_missing_key = True if missing is None else missing
    spec.check()
    return spec


class LookupCache:
    """The rows of keys read before, dropped past ``max_rows`` keys (the least recently used
    first) and when older than ``expire_after_write_ms`` or unread for ``expire_after_access_ms``."""

    def __init__(self, spec: LookupSpec, clock: Callable[[], float] = time.monotonic):
        self.spec, self.clock = spec, clock
        self.entries: "OrderedDict[tuple, list]" = OrderedDict()  # key -> [rows, written, read]

    def get(self, key: tuple) -> Optional[list]:
        entry = self.entries.get(key)
        if entry is None:
            return None
        now, spec = self.clock() * 1000, self.spec
        if (spec.expire_after_write_ms is not None and now - entry[1] >= spec.expire_after_write_ms) or \
                (spec.expire_after_access_ms is not None and now - entry[2] >= spec.expire_after_access_ms):
            del self.entries[key]
            return None
        entry[2] = now
        self.entries.move_to_end(key)
        return entry[0]

    def put(self, key: tuple, rows: list) -> None:
        if not rows and not self.spec.cache_missing_key:
            return
        now = self.clock() * 1000
        self.entries[key] = [rows, now, now]
        self.entries.move_to_end(key)
        while self.spec.max_rows is not None and len(self.entries) > self.spec.max_rows:
            self.entries.popitem(last=False)


class LookupFunction(AsyncFunction):
    """Joins a probe row with the database rows of its key: the keys of the rows in flight are read
    together, one query for their distinct keys (those the cache does not hold)."""

    def __init__(self, spec: LookupSpec, key_columns: List[str], probe_keys: List[int], dim_keys: List[int],
                 names: List[str], condition, outer: bool):
        self.spec, self.key_columns, self.probe_keys, self.dim_keys = spec, key_columns, probe_keys, dim_keys
        self.names, self.condition, self.outer = names, condition, outer
        self.width = len(spec.columns)

    def open(self, runtime_context) -> None:
        from kindling.spark.jdbc import _Connection, _Database, _from_database

        self.database = _Database(self.spec)
        self.connection = _Connection(self.database, "The JDBC lookup could not read")
        self.converts = [_from_database(t) for t in self.spec.type_info.get_field_types()]
        self.cache = LookupCache(self.spec) if self.spec.cache else None
        self.pending: Dict[tuple, "asyncio.Future"] = {}

    def close(self) -> None:
        connection = getattr(self, "connection", None)
        if connection is not None:
            connection.close()

    async def async_invoke(self, row) -> list:
        values = row._values
        key = tuple(values[p] for p in self.probe_keys)
        matches = [] if None in key else self.cache.get(key) if self.cache is not None else None
        if matches is None:
            future = self.pending.get(key)
            if future is None:
                loop = asyncio.get_running_loop()
                if not self.pending:  # after the rows handed over with this one have added their keys
                    loop.call_soon(self._read_pending)
                future = self.pending[key] = loop.create_future()
            matches = await future
        out = []
        for match in matches:
            joined = list(values) + match
            if self.condition.evaluate(dict(zip(self.names, joined))) is True:
                out.append(_create_row(self.names, joined, row._row_kind))
        if not out and self.outer:
            out.append(_create_row(self.names, list(values) + [None] * self.width, row._row_kind))
        return out

    def _read_pending(self) -> None:
        pending, self.pending = self.pending, {}
        try:
            found = self.read(list(pending))
        except BaseException as error:  # noqa: BLE001 - each waiting row fails with it
            for future in pending.values():
                future.set_exception(error)
            return
        for key, future in pending.items():
            future.set_result(found.get(key, []))

    def read(self, keys: List[tuple]) -> Dict[tuple, list]:
        """The rows of each key (its values in the database's types), from one query per
        :data:`KEYS_PER_QUERY` keys; each key's rows go into the cache."""
        found: Dict[tuple, list] = {}
        for start in range(0, len(keys), KEYS_PER_QUERY):
            part = keys[start:start + KEYS_PER_QUERY]
            rows = self.connection.run(lambda connection: self._query(connection, part))
            for values in rows:
                row = [None if v is None else c(v) for c, v in zip(self.converts, values)]
                found.setdefault(tuple(row[p] for p in self.dim_keys), []).append(row)
        for key in keys:
            found.setdefault(key, [])
            if self.cache is not None:
                self.cache.put(key, found[key])
        return found

    def _query(self, connection, keys: List[tuple]) -> list:
        from kindling.table.connectors import _quoted

        columns = [_quoted(c) for c in self.key_columns]
        if len(columns) == 1:
            where = f"{columns[0]} IN ({', '.join('?' for _ in keys)})"
        else:
            one = "(" + " AND ".join(f"{c} = ?" for c in columns) + ")"
            where = " OR ".join(one for _ in keys)
        cursor = connection.cursor()
        try:
            cursor.execute(self.database.statement(f"{self.spec.sql} WHERE {where}"),
                           [v for key in keys for v in key])
            return cursor.fetchall()
        finally:
            cursor.close()
