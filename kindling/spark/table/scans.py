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
from typing import Any, Iterator

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DecimalType, StringType, StructField, StructType

from kindling.spark.codec import codec_for
from kindling.spark.files import list_files

__all__ = ["csv_frame", "rows_may_be_late"]

#: what Python's ``str.strip()`` removes (its whitespace)
_BLANK = " \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200b))) + \
    "\u2028\u2029\u202f\u205f\u3000"
_NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
_TIMESTAMP = r"^([0-9]{4})-([0-9]{2})-([0-9]{2})[ T]([0-9]{2}):([0-9]{2}):([0-5][0-9])(?:\.([0-9]{1,9}))?$"
#: Spark's reader gives an empty field as null; no field is this text (its null value, set so that a
#: quoted empty field stays empty)
_NO_NULL = "\u0000kindling: no null\u0000"


def csv_frame(spark: SparkSession, options: dict, type_info: Any, data_types: list, in_files: bool = False
              ) -> DataFrame:
    """The rows of the CSV files of a table with connector ``options`` and columns of ``data_types``, as
    the columns of the codec of ``type_info`` (the table's row type); with ``in_files``, then the
    column ``__file`` (a file is read whole by one task, in order: ``multiLine``), and only the fields
    a query reads are read."""
    csv = {k[len("csv."):]: v for k, v in options.items() if k.startswith("csv.")}  # checked by the table's DDL
    files = [f.path for f in list_files([options["path"]])]
    fields = codec_for(type_info).fields
    raw = StructType([StructField(f"__t{i}", StringType()) for i in range(len(fields))])
    reader = (spark.read.schema(raw).option("mode", "FAILFAST").option("multiLine", True)
              .option("sep", csv.get("field-delimiter", ",")).option("quote", csv.get("quote-character", '"'))
              .option("escape", csv.get("quote-character", '"')).option("unescapedQuoteHandling", "RAISE_ERROR")
              .option("nullValue", _NO_NULL).option("encoding", "UTF-8"))
    if csv.get("allow-comments", "false").lower() == "true":
        reader = reader.option("comment", "#")
    if not files:
        return spark.createDataFrame([], StructType(list(fields)))
    frame = reader.csv(files)
    null_literal = csv.get("null-literal")
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
    typed = frame.select(*columns, F.spark_partition_id().alias(_PARTITION))
    read = [F.col(f"`{f.name}`").isNull() for f in fields] + [F.col(_PARTITION) < 0]
    return typed.where(F.exists(F.array(*read), lambda _: F.lit(True))).drop(_PARTITION)


_FILE, _PARTITION = "__file", "__partition"


def rows_may_be_late(spark: SparkSession, options: dict, type_info: Any, data_types: list, time_field: str,
                     delay: int, step: int, phase: int) -> bool:
    """Whether a row of the CSV files of a table whose watermark is ``delay`` ms behind ``time_field``
    may come after the watermark passed the end of its earliest window (windows end at ``phase``
    plus multiples of ``step``), whatever the timing (the
    rule: kindling/table/planner/physical.py). Flink reads each file as one split, in file order; a
    reader may read any other file before it. A null time may be late."""
    rows = csv_frame(spark, options, type_info, data_types, in_files=True)
    times = rows.select(F.col(_FILE), F.unix_millis(F.col(f"`{time_field}`")).alias("t"))
    files = times.mapInArrow(functools.partial(_file_times, step=step, phase=phase),
                             "file string, t long, slack long, last long, nulls long").collect()
    for f in files:
        others = max((g.t for g in files if g is not f and g.t is not None), default=None)
        if f.nulls or (f.slack is not None and f.slack <= -delay) or (others is not None and f.last <= others - delay):
            return True
    return False


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
            t = times.drop_null().to_numpy()
            if not len(t):
                continue
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
    if files:
        yield pa.RecordBatch.from_pylist([dict(zip(("file", "t", "slack", "last", "nulls"), (f, *v)))
                                          for f, v in files.items()])


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
