"""Sources, sinks and windows as plain data: what the user asked for, not how Spark does it."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass(eq=False)
class SourceSpec:
    """Base of source specs; ``bounded`` sources end, so jobs reading them finish."""

    bounded = True

    def check(self) -> None:
        """Fails while the job is built on what would otherwise fail only once Spark reads."""


@dataclass(eq=False)
class CollectionSourceSpec(SourceSpec):
    """The elements of a Python collection, in order."""

    values: list = field(default_factory=list)


@dataclass(eq=False)
class SequenceSourceSpec(SourceSpec):
    """The integers from ``start`` to ``end``, both inclusive."""

    start: int = 0
    end: int = 0


#: files larger than this are read in several splits where their format allows (byte ranges of
#: line formats, row groups of Parquet)
SPLIT_BYTES = 64 * 1024 * 1024


@dataclass(eq=False)
class FileSourceSpec(SourceSpec):
    """Records of the files under ``paths`` (local paths or filesystem URIs such as ``file://``,
    ``s3://``) read with ``format`` (a ``StreamFormat`` or ``BulkFormat``); watched for new
    files when ``monitor_interval_ms`` is set (at every micro-batch: its value is not used). Files are
    read in splits of about ``split_bytes`` where the format allows."""

    paths: list = field(default_factory=list)
    format: Any = None
    monitor_interval_ms: int | None = None
    split_bytes: int = SPLIT_BYTES

    @property
    def bounded(self) -> bool:  # type: ignore[override]
        return self.monitor_interval_ms is None

    def check(self) -> None:
        for path in self.paths:
            if "://" not in path and not os.path.exists(path):
                raise FileNotFoundError(f"FileSource path does not exist: {path} (create it before the job "
                                        "is built, or correct the path)")


@dataclass(eq=False)
class PartitionColumns:
    """The columns of a partitioned table that its files do not hold (a FileSource format's
    ``partition_columns``): the files hold rows of ``data_type``; ``values_of(directory)`` gives
    the partition columns' values of a file from its directory below the source's path, which go
    to ``positions`` among the table's columns."""

    data_type: Any = None
    positions: list = field(default_factory=list)
    values_of: Any = None


@dataclass(eq=False)
class SinkSpec:
    """Base of sink specs. ``layout`` is how elements reach the sink: ``pickled`` Python
    values, ``collected`` (Python values, a list per batch) or ``string`` (Flink's ``toString``
    of each element)."""

    layout = "pickled"


@dataclass(eq=False)
class PrintSinkSpec(SinkSpec):
    """Prints each element on the driver's stdout (stderr if ``to_stderr``)."""

    identifier: str | None = None
    to_stderr: bool = False
    layout = "string"


@dataclass(eq=False)
class CollectSinkSpec(SinkSpec):
    """Hands elements to the driver, for ``execute_and_collect``."""

    collector: Any = None
    layout = "collected"


@dataclass(eq=False)
class DiscardSinkSpec(SinkSpec):
    """Drops elements, counting them (the end of a user ``SinkFunction`` chain)."""

    layout = "none"


@dataclass(eq=False)
class FileSinkSpec(SinkSpec):
    """Part files under ``base_path`` (a local path or filesystem URI), Flink's ``FileSink``:
    each element encoded by ``encoder`` on a line (``for_row_format``), or written by the bulk
    ``writer`` (``for_bulk_format``: Parquet, ORC, CSV, Avro); a part file per task and
    micro-batch (rolled on checkpoint), row formats rolling earlier past ``part_size``. ``bucket_format`` (a strftime
    format, in ``bucket_timezone``) names the bucket directory from the micro-batch's time;
    None writes into ``base_path`` itself."""

    base_path: str = ""
    encoder: Any = None
    writer: Any = None
    part_prefix: str = "part"
    part_suffix: str = ""
    bucket_format: str | None = "%Y-%m-%d--%H"
    bucket_timezone: str | None = None
    part_size: int | None = None  # row formats: a part file rolls past this many bytes
    compaction: Any = None  # (FileCompactStrategy, FileCompactor) of enable_compact
    partitioning: Any = None  # element -> (relative partition directory, what is written)
    commit: Any = None  # PartitionCommit

    @property
    def layout(self) -> str:  # type: ignore[override]
        if self.writer is None and self.partitioning is None:
            return "encoded"
        return "columns" if self.columns_type is not None else "pickled"

    @property
    def columns_type(self) -> Any:
        """The row type of a columnar bulk writer (Parquet, ORC): elements reach it as its columns
        (unless partitioned: the writer of each partition directory encodes its own)."""
        if self.writer is None or self.writer.kind not in ("parquet", "orc") or self.partitioning is not None:
            return None
        return self.writer.options["type_info"]


@dataclass(eq=False)
class PartitionCommit:
    """Flink's ``sink.partition-commit.*`` of a partitioned file sink: a partition is committed
    (``success_file``, when set, is written into it) at the first micro-batch commit at least
    ``delay_ms`` after the partition was created (the ``process-time`` trigger), and every
    partition at the end of a bounded job's input (``at_end_only``: only then, as with the
    ``partition-time`` trigger, whose watermark a bounded job passes at its end)."""

    success_file: str | None = None
    delay_ms: int = 0
    at_end_only: bool = False


#: how a window keeps its contents until it fires: the reduced value (``reduce``), an
#: accumulator (``aggregate``) or the elements themselves (``list``)
WINDOW_CONTENTS = ("reduce", "aggregate", "list")


@dataclass(eq=False)
class WindowSpec:
    """A windowed operation: the WindowAssigner and Trigger, how contents are kept
    (``contents``, one of :data:`WINDOW_CONTENTS`, combined by ``function``: a ReduceFunction
    or an AggregateFunction), the window function evaluating a window (None: emit the reduced
    or aggregated value), the allowed lateness (ms), the late-data side output's tag id, and
    whether it is ``window_all``'s (window functions get no key)."""

    assigner: Any = None
    trigger: Any = None
    contents: str = "list"
    function: Any = None
    window_function: Any = None
    allowed_lateness: int = 0
    late_data_tag: str | None = None
    all_windows: bool = False


@dataclass(eq=False)
class KafkaSourceSpec(SourceSpec):
    """Records of Kafka topics (``topics``, a ``topic_pattern`` or explicit ``partitions``
    ``[(topic, partition)]``), read from ``starting`` offsets up to ``stopping`` ones (None:
    never stop); offsets are ``("earliest",)``, ``("latest",)``, ``("committed", reset)``,
    ``("timestamp", ms)`` or ``("offsets", {(topic, partition): offset}, reset)``. Each
    partition is a split with its own watermark, and stays one from micro-batch to micro-batch."""

    bootstrap_servers: str = ""
    topics: list = field(default_factory=list)
    topic_pattern: str | None = None
    partitions: list = field(default_factory=list)
    group_id: str | None = None
    starting: tuple = ("earliest",)
    stopping: tuple | None = None
    is_bounded: bool = False
    deserializer: Any = None
    value_only: bool = True
    properties: dict = field(default_factory=dict)
    client_id_prefix: str | None = None

    @property
    def bounded(self) -> bool:  # type: ignore[override]
        return self.is_bounded


@dataclass(eq=False)
class KafkaSinkSpec(SinkSpec):
    """Writes each element as a Kafka record: ``topic`` (or ``topic_selector(value)``), value and
    key from serialization schemas; ``guarantee`` is ``NONE``, ``AT_LEAST_ONCE`` or
    ``EXACTLY_ONCE`` (one transaction per task and micro-batch, ids from ``transactional_id_prefix``)."""

    bootstrap_servers: str = ""
    topic: str | None = None
    topic_selector: Any = None
    value_schema: Any = None
    key_schema: Any = None
    guarantee: str = "NONE"
    transactional_id_prefix: str | None = None
    properties: dict = field(default_factory=dict)
    writes_timestamps = True  # element timestamps become record timestamps (a __ts column), as in Flink

    @property
    def layout(self) -> str:  # type: ignore[override]
        """``encoded`` (the stage serializes values, saving a pickle round trip) unless keys or
        topics depend on the element, which the sink then gets ``pickled``."""
        return "encoded" if self.key_schema is None and self.topic_selector is None else "pickled"

    @property
    def encoder(self) -> "KafkaValueEncoder | None":
        return KafkaValueEncoder(self.value_schema) if self.layout == "encoded" else None


class KafkaValueEncoder:
    """A KafkaSink's value serialization schema, run in the stage producing the elements."""

    def __init__(self, schema: Any):
        self.schema = schema

    def encode(self, value: Any, type_info: Any) -> bytes:
        try:
            return self.schema.serialize(value)
        except Exception as exc:
            raise ValueError(f"KafkaSink could not serialize {value!r}: {type(exc).__name__}: {exc}") from exc


@dataclass(eq=False)
class JdbcSinkSpec(SinkSpec):
    """Runs ``sql`` (JDBC ``?`` placeholders) for each element, a Row of ``type_info``, through the
    Python driver of the database ``url`` names; rows go in batches of ``batch_size`` (or older than
    ``batch_interval_ms``), a failed batch is retried ``max_retries`` times. ``exactly_once``: a
    micro-batch's rows spread over parts by their value, one transaction per part with a commit
    marker so a replay writes only the parts that did not commit."""

    sql: str = ""
    type_info: Any = None
    url: str = ""
    driver_name: str | None = None
    user_name: str | None = None
    password: str | None = None
    batch_size: int = 5000
    batch_interval_ms: int = 0
    max_retries: int = 3
    exactly_once: bool = False
    delete_sql: str | None = None  # set: an upsert sink; -D rows run it with ``delete_fields``, -U rows are skipped
    delete_fields: list | None = None

    @property
    def dialect(self) -> str:
        """The database kind the URL names (a key of :data:`JDBC_DRIVERS`)."""
        return jdbc_dialect(self.url)

    def check(self) -> None:
        """Fails on what is wrong before any database is reached: the URL's database kind, the
        Python driver it needs, and the number of ``?`` placeholders against the row's fields."""
        check_jdbc_url(self.url, "JdbcSink")
        arity = len(self.type_info.get_field_types())
        placeholders = len(split_jdbc_sql(self.sql)) - 1
        if placeholders != arity:
            raise ValueError(f"JdbcSink: the SQL has {placeholders} '?' placeholders but the RowTypeInfo has "
                             f"{arity} fields ({self.sql!r}); each field fills one placeholder, in order")


@dataclass(eq=False)
class JdbcSourceSpec(SourceSpec):
    """The ``columns`` of the database table ``table``, read once (bounded) through the Python
    driver of ``url``: in ``partitions`` splits, each a range of ``partition_column`` between
    ``lower_bound`` and ``upper_bound`` (Flink's JDBC scan partitioning), or in one split."""

    url: str = ""
    table: str = ""
    columns: list = field(default_factory=list)
    user_name: str | None = None
    password: str | None = None
    partition_column: str | None = None
    partitions: int = 1
    lower_bound: int = 0
    upper_bound: int = 0
    fetch_size: int = 1000

    @property
    def dialect(self) -> str:
        return jdbc_dialect(self.url)

    @property
    def sql(self) -> str:
        """The query of a split, with JDBC ``?`` placeholders for its range."""
        quoted = ", ".join('"' + c.replace('"', '""') + '"' for c in self.columns)
        where = f' WHERE "{self.partition_column}" BETWEEN ? AND ?' if self.partition_column else ""
        return f"SELECT {quoted} FROM {self.table}{where}"

    def parameters(self, split: int) -> tuple:
        """The range of split ``split`` (Flink's: ``partitions`` ranges of equal size, the last shorter)."""
        if not self.partition_column:
            return ()
        size = -(-(self.upper_bound - self.lower_bound + 1) // self.partitions)
        start = self.lower_bound + split * size
        return start, min(start + size - 1, self.upper_bound)

    def check(self) -> None:
        check_jdbc_url(self.url, "The JDBC source")
        if self.partition_column and (self.partitions < 1 or self.upper_bound < self.lower_bound):
            raise ValueError("JDBC scan partitioning needs scan.partition.num >= 1 and lower-bound <= upper-bound")


#: database kind in ``jdbc:<kind>:...`` -> (Python driver module, pip package providing it)
JDBC_DRIVERS = {"postgresql": ("psycopg", "psycopg[binary]"), "sqlite": ("sqlite3", "the Python standard library")}


def jdbc_dialect(url: str) -> str:
    """The database kind a JDBC URL names (a key of :data:`JDBC_DRIVERS` when supported)."""
    return url[len("jdbc:"):].split(":", 1)[0].lower() if url.startswith("jdbc:") else ""


def check_jdbc_url(url: str, what: str) -> None:
    """Fails when the URL's database kind is unknown or its Python driver is missing."""
    dialect = jdbc_dialect(url)
    if dialect not in JDBC_DRIVERS:
        supported = ", ".join(f"jdbc:{d}:" for d in JDBC_DRIVERS)
        raise ValueError(f"{what}: unsupported JDBC URL {url!r}; Kindling supports {supported}")
    module, package = JDBC_DRIVERS[dialect]
    try:
        __import__(module)
    except ImportError:
        raise ImportError(f"{what}: the URL {url!r} needs the Python driver {module}: "
                          f"pip install '{package}' (or pip install 'kindling-streams[jdbc]')") from None


def split_jdbc_sql(sql: str) -> list[str]:
    """The text of ``sql`` between its JDBC ``?`` placeholders (one piece more than placeholders);
    a ``?`` in a quoted string or identifier, a comment or a dollar-quoted string is text."""
    pieces: list[str] = []
    start = i = 0
    n = len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"":
            end = i + 1
            while end < n:  # a doubled quote inside is the quote itself
                if sql[end] == c:
                    if end + 1 < n and sql[end + 1] == c:
                        end += 2
                        continue
                    break
                end += 1
            i = end + 1
        elif sql.startswith("--", i):
            newline = sql.find("\n", i)
            i = n if newline < 0 else newline + 1
        elif sql.startswith("/*", i):
            close = sql.find("*/", i + 2)
            i = n if close < 0 else close + 2
        elif c == "$":
            tag_end = sql.find("$", i + 1)
            tag = sql[i:tag_end + 1] if tag_end > 0 else ""
            if tag and (tag == "$$" or tag[1:-1].isidentifier()):
                close = sql.find(tag, tag_end + 1)
                i = n if close < 0 else close + len(tag)
            else:
                i += 1
        elif c == "?":
            pieces.append(sql[start:i])
            start = i = i + 1
        else:
            i += 1
    pieces.append(sql[start:])
    return pieces


@dataclass(eq=False)
class DataGenSourceSpec(SourceSpec):
    """``generator(i)`` for the indexes ``0 <= i < count`` (Flink's DataGeneratorSource), at most
    ``rate`` records a second over all splits (None: as fast as read); unbounded when ``count`` is
    None. Its splits stay the same from micro-batch to micro-batch."""

    generator: Any = None
    count: int | None = None
    rate: float | None = None

    @property
    def bounded(self) -> bool:  # type: ignore[override]
        return self.count is not None


@dataclass(eq=False)
class SocketTextSourceSpec(SourceSpec):
    """Lines (split at ``delimiter``) read from a TCP server at ``hostname:port``; on a closed
    connection, reconnects up to ``max_retry`` times (negative: forever) half a second apart, then
    ends. One split, the same from micro-batch to micro-batch."""

    hostname: str = "localhost"
    port: int = 0
    delimiter: str = "\n"
    max_retry: int = 0
    bounded = False


# -- Table API (kindling/table, docs/table.md): a table's relational plan over another source --

@dataclass(eq=False)
class RelationalSourceSpec(SourceSpec):
    """The rows of ``plan``, the part of a table's logical plan Spark's JVM operators compute
    (kindling/table/planner: nodes over scans), its columns named ``names``. The plan's leaf
    ``leaves[i]`` is read by the source ``bases[i]`` as ``base_types[i]``, or (``native[i]``: the
    planner's choice, kindling/table/planner/physical.py) by Spark's own reader of the scan's files
    (kindling/spark/table/scans.py) when the job runs as Spark batch jobs; ``operators`` pairs a
    node with what Spark computes it by where its own fields do not say (a group aggregation's
    :class:`GroupAggregateSpec`, a join's resolved condition). Plain data:
    kindling/spark/table/translate.py turns the plan into DataFrame operations on the bases' frames."""

    bases: list = field(default_factory=list)
    base_types: list = field(default_factory=list)
    leaves: list = field(default_factory=list)
    plan: Any = None
    names: list = field(default_factory=list)
    operators: list = field(default_factory=list)
    native: list = field(default_factory=list)

    @property
    def bounded(self) -> bool:  # type: ignore[override]
        return all(base.bounded for base in self.bases)

    def check(self) -> None:
        for base in self.bases:
            base.check()


@dataclass(eq=False)
class RegularJoinSpec:
    """An inner, outer, semi or anti join of two append-only tables on equal keys as relational data,
    for Spark's own join operators on micro-batches: ``left_keys`` and ``right_keys`` are the positions of the
    equal columns of each side's rows, ``condition`` the whole join predicate resolved against the
    joined columns (its InputRefs' indexes: left columns, then right ones), ``widened``: the keys
    are integers compared as BIGINT (the sides' types may differ); ``left_outer``, ``right_outer``:
    the rows of that side without a partner are kept, padded with nulls (LEFT, RIGHT, FULL OUTER);
    ``existence``: ``"SEMI"`` or ``"ANTI"``, the left rows with a partner or without one (the left's
    columns only), ``keys_only``: the condition is the keys' equality alone; ``streamed``: an inner
    join joined by Spark's stream-stream join inside the job's streaming query (the planner's choice,
    kindling/spark/table/join.py)."""

    left_keys: list = field(default_factory=list)
    right_keys: list = field(default_factory=list)
    condition: Any = None
    widened: bool = False
    left_outer: bool = False
    right_outer: bool = False
    existence: Optional[str] = None
    keys_only: bool = False
    streamed: bool = False


@dataclass(eq=False)
class GroupAggregateSpec:
    """A group aggregation as relational data, for Spark's own aggregation operators: the rows of
    an append-only table grouped by the columns ``keys``; ``calls`` are ``(function, column,
    integral)`` with ``function`` one of ``count``, ``sum``, ``sum0``, ``avg``, ``min``, ``max``
    (``count_distinct``, ``sum_distinct``, ``sum0_distinct``, ``avg_distinct``: of the distinct
    values) over the input ``column`` (None: every
    row, ``COUNT(*)``), ``integral`` when the column is of
    an integer type; ``fields`` make the result row, in order: ``("key", i)``, ``("call", j)``,
    ``("expression", resolved)`` (a resolved expression of the keys, its InputRefs their indexes) or,
    with a ``window``, ``("window", "start" | "end" | "rowtime")``. ``per_batch``: a group's changes
    once per micro-batch (Flink's mini-batch aggregation), not after every row. ``window``:
    ``(kind, size_ms, slide_ms, offset_ms)``, kind ``tumble``, ``hop`` or ``cumulate`` (slide: the
    step), windows of the elements' timestamps, one result per group and window. ``ordered``: whether
    the order of its rows can be seen (not when only a blackhole reads them).

    A deduplication (``deduplicate``: ``"first"`` or ``"last"``, Flink's deduplication by processing
    time) keeps per group the first or last row in arrival order of the input ``columns``; its
    ``fields`` are ``("column", i)`` (column i of the kept row) and ``("number", 1)`` (the row number
    selected); ``first`` emits ``+I`` once per group, ``last`` ``+I`` then ``-U`` old / ``+U`` new for
    every later row (equal rows too), where an aggregation emits only when its result changed.

    ``scales``: call index -> the scale ``s`` of a summed or averaged DECIMAL column (Spark's columns
    of DECIMALs are all DECIMAL(38, 18)): summed as DECIMAL(38, s), as Flink does."""

    keys: list = field(default_factory=list)
    calls: list = field(default_factory=list)
    fields: list = field(default_factory=list)
    per_batch: bool = False
    window: tuple | None = None
    ordered: bool = True
    deduplicate: str | None = None
    columns: list = field(default_factory=list)
    scales: dict = field(default_factory=dict)

    @property
    def every_row_changes(self) -> bool:
        """Whether every row changes its group's result (a ``COUNT(*)`` is in it, no window, no
        mini-batches): a bounded input in one step makes ``2n - 1`` changes of a group of ``n`` rows."""
        return self.window is None and not self.per_batch and any(
            kind == "call" and self.calls[index][:2] == ("count", None) for kind, index in self.fields)


@dataclass(eq=False)
class ChangesSourceSpec(SourceSpec):
    """The changes of a group aggregation Spark computed (kindling/spark/table/aggregation.py), fed
    to the operators after it: the rows of the Spark temporary view ``view`` the driver registers
    for each micro-batch (the columns of the stream's codec)."""

    view: str = ""
