"""Compiles a job graph into one Spark DataFrame feeding the job's sinks.

Stateless transformations between two "stage roots" (a source, a union, a keyed
operator) are fused into one Python pass. Each stage emits its "exits" (streams leaving
it: to a keyed operator, a union or a sink) tagged in one DataFrame; the sinks' exits are
unioned into the single DataFrame the runner writes with ``foreachBatch``.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from kindling.graph.specs import SequenceSourceSpec
from kindling.graph.transformation import (
    ChainedTransformation,
    KeyByTransformation,
    KeyedTransformation,
    SideOutputTransformation,
    SinkTransformation,
    SourceTransformation,
    Transformation,
    UnionTransformation,
    upstream_graph,
)
from kindling.runtime.chain import ChainNode
from kindling.spark.sources import FORMAT, KindlingSource, SourcePlan, encode_option
from kindling.spark.stage import EXIT, TS, WM, ExitPlan, StagePlan, arrow_stage_function

SINK = "__sink"
ROOT_KINDS = (SourceTransformation, UnionTransformation, KeyedTransformation)


@dataclass
class CompiledSink:
    """A sink of the job: its rows in the final DataFrame are those with ``__sink == index``
    (all rows when ``filtered`` is False), its value columns named by ``columns``
    (sink column name -> column of the final DataFrame)."""

    index: int
    node: SinkTransformation
    columns: dict[str, str]
    filtered: bool = True

    def select(self, df: DataFrame) -> DataFrame:
        part = df.filter(F.col(SINK) == self.index) if self.filtered else df
        if not self.columns:
            return part  # only counted
        return part.select([F.col(src).alias(name) for name, src in self.columns.items()])


@dataclass
class CompiledJob:
    df: DataFrame
    sinks: list[CompiledSink]
    streaming: bool
    bounded: bool
    late_records: dict = field(default_factory=dict)


class Compiler:
    """Turns the transformations behind ``sinks`` into Spark DataFrames."""

    def __init__(self, spark: SparkSession, sinks: list[SinkTransformation], streaming: bool,
                 parallelism: int, job_parameters: dict | None = None, job_id: str = "job"):
        self.spark = spark
        self.sinks = sinks
        self.streaming = streaming
        self.parallelism = parallelism
        self.job_parameters = job_parameters or {}
        self.job_id = job_id
        self.nodes = upstream_graph(sinks)
        self.consumers: dict[int, list[Transformation]] = defaultdict(list)
        for node in self.nodes:
            for parent in node.inputs:
                self.consumers[parent.id].append(node)
        self.root_of: dict[int, Transformation] = {}
        for node in self.nodes:
            self.root_of[node.id] = node if isinstance(node, ROOT_KINDS) else self.root_of[node.inputs[0].id]
        self.timed: dict[int, bool] = {}
        for node in self.nodes:
            if isinstance(node, SourceTransformation):
                self.timed[node.id] = False
            elif isinstance(node, KeyedTransformation):
                self.timed[node.id] = True
            elif isinstance(node, ChainedTransformation) and node.operation == "timestamps":
                self.timed[node.id] = True
            else:
                self.timed[node.id] = any(self.timed[p.id] for p in node.inputs)
        self.plans: dict[int, StagePlan] = {}
        self.exit_of: dict[tuple[int, int], ExitPlan] = {}  # (producer node id, consumer node id) -> exit
        self.stage_frames: dict[int, DataFrame] = {}
        self.late_records: dict[str, Any] = {}  # keyed operator name -> accumulator of late elements dropped

    # -- planning ---------------------------------------------------------------------
    def _plan(self, root: Transformation) -> StagePlan:
        plan = self.plans.get(root.id)
        if plan is None:
            plan = StagePlan(name=root.name, input_type=root.type_info, job_parameters=self.job_parameters,
                             parallelism=self.parallelism)
            self.plans[root.id] = plan
        return plan

    def plan_stages(self) -> None:
        chain_nodes: dict[int, ChainNode] = {}
        for node in self.nodes:
            if isinstance(node, ChainedTransformation):
                chain_nodes[node.id] = ChainNode(uid=f"{self.job_id}/{node.id}", name=node.name,
                                                 operation=node.operation, function=node.function)
        for node in self.nodes:
            if isinstance(node, ROOT_KINDS):
                self._plan(node)
        for node in self.nodes:
            if isinstance(node, ChainedTransformation):
                self._attach(node.inputs[0], chain_nodes, child=chain_nodes[node.id])
            elif isinstance(node, (SinkTransformation, KeyByTransformation)):
                self._add_exit(node.inputs[0], node, chain_nodes)
            elif isinstance(node, UnionTransformation):
                for parent in node.inputs:
                    self._add_exit(parent, node, chain_nodes)

    def _declarer(self, node: Transformation) -> str:
        """The name of the operation that declared ``node``'s type (a filter keeps its input's)."""
        while isinstance(node, (ChainedTransformation, KeyByTransformation)) and \
                getattr(node, "operation", "filter") in ("filter", "timestamps", "sink_function"):
            node = node.inputs[0]
        return node.name

    def _add_exit(self, producer: Transformation, consumer: Transformation, chain_nodes: dict) -> None:
        plan = self._plan(self.root_of[producer.id])
        stream_type = producer.type_info
        if isinstance(consumer, SinkTransformation):
            spec = consumer.sink
            exit_plan = ExitPlan(index=len(plan.exits), layout=spec.layout, name=consumer.name,
                                 type_info=stream_type, encoder=getattr(spec, "encoder", None))
        elif isinstance(consumer, KeyByTransformation):
            exit_plan = ExitPlan(index=len(plan.exits), layout="keyed", name=consumer.name, type_info=stream_type,
                                 key_selector=consumer.key_selector, key_type=consumer.key_type)
        else:
            exit_plan = ExitPlan(index=len(plan.exits), layout="stream", name=consumer.name, type_info=stream_type)
        exit_plan.declared_by = self._declarer(producer)
        plan.exits.append(exit_plan)
        if self.timed[producer.id]:
            plan.timed_exits.add(exit_plan.index)
        self.exit_of[(producer.id, consumer.id)] = exit_plan
        self._attach(producer, chain_nodes, exit_index=exit_plan.index)

    def _attach(self, producer: Transformation, chain_nodes: dict, child: ChainNode | None = None,
                exit_index: int | None = None) -> None:
        """Connects a chained child or an exit to the output of ``producer``."""
        plan = self._plan(self.root_of[producer.id])
        if isinstance(producer, SideOutputTransformation):
            source = producer.inputs[0]
            tag = producer.tag_id
            if isinstance(source, ChainedTransformation):
                target = chain_nodes[source.id]
                children, exits = target.side_children, target.side_exits
            elif isinstance(source, KeyedTransformation):
                children, exits = plan.side_roots, plan.side_root_exits
            else:
                return  # sources and unions emit no side outputs: the side stream is empty
            if child is not None:
                children.setdefault(tag, []).append(child)
            else:
                exits.setdefault(tag, []).append(exit_index)
        elif isinstance(producer, ChainedTransformation):
            target = chain_nodes[producer.id]
            if child is not None:
                target.children.append(child)
            else:
                target.exits.append(exit_index)
        elif isinstance(producer, KeyByTransformation):
            self._attach(producer.inputs[0], chain_nodes, child, exit_index)
        else:
            if child is not None:
                plan.roots.append(child)
            else:
                plan.root_exits.append(exit_index)

    # -- Spark plans ------------------------------------------------------------------
    def compile(self) -> CompiledJob:
        self.plan_stages()
        if not getattr(self.spark, "_kindling_source_registered", False):
            self.spark.dataSource.register(KindlingSource)
            self.spark._kindling_source_registered = True
        bounded = all(n.source.bounded for n in self.nodes if isinstance(n, SourceTransformation))
        if len(self.sinks) == 1:
            # One sink reads its stage's output as it is: no projection, no union.
            sink = self.sinks[0]
            exit_plan = self.exit_of[(sink.inputs[0].id, sink.id)]
            df = self.stage_output(sink.inputs[0], exit_plan)
            columns = {f.name: exit_plan.prefixed(f.name) for f in exit_plan.value_fields()}
            return CompiledJob(df, [CompiledSink(0, sink, columns, filtered=False)], self.streaming, bounded,
                               self.late_records)
        frames = []
        compiled_sinks = []
        for i, sink in enumerate(self.sinks):
            exit_df = self.exit_frame(sink.inputs[0], sink)
            exit_plan = self.exit_of[(sink.inputs[0].id, sink.id)]
            names = [f.name for f in exit_plan.value_fields()]
            frames.append(exit_df.select([F.lit(i).alias(SINK)] + [F.col(c).alias(f"s{i}__{c}") for c in names]))
            compiled_sinks.append(CompiledSink(i, sink, {c: f"s{i}__{c}" for c in names}))
        df = frames[0]
        for other in frames[1:]:
            df = df.unionByName(other, allowMissingColumns=True)
        return CompiledJob(df, compiled_sinks, self.streaming, bounded, self.late_records)

    def stage_output(self, producer: Transformation, exit_plan: ExitPlan) -> DataFrame:
        """The output of ``producer``'s stage, restricted to the rows of one of its exits."""
        root = self.root_of[producer.id]
        out = self.stage_frame(root)
        if len(self.plans[root.id].exits) > 1:
            out = out.filter(F.col(EXIT) == exit_plan.index)
        return out

    def exit_frame(self, producer: Transformation, consumer: Transformation) -> DataFrame:
        """The stream ``producer`` sends to ``consumer``: the exit's value columns, __ts, __wm (and __key)."""
        exit_plan = self.exit_of[(producer.id, consumer.id)]
        out = self.stage_output(producer, exit_plan)
        return out.select([F.col(exit_plan.prefixed(f.name)).alias(f.name) for f in exit_plan.value_fields()] + [TS, WM])

    def stage_frame(self, root: Transformation) -> DataFrame:
        df = self.stage_frames.get(root.id)
        if df is not None:
            return df
        plan = self.plans[root.id]
        if isinstance(root, SourceTransformation):
            df = self.source_frame(root).mapInArrow(arrow_stage_function(plan), plan.schema())
        elif isinstance(root, UnionTransformation):
            parts = [self.exit_frame(p, root) for p in root.inputs]
            union = parts[0]
            for part in parts[1:]:
                union = union.unionByName(part)
            df = union.mapInArrow(arrow_stage_function(plan), plan.schema())
        else:
            from kindling.spark.keyed import keyed_stage_frame

            key_by = root.inputs[0]
            df = keyed_stage_frame(self, root, self.exit_frame(key_by.inputs[0], key_by), plan)
        self.stage_frames[root.id] = df
        return df

    def source_frame(self, node: SourceTransformation) -> DataFrame:
        spec = node.source
        if isinstance(spec, SequenceSourceSpec) and not self.streaming:
            return self.spark.range(spec.start, spec.end + 1, numPartitions=self.parallelism).withColumnRenamed("id", "f0")
        source_plan = SourcePlan(node.source, node.type_info, self.parallelism, self.streaming)
        reader = self.spark.readStream if self.streaming else self.spark.read
        return reader.format(FORMAT).option("plan", encode_option(source_plan)).load()
