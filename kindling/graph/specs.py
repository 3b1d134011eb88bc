"""Sources and sinks as plain data: what the user asked for, not how Spark does it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class SourceSpec:
    """Base of source specs; ``bounded`` sources end, so jobs reading them finish."""

    bounded = True


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
