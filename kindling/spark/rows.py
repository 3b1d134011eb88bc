"""The rows between stages: their column names, the marks of control rows and control keys.

A stage's output columns: ``__exit`` (which exit a row belongs to), each exit's value columns
prefixed ``x<i>__``, and the element's ``__ts``/``__wm``/``__ch`` (timestamp, watermark stamp,
channel).

Control rows travel beside elements in STREAMING mode (``__wm`` says which): the end of a
bounded input (``END_MARK``), the end of a source split (``SPLIT_END_MARK``, ``LAST_SPLIT_END_MARK``:
only a source's stage reads them), and ``CONTROL_MARK`` rows whose payload (``__ch``, or
``__elements`` on a keyed exit) is a channel report ``("report", {channel: (level, finished,
had_elements, idleness_ms)})`` or a watermark hand-off ``("watermark", w)``; their ``__ts`` is
the event time they give Spark's watermark. A keyed exit sends each control row to every
shuffle partition (one control key per partition, sorted before every element's key), so
that each partition of a keyed operator learns every channel's progress before its elements
(see ``kindling/runtime/channels.py``).
"""
from __future__ import annotations

from pyspark.sql.types import BinaryType, LongType, StructField

EXIT = "__exit"
TS = "__ts"
WM = "__wm"
CHANNEL = "__ch"
POS = "__pos"  # a source row's place in its split (kindling.spark.sources.describe_position)
KEY = "__key"
PART = "__part"  # an exchanged stream's row: the key of the Spark partition (the parallel instance) it goes to
SUBTASK = "__sub"  # one-step jobs: the subtask of a keyed exit's key (kindling/spark/one_step.py)
READ_MS = "__read"  # one-step jobs: an exchanged row's processing time (when its source handed it)
END_MARK = 2**52  # __ts and __wm of the control row that ends a bounded input
CONTROL_MARK = END_MARK - 1  # __wm of a channel report or watermark hand-off row
# __wm of a source's row saying that the split named in __ch was read to its end; LAST_: and no
# split of the source starts after it, so a bounded source's split ends at MAX_WATERMARK
SPLIT_END_MARK = END_MARK - 2
LAST_SPLIT_END_MARK = END_MARK - 3
MARKS = (END_MARK, CONTROL_MARK, SPLIT_END_MARK, LAST_SPLIT_END_MARK)
END_KEY = b""  # the key of end-of-input control rows (never a pickle)
CONTROL_KEY_PREFIX = b"\x00"  # control keys sort before pickled keys (b"\x80...")
PART_SEPARATOR = "\x00"  # in a source row's __ch: the split's name, then what names the part read (never in a path)
PRODUCED = "produced"  # a ``produced`` exit's column: how many records the stage produced to Kafka
WRITTEN_FILE, WRITTEN_COUNT = "__written_file", "__written_count"  # a ``written`` exit's row: a part file, its count
ELEMENTS = "__elements"  # a keyed exit's row: pickled (channel, seq, [(value, timestamp, stamp), ...]) of one key
KEYED_FLUSH_ELEMENTS = 100_000  # a keyed exit holds at most this many elements before it emits rows
TIME_FIELDS = [StructField(TS, LongType()), StructField(WM, LongType()), StructField(CHANNEL, BinaryType())]


def is_control_key(key: bytes) -> bool:
    return key[:1] == CONTROL_KEY_PREFIX
