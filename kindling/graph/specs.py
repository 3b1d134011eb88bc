"""Sources, sinks and windows as plain data: what the user asked for, not how Spark does it."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any


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


@dataclass(eq=False)
class TextFileSourceSpec(SourceSpec):
    """Lines of the text files under ``paths``; watched for new files when ``monitor_interval_ms`` is set."""

    paths: list = field(default_factory=list)
    charset: str = "UTF-8"
    monitor_interval_ms: int | None = None

    @property
    def bounded(self) -> bool:  # type: ignore[override]
        return self.monitor_interval_ms is None

    def check(self) -> None:
        for path in self.paths:
            if not os.path.exists(path):
                raise FileNotFoundError(f"FileSource path does not exist: {path} (create it before the job "
                                        "is built, or correct the path)")


@dataclass(eq=False)
class SinkSpec:
    """Base of sink specs. ``layout`` is how elements reach the sink: ``pickled`` Python
    values or ``string`` (Flink's ``toString`` of each element)."""

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


@dataclass(eq=False)
class DiscardSinkSpec(SinkSpec):
    """Drops elements, counting them (the end of a user ``SinkFunction`` chain)."""

    layout = "none"


@dataclass(eq=False)
class RowFileSinkSpec(SinkSpec):
    """Row-encoded files under ``base_path``, Flink's ``FileSink.for_row_format``."""

    base_path: str = ""
    encoder: Any = None
    part_prefix: str = "part"
    part_suffix: str = ""
    bucket_format: str | None = "%Y-%m-%d--%H"
    layout = "encoded"


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
    partition is a split with its own watermark, and stays one from micro-batch to micro-batch
    (``continuous_splits``)."""

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
    continuous_splits = True

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
