"""The table connectors Kindling has, each on the DataStream connector of the same data: ``datagen``
(a source, on DataGeneratorSource), ``filesystem`` (FileSource / FileSink), ``kafka`` (KafkaSource /
KafkaSink), ``jdbc`` (a bounded scan, lookups: kindling/table/lookup_join.py, and JdbcSink), ``print`` and
``blackhole`` (sinks). Formats: kindling/table/formats.py.

Each connector checks its options when the table is used, naming a wrong or unsupported option."""
from __future__ import annotations

import random
from typing import Any, Dict, List, Optional, Sequence, Tuple

from kindling.common.types import Row, _create_row
from kindling.common.typeinfo import TypeInformation, Types
from kindling.table.formats import flat_columns
from kindling.table.lookup_join import LOOKUP_KEYS
from kindling.table.schema import Schema

__all__ = ["datagen_source", "insert_into", "metadata_keys", "register_sink", "scan_table"]

#: the ``fields.<name>.<key>`` options of datagen Kindling supports
DATAGEN_FIELD_KEYS = {"kind", "min", "max", "length", "start", "end", "null-rate"}
DATAGEN_TABLE_KEYS = {"connector", "rows-per-second", "number-of-rows"}
#: inclusive ranges of random integers, as Flink's datagen defaults (the Java type's range)
INTEGER_RANGES = {"TINYINT": 2 ** 7, "SMALLINT": 2 ** 15, "INT": 2 ** 31, "BIGINT": 2 ** 63}
RANDOM_STRING_LENGTH = 100  # Flink's default fields.#.length
JAVA_DOUBLE_MAX = 1.7976931348623157e308


def _unknown(connector: str, keys: List[str], supported: List[str]) -> ValueError:
    return ValueError(f"Unsupported options for the '{connector}' connector: {', '.join(sorted(keys))}. "
                      f"Kindling supports: {', '.join(sorted(supported))}")


class _FieldGenerator:
    """Makes one column's value for a row index: a sequence (``start + i``) or random values."""

    def __init__(self, name: str, position: int, type_name: str, options: Dict[str, str]):
        self.name, self.position, self.type_name = name, position, type_name
        self.kind = options.get("kind", "random")
        self.null_rate = float(options.get("null-rate", "0"))
        if self.kind == "sequence":
            if "start" not in options or "end" not in options:
                raise ValueError(f"datagen: field '{name}' is a sequence and needs 'fields.{name}.start' and "
                                 f"'fields.{name}.end'")
            if type_name not in INTEGER_RANGES and type_name not in ("STRING", "VARCHAR", "CHAR"):
                raise ValueError(f"datagen: a sequence of {type_name} (field '{name}') is not supported by "
                                 "Kindling yet; sequences are of integer or string columns")
            self.start, self.end = int(options["start"]), int(options["end"])
            if self.end < self.start:
                raise ValueError(f"datagen: field '{name}' has fields.{name}.end < fields.{name}.start")
        elif self.kind == "random":
            if type_name in INTEGER_RANGES:
                bound = INTEGER_RANGES[type_name]
                self.min, self.max = int(options.get("min", -bound)), int(options.get("max", bound - 1))
            elif type_name in ("FLOAT", "DOUBLE"):
                self.min, self.max = float(options.get("min", 0.0)), float(options.get("max", JAVA_DOUBLE_MAX))
            elif type_name in ("STRING", "VARCHAR", "CHAR"):
                self.length = int(options.get("length", RANDOM_STRING_LENGTH))
            elif type_name != "BOOLEAN":
                raise ValueError(f"datagen: random {type_name} values (field '{name}') are not supported by "
                                 "Kindling yet; supported: integers, FLOAT, DOUBLE, BOOLEAN, STRING/VARCHAR/CHAR")
        else:
            raise ValueError(f"datagen: fields.{name}.kind must be 'random' or 'sequence', got {self.kind!r}")

    @property
    def rows(self) -> Optional[int]:
        """How many rows a sequence has (None: random values never end)."""
        return self.end - self.start + 1 if self.kind == "sequence" else None

    def value(self, index: int) -> Any:
        if self.kind == "sequence":
            value = self.start + index
            return value if self.type_name in INTEGER_RANGES else str(value)
        rng = random.Random(index * 7919 + self.position)  # the same row on a replayed index
        if self.null_rate and rng.random() < self.null_rate:
            return None
        if self.type_name in INTEGER_RANGES:
            return rng.randint(self.min, self.max)
        if self.type_name in ("FLOAT", "DOUBLE"):
            return rng.uniform(self.min, self.max)
        if self.type_name == "BOOLEAN":
            return rng.random() < 0.5
        return "%0*x" % (self.length, rng.getrandbits(4 * self.length)) if self.length else ""


class DataGenRows:
    """The row of index ``i`` of a datagen table: a Row with the table's column names."""

    def __init__(self, schema: Schema, options: Dict[str, str]):
        self.names = schema.get_field_names()
        per_field: Dict[str, Dict[str, str]] = {n: {} for n in self.names}
        unknown = [k for k in options if k not in DATAGEN_TABLE_KEYS and not k.startswith("fields.")]
        for key, value in options.items():
            if key.startswith("fields."):
                name, _, option = key[len("fields."):].rpartition(".")
                if name not in per_field or option not in DATAGEN_FIELD_KEYS:
                    unknown.append(key)
                else:
                    per_field[name][option] = value
        if unknown:
            raise _unknown("datagen", unknown, sorted(DATAGEN_TABLE_KEYS) + [f"fields.#.{k}" for k in DATAGEN_FIELD_KEYS])
        self.fields = [_FieldGenerator(n, i, t.type_name, per_field[n])
                       for i, (n, t) in enumerate(zip(self.names, schema.get_field_data_types()))]

    def count(self, number_of_rows: Optional[int]) -> Optional[int]:
        """Rows in all: ``number-of-rows``, or fewer when a sequence ends first (None: endless)."""
        bounds = [f.rows for f in self.fields if f.rows is not None]
        if number_of_rows is not None:
            bounds.append(number_of_rows)
        return min(bounds) if bounds else None

    def __call__(self, index: int) -> Row:
        return _create_row(self.names, [f.value(index) for f in self.fields])


def datagen_source(schema: Schema, options: Dict[str, str], type_info: TypeInformation):
    """A DataGeneratorSource producing the datagen table's rows as ``type_info``."""
    from kindling.datastream.connectors.datagen import DataGeneratorSource, RateLimiterStrategy

    rows = DataGenRows(schema, options)
    number = options.get("number-of-rows")
    rate = float(options.get("rows-per-second", "10000"))
    return DataGeneratorSource(rows, rows.count(int(number) if number is not None else None),
                               RateLimiterStrategy.per_second(rate), type_info)


class RowTexts:
    """A row as its kind and its fields' texts, as Flink's ``Row.toString`` and print connector write
    them; called, the whole text: ``+I[1, aaa, null]``."""

    def __init__(self, types):
        self.types = types

    def parts(self, row: Row) -> Tuple[str, Tuple[str, ...]]:
        from kindling.table.table_result import value_text

        kind = row.get_row_kind().short_string() if isinstance(row, Row) else "+I"
        return kind, tuple(value_text(v, t) for v, t in zip(row, self.types))

    def __call__(self, row: Row) -> str:
        return row_text(*self.parts(row))


def row_text(kind: str, fields: Sequence[str]) -> str:
    """``+I[a, 1]`` of a row's kind and field texts."""
    return kind + "[" + ", ".join(fields) + "]"


def parallelism_of(stream) -> Optional[int]:
    """The parallelism set on the stream's operator, 1 for a DataStream collection source
    (non-parallel in Flink; a Table's ``from_elements`` is parallel), else None (the environment's)."""
    from kindling.graph.specs import CollectionSourceSpec, RelationalSourceSpec
    from kindling.table.planner import nodes

    node = stream._transformation
    source = getattr(node, "source", None)
    if isinstance(source, RelationalSourceSpec):  # a table's plan: Calcs over a scan keep its rows' spread
        plan = source.plan
        while isinstance(plan, (nodes.Project, nodes.Filter)):
            plan = plan.input
        source = source.bases[0] if plan is source.leaves[0] else None
    return node.parallelism or (1 if isinstance(source, CollectionSourceSpec) and not getattr(source, "parallel", False)
                                else None)


def _check_options(connector: str, options: Dict[str, str], supported: set, prefixes: tuple = ()) -> None:
    """Fails naming the options that are neither ``supported`` nor under one of ``prefixes``."""
    unknown = [k for k in options if k not in supported and not any(k.startswith(p) for p in prefixes)]
    if unknown:
        raise _unknown(connector, unknown, sorted(supported) + [p + "*" for p in prefixes])


def _required(connector: str, options: Dict[str, str], key: str) -> str:
    if not options.get(key):
        raise ValueError(f"The '{connector}' connector needs the option '{key}'")
    return options[key]


_UNITS_MS = {"ms": 1, "milli": 1, "millis": 1, "millisecond": 1, "milliseconds": 1, "s": 1000, "sec": 1000,
             "secs": 1000, "second": 1000, "seconds": 1000, "min": 60_000, "m": 60_000, "minute": 60_000,
             "minutes": 60_000, "h": 3_600_000, "hour": 3_600_000, "hours": 3_600_000, "d": 86_400_000,
             "day": 86_400_000, "days": 86_400_000}
_UNITS_BYTES = {"b": 1, "bytes": 1, "k": 1 << 10, "kb": 1 << 10, "kibibytes": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
                "mebibytes": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gibibytes": 1 << 30}


def _amount(text: str, key: str, units: Dict[str, int], example: str) -> int:
    """Flink's duration (``10 s``, ``500ms``; a bare number is ms) or memory size (``128mb``)."""
    import re

    match = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", text)
    if match is None or match.group(2).lower() not in units and match.group(2):
        raise ValueError(f"The option '{key}' = {text!r} is not a {example} (units: {', '.join(sorted(units))})")
    return int(match.group(1)) * units.get(match.group(2).lower(), 1)


def duration_ms(text: str, key: str) -> int:
    return _amount(text, key, _UNITS_MS, "duration such as '10 s'")


def memory_bytes(text: str, key: str) -> int:
    return _amount(text, key, _UNITS_BYTES, "memory size such as '128mb'")


def physical(schema: Schema) -> Schema:
    """The columns a connector reads or writes: without computed and metadata columns."""
    from kindling.table.schema import _DeclaredSchema

    if not isinstance(schema, _DeclaredSchema):
        return schema
    types = dict(zip(schema.get_field_names(), schema.get_field_data_types()))
    return Schema(schema.physical_names(), [types[n] for n in schema.physical_names()])


#: the metadata each connector's rows have, read as the rows' DataStream timestamps
METADATA_KEYS = {"kafka": {"timestamp"}}


def metadata_keys(options: Dict[str, str]) -> set:
    return METADATA_KEYS.get(options.get("connector"), set())


def scan_table(t_env, name: str, descriptor) -> Any:
    """The Table of a connector table's rows (its physical columns), read by the DataStream source
    of its connector; the options are checked now, not when the job starts."""
    from kindling.table.planner import nodes
    from kindling.table.table import Table

    options = descriptor.get_options()
    schema = physical(descriptor.get_schema())
    connector = options.get("connector")
    if connector not in _SOURCES:
        raise ValueError(f"Table '{name}': the '{connector}' connector cannot be read by Kindling yet; sources: "
                         f"{', '.join(sorted(_SOURCES))}")
    if connector == "filesystem":
        keys = getattr(descriptor.get_schema(), "partition_keys", None) or ()
        return Table(t_env, nodes.Scan(name=name, source=_filesystem_scan(schema, options, keys, name),
                                       options=dict(options), out=nodes.Output(schema)))
    if connector != "upsert-kafka":
        return Table(t_env, nodes.Scan(name=name, source=_SOURCES[connector](schema, options), options=dict(options),
                                       out=nodes.Output(schema)))
    from kindling.table.types import DataTypes

    key = _upsert_key(descriptor.get_schema(), name)
    # the records' rows, each with whether it deletes its key (a record without a value)
    records = nodes.Scan(name=name, source=_kafka_scan(schema, options, key), out=nodes.Output(Schema(
        schema.get_field_names() + [DELETED], schema.get_field_data_types() + [DataTypes.BOOLEAN()])))
    return Table(t_env, nodes.ChangelogNormalize(input=records, keys=tuple(key), out=nodes.Output(schema, True)))


DELETED = "__deleted"


def _upsert_key(schema: Schema, name: str) -> List[str]:
    key = getattr(schema, "primary_key", None)
    if not key:
        raise ValueError(f"Table '{name}': the 'upsert-kafka' connector needs a PRIMARY KEY (...) NOT ENFORCED: "
                         "record keys are its columns")
    return list(key[1])


def _datagen_scan(schema: Schema, options: Dict[str, str]):
    return datagen_source(schema, options, schema.row_type_info())


FILESYSTEM_KEYS = {"connector", "path", "format", "source.monitor-interval", "sink.rolling-policy.file-size",
                   "sink.parallelism"}  # and the PARTITION_KEYS of kindling/table/partitions.py


def _format_of(connector: str, options: Dict[str, str], key: str = "format") -> str:
    from kindling.table.formats import FORMAT_OPTIONS

    name = _required(connector, options, key)
    if name not in FORMAT_OPTIONS or (name == "parquet" and connector != "filesystem"):
        supported = sorted(f for f in FORMAT_OPTIONS if f != "parquet" or connector == "filesystem")
        raise ValueError(f"The '{connector}' connector: the format '{name}' is not supported by Kindling yet; "
                         f"formats: {', '.join(supported)}")
    return name


def _filesystem_options(options: Dict[str, str]) -> str:
    """The format of a filesystem table, once its options are checked."""
    from kindling.table.partitions import PARTITION_KEYS

    fmt = _format_of("filesystem", options)
    _check_options("filesystem", options, FILESYSTEM_KEYS | PARTITION_KEYS, (f"{fmt}.",))
    return fmt


def _filesystem_scan(schema: Schema, options: Dict[str, str], partition_keys: Sequence[str] = (), name: str = ""):
    """A FileSource of the table's files; a partitioned table's partition columns come from the
    directory names (kindling/table/partitions.py)."""
    from kindling.table.formats import file_source
    from kindling.table.partitions import data_schema, partition_columns

    fmt = _filesystem_options(options)
    path = _required("filesystem", options, "path")
    interval = options.get("source.monitor-interval")
    interval_ms = duration_ms(interval, "source.monitor-interval") if interval else None
    if not partition_keys:
        return file_source(fmt, schema, options, [path], interval_ms)
    columns = partition_columns(name, schema, list(partition_keys), options)
    source = file_source(fmt, data_schema(schema, list(partition_keys)), options, [path], interval_ms)
    source._spec.format.partition_columns = columns
    source._type_info = schema.row_type_info()
    return source


_STARTUP_MODES = ("earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets")
KAFKA_KEYS = {"connector", "topic", "topic-pattern", "properties.bootstrap.servers", "properties.group.id", "format",
              "value.format", "key.format", "key.fields", "key.fields-prefix", "value.fields-include",
              "scan.startup.mode", "scan.startup.specific-offsets", "scan.startup.timestamp-millis",
              "scan.bounded.mode", "scan.bounded.specific-offsets", "scan.bounded.timestamp-millis",
              "scan.topic-partition-discovery.interval", "sink.delivery-guarantee", "sink.transactional-id-prefix",
              "sink.partitioner", "sink.parallelism"}


UPSERT_KAFKA_KEYS = {"connector", "topic", "properties.bootstrap.servers", "properties.group.id", "key.format",
                     "value.format", "value.fields-include", "scan.bounded.mode", "scan.bounded.specific-offsets",
                     "scan.bounded.timestamp-millis", "sink.delivery-guarantee",
                     "sink.transactional-id-prefix", "sink.parallelism"}


class _KafkaLayout:
    """Which of a Kafka table's columns are in record keys and values, and their formats."""

    def __init__(self, schema: Schema, options: Dict[str, str], upsert_key: Optional[List[str]] = None):
        from kindling.table.formats import row_format

        connector = options.get("connector")
        names = schema.get_field_names()
        types = dict(zip(names, schema.get_field_data_types()))
        upsert = upsert_key is not None
        value_key = "value.format" if "value.format" in options or upsert else "format"
        if "format" in options and "value.format" in options:
            raise ValueError(f"The '{connector}' connector takes 'format' or 'value.format', not both")
        value_format = _format_of(connector, options, value_key)
        prefix = "value." if value_key == "value.format" else ""
        prefixes = [f"{prefix}{value_format}."]
        self.key_fields = [k.strip() for k in options.get("key.fields", "").split(";") if k.strip()]
        if upsert:
            if "key.fields" in options:
                raise ValueError("The 'upsert-kafka' connector takes its key fields from the PRIMARY KEY, not "
                                 "'key.fields'")
            self.key_fields = list(upsert_key)
        missing = [k for k in self.key_fields if k not in names]
        if missing:
            raise ValueError(f"The '{connector}' connector: key.fields {missing} are not columns of the table {names}")
        self.key_format = None
        if self.key_fields or "key.format" in options:
            key_format = _format_of(connector, options, "key.format")
            if not self.key_fields:
                raise ValueError(f"The '{connector}' connector: 'key.format' needs 'key.fields' (the key's columns)")
            prefixes.append(f"key.{key_format}.")
            self.key_format = row_format(key_format, Schema(self.key_fields, [types[k] for k in self.key_fields]),
                                         options, "key.")
        include = options.get("value.fields-include", "ALL").upper()
        if include not in ("ALL", "EXCEPT_KEY"):
            raise ValueError(f"The '{connector}' connector: 'value.fields-include' is ALL or EXCEPT_KEY, "
                             f"got {include!r}")
        if options.get("key.fields-prefix"):
            raise ValueError("'key.fields-prefix' is not supported by Kindling yet")
        self.value_fields = [n for n in names if include == "ALL" or n not in self.key_fields]
        self.value_format = row_format(value_format, Schema(self.value_fields, [types[n] for n in self.value_fields]),
                                       options, prefix)
        self.names = names
        self.row_type = schema.row_type_info()
        self.format_prefixes = tuple(prefixes)


def _kafka_servers_and_topics(options: Dict[str, str]):
    connector = options.get("connector")
    servers = _required(connector, options, "properties.bootstrap.servers")
    topics = [t.strip() for t in options.get("topic", "").split(";") if t.strip()]
    if bool(topics) == bool(options.get("topic-pattern")):
        raise ValueError(f"The '{connector}' connector needs one of the options 'topic' (names separated by ';') and "
                         "'topic-pattern'")
    return servers, topics


def _kafka_offsets(options: Dict[str, str], kind: str, mode: str, topics: List[str]):
    """The KafkaOffsetsInitializer of ``scan.<kind>.mode`` (kind: startup or bounded)."""
    from kindling.datastream.connectors.kafka import (KafkaOffsetResetStrategy, KafkaOffsetsInitializer,
                                                      KafkaTopicPartition)

    if mode == "earliest-offset":
        return KafkaOffsetsInitializer.earliest()
    if mode == "latest-offset":
        return KafkaOffsetsInitializer.latest()
    if mode == "group-offsets":
        if not options.get("properties.group.id"):
            raise ValueError(f"scan.{kind}.mode 'group-offsets' needs 'properties.group.id'")
        reset = options.get("properties.auto.offset.reset", "none").upper()
        strategy = {"EARLIEST": KafkaOffsetResetStrategy.EARLIEST, "LATEST": KafkaOffsetResetStrategy.LATEST}.get(
            reset, KafkaOffsetResetStrategy.NONE)
        return KafkaOffsetsInitializer.committed_offsets(strategy)
    if mode == "timestamp":
        key = f"scan.{kind}.timestamp-millis"
        return KafkaOffsetsInitializer.timestamp(int(_required("kafka", options, key)))
    if mode == "specific-offsets":
        key = f"scan.{kind}.specific-offsets"
        if len(topics) != 1:
            raise ValueError(f"scan.{kind}.mode 'specific-offsets' needs exactly one 'topic'")
        offsets = {}
        for part in _required("kafka", options, key).split(";"):
            fields = dict(f.split(":", 1) for f in part.split(",") if ":" in f)
            if set(fields) != {"partition", "offset"}:
                raise ValueError(f"'{key}' is 'partition:0,offset:42;partition:1,offset:300', got {options[key]!r}")
            offsets[KafkaTopicPartition(topics[0], int(fields["partition"]))] = int(fields["offset"])
        return KafkaOffsetsInitializer.offsets(offsets)
    choices = _STARTUP_MODES if kind == "startup" else ("unbounded",) + _STARTUP_MODES[1:]
    raise ValueError(f"scan.{kind}.mode {mode!r} is not one of {', '.join(choices)}")


def _kafka_scan(schema: Schema, options: Dict[str, str], upsert_key: Optional[List[str]] = None):
    """A KafkaSource of a kafka table's rows, or of an upsert-kafka table's upserts and deletes (a
    record without a value deletes its key)."""
    from kindling.datastream.connectors.kafka import KafkaSource

    layout = _KafkaLayout(schema, options, upsert_key)
    connector = options.get("connector")
    _check_options(connector, options, UPSERT_KAFKA_KEYS if upsert_key is not None else KAFKA_KEYS,
                   ("properties.",) + layout.format_prefixes)
    servers, topics = _kafka_servers_and_topics(options)
    builder = KafkaSource.builder().set_bootstrap_servers(servers)
    builder = builder.set_topics(*topics) if topics else builder.set_topic_pattern(options["topic-pattern"])
    if options.get("properties.group.id"):
        builder.set_group_id(options["properties.group.id"])
    for key, value in options.items():
        if key.startswith("properties.") and key not in ("properties.bootstrap.servers", "properties.group.id"):
            builder.set_property(key[len("properties."):], value)
    startup = options.get("scan.startup.mode", "group-offsets" if options.get("properties.group.id") and
                          upsert_key is None else "earliest-offset")
    if startup not in _STARTUP_MODES:
        raise ValueError(f"scan.startup.mode {startup!r} is not one of {', '.join(_STARTUP_MODES)}")
    builder.set_starting_offsets(_kafka_offsets(options, "startup", startup, topics))
    bounded = options.get("scan.bounded.mode", "unbounded")
    if bounded != "unbounded":
        builder.set_bounded(_kafka_offsets(options, "bounded", bounded, topics))
    builder.set_value_only_deserializer(_KafkaRows(layout, upsert_key is not None))
    return builder.build()


class _KafkaRows:
    """A Kafka record's row: the key's columns from its key, the others from its value."""

    def __init__(self, layout: _KafkaLayout, upsert: bool = False):
        from kindling.table.formats import RowDeserializer

        self.upsert = upsert
        self.names, self.row_type = layout.names, layout.row_type
        if upsert:  # rows with one more field: whether the record deletes its key
            self.row_type = Types.ROW_NAMED(self.names + [DELETED], self.row_type.get_field_types() + [Types.BOOLEAN()])
        self.value = RowDeserializer(layout.value_format)
        self.key = RowDeserializer(layout.key_format) if layout.key_format is not None else None
        self.value_fields, self.key_fields = layout.value_fields, layout.key_fields

    def deserialize(self, message: bytes):
        return self.deserialize_record(None, message)

    def deserialize_record(self, key: Optional[bytes], message: bytes):
        """The row of a record (None: skip it, as a deserializer's null in Flink)."""
        value = self.value.deserialize(message) if message is not None else None
        if value is None and not (self.upsert and message is None):
            return None
        values = dict(zip(self.value_fields, value)) if value is not None else {}
        if self.key is not None:
            if key is None:
                raise ValueError(f"the record has no key, but the table reads the key fields {self.key_fields}")
            keys = self.key.deserialize(key)
            if keys is None:
                return None
            values.update(zip(self.key_fields, keys))
        fields = [values.get(n) for n in self.names]
        return _create_row(self.names + [DELETED], fields + [value is None]) if self.upsert else \
            _create_row(self.names, fields)

    def get_produced_type(self):
        return self.row_type


JDBC_KEYS = {"connector", "url", "table-name", "driver", "username", "password", "sink.buffer-flush.max-rows",
             "sink.buffer-flush.interval", "sink.max-retries", "sink.parallelism", "scan.partition.column",
             "scan.partition.num", "scan.partition.lower-bound", "scan.partition.upper-bound", "scan.fetch-size",
             *LOOKUP_KEYS}


def _jdbc_scan(schema: Schema, options: Dict[str, str]):
    from kindling.datastream.connectors.base import Source
    from kindling.graph.specs import JdbcSourceSpec

    _check_options("jdbc", options, JDBC_KEYS)
    flat_columns("jdbc", schema)
    url, table = _required("jdbc", options, "url"), _required("jdbc", options, "table-name")
    partition = options.get("scan.partition.column")
    bounds = [options.get(f"scan.partition.{k}") for k in ("num", "lower-bound", "upper-bound")]
    if partition and not all(bounds) or not partition and any(bounds):
        raise ValueError("jdbc: 'scan.partition.column' goes with 'scan.partition.num', "
                         "'scan.partition.lower-bound' and 'scan.partition.upper-bound' (all or none)")
    if partition and partition not in schema.get_field_names():
        raise ValueError(f"jdbc: scan.partition.column '{partition}' is not a column of {schema.get_field_names()}")
    spec = JdbcSourceSpec(url=url, table=table, columns=schema.get_field_names(), user_name=options.get("username"),
                          password=options.get("password"), partition_column=partition,
                          partitions=int(bounds[0]) if partition else 1,
                          lower_bound=int(bounds[1]) if partition else 0,
                          upper_bound=int(bounds[2]) if partition else 0,
                          fetch_size=int(options.get("scan.fetch-size", "0")) or 1000)
    spec.check()
    return Source(spec, schema.row_type_info())


_SOURCES = {"datagen": _datagen_scan, "filesystem": _filesystem_scan, "kafka": _kafka_scan, "upsert-kafka": _kafka_scan,
            "jdbc": _jdbc_scan}

PRINT_KEYS = {"connector", "print-identifier", "standard-error", "sink.parallelism"}
BLACKHOLE_KEYS = {"connector"}
#: sinks that write an updating table's changes whatever their format (as in Flink)
_UPDATING_SINKS = {"print", "blackhole", "upsert-kafka"}


def register_sink(connector: str, factory: Any, takes_changes: bool) -> None:
    """Adds the sink connector ``connector``: ``factory(stream, schema, options, name, declared)`` adds
    its sink to a stream of the table's rows (their changes too when ``takes_changes``). It is how
    kindling.testing.source_sink_utils brings PyFlink's ``test-sink``."""
    _SINKS[connector] = factory
    if takes_changes:
        _UPDATING_SINKS.add(connector)


def insert_into(stream, schema: Schema, options: Dict[str, str], name: str, updating: bool = False):
    """Adds the sink of the table ``name`` (its connector ``options``) to ``stream``, a DataStream
    of Rows with the sink's columns (their changes when ``updating``)."""
    connector = options.get("connector")
    if connector == "test-sink" and connector not in _SINKS:
        raise ValueError(f"Table '{name}': the 'test-sink' connector comes with PyFlink's test utilities: "
                         "import kindling.testing.source_sink_utils (its results() gives the rows)")
    if connector not in _SINKS:
        raise ValueError(f"Table '{name}': the '{connector}' connector cannot be written to by Kindling yet; "
                         f"sinks: {', '.join(sorted(_SINKS))}")
    if updating and not _takes_changes(connector, options, schema):
        need = "a PRIMARY KEY (... ) NOT ENFORCED, so that it upserts" if connector == "jdbc" else \
            "a changelog format ('canal-json'), or use a sink that takes changes (print, jdbc with a primary key)"
        raise ValueError(f"Table sink '{name}' doesn't support consuming update and delete changes: the query's "
                         f"result is updating (an aggregation, a distinct or an outer join) and the '{connector}' "
                         f"connector writes inserts only; give it {need}")
    sink = _SINKS[connector](stream, physical(schema), options, name, schema)
    parallelism = options.get("sink.parallelism")
    if parallelism and connector != "print":
        sink.set_parallelism(int(parallelism))
    return sink


def _takes_changes(connector: str, options: Dict[str, str], schema: Schema) -> bool:
    """Whether the sink writes an updating table's changes (Flink's sinks: print, blackhole, an
    upserting jdbc table, a changelog format)."""
    from kindling.table.formats import CHANGELOG_FORMATS

    if connector == "jdbc":
        return bool(getattr(schema, "primary_key", None))
    return connector in _UPDATING_SINKS or options.get("format", options.get("value.format")) in CHANGELOG_FORMATS


def _print_sink(stream, schema: Schema, options: Dict[str, str], name: str, declared: Schema):
    from kindling.common.typeinfo import Types
    from kindling.graph.specs import PrintSinkSpec

    unknown = [k for k in options if k not in PRINT_KEYS]
    if unknown:
        raise _unknown("print", unknown, sorted(PRINT_KEYS))
    stderr = options.get("standard-error", "false").lower()
    if stderr not in ("true", "false"):
        raise ValueError(f"print connector: 'standard-error' is 'true' or 'false', got {options['standard-error']!r}")
    # as Flink's planner: the sink runs with its input's parallelism unless 'sink.parallelism' says
    parallelism = int(options.get("sink.parallelism", 0)) or parallelism_of(stream)
    text = stream.map(RowTexts(schema.get_field_data_types()), output_type=Types.STRING())
    sink = text._sink(PrintSinkSpec(identifier=options.get("print-identifier"), to_stderr=stderr == "true"),
                      "Print to Std. Err" if stderr == "true" else "Print to Std. Out")
    if parallelism:
        text.set_parallelism(parallelism)
        sink.set_parallelism(parallelism)
    return sink


def _blackhole_sink(stream, schema: Schema, options: Dict[str, str], name: str, declared: Schema):
    from kindling.graph.specs import DiscardSinkSpec

    _check_options("blackhole", options, BLACKHOLE_KEYS)
    return stream._sink(DiscardSinkSpec(), f"Sink: {name}")


def _filesystem_sink(stream, schema: Schema, options: Dict[str, str], name: str, declared: Schema):
    """A FileSink of the rows; a partitioned table's into its partition directories, without the
    partition columns (kindling/table/partitions.py)."""
    from kindling.table.formats import file_sink
    from kindling.table.partitions import bounded, data_schema, partition_commit, partition_path

    fmt = _filesystem_options(options)
    size = options.get("sink.rolling-policy.file-size")
    path = _required("filesystem", options, "path")
    part_size = memory_bytes(size, "sink.rolling-policy.file-size") if size else None
    keys = list(getattr(declared, "partition_keys", None) or ())
    if not keys:
        return stream.sink_to(file_sink(fmt, schema, options, path, part_size))
    sink = file_sink(fmt, data_schema(schema, keys), options, path, part_size)
    sink._spec.partitioning = partition_path(name, schema, keys, options)
    sink._spec.commit = partition_commit(name, options, bounded(stream))
    return stream.sink_to(sink)


def _kafka_sink(stream, schema: Schema, options: Dict[str, str], name: str, declared: Schema):
    """A KafkaSink of the rows; upsert-kafka's of their changes: an insert or update-after writes
    its key's record, a delete a record without a value (a tombstone), an update-before nothing."""
    from kindling.datastream.connectors.base import DeliveryGuarantee
    from kindling.datastream.connectors.kafka import KafkaRecordSerializationSchema, KafkaSink
    from kindling.table.formats import RowSerializer

    connector = options.get("connector")
    upsert_key = _upsert_key(declared, name) if connector == "upsert-kafka" else None
    layout = _KafkaLayout(schema, options, upsert_key)
    _check_options(connector, options, UPSERT_KAFKA_KEYS if upsert_key is not None else KAFKA_KEYS,
                   ("properties.",) + layout.format_prefixes)
    servers, topics = _kafka_servers_and_topics(options)
    if len(topics) != 1:
        raise ValueError(f"The '{connector}' sink writes to one 'topic' (not a list or 'topic-pattern')")
    if upsert_key is not None:
        stream = stream.filter(_not_update_before)
    if options.get("sink.partitioner", "default") != "default":
        raise ValueError(f"sink.partitioner {options['sink.partitioner']!r} is not supported by Kindling yet "
                         "(records with a key go to its partition, others spread by the producer: 'default')")
    names = schema.get_field_names()
    records = KafkaRecordSerializationSchema.builder().set_topic(topics[0]).set_value_serialization_schema(
        RowSerializer(layout.value_format, [names.index(n) for n in layout.value_fields], upsert_key is not None))
    if layout.key_format is not None:
        records.set_key_serialization_schema(RowSerializer(layout.key_format,
                                                           [names.index(n) for n in layout.key_fields]))
    guarantee = options.get("sink.delivery-guarantee", "at-least-once").lower()
    guarantees = {"none": DeliveryGuarantee.NONE, "at-least-once": DeliveryGuarantee.AT_LEAST_ONCE,
                  "exactly-once": DeliveryGuarantee.EXACTLY_ONCE}
    if guarantee not in guarantees:
        raise ValueError(f"sink.delivery-guarantee {guarantee!r} is not one of {', '.join(guarantees)}")
    builder = KafkaSink.builder().set_bootstrap_servers(servers).set_record_serializer(records.build()) \
        .set_delivery_guarantee(guarantees[guarantee])
    if options.get("sink.transactional-id-prefix"):
        builder.set_transactional_id_prefix(options["sink.transactional-id-prefix"])
    for key, value in options.items():
        if key.startswith("properties.") and key != "properties.bootstrap.servers":
            builder.set_property(key[len("properties."):], value)
    return stream.sink_to(builder.build())


def _not_update_before(row) -> bool:
    from kindling.common.types import RowKind

    return row.get_row_kind() != RowKind.UPDATE_BEFORE


def _jdbc_sink(stream, schema: Schema, options: Dict[str, str], name: str, declared: Schema):
    from kindling.datastream.connectors.jdbc import JdbcConnectionOptions, JdbcExecutionOptions, JdbcSink

    _check_options("jdbc", options, JDBC_KEYS)
    flat_columns("jdbc", schema)
    url, table = _required("jdbc", options, "url"), _required("jdbc", options, "table-name")
    names = schema.get_field_names()
    connection = JdbcConnectionOptions.JdbcConnectionOptionsBuilder().with_url(url)
    if options.get("username"):
        connection.with_user_name(options["username"])
    if options.get("password"):
        connection.with_password(options["password"])
    interval = options.get("sink.buffer-flush.interval", "1s")
    execution = JdbcExecutionOptions.builder().with_batch_size(int(options.get("sink.buffer-flush.max-rows", 100))) \
        .with_batch_interval_ms(duration_ms(interval, "sink.buffer-flush.interval")) \
        .with_max_retries(int(options.get("sink.max-retries", 3))).build()
    key = list((getattr(declared, "primary_key", None) or (None, []))[1])
    columns = ", ".join(_quoted(n) for n in names)
    sql = f"INSERT INTO {table} ({columns}) VALUES ({', '.join('?' for _ in names)})"
    if key:  # Flink's JDBC dialects upsert by the primary key (PostgreSQL's and SQLite's syntax)
        others = [n for n in names if n not in key]
        update = ", ".join(f"{_quoted(n)} = EXCLUDED.{_quoted(n)}" for n in others)
        sql += f" ON CONFLICT ({', '.join(_quoted(k) for k in key)}) " + (f"DO UPDATE SET {update}" if others
                                                                         else "DO NOTHING")
    sink = JdbcSink.sink(sql, schema.row_type_info(), connection.build(), execution)
    if key:
        sink._spec.delete_sql = f"DELETE FROM {table} WHERE " + " AND ".join(f"{_quoted(k)} = ?" for k in key)
        sink._spec.delete_fields = [names.index(k) for k in key]
    return stream.add_sink(sink)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


_SINKS = {"print": _print_sink, "blackhole": _blackhole_sink, "filesystem": _filesystem_sink, "kafka": _kafka_sink,
          "upsert-kafka": _kafka_sink, "jdbc": _jdbc_sink}
