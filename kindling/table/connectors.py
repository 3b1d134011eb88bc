"""The table connectors Kindling has, as DataStream sources and sinks: ``datagen`` (a source,
on the DataStream DataGeneratorSource), ``print`` and ``blackhole`` (sinks).

Each connector checks its options when the table is used, naming a wrong or unsupported option."""
from __future__ import annotations

import random
from typing import Any, Dict, List, Optional

from kindling.common.types import Row, _create_row
from kindling.common.typeinfo import TypeInformation
from kindling.table.schema import Schema

__all__ = ["datagen_source", "insert_into"]

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


class _PrintedRow:
    """A row as Flink's print connector writes it: ``+I[1, aaa, null]``."""

    def __init__(self, types):
        self.types = types

    def __call__(self, row: Row) -> str:
        from kindling.table.table_result import value_text

        kind = row.get_row_kind().short_string() if isinstance(row, Row) else "+I"
        return kind + "[" + ", ".join(value_text(v, t) for v, t in zip(row, self.types)) + "]"


def parallelism_of(stream) -> Optional[int]:
    """The parallelism set on the stream's operator, 1 for a collection source (non-parallel in
    Flink), else None (the environment's)."""
    from kindling.graph.specs import CollectionSourceSpec

    node = stream._transformation
    return node.parallelism or (1 if isinstance(getattr(node, "source", None), CollectionSourceSpec) else None)


PRINT_KEYS = {"connector", "print-identifier", "standard-error", "sink.parallelism"}
BLACKHOLE_KEYS = {"connector"}


def insert_into(stream, schema: Schema, options: Dict[str, str], name: str):
    """Adds the sink of the table ``name`` (its connector ``options``) to ``stream``, a DataStream
    of Rows with the sink's columns."""
    connector = options.get("connector")
    if connector == "print":
        unknown = [k for k in options if k not in PRINT_KEYS]
        if unknown:
            raise _unknown("print", unknown, sorted(PRINT_KEYS))
        if options.get("standard-error", "false").lower() == "true":
            raise ValueError("print connector: 'standard-error' = 'true' is not supported by Kindling yet")
        from kindling.common.typeinfo import Types

        # as Flink's planner: the sink runs with its input's parallelism unless 'sink.parallelism' says
        parallelism = int(options.get("sink.parallelism", 0)) or parallelism_of(stream)
        text = stream.map(_PrintedRow(schema.get_field_data_types()), output_type=Types.STRING())
        sink = text.print(options.get("print-identifier"))
        if parallelism:
            text.set_parallelism(parallelism)
            sink.set_parallelism(parallelism)
        return sink
    if connector == "blackhole":
        unknown = [k for k in options if k not in BLACKHOLE_KEYS]
        if unknown:
            raise _unknown("blackhole", unknown, sorted(BLACKHOLE_KEYS))
        from kindling.graph.specs import DiscardSinkSpec

        return stream._sink(DiscardSinkSpec(), f"Sink: {name}")
    raise ValueError(f"Table '{name}': the '{connector}' connector cannot be written to by Kindling yet; "
                     "sinks: 'print', 'blackhole'")
