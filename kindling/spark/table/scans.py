"""The files of a ``filesystem`` table read by Spark's own CSV reader, in the JVM, where the planner
chose it (kindling/table/planner/physical.py; which tables: kindling/table/formats.py
``spark_reader_differs``): a bounded job run as Spark batch jobs (one step, BATCH). The values are
those Kindling's Python reader gives (kindling/spark/files.py, Flink's csv format): the same files
(listed by :func:`~kindling.spark.files.list_files`), the same record layout (Spark's reader with the
table's delimiter, quote and comments, a doubled quote a quote, each field read as text), and each
field read as Flink reads its type, by Spark functions: numbers and dates of the trimmed text,
TIMESTAMP in SQL form (``2024-01-01 00:00:01.5``, its fraction cut to microseconds), the
``csv.null-literal`` a null. A field that does not read fails the job naming the file, the field,
its text and its type, even when no column of the query reads it (as Flink's reader parses every
field); so does a record of another number of fields, or a quote inside a quoted field that is not
doubled. Where the two readers differ: Spark's reads ``"a"  `` (blanks after the closing quote) as
``a`` where Python's csv module fails the record.
"""
from __future__ import annotations

import functools
import os
from typing import Any, Iterator

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DecimalType, StringType, StructField, StructType

from kindling.spark.codec import codec_for
from kindling.spark.files import list_files

__all__ = ["csv_frame", "csv_stream_frame", "rows_may_be_late"]

#: what Python's ``str.strip()`` removes (its whitespace)
_BLANK = " \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200b))) + \
    "\u2028\u2029\u202f\u205f\u3000"
_NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
_TIMESTAMP = r"^([0-9]{4})-([0-9]{2})-([0-9]{2})[ T]([0-9]{2}):([0-9]{2}):([0-5][0-9])(?:\.([0-9]{1,9}))?$"
#: Spark's reader gives an empty field as null; no field is this text (its null value, set so that a
#: quoted empty field stays empty)
_NO_NULL = "\u0000kindling: no null\u0000"


def csv_frame(spark: SparkSession, options: dict, type_info: Any, data_types: list, in_files: bool = False,
              files: list | None = None) -> DataFrame:
    """The rows of the CSV files of a table with connector ``options`` and columns of ``data_types``, as
    the columns of the codec of ``type_info`` (the table's row type); with ``in_files``, then the
    column ``__file`` (a file is read whole by one task, in order: ``multiLine``), and only the fields
    a query reads are read; ``files``: these of the table's files only."""
    files = [f.path for f in list_files([options["path"]])] if files is None else files
    if not files:
        return spark.createDataFrame([], StructType(list(codec_for(type_info).fields)))
    return _typed_frame(_csv_reader(spark.read, options, type_info).csv(files), options, type_info, data_types,
                        in_files)


def csv_stream_frame(spark: SparkSession, options: dict, type_info: Any, data_types: list,
                     max_files: int = 0) -> DataFrame:
    """:func:`csv_frame` of a streaming query (micro-batches): Spark's own file stream source reads the
    table's files as they appear (a micro-batch the files new since the last, at most ``max_files``
    of them, 0: all; in order of modification time), its offsets (the files each batch read) in the
    query's checkpoint; each file whole, in one task, in order, as :func:`csv_frame` reads it, with
    its values and errors. Files under the path's directories too (Kindling's listing), but hidden
    ones (a name starting with ``.`` or ``_``); a file is never too old to read (Spark's
    ``maxFileAge``, 7 days by default, would leave out files older than the newest by more). A path
    that does not exist fails as Kindling's source fails."""
    list_files([options["path"]])
    reader = _csv_reader(spark.readStream, options, type_info).option("recursiveFileLookup", True) \
        .option("maxFileAge", _FOREVER)
    if max_files > 0:
        reader = reader.option("maxFilesPerTrigger", max_files)
    return _typed_frame(reader.csv(options["path"]), options, type_info, data_types)


#: Spark's ``maxFileAge`` of a file stream source reading every file it finds, whatever its age
_FOREVER = "100000d"


def _csv_reader(reader: Any, options: dict, type_info: Any) -> Any:
    """Spark's CSV ``reader`` (``spark.read`` or ``spark.readStream``) of the table's record layout, each
    field read as text."""
    csv = {k[len("csv."):]: v for k, v in options.items() if k.startswith("csv.")}  # checked by the table's DDL
    fields = codec_for(type_info).fields
    raw = StructType([StructField(f"__t{i}", StringType()) for i in range(len(fields))])
    reader = (reader.schema(raw).option("mode", "FAILFAST").option("multiLine", True)
              .option("sep", csv.get("field-delimiter", ",")).option("quote", csv.get("quote-character", '"'))
              .option("escape", csv.get("quote-character", '"')).option("unescapedQuoteHandling", "RAISE_ERROR")
              .option("nullValue", _NO_NULL).option("encoding", "UTF-8"))
    if csv.get("allow-comments", "false").lower() == "true":
        reader = reader.option("comment", "#")
    return reader


def _typed_frame(frame: DataFrame, options: dict, type_info: Any, data_types: list, in_files: bool = False
                 ) -> DataFrame:
    """The text fields ``frame`` read (:func:`_csv_reader`) as the table's columns (:func:`csv_frame`)."""
    fields = codec_for(type_info).fields
    null_literal = options.get("csv.null-literal")
    path = F.regexp_replace(F.col("_metadata.file_path"), "^file:(//)?", "")
    columns = []
    for i, (field, data_type) in enumerate(zip(fields, data_types)):
        text = F.coalesce(F.col(f"__t{i}"), F.lit(""))
        value = _typed(text, field.dataType, data_type)
        failure = F.raise_error(F.concat(
            F.lit("ParseError: cannot read CSV record in file "), path, F.lit(f": column '{field.name}': cannot read '"), text,
            F.lit(f"' as {str(data_type)} ('csv.ignore-parse-errors' = 'true' skips such records)")))
        value = F.coalesce(value, failure.cast(field.dataType))
        if null_literal is not None:
            value = F.when(text == null_literal, F.lit(None).cast(field.dataType)).otherwise(value)
        columns.append(value.alias(field.name))
    if in_files:
        return frame.select(*columns, F.col("_metadata.file_path").alias(_FILE))
    # every field is read even when no column of the query reads it (Spark would skip those); the
    # partition id (not deterministic) keeps the filter above the fields' parse: Spark pushes a filter
    # through a deterministic projection, and then parses every field a query reads twice
    # (an OR of them, always true, in the generated code: no array and lambda evaluated per row)
    typed = frame.select(*columns, F.spark_partition_id().alias(_PARTITION))
    read = [F.col(f"`{f.name}`").isNull() for f in fields] + [F.col(_PARTITION) >= 0]
    return typed.where(functools.reduce(Column.__or__, read)).drop(_PARTITION)


_FILE, _PARTITION = "__file", "__partition"


def rows_may_be_late(spark: SparkSession, options: dict, type_info: Any, data_types: list, time_field: str,
                     delay: int, step: int, phase: int, least: int | None = None, fast: dict | None = None) -> bool:
    """Whether a row of the CSV files of a table whose watermark is ``delay`` ms behind ``time_field``
    may come after the watermark passed the end of its earliest window (windows end at ``phase``
    plus multiples of ``step``; a window ending at or before ``least`` + 1 makes its rows late),
    whatever the timing (the
    rule: kindling/table/planner/physical.py). Flink reads each file as one split, in file order; a
    reader may read any other file before it. A null time may be late. Each file's figures come from
    :func:`fast_file_times` where it reads the file as the job's Spark scan does, else from a Spark job
    (:func:`spark_file_times`); ``fast``: those figures, read in the driver already (:func:`driver_file_times`)."""
    if fast is None:
        in_driver = spark.sparkContext.master.startswith("local")  # the driver sees the files the tasks read
        fast = driver_file_times(options, type_info, data_types, time_field, delay, step, phase) if in_driver else \
            _fast_in_tasks(spark, _fast_reader(options, type_info, data_types, time_field, step, phase),
                           [f.path for f in list_files([options["path"]])])
    files = list(fast)
    figures = [f for f in fast.values() if f is not None and f != _UNREAD]
    slow = [f for f in files if fast[f] == _UNREAD]
    if slow:
        figures += spark_file_times(spark, options, type_info, data_types, time_field, step, phase, slow)
    return _may_be_late(figures, delay, least)


def driver_file_times(options: dict, type_info: Any, data_types: list, time_field: str, delay: int, step: int,
                      phase: int, *_: Any) -> dict:
    """Each of the table's files -> its :func:`fast_file_times`, read here (no Spark: local mode, where
    the driver sees the files the tasks read; the arguments of :func:`rows_may_be_late`)."""
    read = _fast_reader(options, type_info, data_types, time_field, step, phase)
    files = [f.path for f in list_files([options["path"]])]
    return dict(zip(files, map(read, files)))


def _fast_reader(options: dict, type_info: Any, data_types: list, time_field: str, step: int, phase: int) -> Any:
    column = [f.name for f in codec_for(type_info).fields].index(time_field)
    return functools.partial(fast_file_times, options=options, columns=len(data_types), column=column,
                             data_type=data_types[column], step=step, phase=phase)


_FAST = "path string, unread boolean, t long, slack long, last long, nulls long"


def _fast_in_tasks(spark: SparkSession, read: Any, files: list) -> dict:
    """``read`` (:func:`fast_file_times`) of each of ``files`` in a Spark task each: file -> its answer."""
    listed = spark.createDataFrame(spark.sparkContext.parallelize([(f,) for f in files], max(1, len(files))),
                                   "path string")
    return {r.path: None if r.unread is None else _UNREAD if r.unread else (r.path, r.t, r.slack, r.last, r.nulls)
            for r in listed.mapInArrow(functools.partial(_fast_file_times, read=read), _FAST).collect()}


def _fast_file_times(batches: Iterator[Any], read: Any) -> Iterator[Any]:
    """:func:`fast_file_times` of each path of ``batches`` as rows of :data:`_FAST`, in a task."""
    import pyarrow as pa

    for batch in batches:
        rows = []
        for path in batch.column(0).to_pylist():
            times = read(path)
            unread = None if times is None else times == _UNREAD
            figures = (None,) * 4 if times is None or unread else times[1:]
            rows.append(dict(zip(("path", "unread", "t", "slack", "last", "nulls"), (path, unread, *figures))))
        yield pa.RecordBatch.from_pylist(rows, schema=pa.schema([
            ("path", pa.string()), ("unread", pa.bool_()), *((n, pa.int64()) for n in ("t", "slack", "last", "nulls"))]))


def _may_be_late(files: list, delay: int, least: int | None = None) -> bool:
    """The rule over each file's figures (file, largest time, least slack, least last ms, nulls)."""
    for i, (_, _, slack, last, nulls) in enumerate(files):
        others = max((g[1] for j, g in enumerate(files) if j != i and g[1] is not None), default=None)
        if nulls or (slack is not None and slack <= -delay) or (others is not None and last <= others - delay) or \
                (least is not None and last is not None and last <= least):
            return True
    return False


def spark_file_times(spark: SparkSession, options: dict, type_info: Any, data_types: list, time_field: str,
                     step: int, phase: int, files: list | None = None) -> list:
    """The figures of :func:`_file_times` of each of ``files`` (default: the table's) with rows, read by
    Spark's reader as the job reads them, in a Spark job."""
    rows = csv_frame(spark, options, type_info, data_types, in_files=True, files=files)
    times = rows.select(F.col(_FILE), F.unix_millis(F.col(f"`{time_field}`")).alias("t"))
    return [tuple(r) for r in times.mapInArrow(functools.partial(_file_times, step=step, phase=phase),
                                               "file string, t long, slack long, last long, nulls long").collect()]


#: what :func:`fast_file_times` gives for a file it does not read as Spark's reader does
_UNREAD = "unread"
#: Hadoop's codecs, which Spark's reader applies by the file name's ending
_COMPRESSED = (".gz", ".bz2", ".deflate", ".lz4", ".snappy", ".zst", ".zstd", ".xz", ".br", ".lzo")


def fast_file_times(path: str, options: dict, columns: int, column: int, data_type: Any, step: int,
                    phase: int) -> Any:
    """The figures of :func:`_file_times` of the file at ``path`` (a table of ``columns`` fields whose
    time is field ``column`` of ``data_type``), read by pyarrow's CSV reader: None when it has no
    record, ``_UNREAD`` when it may not read a record or a time as Spark's reader and :func:`_typed`
    do: where the two readers could differ (a carriage return, a byte order mark, a comment option
    and a ``#``, a compressed file, quotes other than whole quoted fields without doubled quotes,
    another number of fields), and for every time text not of the form
    ``yyyy-MM-dd[ T]HH:mm:ss[.fraction]`` (up to 9 digits) within 1677-2262, but the
    ``csv.null-literal``."""
    import mmap

    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyarrow import csv

    options = {k[len("csv."):]: v for k, v in options.items() if k.startswith("csv.")}
    delimiter, quote = options.get("field-delimiter", ","), options.get("quote-character", '"')
    if data_type.type_name != "TIMESTAMP" or path.lower().endswith(_COMPRESSED) or columns > 20480 or \
            not (len(delimiter) == len(quote) == 1 and delimiter < "\x80" and quote < "\x80") or \
            delimiter == quote or "\n" in (delimiter, quote) or "\r" in (delimiter, quote):
        return _UNREAD
    try:
        with open(path, "rb") as file:
            if not os.fstat(file.fileno()).st_size:
                return None
            data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)  # closed when no buffer reads it
    except OSError:  # Spark's job says what
        return _UNREAD
    if data.find(b"\r") >= 0 or data[:3] == b"\xef\xbb\xbf" or (
            options.get("allow-comments", "false").lower() == "true" and data.find(b"#") >= 0):
        return _UNREAD
    quoted = data.find(quote.encode()) >= 0
    if quoted and not _whole_quoted_fields(np.frombuffer(data, np.uint8), ord(quote), ord(delimiter)):
        return _UNREAD
    names = [f"f{i}" for i in range(columns)]
    try:
        table = csv.read_csv(
            pa.py_buffer(data), read_options=csv.ReadOptions(column_names=names, block_size=4 << 20),
            parse_options=csv.ParseOptions(delimiter=delimiter, quote_char=quote, double_quote=True,
                                           escape_char=False, newlines_in_values=quoted,
                                           ignore_empty_lines=True),
            convert_options=csv.ConvertOptions(include_columns=[names[column]],
                                               column_types={names[column]: pa.string()}, null_values=[],
                                               strings_can_be_null=False, quoted_strings_can_be_null=False))
        texts = table.column(0).combine_chunks()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return _UNREAD
    if not len(texts):
        return None
    null_literal = options.get("null-literal")
    nulls = 0
    if null_literal is not None:  # Spark's reader: a null
        literal = pc.equal(texts, null_literal)
        nulls = pc.sum(literal).as_py() or 0
        texts = pc.filter(texts, pc.invert(literal)) if nulls else texts
    if len(texts) and not _time_texts(texts):
        return _UNREAD
    try:
        times = pc.cast(texts, pa.timestamp("ns")).cast(pa.int64()).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return _UNREAD
    seen = [None, None, None, nulls]
    _add_times(seen, np.floor_divide(times, 1_000_000), step, phase)
    return (path, *seen)


def _whole_quoted_fields(data: Any, quote: int, delimiter: int) -> bool:
    """Whether every quote in ``data`` (bytes, without carriage returns) opens or closes a quoted field
    without quotes in it: read in turn, each opening quote follows a delimiter, a line end or the start
    and each closing quote is followed by one or the end; then both readers read the same fields."""
    import numpy as np

    at = np.flatnonzero(data == quote)
    if len(at) % 2:
        return False
    opening, closing = at[0::2], at[1::2]
    before = data[np.maximum(opening - 1, 0)]
    after = data[np.minimum(closing + 1, len(data) - 1)]
    return bool(np.all((opening == 0) | (before == delimiter) | (before == 10)) and
                np.all((closing == len(data) - 1) | (after == delimiter) | (after == 10)))


def _time_texts(texts: Any) -> bool:
    """Whether each of ``texts`` (a pyarrow string array) has the form of :data:`_TIMESTAMP` (pyarrow's
    cast reads the digits, ranges and separators; it would also read other forms)."""
    import numpy as np

    offsets = np.frombuffer(texts.buffers()[1], np.int32, len(texts) + 1, texts.offset * 4)
    lengths = np.diff(offsets)
    if lengths.min() < 19 or lengths.max() > 29 or np.any(lengths == 20):
        return False
    data = np.frombuffer(texts.buffers()[2], np.uint8)
    if lengths.min() == lengths.max():  # the texts side by side: a row of bytes each
        return _time_bytes(data[offsets[0]:offsets[-1]].reshape(len(texts), int(lengths[0])))
    return all(_time_bytes(data[offsets[:-1][lengths == n, None] + np.arange(n)]) for n in np.unique(lengths))


def _time_bytes(at: Any) -> bool:
    """Whether each row of ``at`` (numpy bytes, a text a row) has the form of :data:`_TIMESTAMP`."""
    import numpy as np

    return bool(np.all(at[:, [4, 7]] == 45) and np.all(at[:, [13, 16]] == 58) and
                np.all((at[:, 10] == 32) | (at[:, 10] == 84)) and
                _digits(at[:, [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]]) and
                (at.shape[1] < 20 or np.all(at[:, 19] == 46) and _digits(at[:, 20:])))


def _digits(values: Any) -> bool:
    return bool(((values - 48) <= 9).all())  # bytes: below "0" wraps around


def _file_times(batches: Iterator[Any], step: int, phase: int) -> Iterator[Any]:
    """Per file of a partition's rows (``__file``, ``t``: epoch ms, in the order each file is read):
    its largest time, the least slack of a row (the last ms of its earliest window less the largest
    time before it in its file), the least such last ms, and the nulls. In one pass, in the task."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    files: dict[str, list] = {}  # file -> [largest time, least slack, least last ms, nulls]
    for batch in batches:
        paths = batch.column(0)
        changes = pc.not_equal(paths.slice(1), paths.slice(0, len(paths) - 1)) if len(paths) > 1 else pa.array([], pa.bool_())
        starts = [0, *(np.flatnonzero(changes.to_numpy(zero_copy_only=False)) + 1), len(paths)]
        for begin, end in zip(starts, starts[1:]):
            times = batch.column(1).slice(begin, end - begin)
            seen = files.setdefault(paths[begin].as_py(), [None, None, None, 0])
            seen[3] += times.null_count
            _add_times(seen, times.drop_null().to_numpy(), step, phase)
    if files:
        yield pa.RecordBatch.from_pylist([dict(zip(("file", "t", "slack", "last", "nulls"), (f, *v)))
                                          for f, v in files.items()])


def _add_times(seen: list, t: Any, step: int, phase: int) -> None:
    """Adds the next times ``t`` (epoch ms, numpy, no nulls) of a file to its figures ``seen``."""
    import numpy as np

    if not len(t):
        return
    last = t - np.mod(t - phase, step) + step - 1
    largest, before = seen[0], np.empty_like(t)  # before[i]: the largest time before row i
    before[1:] = np.maximum.accumulate(t)[:-1]
    if largest is not None:
        before[0] = largest
        before = np.maximum(before, largest)
    slack = (last - before)[0 if largest is not None else 1:]
    seen[0] = int(t.max()) if largest is None else max(largest, int(t.max()))
    if len(slack):
        seen[1] = int(slack.min()) if seen[1] is None else min(seen[1], int(slack.min()))
    seen[2] = int(last.min()) if seen[2] is None else min(seen[2], int(last.min()))


def _typed(text: Column, spark_type: Any, data_type: Any) -> Column:
    """The value of a field's ``text`` as the column's type (a table DataType, NOT NULL or not); null
    when the text does not read as one. Text that reads without trimming is not trimmed (trimming
    costs more than the rest): trimming does not change text that begins and ends with printable
    ASCII, as every pattern below does."""
    kind = data_type.type_name
    if kind in ("STRING", "VARCHAR", "CHAR"):
        return text
    trimmed = F.btrim(text, F.lit(_BLANK))
    if kind == "BOOLEAN":
        return F.lower(trimmed) == "true"
    if kind in ("FLOAT", "DOUBLE"):
        lower = F.lower(trimmed)
        return F.coalesce(F.when(text.rlike(_NUMBER), text.try_cast("double")).cast(spark_type),
                          F.when(trimmed.rlike(_NUMBER), trimmed.try_cast("double"))
                          .when(lower.rlike("^[+]?inf(inity)?$"), F.lit(float("inf")))
                          .when(lower.rlike("^-inf(inity)?$"), F.lit(float("-inf")))
                          .when(lower.rlike("^[+-]?nan$"), F.lit(float("nan"))).cast(spark_type))
    return F.coalesce(_read(text, spark_type, data_type, True), _read(trimmed, spark_type, data_type, False))


def _read(text: Column, spark_type: Any, data_type: Any, untrimmed: bool) -> Column:
    """:func:`_typed` of a number (but FLOAT, DOUBLE), date or time: of the trimmed ``text``, or
    (``untrimmed``) of text that trimming leaves as it is, else null."""
    kind = data_type.type_name
    if kind in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
        # Spark's cast also reads the text with control characters around it, which Flink refuses
        ends = [F.substring(text, 1, 1), F.substring(text, -1, 1)]
        read = (ends[0] > " ") & (ends[1] > " ")
        return F.when(read & (ends[0] <= "~") & (ends[1] <= "~") if untrimmed else read, text.try_cast(spark_type))
    if kind == "DECIMAL":
        return F.when(text.rlike(_NUMBER), text.try_cast(DecimalType(38, data_type.scale)).cast(spark_type))
    if kind == "DATE":
        return F.when(text.rlike(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"), F.try_to_date(text, "yyyy-MM-dd"))
    if kind == "TIMESTAMP":  # Spark's cast reads the SQL form as Flink does, and a trailing Z as UTC
        return F.when(text.rlike(_TIMESTAMP), F.concat(text, F.lit("Z")).try_cast("timestamp"))
    raise TypeError(f"Spark's reader does not read CSV columns of type {data_type} (formats.py keeps them to "
                    "Kindling's reader)")
