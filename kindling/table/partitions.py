"""The partitions of a ``filesystem`` table declared ``PARTITIONED BY (k1, k2, ...)``, as Flink lays
them out: a row goes to the directory ``k1=v1/k2=v2/`` under the table's path, its partition
columns are not written inside the files but read back from the directory names; special
characters of a value are escaped (``%2F``), and NULL or the empty string is the directory
``partition.default-name`` (``__DEFAULT_PARTITION__``). ``sink.partition-commit.*`` says when a
written partition is committed and how (Kindling: a success file)."""
from __future__ import annotations

import datetime
from typing import Any, Dict, List, Tuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from kindling.common.types import Row, _create_row
from kindling.graph.specs import PartitionColumns, PartitionCommit
from kindling.table.schema import Schema

__all__ = ["PARTITION_KEYS", "PartitionPath", "PartitionValues", "bounded", "data_schema", "escape_path_name",
           "partition_commit", "partition_columns", "partition_path", "unescape_path_name"]

DEFAULT_PARTITION_NAME = "__DEFAULT_PARTITION__"
#: the options of partitioned filesystem tables Kindling takes (others are refused by name)
PARTITION_KEYS = {"partition.default-name", "sink.partition-commit.trigger", "sink.partition-commit.delay",
                  "sink.partition-commit.policy.kind", "sink.partition-commit.success-file.name",
                  "sink.partition-commit.watermark-time-zone", "partition.time-extractor.kind",
                  "partition.time-extractor.timestamp-pattern", "partition.time-extractor.timestamp-formatter",
                  "sink.shuffle-by-partition.enable"}
#: the characters Flink escapes in a partition directory name (Hive's set), as ``%XX``
_ESCAPED = frozenset([chr(c) for c in range(0x01, 0x20)] + list('"#%\'*/:=?\\\x7f{[]^'))
_EPOCH = datetime.date(1970, 1, 1)
_INTEGERS = ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT")
_STRINGS = ("STRING", "VARCHAR", "CHAR")


def escape_path_name(value: str) -> str:
    """A partition value as a directory name: Flink's escaping of special characters."""
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in value)


def unescape_path_name(name: str) -> str:
    """The value of an escaped directory name (``%XX`` sequences that are not hex stay as they are)."""
    out, i = [], 0
    while i < len(name):
        code = name[i + 1:i + 3]
        if name[i] == "%" and len(code) == 2 and all(c in "0123456789abcdefABCDEF" for c in code):
            out.append(chr(int(code, 16)))
            i += 3
        else:
            out.append(name[i])
            i += 1
    return "".join(out)


def _check_types(name: str, schema: Schema, keys: List[str]) -> List[str]:
    """The type names of the partition columns ``keys``, which must be columns of a supported type."""
    types = dict(zip(schema.get_field_names(), schema.get_field_data_types()))
    missing = [k for k in keys if k not in types]
    if missing:
        raise ValueError(f"Table '{name}': PARTITIONED BY {missing} are not physical columns of the table "
                         f"{schema.get_field_names()}")
    if len(keys) == len(types):
        raise ValueError(f"Table '{name}': a partitioned filesystem table needs a column that is not a partition "
                         "column (the files hold the other columns)")
    names = []
    for key in keys:
        type_name = types[key].type_name
        if type_name not in _INTEGERS + _STRINGS + ("BOOLEAN", "DATE"):
            raise ValueError(f"Table '{name}': the partition column '{key}' is {type_name}; Kindling's filesystem "
                             "connector partitions by strings, integers, BOOLEAN or DATE columns yet")
        names.append(type_name)
    return names


def data_schema(schema: Schema, keys: List[str]) -> Schema:
    """The columns written inside the files: all but the partition columns."""
    pairs = [(n, t) for n, t in zip(schema.get_field_names(), schema.get_field_data_types()) if n not in keys]
    return Schema([n for n, _ in pairs], [t for _, t in pairs])


class PartitionPath:
    """A row's partition directory (``k1=v1/k2=v2``) and the row without its partition columns."""

    def __init__(self, name: str, schema: Schema, keys: List[str], default_name: str):
        _check_types(name, schema, keys)
        names = schema.get_field_names()
        self.keys = [(k, names.index(k)) for k in keys]
        self.data_names = [n for n in names if n not in keys]
        self.data_positions = [names.index(n) for n in self.data_names]
        self.default_name = default_name

    def _text(self, value: Any) -> str:
        if value is None or value == "":
            return self.default_name
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, datetime.date):  # Flink writes a DATE's internal value: days since 1970-01-01
            return str((value - _EPOCH).days)
        return escape_path_name(str(value))

    def __call__(self, row: Row) -> Tuple[str, Row]:
        directory = "/".join(f"{escape_path_name(k)}={self._text(row[i])}" for k, i in self.keys)
        data = _create_row(self.data_names, [row[i] for i in self.data_positions])
        data.set_row_kind(row.get_row_kind())  # a changelog format writes it
        return directory, data


class PartitionValues:
    """The partition columns' values of a file from its directory's path below the table's path
    (the ``k=v`` names; the default name is NULL)."""

    def __init__(self, keys: List[str], type_names: List[str], default_name: str):
        self.keys, self.type_names, self.default_name = keys, type_names, default_name

    def __call__(self, relative_directory: str) -> List[Any]:
        found: Dict[str, str] = {}
        for part in relative_directory.split("/"):
            key, equals, value = part.partition("=")
            if equals:
                found[unescape_path_name(key)] = value
        values = []
        for key, type_name in zip(self.keys, self.type_names):
            if key not in found:
                raise ValueError(f"the file directory '{relative_directory}' has no partition '{key}=...': a "
                                 f"partitioned table's files are in its partition directories")
            values.append(self._value(key, type_name, found[key], relative_directory))
        return values

    def _value(self, key: str, type_name: str, text: str, where: str) -> Any:
        if text == self.default_name:
            return None
        text = unescape_path_name(text)
        try:
            if type_name in _INTEGERS:
                return int(text)
            if type_name == "BOOLEAN":
                if text.lower() not in ("true", "false"):
                    raise ValueError("not 'true' or 'false'")
                return text.lower() == "true"
            if type_name == "DATE":  # days since 1970 (as Flink writes them) or ISO (as Hive does)
                number = text[1:] if text.startswith("-") else text
                return _EPOCH + datetime.timedelta(days=int(text)) if number.isdigit() else \
                    datetime.date.fromisoformat(text)
        except ValueError as exc:
            raise ValueError(f"the partition directory '{where}': '{key}={text}' is not a {type_name} ({exc})") \
                from None
        return text


def partition_columns(name: str, schema: Schema, keys: List[str], options: Dict[str, str]) -> PartitionColumns:
    """How the reader of a partitioned table completes the rows of its files."""
    type_names = _check_types(name, schema, keys)
    names = schema.get_field_names()
    return PartitionColumns(data_type=data_schema(schema, keys).row_type_info(),
                            positions=[names.index(k) for k in keys],
                            values_of=PartitionValues(keys, type_names, _default_name(options)))


def _default_name(options: Dict[str, str]) -> str:
    return options.get("partition.default-name", DEFAULT_PARTITION_NAME)


def partition_path(name: str, schema: Schema, keys: List[str], options: Dict[str, str]) -> PartitionPath:
    return PartitionPath(name, schema, keys, _default_name(options))


def partition_commit(name: str, options: Dict[str, str], bounded: bool) -> PartitionCommit:
    """The ``sink.partition-commit.*`` options; what Kindling cannot give is refused by name."""
    from kindling.table.connectors import duration_ms

    policies = [p.strip() for p in options.get("sink.partition-commit.policy.kind", "").split(",") if p.strip()]
    for policy in policies:
        if policy == "metastore":
            raise ValueError(f"Table '{name}': sink.partition-commit.policy.kind 'metastore' adds partitions to a "
                             "Hive metastore, which Kindling has not; use 'success-file'")
        if policy == "custom":
            raise ValueError(f"Table '{name}': sink.partition-commit.policy.kind 'custom' needs a Java "
                             "PartitionCommitPolicy class, which Kindling cannot run; use 'success-file'")
        if policy != "success-file":
            raise ValueError(f"Table '{name}': unknown sink.partition-commit.policy.kind {policy!r}; Kindling "
                             "supports 'success-file'")
    trigger = options.get("sink.partition-commit.trigger", "process-time")
    if trigger not in ("process-time", "partition-time"):
        raise ValueError(f"Table '{name}': sink.partition-commit.trigger is 'process-time' or 'partition-time', "
                         f"got {trigger!r}")
    if trigger == "partition-time" and not bounded:
        raise ValueError(f"Table '{name}': sink.partition-commit.trigger 'partition-time' commits a partition "
                         "when the sink's watermark passes its time, which Kindling's filesystem sink does not "
                         "follow in an unbounded job yet; use 'process-time' (with sink.partition-commit.delay)")
    if options.get("partition.time-extractor.kind", "default") != "default":
        raise ValueError(f"Table '{name}': partition.time-extractor.kind 'custom' needs a Java "
                         "PartitionTimeExtractor class, which Kindling cannot run; use 'default'")
    zone = options.get("sink.partition-commit.watermark-time-zone")
    if zone is not None and zone != "UTC":
        try:
            ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"Table '{name}': sink.partition-commit.watermark-time-zone {zone!r} is not a time "
                             "zone id such as 'Asia/Shanghai'") from None
    if options.get("sink.shuffle-by-partition.enable", "false").lower() != "false":
        raise ValueError(f"Table '{name}': sink.shuffle-by-partition.enable is not supported by Kindling yet: "
                         "each task writes the partitions of its own rows")
    delay = options.get("sink.partition-commit.delay")
    return PartitionCommit(
        success_file=options.get("sink.partition-commit.success-file.name", "_SUCCESS")
        if "success-file" in policies else None,
        delay_ms=duration_ms(delay, "sink.partition-commit.delay") if delay else 0,
        at_end_only=trigger == "partition-time")


def bounded(stream) -> bool:
    """Whether every source the stream reads ends (the job's input is bounded)."""
    pending, seen = [stream._transformation], set()
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        source = getattr(node, "source", None)
        if source is not None and not getattr(source, "bounded", True):
            return False
        pending.extend(getattr(node, "inputs", ()))
    return True
