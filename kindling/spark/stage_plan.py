"""What a stage is, as plain data pickled with its Spark tasks: its chain (``StagePlan``) and
where elements leave it and how they are encoded (``ExitPlan``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyspark.sql.types import BinaryType, IntegerType, LongType, StringType, StructField, StructType

from kindling.runtime.chain import ChainNode
from kindling.spark.codec import codec_for
from kindling.spark.rows import ELEMENTS, EXIT, KEY, PART, PRODUCED, READ_MS, SUBTASK, TIME_FIELDS, WRITTEN_COUNT, \
    WRITTEN_FILE


@dataclass(eq=False)
class ExitPlan:
    """Where elements leave a stage and how they are encoded.

    ``layout``: ``stream`` (the codec of ``type_info``, for another stage), ``keyed`` (same,
    plus a ``__key`` column from ``key_selector``), ``string`` (Flink's toString),
    ``encoded`` (bytes from ``encoder``), ``pickled``, ``columns`` (the columns of the row type
    ``sink_spec.columns_type`` of a columnar file writer), ``produced`` (the stage sends the elements
    to the KafkaSink ``sink_spec`` itself; a row per flush counts them), ``written`` (the stage writes
    the elements into in-progress part files of the FileSink ``sink_spec``; a row per part file) or
    ``none`` (rows are only counted).
    """

    index: int
    layout: str
    name: str
    type_info: Any = None
    key_selector: Any = None
    key_type: Any = None
    encoder: Any = None
    declared_by: str | None = None  # the operator that declared ``type_info``
    assigner: str | None = None  # uid of the timestamp assigner on the way to this exit in the stage
    idleness_ms: int | None = None  # that assigner's ``with_idleness``
    print_identifier: str | None = None  # ``string`` layout: print()'s sink identifier
    print_parallelism: int = 1  # ``string`` layout: the print sink's parallelism (> 1: ``n> `` prefixes)
    # a one-step job's ``keyed`` layout: rows carry the key's subtask, elements their place; an
    # exchange (``distribution``): rows carry their processing time (``__read``)
    one_step: bool = False
    parallelism: int = 1  # ``keyed`` layout: the keyed operator's parallelism
    max_parallelism: int = 128  # ``keyed`` layout: the keyed operator's max parallelism (key groups)
    distribution: Any = None  # ``stream`` layout into an exchange: how elements spread (kindling/runtime/partitioners.py)
    sink_spec: Any = None  # ``produced`` layout: the KafkaSinkSpec; ``columns``, ``written``: the FileSinkSpec
    buffer: Any = None  # ``produced``, ``written``: the connector's exit buffer class (kindling/spark/connectors.py)

    def line_prefix(self, subtask: int) -> str:
        """What Flink's print sink writes before an element printed by ``subtask`` (0-based):
        ``n> `` (``id:n> `` with an identifier) when the sink is parallel, else ``id> `` or nothing."""
        ident = self.print_identifier
        if self.print_parallelism > 1:
            number = subtask % self.print_parallelism + 1
            return f"{ident}:{number}> " if ident else f"{number}> "
        return f"{ident}> " if ident else ""

    def value_fields(self) -> list[StructField]:
        if self.layout == "keyed":
            fields = [StructField(KEY, BinaryType()), StructField(ELEMENTS, BinaryType())]
            return fields + [StructField(SUBTASK, IntegerType())] if self.one_step else fields
        if self.layout == "stream":
            fields = list(codec_for(self.type_info).fields)
            if self.distribution is None:
                return fields
            read = [StructField(READ_MS, LongType())] if self.one_step else []
            return fields + [StructField(PART, BinaryType())] + read
        if self.layout == "columns":
            return list(codec_for(self.sink_spec.columns_type).fields)
        if self.layout == "string":
            return [StructField("f0", StringType())]
        if self.layout in ("encoded", "pickled"):
            return [StructField("f0", BinaryType())]
        if self.layout == "produced":
            return [StructField(PRODUCED, LongType())]
        if self.layout == "written":
            return [StructField(WRITTEN_FILE, StringType()), StructField(WRITTEN_COUNT, LongType())]
        return []

    @property
    def carries_control(self) -> bool:
        """Whether end-of-input control rows leave through this exit (not to sinks)."""
        return self.layout in ("stream", "keyed")

    def prefixed(self, name: str) -> str:
        return f"x{self.index}__{name}"


def stage_schema(exits: list[ExitPlan]) -> StructType:
    fields = [StructField(EXIT, IntegerType())]
    for ex in exits:
        fields.extend(StructField(ex.prefixed(f.name), f.dataType, True) for f in ex.value_fields())
    return StructType(fields + TIME_FIELDS)


@dataclass(eq=False)
class StagePlan:
    """Everything a stage needs in a Spark task; pickled with the task."""

    name: str
    roots: list[ChainNode] = field(default_factory=list)  # consumers of the stage input (main output)
    side_roots: dict[str, list[ChainNode]] = field(default_factory=dict)  # keyed roots: consumers of side outputs
    root_exits: list[int] = field(default_factory=list)  # exits fed directly by the stage input
    side_root_exits: dict[str, list[int]] = field(default_factory=dict)
    exits: list[ExitPlan] = field(default_factory=list)
    timed_exits: set[int] = field(default_factory=set)
    input_type: Any = None
    job_parameters: dict = field(default_factory=dict)
    parallelism: int = 1  # the stage's operators' (all of them: a stage is a Flink chain)
    max_parallelism: int | None = None  # a keyed stage's key groups (None: Flink's default for the parallelism)
    # -- event time (STREAMING mode) --
    uid: str = ""
    channels: bool = False  # report channels and pass control rows on (STREAMING mode)
    reads_source: bool = False  # the input is a source: a task reads (a part of) one split
    source: Any = None  # that source's spec, which names a failing row's position
    shuffle_partitions: int = 1  # of the keyed operators this stage feeds
    key_type: Any = None  # a keyed stage: the key_type of its key_by (which subtask Flink gives a key)
    watermark_interval_ms: int = 200
    per_element_watermarks: bool = False
    bundle_time_ms: int = 1000  # python.fn-execution.bundle.time: a bundle's time (one-step jobs)
    bundle_size: int = 100_000  # python.fn-execution.bundle.size: a bundle's elements (one-step jobs)
    metrics: Any = None  # the job's accumulator of user metrics (kindling.spark.metrics)

    def schema(self) -> StructType:
        return stage_schema(self.exits)
