"""Which Spark translation runs each source and sink spec of the job graph: one entry per spec
type, as Beam's runners map each transform to its translation. Each connector's translation is in
its own module; this table is the one place that names them all (so no connector module imports
another, or the compiler).

A source's translation gives its frame (``frame(compiler, node)``: the source's rows) and, for
connectors whose reading tasks also run the source's stage (no Python pass of their own), that
stage's frame (``stage_frame(compiler, node, plan)``; None where it does not apply, e.g. in a
streaming job); for sources the driver can split among the instances of the stage behind an
exchange (a collection), that stage's frame, each instance reading its share itself
(``exchange_frame(compiler, node, distribution, plan)``, None where it does not apply). A sink's
translation gives its writer and, for connectors whose records the stage computing them can write
itself, the exit and exit buffer that do it (``in_stage(spec, sink_count)`` says when).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from pyspark.sql import DataFrame

from kindling.graph.specs import (ChangesSourceSpec, CollectionSourceSpec, CollectSinkSpec, DataGenSourceSpec,
                                  DiscardSinkSpec, FileSinkSpec, FileSourceSpec, JdbcSinkSpec, JdbcSourceSpec,
                                  KafkaSinkSpec, KafkaSourceSpec, PrintSinkSpec, RelationalSourceSpec,
                                  SequenceSourceSpec, SocketTextSourceSpec)
from kindling.spark import file_sink, files, jdbc, kafka, sources
from kindling.spark.sinks import CollectWriter, DiscardWriter, PrintWriter, SinkWriter
from kindling.spark.stage_plan import ProducedExit, WrittenExit
from kindling.spark.table import aggregation, join, semi_join, translate


@dataclass(frozen=True)
class SourceTranslation:
    frame: Callable[[Any, Any], DataFrame]
    stage_frame: Callable[[Any, Any, Any], DataFrame | None] | None = None
    exchange_frame: Callable[[Any, Any, Any, Any], DataFrame | None] | None = None


@dataclass(frozen=True)
class SinkTranslation:
    writer: Callable[[Any], SinkWriter]
    stage_exit: type | None = None  # the exit of a stage writing the records itself (kindling/spark/stage_plan.py)
    stage_buffer: type | None = None  # that exit's buffer (kindling/spark/exit_buffers.py)
    in_stage: Callable[[Any, int], bool] | None = None  # (spec, the job's sink count): whether the stage writes
    # the writer writes through a job of its own (a group aggregation's: the operators and sinks after it)
    writes_through_job: bool = False


SOURCES: dict[type, SourceTranslation] = {
    CollectionSourceSpec: SourceTranslation(sources.collection_frame, sources.collection_stage_frame,
                                             sources.collection_exchange_frame),
    SequenceSourceSpec: SourceTranslation(sources.sequence_frame),
    FileSourceSpec: SourceTranslation(sources.kindling_source_frame, files.file_source_stage_frame),
    DataGenSourceSpec: SourceTranslation(sources.kindling_source_frame, sources.generated_source_stage_frame),
    SocketTextSourceSpec: SourceTranslation(sources.kindling_source_frame),
    JdbcSourceSpec: SourceTranslation(sources.kindling_source_frame),
    KafkaSourceSpec: SourceTranslation(kafka.kafka_source_frame, kafka.kafka_source_stage_frame),
    RelationalSourceSpec: SourceTranslation(translate.relational_source_frame),
    ChangesSourceSpec: SourceTranslation(aggregation.changes_frame),
}

SINKS: dict[type, SinkTranslation] = {
    PrintSinkSpec: SinkTranslation(PrintWriter),
    CollectSinkSpec: SinkTranslation(CollectWriter),
    DiscardSinkSpec: SinkTranslation(lambda spec: DiscardWriter()),
    FileSinkSpec: SinkTranslation(file_sink.FileWriter, WrittenExit, file_sink.PartFileExitBuffer,
                                  file_sink.writes_in_stage),
    KafkaSinkSpec: SinkTranslation(kafka.KafkaWriter, ProducedExit, kafka.ProducingExitBuffer, kafka.produces_in_stage),
    JdbcSinkSpec: SinkTranslation(jdbc.JdbcWriter),
    aggregation.AggregationSinkSpec: SinkTranslation(aggregation.AggregationWriter, writes_through_job=True),
    join.JoinSideSinkSpec: SinkTranslation(semi_join.join_side_writer, writes_through_job=True),
}


def _registered(table: dict, spec: Any, kind: str) -> Any:
    for cls in type(spec).__mro__:
        if cls in table:
            return table[cls]
    raise TypeError(f"Kindling has no Spark translation for the {kind} {spec!r}")


def source_translation(spec: Any) -> SourceTranslation:
    return _registered(SOURCES, spec, "source")


def sink_translation(spec: Any) -> SinkTranslation:
    return _registered(SINKS, spec, "sink")


def writer_for(spec: Any, compiler: type) -> SinkWriter:
    """The writer of a sink; ``compiler`` compiles the job a writer writes through (a group
    aggregation's: the operators and sinks after it)."""
    translation = sink_translation(spec)
    if translation.writes_through_job:
        return translation.writer(spec, compiler, lambda downstream: writer_for(downstream, compiler))
    return translation.writer(spec)
