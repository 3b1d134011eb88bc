"""What a stage is, as plain data pickled with its Spark tasks: its chain (``StagePlan``) and
where elements leave it and how they are encoded (``ExitPlan``, one subclass per layout)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from pyspark.sql.types import BinaryType, IntegerType, LongType, StringType, StructField, StructType

from kindling.spark.rows import ELEMENTS, EXIT, KEY, PART, PRODUCED, READ_MS, SUBTASK, TIME_FIELDS, WRITTEN_COUNT, \
    WRITTEN_FILE

if TYPE_CHECKING:  # unpickling a plan (every keyed operator's state-schema runner does) needs neither
    from kindling.runtime.chain import ChainNode


@dataclass(eq=False)
class ExitPlan:
    """Where elements leave a stage and how they are encoded: a tagged union, one subclass per
    ``layout`` (its tag), each with the fields its layout needs. What every exit has: its index in
    the stage, its consumer's name, the stream's type, and the timestamp assigner on its way."""

    layout: ClassVar[str]
    carries_control: ClassVar[bool] = False  # whether end-of-input control rows leave through it (not to sinks)

    index: int
    name: str
    type_info: Any = None
    declared_by: str | None = None  # the operator that declared ``type_info``
    assigner: str | None = None  # uid of the timestamp assigner on the way to this exit in the stage
    idleness_ms: int | None = None  # that assigner's ``with_idleness``

    def value_fields(self) -> list[StructField]:
        return []

    def prefixed(self, name: str) -> str:
        return f"x{self.index}__{name}"


@dataclass(eq=False)
class StreamExit(ExitPlan):
    """To another stage (a union): the codec of ``type_info``. Into an exchange (``distribution``:
    how elements spread, kindling/runtime/partitioners.py) each row also names the instance it goes
    to (``__part``) and, in a one-step job, its processing time (``__read``)."""

    layout: ClassVar[str] = "stream"
    carries_control: ClassVar[bool] = True
    distribution: Any = None
    one_step: bool = False

    def value_fields(self) -> list[StructField]:
        from kindling.spark.codec import codec_for

        fields = list(codec_for(self.type_info).fields)
        if self.distribution is None:
            return fields
        read = [StructField(READ_MS, LongType())] if self.one_step else []
        return fields + [StructField(PART, BinaryType())] + read


@dataclass(eq=False)
class KeyedExit(ExitPlan):
    """To a keyed operator (``parallelism`` instances, ``max_parallelism`` key groups): a row per key
    (``__key`` from ``key_selector``) holding its elements pickled; in a one-step job the row also
    names the key's subtask, and each element its place."""

    layout: ClassVar[str] = "keyed"
    carries_control: ClassVar[bool] = True
    key_selector: Any = None
    key_type: Any = None
    parallelism: int = 1
    max_parallelism: int = 128
    one_step: bool = False

    def value_fields(self) -> list[StructField]:
        fields = [StructField(KEY, BinaryType()), StructField(ELEMENTS, BinaryType())]
        return fields + [StructField(SUBTASK, IntegerType())] if self.one_step else fields


@dataclass(eq=False)
class CountedExit(ExitPlan):
    """To a sink that takes no values: rows are only counted."""

    layout: ClassVar[str] = "none"


@dataclass(eq=False)
class PickledExit(ExitPlan):
    """To a sink taking Python values: each pickled."""

    layout: ClassVar[str] = "pickled"

    def value_fields(self) -> list[StructField]:
        return [StructField("f0", BinaryType())]


@dataclass(eq=False)
class CollectedExit(ExitPlan):
    """To a sink on the driver taking Python values (``execute_and_collect``): a row per flush of
    the stage holding its elements pickled as one list, so the driver reads a few rows, not one
    Spark row (and its conversions) per element."""

    layout: ClassVar[str] = "collected"

    def value_fields(self) -> list[StructField]:
        return [StructField("f0", BinaryType())]


@dataclass(eq=False)
class EncodedExit(ExitPlan):
    """To a sink taking bytes: each element encoded by the sink's ``encoder``."""

    layout: ClassVar[str] = "encoded"
    encoder: Any = None

    def value_fields(self) -> list[StructField]:
        return [StructField("f0", BinaryType())]


@dataclass(eq=False)
class PrintExit(ExitPlan):
    """To print(): each element as Flink's toString, after the prefix Flink's print sink writes."""

    layout: ClassVar[str] = "string"
    print_identifier: str | None = None  # print()'s sink identifier
    print_parallelism: int = 1  # the print sink's parallelism (> 1: ``n> `` prefixes)

    def value_fields(self) -> list[StructField]:
        return [StructField("f0", StringType())]

    def line_prefix(self, subtask: int) -> str:
        """What Flink's print sink writes before an element printed by ``subtask`` (0-based):
        ``n> `` (``id:n> `` with an identifier) when the sink is parallel, else ``id> `` or nothing."""
        ident = self.print_identifier
        if self.print_parallelism > 1:
            number = subtask % self.print_parallelism + 1
            return f"{ident}:{number}> " if ident else f"{number}> "
        return f"{ident}> " if ident else ""


@dataclass(eq=False)
class ColumnsExit(ExitPlan):
    """To a columnar file writer: the columns of the row type ``sink_spec.columns_type``."""

    layout: ClassVar[str] = "columns"
    sink_spec: Any = None

    def value_fields(self) -> list[StructField]:
        from kindling.spark.codec import codec_for

        return list(codec_for(self.sink_spec.columns_type).fields)


@dataclass(eq=False)
class ConnectorExit(ExitPlan):
    """To a sink whose records the stage writes itself, through the connector's exit buffer class
    ``buffer`` (kindling/spark/connectors.py)."""

    sink_spec: Any = None
    buffer: Any = None


@dataclass(eq=False)
class ProducedExit(ConnectorExit):
    """The stage sends the elements to the KafkaSink ``sink_spec``; a row per task counts them."""

    layout: ClassVar[str] = "produced"

    def value_fields(self) -> list[StructField]:
        return [StructField(PRODUCED, LongType())]


@dataclass(eq=False)
class WrittenExit(ConnectorExit):
    """The stage writes the elements into in-progress part files of the FileSink ``sink_spec``;
    a row per part file."""

    layout: ClassVar[str] = "written"

    def value_fields(self) -> list[StructField]:
        return [StructField(WRITTEN_FILE, StringType()), StructField(WRITTEN_COUNT, LongType())]


def sink_exit(spec: Any, index: int, name: str, type_info: Any, parallelism: int) -> ExitPlan:
    """The exit of a stream into a sink that the job's sink pass writes, by the sink's ``layout``."""
    if spec.layout == "string":
        return PrintExit(index, name, type_info, print_identifier=getattr(spec, "identifier", None), print_parallelism=parallelism)
    if spec.layout == "encoded":
        return EncodedExit(index, name, type_info, encoder=getattr(spec, "encoder", None))
    if spec.layout == "columns":
        return ColumnsExit(index, name, type_info, sink_spec=spec)
    if spec.layout == "pickled":
        return PickledExit(index, name, type_info)
    if spec.layout == "collected":
        return CollectedExit(index, name, type_info)
    return CountedExit(index, name, type_info)


def one_step_exits(exits: list[ExitPlan]) -> bool:
    """Whether a stage's exits are a one-step job's (kindling/spark/one_step.py)."""
    return any(isinstance(ex, (StreamExit, KeyedExit)) and ex.one_step for ex in exits)


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
