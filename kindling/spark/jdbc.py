"""The JDBC sink on Spark: each task runs the user's SQL through the database's Python driver
(psycopg 3 for ``jdbc:postgresql:``, ``sqlite3`` for ``jdbc:sqlite:``).

At-least-once (``JdbcSink.sink``): a task sends its rows in batches of ``batch_size`` (or when
the oldest waiting row is ``batch_interval_ms`` old), each batch in one transaction; a batch
failing on a transient error (lost connection, lock, serialization failure) is retried
``max_retries`` times, one second more between attempts each time; any other error, or a
transient one that outlasts the retries, fails the micro-batch and Spark replays it from the
checkpoint. Exactly-once (``JdbcSink.exactly_once_sink``): a micro-batch's rows are spread over a
fixed number of parts by their value, each part written in one transaction that also inserts
``(job, batch, part)`` into ``kindling_jdbc_commits``; a replayed part whose marker is there
writes nothing (see :class:`JdbcWriter`).
"""
from __future__ import annotations

import datetime
import pickle
import re
import time
import uuid
from typing import Any, Callable, Iterator, NamedTuple
from urllib.parse import parse_qsl, unquote

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kindling.common.types import RowKind, _create_row
from kindling.graph.specs import JdbcSinkSpec, JdbcSourceSpec, split_jdbc_sql
from kindling.runtime.errors import user_function_failure
from kindling.runtime.type_check import checker_for
from kindling.spark.sinks import SinkBookkeeping, SinkWriter

SINK_NAME = "Sink: JdbcSink"
CONNECT_TIMEOUT_S = 5  # an unreachable database fails a write attempt after this long, not a hang
MARKER_TABLE = "kindling_jdbc_commits"
#: JDBC URL parameters of PostgreSQL's driver -> libpq's (the ones Kindling passes on)
_PG_PARAMETERS = {"user": "user", "password": "password", "sslmode": "sslmode", "sslcert": "sslcert",
                  "sslkey": "sslkey", "sslrootcert": "sslrootcert", "connectTimeout": "connect_timeout",
                  "ApplicationName": "application_name", "applicationName": "application_name",
                  "options": "options", "ssl": None, "currentSchema": None}


class JdbcSinkError(RuntimeError):
    """A write the database refused for good (a constraint, a wrong statement or value)."""


def redacted(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"(?i)(password=)[^&;]*", r"\1***", url)


class _Database:
    """One database kind: how to connect, its placeholder style, which errors are transient."""

    def __init__(self, spec: JdbcSinkSpec):
        self.spec = spec
        self.dialect = spec.dialect
        if self.dialect == "postgresql":
            import psycopg

            self.module = psycopg
            self.marker = "%s"
            self.connect_args = _postgres_arguments(spec)
        else:
            import sqlite3

            self.module = sqlite3
            self.marker = "?"
            self.path = spec.url[len("jdbc:sqlite:"):] or ":memory:"
        self.sql = self.statement(spec.sql)
        self.delete_sql = self.statement(spec.delete_sql) if getattr(spec, "delete_sql", None) else None

    def statement(self, sql: str) -> str:
        """``sql`` with the driver's placeholders for JDBC's ``?``."""
        if self.dialect != "postgresql":
            return sql
        return "%s".join(p.replace("%", "%%") for p in split_jdbc_sql(sql))

    def connect(self) -> Any:
        if self.dialect == "postgresql":
            return self.module.connect(**self.connect_args)
        return self.module.connect(self.path, timeout=30)

    def transient(self, error: BaseException) -> bool:
        """Whether another attempt may succeed (the connection, a lock, a serialization failure)."""
        if self.dialect == "postgresql":
            return isinstance(error, self.module.OperationalError)
        return isinstance(error, self.module.OperationalError) and any(
            word in str(error) for word in ("locked", "busy", "unable to open"))


def _postgres_arguments(spec: JdbcSinkSpec) -> dict:
    """psycopg's connection arguments for ``jdbc:postgresql://host[:port][,host2[:port2]]/db?k=v&...``
    (or ``jdbc:postgresql:db``), the user and password of the options winning over the URL's."""
    rest = spec.url[len("jdbc:postgresql:"):]
    rest, _, query = rest.partition("?")
    arguments: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT_S}
    if rest.startswith("//"):
        hosts, _, database = rest[2:].partition("/")
        names, ports = [], []
        for host in filter(None, hosts.split(",")):
            if host.startswith("["):  # [IPv6]:port
                name, _, port = host[1:].partition("]")
                port = port.lstrip(":")
            else:
                name, _, port = host.partition(":")
            names.append(name)
            ports.append(port or "5432")
        if names:
            arguments["host"] = ",".join(names)
            arguments["port"] = ",".join(ports)
    else:
        database = rest
    if database:
        arguments["dbname"] = unquote(database)
    options = []
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key not in _PG_PARAMETERS:
            raise ValueError(f"JdbcSink: the JDBC URL parameter {key!r} of {redacted(spec.url)} is not supported by "
                             f"Kindling's PostgreSQL driver (psycopg); supported: {', '.join(sorted(_PG_PARAMETERS))}")
        if key == "ssl":
            if value.lower() in ("true", "1", ""):
                arguments.setdefault("sslmode", "require")
        elif key == "currentSchema":
            options.append(f"-c search_path={value}")
        else:
            arguments[_PG_PARAMETERS[key]] = value
    if options:
        arguments["options"] = " ".join([arguments.get("options", "")] + options).strip()
    if spec.user_name is not None:
        arguments["user"] = spec.user_name
    if spec.password is not None:
        arguments["password"] = spec.password
    return arguments


def _row_converter(spec: JdbcSinkSpec) -> Callable[[Any], tuple]:
    """Turns an element into the statement's parameters, failing clearly when it does not fit
    the sink's RowTypeInfo."""
    type_info = spec.type_info
    names = type_info.get_field_names()
    types = type_info.get_field_types()
    checks = [checker_for(t) for t in types]
    arity = len(types)

    def convert(value: Any) -> tuple:
        if isinstance(value, dict):
            fields = [value.get(n) for n in names]
        else:
            try:
                fields = list(value)
            except TypeError:
                raise TypeError(f"JdbcSink: the element {value!r} ({type(value).__name__}) is not a Row of the sink's "
                                f"RowTypeInfo {type_info}; map the stream to Rows first") from None
            if len(fields) != arity:
                raise TypeError(f"JdbcSink: the element {value!r} has {len(fields)} fields but the sink's "
                                f"RowTypeInfo {type_info} has {arity}")
        for i, (check, field) in enumerate(zip(checks, fields)):
            if field is None:
                continue
            if check is not None and not check(field):
                raise TypeError(f"JdbcSink: field {i} ({names[i]!r}) of {value!r} is {type(field).__name__} "
                                f"{field!r}, which does not fit its declared type {types[i]} in the sink's RowTypeInfo")
            if hasattr(field, "nanos") and hasattr(field, "seconds"):  # an Instant: the drivers know datetimes
                fields[i] = datetime.datetime.fromtimestamp(field.seconds, datetime.timezone.utc) + \
                    datetime.timedelta(microseconds=field.nanos // 1000)
        return tuple(fields)

    return convert


def _rows(batches: Iterator[pa.RecordBatch], convert: Callable[[Any], tuple], spec: JdbcSinkSpec) -> Iterator[tuple]:
    """``(statement, parameters)`` per element: statement 0 the sink's SQL; for an upsert sink
    (``delete_sql``) a ``-D`` row runs statement 1 with its key fields and a ``-U`` row nothing (the
    ``+U`` that follows it upserts), as Flink's JDBC upsert sink does."""
    deletes = spec.delete_fields if spec.delete_sql else None
    for batch in batches:
        for data in batch.column(0).to_pylist():
            value = pickle.loads(data)
            kind = getattr(value, "_row_kind", None) if deletes is not None else None
            if kind == RowKind.UPDATE_BEFORE:
                continue
            row = convert(value)
            yield (1, tuple(row[i] for i in deletes)) if kind == RowKind.DELETE else (0, row)


class _Connection:
    """A task's connection, opened on first use and again after a transient failure; ``failure``
    starts the message of an error (``... <url>: <the driver's error>``)."""

    def __init__(self, database: _Database, failure: str = "JdbcSink could not write to"):
        self.database = database
        self.failure = failure
        self.connection: Any = None

    def run(self, work: Callable[[Any], Any]) -> Any:
        """``work(connection)`` then commit, retried on transient errors; its result."""
        database = self.database
        spec = database.spec
        attempts = spec.max_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                if self.connection is None:
                    self.connection = database.connect()
                result = work(self.connection)
                self.connection.commit()
                return result
            except database.module.Error as error:
                transient = database.transient(error)
                self.close(rollback=True)
                if not transient or attempt == attempts:
                    tried = f" (tried {attempts} times)" if transient else ""
                    kind = ConnectionError if transient else JdbcSinkError
                    raise kind(f"{self.failure} {redacted(spec.url)}{tried}: {type(error).__name__}: "
                               f"{str(error).strip()}") from None
                time.sleep(attempt)  # Flink's backoff: one second more each attempt

    def close(self, rollback: bool = False) -> None:
        if self.connection is None:
            return
        try:
            if rollback:
                self.connection.rollback()
            self.connection.close()
        except Exception:
            pass
        self.connection = None


class Part(NamedTuple):
    """What one exactly-once transaction writes: part ``index`` of the ``count`` parts of micro-batch
    ``batch`` of job ``job``."""

    job: str
    batch: int
    index: int
    count: int


def write_task(spec: JdbcSinkSpec, batches: Iterator[pa.RecordBatch], part: Part | None = None) -> int:
    """Writes one task's rows of a micro-batch (exactly-once: ``part``); returns how many it wrote."""
    database = _Database(spec)
    try:
        rows = _rows(batches, _row_converter(spec), spec)
        connection = _Connection(database)
        try:
            if part is not None:
                return _write_exactly_once(database, connection, list(rows), part)
            return _write_batches(database, connection, rows)
        finally:
            connection.close()
    except (TypeError, ConnectionError, JdbcSinkError) as error:
        raise user_function_failure(SINK_NAME, error) from None


def _execute_many(database: _Database, rows: list) -> Callable[[Any], int]:
    def work(connection) -> int:
        cursor = connection.cursor()
        try:
            _run_statements(database, cursor, rows)
        finally:
            cursor.close()
        return len(rows)

    return work


def _run_statements(database: _Database, cursor: Any, rows: list) -> None:
    """Runs ``(statement, parameters)`` rows in order, each run of one statement in one executemany."""
    start = 0
    for end in range(1, len(rows) + 1):
        if end == len(rows) or rows[end][0] != rows[start][0]:
            sql = database.sql if rows[start][0] == 0 else database.delete_sql
            cursor.executemany(sql, [parameters for _, parameters in rows[start:end]])
            start = end


def _write_batches(database: _Database, connection: _Connection, rows: Iterator[tuple]) -> int:
    """Writes ``(statement, parameters)`` rows in batches (see the module's docstring)."""
    spec = database.spec
    interval = spec.batch_interval_ms / 1000
    pending: list[tuple] = []
    first = 0.0
    written = 0
    for row in rows:
        if not pending:
            first = time.monotonic()
        pending.append(row)
        if len(pending) >= spec.batch_size or (interval and time.monotonic() - first >= interval):
            written += connection.run(_execute_many(database, pending))
            pending = []
    if pending:
        written += connection.run(_execute_many(database, pending))
    return written


def _write_exactly_once(database: _Database, connection: _Connection, rows: list, part: Part) -> int:
    """Writes ``part`` and its marker in one transaction, or nothing if the marker is there (a
    replay of a part that committed)."""
    m = database.marker
    size = database.spec.batch_size
    marker = (part.job, part.batch, part.index)

    def work(db) -> int:
        cursor = db.cursor()
        try:
            cursor.execute(f"SELECT 1 FROM {MARKER_TABLE} WHERE job = {m} AND batch = {m} AND part = {m}",
                           marker)
            if cursor.fetchone() is not None:  # committed before: Spark replays the batch
                return 0
            for lo in range(0, len(rows), size):
                _run_statements(database, cursor, rows[lo:lo + size])
            cursor.execute(f"INSERT INTO {MARKER_TABLE} (job, batch, part) VALUES ({m}, {m}, {m})",
                           marker)
            # Spark replays the last batch only: earlier markers are never read again (parts >= count:
            # an earlier batch had more parts).
            cursor.execute(f"DELETE FROM {MARKER_TABLE} WHERE job = {m} AND batch < {m} AND (part = {m} OR "
                           f"part >= {m})", marker + (part.count,))
        finally:
            cursor.close()
        return len(rows)

    return connection.run(work)


class JdbcWriter(SinkWriter):
    """Writes each micro-batch from the tasks that hold it (see the module's docstring).

    Exactly-once: a micro-batch's rows are spread over ``n`` parts by their value (the pickled
    element), so that a replay puts each row in the part it was in before whatever its
    partitioning: ``n`` is ``spark.sql.shuffle.partitions`` when the batch first ran, kept in the
    sink's bookkeeping beside the checkpoint. Part ``p`` is written in one transaction that also
    inserts ``(job, batch, p)`` into ``kindling_jdbc_commits``; a replayed part that finds its
    marker writes nothing, so a replay that computes the same rows writes exactly those the first
    attempt did not commit. The job is Spark's query id, which lives in the checkpoint, so a
    restarted job keeps it (a BATCH job, never replayed, has an id of its own)."""

    def __init__(self, spec: JdbcSinkSpec):
        self.spec = spec
        if spec.dialect == "postgresql":
            _postgres_arguments(spec)  # fails on URL parameters Kindling cannot pass on, before any batch
        self.run_id = uuid.uuid4().hex  # the job's id when no streaming query has one (BATCH, one-step)
        self.marker_ready = False
        self.books = SinkBookkeeping("jdbc", f"{spec.url} {spec.sql}")

    def bind(self, checkpoint_dir: str) -> None:
        """Keeps the number of parts of each micro-batch under the job's checkpoint directory."""
        self.books.bind(checkpoint_dir)

    def finish(self) -> None:
        self.books.close()

    def _create_marker_table(self) -> None:
        connection = _Connection(_Database(self.spec))
        try:
            connection.run(lambda db: db.cursor().execute(
                f"CREATE TABLE IF NOT EXISTS {MARKER_TABLE} (job VARCHAR(64) NOT NULL, batch BIGINT NOT NULL, "
                "part INTEGER NOT NULL, PRIMARY KEY (job, batch, part))"))
            connection.failure = (f"JdbcSink: the table {MARKER_TABLE} is not the (job, batch, part) table of "
                                  "Kindling's commit markers (an older Kindling's? drop it once no job that wrote "
                                  "it is to be restarted) in")
            connection.run(lambda db: db.cursor().execute(f"SELECT job, batch, part FROM {MARKER_TABLE} WHERE 1 = 0"))
        finally:
            connection.close()
        self.marker_ready = True

    def write(self, df: DataFrame, batch_id: int) -> int:
        spec = self.spec
        job, parts = None, 0
        if spec.exactly_once:
            if not self.marker_ready:
                self._create_marker_table()
            job = df.sparkSession.sparkContext.getLocalProperty("sql.streaming.queryId") or self.run_id
            parts = self.books.transactions(df.sparkSession, batch_id)
            df = df.repartition(parts, F.col(df.columns[0]))  # Spark's hash of the element picks the part

        def write_partition(batches):
            from pyspark import TaskContext

            part = None if job is None else Part(job, batch_id, TaskContext.get().partitionId(), parts)
            n = write_task(spec, batches, part)
            yield pa.RecordBatch.from_arrays([pa.array([n], pa.int64())], names=["n"])

        return sum(r[0] for r in df.mapInArrow(write_partition, "n long").collect())


# -- the bounded scan of a JDBC table (the table connector's source) ---------------------------

def read_split(spec: JdbcSourceSpec, split: int, type_info: Any) -> Iterator[pa.RecordBatch]:
    """The rows of one split of a JDBC scan as Arrow batches of ``type_info`` (a named Row type),
    fetched ``fetch_size`` at a time; an unreachable database or a wrong table fails naming the URL."""
    from kindling.spark.codec import codec_for

    database = _Database(spec)
    codec = codec_for(type_info)
    names = type_info.get_field_names()
    converts = [_from_database(t) for t in type_info.get_field_types()]
    connection = None
    try:
        connection = database.connect()
        cursor = connection.cursor()
        cursor.execute(database.sql, spec.parameters(split))
        while True:
            fetched = cursor.fetchmany(spec.fetch_size)
            if not fetched:
                break
            rows = [_create_row(names, [None if v is None else c(v) for c, v in zip(converts, values)])
                    for values in fetched]
            yield pa.RecordBatch.from_arrays(codec.encode(rows), names=[f.name for f in codec.fields])
    except database.module.Error as error:
        raise user_function_failure("Source: JDBC", ConnectionError(
            f"The JDBC source could not read {spec.table} from {redacted(spec.url)}: {type(error).__name__}: "
            f"{str(error).strip()}")) from None
    finally:
        if connection is not None:
            connection.close()


def _from_database(type_info: Any) -> Callable[[Any], Any]:
    """How a driver's value becomes a value of ``type_info`` (SQLite keeps times as text, numbers
    of any column as it got them)."""
    import decimal

    from kindling.common.typeinfo import Types

    def timestamp(value: Any) -> datetime.datetime:
        moment = datetime.datetime.fromisoformat(value) if isinstance(value, str) else value
        if moment.tzinfo is not None:
            moment = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return moment

    def instant(value: Any) -> Any:
        from kindling.common.time import Instant

        delta = timestamp(value) - datetime.datetime(1970, 1, 1)
        return Instant.of_epoch_second(delta.days * 86400 + delta.seconds, delta.microseconds * 1000)

    by_type = [(Types.SQL_TIMESTAMP(), timestamp), (Types.INSTANT(), instant),
               (Types.SQL_DATE(), lambda v: datetime.date.fromisoformat(v) if isinstance(v, str) else v),
               (Types.BIG_DEC(), lambda v: decimal.Decimal(str(v))), (Types.BOOLEAN(), bool),
               (Types.DOUBLE(), float), (Types.FLOAT(), float), (Types.STRING(), str),
               (Types.PRIMITIVE_ARRAY(Types.BYTE()), bytes)]
    return next((convert for candidate, convert in by_type if candidate == type_info), lambda v: v)
