"""The state of a streaming query's groups between micro-batches (group aggregations, joins,
deduplication on Spark): SQLite databases under the checkpoint directory, keyed by group and batch
id, read and written by Spark tasks for only the groups a batch touches."""

from __future__ import annotations

import os
import sqlite3
import urllib.parse
from typing import Iterator

import pyarrow as pa
import pyarrow.compute  # noqa: F401 (pa.compute)
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

SHARDS = 4  # SQLite databases of a GroupStateStore (fixed: a group's shard must not change between runs)
_ID, _SHARD, _STATE = "__id", "__shard", "__state"
_COUNTED = "counted"  # writing's sum of its ``counted`` column
# JSON of the state: timestamps to the microsecond (the default format stops at milliseconds)
_JSON = {"timestampFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX", "timestampNTZFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSS"}


class GroupStateStore:
    """Each group's accumulators and last result (a JSON text of the state columns) by group and
    batch id, in ``SHARDS`` SQLite databases under ``directory``, read and written by Spark tasks
    one shard each. A batch looks up only its groups (the newest version before its batch id, so
    that a replayed batch reads what the batch before it left) and writes only its groups (as its
    batch id, dropping a group's versions before the one it read: one or two per group)."""

    def __init__(self, directory: str | None, schema: StructType):
        if directory is None:
            raise RuntimeError("a group aggregation in a streaming query needs the job's checkpoint directory")
        self.directory = _local_path(directory)
        self.schema = schema

    def beside(self, groups: DataFrame, keys: list[str], batch_id: int, found: str | None = None,
               wanted: Column | None = None) -> DataFrame:
        """``groups`` (rows with their group's key columns ``keys`` and any others; one per group, or
        several) with its group's stored state beside it: the state's other columns (null: the group
        has none), and with ``found`` a boolean column of that name, whether it has one. ``wanted``:
        the rows whose group is looked up (the others get nulls and false). The lookup runs in the
        partitions of ``groups`` (no shuffle), in the Arrow batches Spark hands Python."""
        directory = self.directory
        group_id = _group_id(keys) if wanted is None else F.when(wanted, _group_id(keys))
        rows = _with_shard(groups.select(group_id.alias(_ID), *groups.columns))
        looked_up = rows.mapInArrow(lambda batches: _found_beside(directory, batch_id, batches),
                                    StructType(groups.schema.fields + [StructField(_STATE, StringType())]))
        others = [f.name for f in self.schema.fields if f.name not in keys]
        is_found = [F.col(_STATE).isNotNull().alias(found)] if found else []
        if not others:  # the keys are all the state (a set's entries): whether a group has one is all
            return looked_up.select(*groups.columns, *is_found)
        looked_up = looked_up.select(*groups.columns, *is_found, F.from_json(_STATE, self.schema, _JSON).alias(_STATE))
        return looked_up.select(*groups.columns, *is_found, *[F.col(f"{_STATE}.{name}") for name in others])

    def write(self, state: DataFrame, keys: list[str], batch_id: int) -> int:
        """Stores the state of the groups of ``state`` as of ``batch_id``; the number of groups written."""
        return sum(row.n for row in self.writing(state, keys, batch_id).collect())

    def writing(self, state: DataFrame, keys: list[str], batch_id: int, where: str | None = None,
                counted: str | None = None) -> DataFrame:
        """What :meth:`write` runs, not yet run: a frame whose computing stores the state (the columns
        of ``state`` but ``where`` and ``counted``) of its rows, of those where the boolean column
        ``where`` is true when given (again when computed again: the same versions), and gives the
        number of groups written in ``n`` (a row per shard) and, with ``counted`` (a column of
        numbers), its sum over all rows in ``counted``."""
        directory = self.directory
        if where is not None and counted is None:
            state, where = state.where(F.col(where)).drop(where), None
        value = F.to_json(F.struct(*[c for c in state.columns if c not in (where, counted)]), _JSON)
        extra = [F.col(counted).cast("long").alias(_COUNTED)] if counted is not None else []
        # a Spark partition per shard: one writer at a time of each database
        rows = _with_shard(state.select(_group_id(keys).alias(_ID), (
            value if where is None else F.when(F.col(where), value)).alias(_STATE), *extra))
        rows = rows.repartition(SHARDS, _SHARD)
        counting = counted is not None
        return rows.mapInArrow(lambda batches: _stored(directory, batch_id, batches, counting),
                               "n long" + (f", {_COUNTED} long" if counting else ""))


def _local_path(directory: str) -> str:
    """The local path of a checkpoint directory (a path or a ``file:`` URI): SQLite needs one."""
    parsed = urllib.parse.urlparse(directory)
    if parsed.scheme == "file":
        return parsed.path
    if parsed.scheme and len(parsed.scheme) > 1:  # a one-letter scheme is a Windows drive
        raise ValueError(f"the state of a group aggregation Spark computes lives under the checkpoint directory, "
                         f"which must be on the local file system (a path or file:// URI), not {directory!r}; set "
                         "execution.checkpointing.dir to a local directory, or kindling.table.spark-aggregation to "
                         "false (the Python operator keeps its state in Spark's state store)")
    return directory


def _group_id(keys: list[str]) -> Column:
    """A group's keys as one text, the same for the same keys in every batch."""
    return F.to_json(F.struct(*keys), _JSON)


def _with_shard(frame: DataFrame) -> DataFrame:
    """``frame`` (with ``__id``) with its rows' shard (``__shard``)."""
    return frame.select(F.pmod(F.xxhash64(_ID), F.lit(SHARDS)).alias(_SHARD), "*")


def _shard(directory: str, shard: int) -> sqlite3.Connection:
    os.makedirs(directory, exist_ok=True)
    connection = sqlite3.connect(os.path.join(directory, f"shard-{shard}.sqlite"), timeout=600)
    connection.execute("CREATE TABLE IF NOT EXISTS state (id TEXT NOT NULL, version INTEGER NOT NULL, "
                       "value TEXT NOT NULL, PRIMARY KEY (id, version)) WITHOUT ROWID")
    return connection


def _found_beside(directory: str, batch_id: int, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The batches' rows (``shard``, ``id``, then the group's columns) as the group's columns and its
    newest stored state before ``batch_id`` (null: none)."""
    for batch, found in _newest_of_batches(directory, batch_id, batches):
        ids = batch.column(_ID).to_pylist()
        yield pa.RecordBatch.from_arrays(
            [batch.column(i) for i in range(2, batch.num_columns)] + [pa.array(map(found.get, ids), pa.string())],
            batch.schema.names[2:] + [_STATE])


def _newest_of_batches(directory: str, batch_id: int, batches: Iterator[pa.RecordBatch]
                       ) -> Iterator[tuple[pa.RecordBatch, dict[str, str]]]:
    """Each of the batches (``shard`` and ``id`` columns) with the newest stored state before
    ``batch_id`` of its groups that have one, by id: one query per shard and batch (:func:`_newest`)."""
    connections: dict[int, sqlite3.Connection] = {}
    try:
        for batch in batches:
            by_shard: dict[int, list] = {}
            for shard, group in zip(batch.column(_SHARD).to_pylist(), batch.column(_ID).to_pylist()):
                if group is not None:  # a row not looked up (beside's ``wanted``)
                    by_shard.setdefault(shard, []).append((group,))
            found: dict[str, str] = {}
            for shard, groups in by_shard.items():
                connection = connections.get(shard)
                if connection is None:
                    connection = connections[shard] = _shard(directory, shard)
                found.update(_newest(connection, batch_id, groups))
            yield batch, found
    finally:
        for connection in connections.values():
            connection.close()


def _newest(connection: sqlite3.Connection, batch_id: int, groups: list) -> dict[str, str]:
    """The newest stored state before ``batch_id`` of ``groups`` (``(id,)`` rows) that have one, by id:
    the batch's groups in a temporary table, one index seek each."""
    connection.execute("CREATE TEMP TABLE IF NOT EXISTS wanted (id TEXT PRIMARY KEY) WITHOUT ROWID")
    connection.execute("DELETE FROM wanted")
    connection.executemany("INSERT OR IGNORE INTO wanted VALUES (?)", groups)
    return dict(connection.execute(
        "SELECT id, v FROM (SELECT w.id AS id, (SELECT value FROM state WHERE id = w.id AND version < ? "
        "ORDER BY version DESC LIMIT 1) AS v FROM wanted w) WHERE v IS NOT NULL", (batch_id,)))


def _stored(directory: str, batch_id: int, batches: Iterator[pa.RecordBatch], counting: bool = False
            ) -> Iterator[pa.RecordBatch]:
    """Writes the batches' ``(shard, id, state)`` rows (a null state: not written) as of ``batch_id``,
    one transaction per shard; the number written, and (``counting``) the sum of their ``counted`` column."""
    connections: dict[int, sqlite3.Connection] = {}
    written, counted = 0, 0
    try:
        for batch in batches:
            if counting:
                counted += pa.compute.sum(batch.column(_COUNTED)).as_py() or 0
            by_shard: dict[int, list] = {}
            for shard, group, value in zip(*(batch.column(c).to_pylist() for c in (_SHARD, _ID, _STATE))):
                if value is not None:
                    by_shard.setdefault(shard, []).append((group, value))
            for shard, rows in by_shard.items():
                connection = connections.get(shard)
                if connection is None:
                    connection = connections[shard] = _shard(directory, shard)
                    connection.execute("BEGIN IMMEDIATE")
                connection.execute("CREATE TEMP TABLE IF NOT EXISTS incoming (id TEXT PRIMARY KEY, value TEXT NOT NULL) "
                                   "WITHOUT ROWID")
                connection.execute("DELETE FROM incoming")
                connection.executemany("INSERT OR REPLACE INTO incoming VALUES (?, ?)", rows)
                # keeps the version a replay of this batch reads, drops those before it
                connection.execute("DELETE FROM state WHERE id IN (SELECT id FROM incoming) AND version < (SELECT "
                                   "max(s.version) FROM state s WHERE s.id = state.id AND s.version < ?)", (batch_id,))
                connection.execute("INSERT OR REPLACE INTO state SELECT id, ?, value FROM incoming", (batch_id,))
                written += len(rows)
        for connection in connections.values():
            connection.commit()
    finally:
        for connection in connections.values():
            connection.close()
    numbers = [written, counted] if counting else [written]
    yield pa.RecordBatch.from_arrays([pa.array([n], pa.int64()) for n in numbers], ["n", _COUNTED][:len(numbers)])
