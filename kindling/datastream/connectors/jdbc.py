"""The JDBC sink, as in ``pyflink.datastream.connectors.jdbc``.

Kindling runs without Flink's JVM, so a JDBC URL is served by the database's Python driver:
``jdbc:postgresql://host:port/db`` by psycopg 3, ``jdbc:sqlite:path`` by ``sqlite3``. The
user's SQL keeps JDBC's ``?`` placeholders; each field of the row fills one, in order.

Example::

    stream.add_sink(JdbcSink.sink(
        "INSERT INTO words (word, n) VALUES (?, ?) ON CONFLICT (word) DO UPDATE SET n = EXCLUDED.n",
        Types.ROW([Types.STRING(), Types.INT()]),
        JdbcConnectionOptions.JdbcConnectionOptionsBuilder()
            .with_url("jdbc:postgresql://127.0.0.1:5432/shop").with_user_name("app").build(),
        JdbcExecutionOptions.builder().with_batch_size(500).with_max_retries(3).build()))
"""
from __future__ import annotations

import os

from kindling.common.typeinfo import RowTypeInfo
from kindling.datastream.connectors.base import Sink
from kindling.datastream.functions import SinkFunction
from kindling.graph.specs import JdbcSinkSpec

__all__ = ["JdbcSink", "JdbcConnectionOptions", "JdbcExecutionOptions"]


class JdbcSink(SinkFunction):
    """A sink for ``stream.add_sink`` running an SQL statement per element. ``sink`` is
    at-least-once (an upsert makes it idempotent); ``exactly_once_sink`` writes each part of a
    micro-batch in one transaction with a commit marker, so a replay writes only the parts that
    did not commit."""

    def __init__(self, spec: JdbcSinkSpec):
        self._spec = spec

    def _sink(self) -> Sink:
        """What ``stream.add_sink`` writes to."""
        return Sink(self._spec, "Sink: JdbcSink")

    @staticmethod
    def sink(sql: str, type_info: RowTypeInfo, jdbc_connection_options: "JdbcConnectionOptions",
             jdbc_execution_options: "JdbcExecutionOptions" = None) -> "JdbcSink":
        """A JDBC sink running ``sql`` (any DML: insert, update, upsert) with each element's fields
        (a Row of ``type_info``) as its ``?`` parameters, in batches, retrying failed batches."""
        return JdbcSink(_spec(sql, type_info, jdbc_connection_options, jdbc_execution_options, False))

    @staticmethod
    def exactly_once_sink(sql: str, type_info: RowTypeInfo, jdbc_connection_options: "JdbcConnectionOptions",
                          jdbc_execution_options: "JdbcExecutionOptions" = None) -> "JdbcSink":
        """Like :meth:`sink`, but a micro-batch's rows are spread over a fixed number of parts by
        their value, each written in one transaction that also records ``(job, batch, part)`` in the
        table ``kindling_jdbc_commits``: a part Spark replays after a failure finds its marker and
        writes nothing, whatever the replay's parallelism (Flink's XA sink, without XA; see
        docs/fault-tolerance.md for what it guarantees when)."""
        return JdbcSink(_spec(sql, type_info, jdbc_connection_options, jdbc_execution_options, True))


def _spec(sql, type_info, connection, execution, exactly_once: bool) -> JdbcSinkSpec:
    if not isinstance(sql, str) or not sql.strip():
        raise ValueError(f"JdbcSink needs an SQL statement, got {sql!r}")
    if not isinstance(type_info, RowTypeInfo):
        raise TypeError(f"JdbcSink needs a RowTypeInfo (Types.ROW([...]) or Types.ROW_NAMED(...)) for the "
                        f"statement's parameters, got {type_info!r}")
    if not isinstance(connection, JdbcConnectionOptions):
        raise TypeError(f"JdbcSink needs JdbcConnectionOptions (JdbcConnectionOptions.JdbcConnectionOptionsBuilder()"
                        f"...build()), got {connection!r}")
    execution = execution if execution is not None else JdbcExecutionOptions.defaults()
    url = connection.get_db_url()
    if url and url.startswith("jdbc:sqlite:") and not url.startswith("jdbc:sqlite::"):
        # Tasks may run in another directory: a relative database file is the driver's.
        url = "jdbc:sqlite:" + os.path.abspath(url[len("jdbc:sqlite:"):])
    spec = JdbcSinkSpec(sql=sql, type_info=type_info, url=url or "", driver_name=connection.get_driver_name(),
                        user_name=connection.get_user_name(), password=connection.get_password(),
                        batch_size=execution.get_batch_size(), batch_interval_ms=execution.get_batch_interval_ms(),
                        max_retries=execution.get_max_retries(), exactly_once=exactly_once)
    spec.check()
    return spec


class JdbcConnectionOptions:
    """Where the database is: its JDBC URL, and the user and password to log in with."""

    def __init__(self, url: str | None = None, driver_name: str | None = None, user_name: str | None = None,
                 password: str | None = None):
        self._url = url
        self._driver_name = driver_name
        self._user_name = user_name
        self._password = password

    def get_db_url(self) -> str:
        return self._url

    def get_driver_name(self) -> str:
        """The JDBC driver class the user named; Kindling chooses the Python driver from the URL."""
        return self._driver_name

    def get_user_name(self) -> str:
        return self._user_name

    def get_password(self) -> str:
        return self._password

    class JdbcConnectionOptionsBuilder:
        """Builder for JdbcConnectionOptions."""

        def __init__(self):
            self._options: dict = {}

        def with_url(self, url: str) -> "JdbcConnectionOptions.JdbcConnectionOptionsBuilder":
            self._options["url"] = url
            return self

        def with_driver_name(self, driver_name: str) -> "JdbcConnectionOptions.JdbcConnectionOptionsBuilder":
            self._options["driver_name"] = driver_name
            return self

        def with_user_name(self, user_name: str) -> "JdbcConnectionOptions.JdbcConnectionOptionsBuilder":
            self._options["user_name"] = user_name
            return self

        def with_password(self, password: str) -> "JdbcConnectionOptions.JdbcConnectionOptionsBuilder":
            self._options["password"] = password
            return self

        def build(self) -> "JdbcConnectionOptions":
            url = self._options.get("url")
            if not isinstance(url, str) or not url:
                raise ValueError("JdbcConnectionOptions needs a JDBC URL: with_url('jdbc:postgresql://host:port/db')")
            return JdbcConnectionOptions(**self._options)


class JdbcExecutionOptions:
    """How the sink writes: ``batch_size`` rows a batch (Flink's default 5000), a batch at least
    every ``batch_interval_ms`` (0: only when full or at the end of a micro-batch), and
    ``max_retries`` attempts more for a batch that fails on a transient error (default 3)."""

    def __init__(self, batch_size: int = 5000, batch_interval_ms: int = 0, max_retries: int = 3):
        self._batch_size = batch_size
        self._batch_interval_ms = batch_interval_ms
        self._max_retries = max_retries

    def get_batch_interval_ms(self) -> int:
        return self._batch_interval_ms

    def get_batch_size(self) -> int:
        return self._batch_size

    def get_max_retries(self) -> int:
        return self._max_retries

    @staticmethod
    def defaults() -> "JdbcExecutionOptions":
        return JdbcExecutionOptions()

    @staticmethod
    def builder() -> "JdbcExecutionOptions.Builder":
        return JdbcExecutionOptions.Builder()

    class Builder:
        """Builder for JdbcExecutionOptions."""

        def __init__(self):
            self._options = {"batch_size": 5000, "batch_interval_ms": 0, "max_retries": 3}

        def _set(self, name: str, value: int, least: int) -> "JdbcExecutionOptions.Builder":
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"JdbcExecutionOptions: {name} must be an int >= {least}, got {value!r}")
            self._options[name] = value
            return self

        def with_batch_size(self, size: int) -> "JdbcExecutionOptions.Builder":
            return self._set("batch_size", size, 1)

        def with_batch_interval_ms(self, interval_ms: int) -> "JdbcExecutionOptions.Builder":
            return self._set("batch_interval_ms", interval_ms, 0)

        def with_max_retries(self, max_retries: int) -> "JdbcExecutionOptions.Builder":
            return self._set("max_retries", max_retries, 0)

        def build(self) -> "JdbcExecutionOptions":
            return JdbcExecutionOptions(**self._options)
