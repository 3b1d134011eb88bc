"""File sources and sinks, as in ``pyflink.datastream.connectors.file_system``.

Paths are local paths or filesystem URIs (``file://``, ``s3://``, ``hdfs://``, ... through
pyarrow; other schemes through fsspec). Formats: ``StreamFormat.text_line_format()`` here,
CSV, JSON lines, Parquet and Avro in ``kindling.datastream.formats``.
"""
from __future__ import annotations

from typing import Any

from kindling.common.serialization import BulkWriterFactory, Encoder
from kindling.common.time import Duration
from kindling.common.typeinfo import TypeInformation, Types
from kindling.datastream.connectors.base import Sink, Source
from kindling.graph.specs import FileSinkSpec, FileSourceSpec

__all__ = ['BucketAssigner', 'BulkFormat', 'DefaultRollingPolicy', 'FileCompactStrategy', 'FileCompactor',
           'FileEnumeratorProvider', 'FileSink', 'FileSource', 'FileSourceBuilder', 'FileSplitAssignerProvider',
           'OnCheckpointRollingPolicy', 'OutputFileConfig', 'RollingPolicy', 'StreamFormat', 'StreamingFileSink']


class StreamFormat(object):
    """How a file's bytes become records, read as a stream (``kind`` names the reader)."""

    kind = 'text_line'
    ignore_errors = False

    def __init__(self, kind: str = 'text_line', charset: str = 'UTF-8'):
        self.kind = kind
        self.charset = charset

    @staticmethod
    def text_line_format(charset_name: str = 'UTF-8') -> 'StreamFormat':
        """One string record per line, without its terminator (``\\n``, ``\\r\\n`` or ``\\r``)."""
        return StreamFormat('text_line', charset_name)

    def produced_type(self) -> TypeInformation:
        return Types.STRING()


class BulkFormat(object):
    """How a file becomes records, read in batches (Parquet's columnar formats)."""

    kind = ''
    ignore_errors = False


class FileEnumeratorProvider(object):
    """Whether the files of a FileSource may be cut into several splits."""

    def __init__(self, splittable: bool):
        self.splittable = splittable

    @staticmethod
    def default_splittable_file_enumerator() -> 'FileEnumeratorProvider':
        """Large files are read in several splits where the format allows (the default)."""
        return FileEnumeratorProvider(True)

    @staticmethod
    def default_non_splittable_file_enumerator() -> 'FileEnumeratorProvider':
        """Each file is one split."""
        return FileEnumeratorProvider(False)


class FileSplitAssignerProvider(object):
    """How splits go to readers; Spark schedules the tasks reading them, so this changes nothing."""

    @staticmethod
    def locality_aware_split_assigner() -> 'FileSplitAssignerProvider':
        return FileSplitAssignerProvider()


class FileSourceBuilder(object):
    """Configures a FileSource: bounded by default, or watching for new files."""

    def __init__(self, stream_format: Any, paths: tuple):
        self._format = stream_format
        self._paths = list(paths)
        self._monitor_interval_ms: int | None = None
        self._splittable = True

    def monitor_continuously(self, discovery_interval: Duration) -> 'FileSourceBuilder':
        """Keeps watching the paths for new files (the stream is unbounded). Spark looks for them
        at every micro-batch; files must appear complete (moved in) and are read once each."""
        self._monitor_interval_ms = discovery_interval.to_milliseconds()
        return self

    def process_static_file_set(self) -> 'FileSourceBuilder':
        """Reads the files present at start, then ends (the default)."""
        self._monitor_interval_ms = None
        return self

    def set_file_enumerator(self, file_enumerator: FileEnumeratorProvider) -> 'FileSourceBuilder':
        if not isinstance(file_enumerator, FileEnumeratorProvider):
            raise TypeError(f'set_file_enumerator expects a FileEnumeratorProvider, got {file_enumerator!r}')
        self._splittable = file_enumerator.splittable
        return self

    def set_split_assigner(self, split_assigner: FileSplitAssignerProvider) -> 'FileSourceBuilder':
        return self

    def build(self) -> 'FileSource':
        spec = FileSourceSpec(paths=self._paths, format=self._format, monitor_interval_ms=self._monitor_interval_ms)
        if not self._splittable:
            spec.split_bytes = 1 << 62
        return FileSource(spec, self._format.produced_type())


class FileSource(Source):
    """Reads files: every file under the given paths, each exactly once (offsets live in
    Spark's checkpoint), large ones in several splits.

    Example::

        source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), "/data/in").build()
        lines = env.from_source(source, WatermarkStrategy.no_watermarks(), "lines")
    """

    def __init__(self, spec: FileSourceSpec, type_info: TypeInformation = None):
        super().__init__(spec, type_info or Types.STRING())

    @staticmethod
    def for_record_stream_format(stream_format: StreamFormat, *paths: str) -> FileSourceBuilder:
        """Reads records of a StreamFormat (text lines, CSV, JSON lines, Avro in Parquet)."""
        if not isinstance(stream_format, StreamFormat):
            raise TypeError(f'expected a StreamFormat such as StreamFormat.text_line_format() or '
                            f'CsvReaderFormat.for_schema(schema), got {stream_format!r}')
        return FileSourceBuilder(stream_format, _paths(paths))

    @staticmethod
    def for_bulk_file_format(bulk_format: BulkFormat, *paths: str) -> FileSourceBuilder:
        """Reads records of a BulkFormat (``ParquetColumnarRowInputFormat``)."""
        if not isinstance(bulk_format, BulkFormat):
            raise TypeError(f'expected a BulkFormat such as ParquetColumnarRowInputFormat(row_type), got {bulk_format!r}')
        return FileSourceBuilder(bulk_format, _paths(paths))


def _paths(paths: tuple) -> tuple:
    if not paths:
        raise ValueError('FileSource needs at least one path')
    return paths


class OutputFileConfig(object):
    """Prefix and suffix of the part files a FileSink writes."""

    def __init__(self, part_prefix: str, part_suffix: str):
        self._part_prefix = part_prefix
        self._part_suffix = part_suffix

    def get_part_prefix(self) -> str:
        return self._part_prefix

    def get_part_suffix(self) -> str:
        return self._part_suffix

    @staticmethod
    def builder() -> 'OutputFileConfig.OutputFileConfigBuilder':
        return OutputFileConfig.OutputFileConfigBuilder()

    class OutputFileConfigBuilder(object):
        """Builds an OutputFileConfig."""

        def __init__(self):
            self.part_prefix = 'part'
            self.part_suffix = ''

        def with_part_prefix(self, prefix: str) -> 'OutputFileConfig.OutputFileConfigBuilder':
            self.part_prefix = prefix
            return self

        def with_part_suffix(self, suffix: str) -> 'OutputFileConfig.OutputFileConfigBuilder':
            self.part_suffix = suffix
            return self

        def build(self) -> 'OutputFileConfig':
            return OutputFileConfig(self.part_prefix, self.part_suffix)


class BucketAssigner(object):
    """Chooses the sub-directory ("bucket") of the base path part files go to."""

    def __init__(self, strftime_format: str | None, timezone_id: str | None = None):
        self.strftime_format = strftime_format
        self.timezone_id = timezone_id

    @staticmethod
    def base_path_bucket_assigner() -> 'BucketAssigner':
        """Writes every file directly under the base path."""
        return BucketAssigner(None)

    @staticmethod
    def date_time_bucket_assigner(format_str: str = 'yyyy-MM-dd--HH', timezone_id: str = None) -> 'BucketAssigner':
        """One bucket per period, named with a Java date format (the default) in ``timezone_id``
        (the machine's zone by default), from the time a micro-batch is first written: a
        replayed micro-batch goes to the same bucket."""
        if timezone_id is not None:
            from zoneinfo import ZoneInfo

            ZoneInfo(timezone_id)  # an unknown zone fails here, not in the job
        return BucketAssigner(_java_to_strftime(format_str), timezone_id)


def _java_to_strftime(fmt: str) -> str:
    for java, py in (('yyyy', '%Y'), ('MM', '%m'), ('dd', '%d'), ('HH', '%H'), ('mm', '%M'), ('ss', '%S')):
        fmt = fmt.replace(java, py)
    return fmt


class RollingPolicy(object):
    """When part files roll: Kindling always rolls at the end of a micro-batch (its checkpoint);
    the default policy of row formats also rolls a part file past ``part_size`` bytes."""

    def __init__(self, part_size: int | None = None):
        self.part_size = part_size

    @staticmethod
    def default_rolling_policy(part_size: int = 134217728, rollover_interval: int = 60000,
                               inactivity_interval: int = 60000) -> 'DefaultRollingPolicy':
        return DefaultRollingPolicy(part_size)

    @staticmethod
    def on_checkpoint_rolling_policy() -> 'OnCheckpointRollingPolicy':
        return OnCheckpointRollingPolicy()


class DefaultRollingPolicy(RollingPolicy):
    """Rolls past a size (and at every micro-batch)."""


class OnCheckpointRollingPolicy(RollingPolicy):
    """Rolls at every micro-batch only."""


class FileCompactStrategy(object):
    """When a FileSink compacts its part files: per bucket, once the files waiting reach
    ``size_threshold`` bytes, or once ``num_checkpoints_before_compaction`` micro-batches (Kindling's
    checkpoints) have passed since the oldest of them was written, and at the end of the input.
    Build one with ``FileCompactStrategy.builder()``."""

    def __init__(self, size_threshold: int = -1, num_checkpoints_before_compaction: int = -1,
                 num_compact_threads: int = -1):
        self.size_threshold = size_threshold
        self.num_checkpoints_before_compaction = num_checkpoints_before_compaction
        self.num_compact_threads = num_compact_threads

    @staticmethod
    def builder() -> 'FileCompactStrategy.Builder':
        return FileCompactStrategy.Builder()

    class Builder(object):
        """Builds a FileCompactStrategy; at least one trigger (size or micro-batches) is needed."""

        def __init__(self):
            self._strategy = FileCompactStrategy()

        def enable_compaction_on_checkpoint(self, num_checkpoints_before_compaction: int) \
                -> 'FileCompactStrategy.Builder':
            """Compacts once this many micro-batches (checkpoints) have passed since the oldest
            waiting file was written."""
            if num_checkpoints_before_compaction <= 0:
                raise ValueError('Number of checkpoints before compaction should be more than 0.')
            self._strategy.num_checkpoints_before_compaction = num_checkpoints_before_compaction
            return self

        def set_size_threshold(self, size_threshold: int) -> 'FileCompactStrategy.Builder':
            """Compacts once the waiting files of a bucket reach this many bytes."""
            self._strategy.size_threshold = size_threshold
            return self

        def set_num_compact_threads(self, num_compact_threads: int) -> 'FileCompactStrategy.Builder':
            """Accepted for PyFlink's sake: Kindling compacts in a Spark task per compacted file."""
            if num_compact_threads <= 0:
                raise ValueError('Compact threads should be more than 0.')
            self._strategy.num_compact_threads = num_compact_threads
            return self

        def build(self) -> 'FileCompactStrategy':
            s = self._strategy
            if s.size_threshold < 0 and s.num_checkpoints_before_compaction <= 0:
                raise ValueError('At least one trigger condition must be configured: set_size_threshold(bytes) '
                                 'or enable_compaction_on_checkpoint(n).')
            return FileCompactStrategy(s.size_threshold, s.num_checkpoints_before_compaction, s.num_compact_threads)


class FileCompactor(object):
    """How part files become one compacted file: their bytes joined (``concat_file_compactor``,
    with ``file_delimiter`` after each), or the one file copied (``identical_file_compactor``)."""

    def __init__(self, kind: str, delimiter: bytes | None = None):
        self.kind = kind
        self.delimiter = delimiter

    @staticmethod
    def concat_file_compactor(file_delimiter: bytes = None) -> 'FileCompactor':
        if file_delimiter is not None and not isinstance(file_delimiter, (bytes, bytearray)):
            raise TypeError(f'file_delimiter must be bytes, got {file_delimiter!r}')
        return FileCompactor('concat', bytes(file_delimiter) if file_delimiter is not None else None)

    @staticmethod
    def identical_file_compactor() -> 'FileCompactor':
        """Copies the only file due for compaction (more than one fails the job, as in Flink)."""
        return FileCompactor('identical')


class FileSink(Sink):
    """Writes elements into part files under a base path, exactly once: a task writes hidden
    in-progress files that become visible when the micro-batch commits, named from the query,
    the micro-batch and the task, so a replayed micro-batch rewrites the same files.

    Example::

        sink = (FileSink.for_row_format("/data/out", Encoder.simple_string_encoder())
                .with_output_file_config(OutputFileConfig("result", ".txt")).build())
        stream.sink_to(sink)
    """

    def __init__(self, spec: FileSinkSpec):
        super().__init__(spec, 'FileSink')

    @staticmethod
    def for_row_format(base_path: str, encoder: Encoder) -> 'FileSink.RowFormatBuilder':
        """Each element on a line, as ``encoder`` encodes it."""
        if not hasattr(encoder, 'encode'):
            raise TypeError(f'for_row_format expects an Encoder such as Encoder.simple_string_encoder(), got {encoder!r}')
        return FileSink.RowFormatBuilder(FileSinkSpec(base_path=base_path, encoder=encoder))

    @staticmethod
    def for_bulk_format(base_path: str, writer_factory: BulkWriterFactory) -> 'FileSink.BulkFormatBuilder':
        """Part files written by a bulk writer (``ParquetBulkWriters.for_row_type(row_type)``, ...)."""
        if not isinstance(writer_factory, BulkWriterFactory):
            raise TypeError(f'for_bulk_format expects a BulkWriterFactory such as ParquetBulkWriters.for_row_type('
                            f'row_type), got {writer_factory!r}')
        return FileSink.BulkFormatBuilder(FileSinkSpec(base_path=base_path, writer=writer_factory))

    class BaseBuilder(object):
        """What row and bulk format sinks share."""

        def __init__(self, spec: FileSinkSpec):
            self._spec = spec

        def with_bucket_check_interval(self, interval: int):
            return self

        def with_bucket_assigner(self, bucket_assigner: BucketAssigner):
            if not isinstance(bucket_assigner, BucketAssigner):
                raise TypeError(f'with_bucket_assigner expects a BucketAssigner, got {bucket_assigner!r}')
            self._spec.bucket_format = bucket_assigner.strftime_format
            self._spec.bucket_timezone = bucket_assigner.timezone_id
            return self

        def with_output_file_config(self, output_file_config: OutputFileConfig):
            self._spec.part_prefix = output_file_config.get_part_prefix()
            self._spec.part_suffix = output_file_config.get_part_suffix()
            return self

        def enable_compact(self, strategy: FileCompactStrategy, compactor: FileCompactor):
            """Part files are committed hidden and become visible compacted (see FileCompactStrategy):
            ``compacted-<first part file's name>``, exactly once across restarts."""
            if not isinstance(strategy, FileCompactStrategy) or not isinstance(compactor, FileCompactor):
                raise TypeError('enable_compact expects FileCompactStrategy.builder()...build() and a FileCompactor, '
                                f'got {strategy!r}, {compactor!r}')
            writer = self._spec.writer
            if compactor.kind == 'concat' and writer is not None and writer.kind != 'csv':
                raise ValueError(f'concat_file_compactor() joins the bytes of part files, which makes no valid '
                                 f'{writer.kind.upper().replace("_", "-")} file: compact row formats or CSV, or use '
                                 'identical_file_compactor()')
            self._spec.compaction = (strategy, compactor)
            return self

        def disable_compact(self):
            self._spec.compaction = None
            return self

        def with_rolling_policy(self, rolling_policy: RollingPolicy):
            if not isinstance(rolling_policy, RollingPolicy):
                raise TypeError(f'with_rolling_policy expects a RollingPolicy, got {rolling_policy!r}')
            self._spec.part_size = rolling_policy.part_size
            return self

        def build(self) -> 'FileSink':
            return FileSink(self._spec)

    class RowFormatBuilder(BaseBuilder):
        """Configures a row-format FileSink."""

    class BulkFormatBuilder(BaseBuilder):
        """Configures a bulk-format FileSink; it rolls at every micro-batch only."""

        def with_rolling_policy(self, rolling_policy: OnCheckpointRollingPolicy):
            if not isinstance(rolling_policy, OnCheckpointRollingPolicy):
                raise TypeError('bulk formats roll on checkpoint only: use RollingPolicy.on_checkpoint_rolling_policy()')
            return self


class StreamingFileSink(object):
    """The legacy file sink (``ds.add_sink(StreamingFileSink.for_row_format(...).build())``),
    written as ``FileSink``."""

    def __init__(self, spec: FileSinkSpec):
        self._spec = spec

    def _sink(self) -> FileSink:
        return FileSink(self._spec)

    class BaseBuilder(FileSink.BaseBuilder):
        """What row and bulk format sinks share."""

        def build(self) -> 'StreamingFileSink':
            return StreamingFileSink(self._spec)

    class DefaultRowFormatBuilder(BaseBuilder):
        """Configures a row-format StreamingFileSink."""

    class DefaultBulkFormatBuilder(BaseBuilder):
        """Configures a bulk-format StreamingFileSink; it rolls at every micro-batch only."""

        with_rolling_policy = FileSink.BulkFormatBuilder.with_rolling_policy

    @staticmethod
    def for_row_format(base_path: str, encoder: Encoder) -> 'StreamingFileSink.DefaultRowFormatBuilder':
        return StreamingFileSink.DefaultRowFormatBuilder(FileSink.for_row_format(base_path, encoder)._spec)

    @staticmethod
    def for_bulk_format(base_path: str, writer_factory: BulkWriterFactory) -> 'StreamingFileSink.DefaultBulkFormatBuilder':
        return StreamingFileSink.DefaultBulkFormatBuilder(FileSink.for_bulk_format(base_path, writer_factory)._spec)
