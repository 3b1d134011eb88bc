"""File sources and sinks, as in ``pyflink.datastream.connectors.file_system``."""
from __future__ import annotations

from typing import Any

from kindling.common.serialization import Encoder
from kindling.common.time import Duration
from kindling.common.typeinfo import Types
from kindling.datastream.connectors.base import Sink, Source
from kindling.graph.specs import RowFileSinkSpec, TextFileSourceSpec


class StreamFormat:
    """How a file's bytes become records."""

    def __init__(self, kind: str, charset: str = "UTF-8"):
        self.kind = kind
        self.charset = charset

    @staticmethod
    def text_line_format(charset_name: str = "UTF-8") -> "StreamFormat":
        """One string record per line, without the line terminator."""
        return StreamFormat("text_line", charset_name)


class FileSourceBuilder:
    """Configures a FileSource: bounded by default, or watching for new files."""

    def __init__(self, stream_format: StreamFormat, paths: tuple[str, ...]):
        self._format = stream_format
        self._paths = list(paths)
        self._monitor_interval_ms: int | None = None

    def monitor_continuously(self, discovery_interval: Duration) -> "FileSourceBuilder":
        """Keeps watching the paths for new files every ``discovery_interval``: the stream is unbounded."""
        self._monitor_interval_ms = discovery_interval.to_milliseconds()
        return self

    def process_static_file_set(self) -> "FileSourceBuilder":
        """Reads the files present at start, then ends (the default)."""
        self._monitor_interval_ms = None
        return self

    def set_file_enumerator(self, file_enumerator: Any) -> "FileSourceBuilder":
        return self

    def set_split_assigner(self, split_assigner: Any) -> "FileSourceBuilder":
        return self

    def build(self) -> "FileSource":
        spec = TextFileSourceSpec(paths=self._paths, charset=self._format.charset,
                                  monitor_interval_ms=self._monitor_interval_ms)
        return FileSource(spec)


class FileSource(Source):
    """Reads files: every file under the given paths, each exactly once (offsets live in
    Spark's checkpoint).

    Example::

        source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), "/data/in").build()
        lines = env.from_source(source, WatermarkStrategy.no_watermarks(), "lines")
    """

    def __init__(self, spec: TextFileSourceSpec):
        super().__init__(spec, Types.STRING())

    @staticmethod
    def for_record_stream_format(stream_format: StreamFormat, *paths: str) -> FileSourceBuilder:
        if not isinstance(stream_format, StreamFormat):
            raise TypeError(f"expected a StreamFormat such as StreamFormat.text_line_format(), got {stream_format!r}")
        if not paths:
            raise ValueError("FileSource needs at least one path")
        return FileSourceBuilder(stream_format, paths)

    @staticmethod
    def for_bulk_file_format(bulk_format: Any, *paths: str) -> FileSourceBuilder:
        raise NotImplementedError("bulk file formats are not supported yet; use for_record_stream_format")


class OutputFileConfig:
    """Prefix and suffix of the part files a FileSink writes."""

    def __init__(self, part_prefix: str, part_suffix: str):
        self._part_prefix = part_prefix
        self._part_suffix = part_suffix

    def get_part_prefix(self) -> str:
        return self._part_prefix

    def get_part_suffix(self) -> str:
        return self._part_suffix

    @staticmethod
    def builder() -> "OutputFileConfig.OutputFileConfigBuilder":
        return OutputFileConfig.OutputFileConfigBuilder()

    class OutputFileConfigBuilder:
        """Builds an OutputFileConfig."""

        def __init__(self):
            self.part_prefix = "part"
            self.part_suffix = ""

        def with_part_prefix(self, prefix: str) -> "OutputFileConfig.OutputFileConfigBuilder":
            self.part_prefix = prefix
            return self

        def with_part_suffix(self, suffix: str) -> "OutputFileConfig.OutputFileConfigBuilder":
            self.part_suffix = suffix
            return self

        def build(self) -> "OutputFileConfig":
            return OutputFileConfig(self.part_prefix, self.part_suffix)


class BucketAssigner:
    """Chooses the sub-directory ("bucket") of the base path an element is written to."""

    def __init__(self, strftime_format: str | None):
        self.strftime_format = strftime_format

    @staticmethod
    def base_path_bucket_assigner() -> "BucketAssigner":
        """Writes every file directly under the base path."""
        return BucketAssigner(None)

    @staticmethod
    def date_time_bucket_assigner(format_str: str = "yyyy-MM-dd--HH", timezone_id: str = None) -> "BucketAssigner":
        """One bucket per processing-time period, named with a Java date format (the default)."""
        return BucketAssigner(_java_to_strftime(format_str))


def _java_to_strftime(fmt: str) -> str:
    for java, py in (("yyyy", "%Y"), ("MM", "%m"), ("dd", "%d"), ("HH", "%H"), ("mm", "%M"), ("ss", "%S")):
        fmt = fmt.replace(java, py)
    return fmt


class RollingPolicy:
    """When part files roll. Kindling writes one part file per Spark partition per micro-batch."""

    @staticmethod
    def default_rolling_policy(part_size: int = 134217728, rollover_interval: int = 60000,
                               inactivity_interval: int = 60000) -> "RollingPolicy":
        return RollingPolicy()

    @staticmethod
    def on_checkpoint_rolling_policy() -> "RollingPolicy":
        return RollingPolicy()


class FileSink(Sink):
    """Writes elements into part files under a base path, exactly once: a micro-batch's
    files are committed by name, so a replayed batch rewrites the same files.

    Example::

        sink = (FileSink.for_row_format("/data/out", Encoder.simple_string_encoder())
                .with_output_file_config(OutputFileConfig("result", ".txt")).build())
        stream.sink_to(sink)
    """

    def __init__(self, spec: RowFileSinkSpec):
        super().__init__(spec, "FileSink")

    @staticmethod
    def for_row_format(base_path: str, encoder: Encoder) -> "FileSink.RowFormatBuilder":
        if not hasattr(encoder, "encode"):
            raise TypeError(f"for_row_format expects an Encoder such as Encoder.simple_string_encoder(), got {encoder!r}")
        return FileSink.RowFormatBuilder(base_path, encoder)

    @staticmethod
    def for_bulk_format(base_path: str, writer_factory: Any) -> Any:
        raise NotImplementedError("bulk formats are not supported yet; use for_row_format")

    class RowFormatBuilder:
        """Configures a row-format FileSink."""

        def __init__(self, base_path: str, encoder: Encoder):
            self._spec = RowFileSinkSpec(base_path=base_path, encoder=encoder)

        def with_output_file_config(self, output_file_config: OutputFileConfig) -> "FileSink.RowFormatBuilder":
            self._spec.part_prefix = output_file_config.get_part_prefix()
            self._spec.part_suffix = output_file_config.get_part_suffix()
            return self

        def with_bucket_assigner(self, bucket_assigner: BucketAssigner) -> "FileSink.RowFormatBuilder":
            self._spec.bucket_format = bucket_assigner.strftime_format
            return self

        def with_rolling_policy(self, rolling_policy: RollingPolicy) -> "FileSink.RowFormatBuilder":
            return self

        def with_bucket_check_interval(self, interval: int) -> "FileSink.RowFormatBuilder":
            return self

        def build(self) -> "FileSink":
            return FileSink(self._spec)
