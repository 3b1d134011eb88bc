"""Compiles a job graph into one Spark DataFrame feeding the job's sinks.

Stateless transformations between two "stage roots" (a source, a union, a keyed
operator) are fused into one Python pass. Each stage emits its "exits" (streams leaving
it: to a keyed operator, a union or a sink) tagged in one DataFrame; the sinks' exits are
unioned into the single DataFrame the runner writes with ``foreachBatch``.
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from kindling.common.configuration import positive_integer
from kindling.common.time import duration_millis
from kindling.graph.parallelism import parallelism_of
from kindling.graph.specs import RelationalSourceSpec
from kindling.graph.transformation import (
    ChainedTransformation,
    KeyByTransformation,
    KeyedTransformation,
    PartitionTransformation,
    SideOutputTransformation,
    SinkTransformation,
    SourceTransformation,
    Transformation,
    UnionTransformation,
    upstream_graph,
)
from kindling.runtime.chain import ChainNode
from kindling.runtime.co_functions import BroadcastProcessAdapter
from kindling.runtime.key_groups import compute_default_max_parallelism
from kindling.runtime.partitioners import Distribution
from kindling.spark.broadcast import BroadcastHandOff
from kindling.spark.connectors import sink_translation, source_translation
from kindling.spark.keyed import keyed_stage_frame
from kindling.spark.lowering import lower
from kindling.spark.metrics import MaxParam, MetricsParam
from kindling.spark.session import scratch_dir
from kindling.spark.sources import SourcePlan, WatermarkHandOff
from kindling.spark.spine import SINKS, Host, any_of, carry_column, carry_key, host_for, plan_spine
from kindling.spark.run_mode import RunMode
from kindling.spark.rows import CHANNEL, EXIT, KEY, PART, TIME_FIELDS, TS, WM
from kindling.spark.stage import arrow_stage_function
from kindling.spark.stage_plan import ExitPlan, KeyedExit, StagePlan, StreamExit, one_step_exits, sink_exit
from kindling.spark.table.join import JoinSideSinkSpec, streamed_pairs

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


def _writes_timestamps(node: Transformation) -> bool:
    """Whether ``node`` is a sink that writes each element's timestamp (a ``__ts`` column), as
    Flink's KafkaSink does (its spec says ``writes_timestamps``)."""
    return getattr(getattr(node, "sink", None), "writes_timestamps", False)


@dataclass
class CompiledJob:
    df: DataFrame
    sinks: list[CompiledSink]
    mode: RunMode
    bounded: bool
    late_records: dict = field(default_factory=dict)
    handoff: WatermarkHandOff | None = None  # unbounded event-time jobs: watermark back to the sources
    metrics: Any = None  # accumulator of the user metrics (kindling.spark.metrics)
    broadcasts: list = field(default_factory=list)  # BroadcastHandOffs of broadcast operators
    persisted: list = field(default_factory=list)  # frames with several readers, kept for one batch job
    joins_in_query: list = field(default_factory=list)  # names of the joins Spark's stream-stream join computes
    keyed_in_query: bool = False  # whether the query has keyed operators (transformWithState: Spark's RocksDB store)

    @property
    def streaming(self) -> bool:
        """Whether the job is a Spark streaming query."""
        return self.mode.micro_batches

    def after_batch(self, batch_id: int) -> None:
        """The runner calls this after each micro-batch (on the driver)."""
        if self.handoff is not None:
            self.handoff.after_batch(batch_id)
        for broadcast in self.broadcasts:
            broadcast.after_batch()

    def close(self) -> None:
        """The runner calls this when the job ends, however it ends."""
        if self.handoff is not None:
            self.handoff.close()
        for broadcast in self.broadcasts:
            broadcast.close()
        for frame in self.persisted:
            frame.unpersist()


@dataclass(frozen=True)
class TimeSettings:
    """When sources emit watermarks: every ``interval_ms`` of processing time (Flink's
    ``pipeline.auto-watermark-interval``; 0: only at the end of input), or after every
    element (``kindling.watermark.per-element``, deterministic, for tests of lateness); and when
    a Python operator that emits per bundle ends one in a one-step job (after ``bundle_time_ms``
    or ``bundle_size`` elements: ``python.fn-execution.bundle.time`` and ``.bundle.size``)."""

    interval_ms: int = 200
    per_element: bool = False
    bundle_time_ms: int = 1000
    bundle_size: int = 100_000

    @staticmethod
    def of(env) -> "TimeSettings":
        configuration = env.get_configuration()
        interval = env.get_config().get_auto_watermark_interval()
        text = configuration.get_string("pipeline.auto-watermark-interval", "")
        if text and interval == 200:  # the configuration key, unless set_auto_watermark_interval changed it
            interval = duration_millis(text, "pipeline.auto-watermark-interval")
        return TimeSettings(interval, configuration.get_boolean("kindling.watermark.per-element", False),
                            positive_integer(configuration, "python.fn-execution.bundle.time", 1000),
                            positive_integer(configuration, "python.fn-execution.bundle.size", 100_000))


class Compiler:
    """Turns the transformations behind ``sinks`` into Spark DataFrames."""

    def __init__(self, spark: SparkSession, sinks: list[SinkTransformation], mode: RunMode,
                 parallelism: int, job_parameters: dict | None = None, job_id: str = "job",
                 time_settings: TimeSettings | None = None, max_parallelism: int = -1):
        self.spark = spark
        self.max_parallelism = max_parallelism  # the environment's (-1: each keyed operator's default)
        self.time = time_settings or TimeSettings()
        self.sinks = sinks = lower(sinks, parallelism, batch=mode is RunMode.BATCH)
        self.mode = mode
        streaming = self.streaming
        self.parallelism = parallelism  # the job's default; each operator's: parallelism_of
        self.job_parameters = job_parameters or {}
        self.source_batch_records = 0  # set by the runner: kindling.source.max-records-per-batch (0: no limit)
        self.source_batch_files = 0  # set by the runner: kindling.source.max-files-per-batch (0: no limit)
        self.job_id = job_id
        self.nodes = upstream_graph(sinks)
        self.by_id = {node.id: node for node in self.nodes}
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
        self.hosts: dict[int, list[Host]] = {}  # stage root id -> the frames holding its rows (kindling/spark/spine.py)
        self.carried: dict[int, list[int]] = {}  # carrier root id -> the stage frames it carries
        self.readers: dict[int, set] = {}  # stage root id -> the stages (or SINKS) reading its frame
        self.persisted: list[DataFrame] = []
        self.late_records: dict[str, Any] = {}  # keyed operator name -> accumulator of late elements dropped
        self.metrics = spark.sparkContext.accumulator({}, MetricsParam())  # user metrics of every task
        self.watermarks: dict[str, Any] = {}  # keyed operator name -> accumulator of its watermark (event time)
        self.bounded = all(n.source.bounded for n in self.nodes if isinstance(n, SourceTransformation))
        self.handoff = WatermarkHandOff(self.watermarks) if streaming and not self.bounded else None
        self.shuffle_partitions = int(spark.conf.get("spark.sql.shuffle.partitions", "200")) if streaming else 1
        self.broadcasts: list = []
        # BATCH: the key-bys into a broadcast operator, which runs a parallel instance per Spark group
        self.per_subtask_key_bys = set() if streaming else {
            key_by.id for n in self.nodes if isinstance(n, KeyedTransformation)
            and isinstance(n.function, BroadcastProcessAdapter) for key_by in n.inputs}

    @property
    def streaming(self) -> bool:
        """Whether the job is a Spark streaming query (else one Spark batch job)."""
        return self.mode.micro_batches

    # -- planning ---------------------------------------------------------------------
    def parallelism_of(self, node: Transformation) -> int:
        """How many parallel instances ``node`` runs (kindling/graph/parallelism.py)."""
        return parallelism_of(node, self.parallelism)

    def max_parallelism_of(self, keyed: KeyedTransformation) -> int:
        """A keyed operator's number of key groups: its ``set_max_parallelism``, else the environment's,
        else Flink's default for its parallelism (128 up to parallelism 85)."""
        parallelism = self.parallelism_of(keyed)
        most = keyed.max_parallelism or (self.max_parallelism if self.max_parallelism > 0 else
                                         compute_default_max_parallelism(parallelism))
        if parallelism > most:
            raise ValueError(f"operator '{keyed.name}' has parallelism {parallelism}, above its max parallelism "
                             f"{most}: lower the parallelism or raise the max parallelism (set_max_parallelism)")
        return most

    def _plan(self, root: Transformation) -> StagePlan:
        plan = self.plans.get(root.id)
        if plan is None:
            source = isinstance(root, SourceTransformation)
            keyed = isinstance(root, KeyedTransformation)
            plan = StagePlan(name=root.name, input_type=root.type_info, job_parameters=self.job_parameters,
                             parallelism=self.parallelism_of(root),
                             max_parallelism=self.max_parallelism_of(root) if keyed else None,
                             uid=f"{self.job_id}/{root.id}",
                             channels=self.streaming, reads_source=source,
                             source=root.source if source else None,
                             shuffle_partitions=self.shuffle_partitions,
                             watermark_interval_ms=self.time.interval_ms,
                             per_element_watermarks=self.time.per_element,
                             bundle_time_ms=self.time.bundle_time_ms, bundle_size=self.time.bundle_size,
                             key_type=root.inputs[0].key_type if keyed else None,
                             metrics=self.metrics)
            self.plans[root.id] = plan
        return plan

    def broadcast_handoff(self) -> Any:
        """The driver's side of a broadcast operator's states (kindling/spark/broadcast.py)."""
        handoff = BroadcastHandOff(self.spark, scratch_dir())
        self.broadcasts.append(handoff)
        return handoff

    def watermark_accumulator(self, name: str) -> Any:
        """A Spark accumulator (max) of a keyed operator's watermark, read by the hand-off."""
        accumulator = self.spark.sparkContext.accumulator(None, MaxParam())
        self.watermarks[name] = accumulator
        return accumulator

    def _assigner(self, producer: Transformation) -> ChainedTransformation | None:
        """The timestamp assigner nearest upstream of ``producer`` within its stage."""
        node = producer
        while not isinstance(node, ROOT_KINDS):
            if isinstance(node, ChainedTransformation) and node.operation == "timestamps":
                return node
            node = node.inputs[0]
        return None

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
        self.readers = defaultdict(set)
        for (producer_id, consumer_id) in self.exit_of:
            consumer = self.by_id[consumer_id]
            readers = self.readers[self.root_of[producer_id].id]
            if isinstance(consumer, SinkTransformation):
                readers.add(SINKS)
            elif isinstance(consumer, KeyByTransformation):
                readers.update(c.id for c in self.consumers[consumer_id] if isinstance(c, KeyedTransformation))
            else:
                readers.add(consumer_id)
        self.hosts, self.carried = plan_spine(
            [n.id for n in self.nodes if isinstance(n, ROOT_KINDS)], self.readers,
            lambda r: self.streaming and isinstance(self.by_id[r], (KeyedTransformation, UnionTransformation)),
            self._depends_on)

    def _depends_on(self, node_id: int, other_id: int) -> bool:
        """Whether node ``node_id`` reads the output of ``other_id``, directly or not."""
        stack, seen = [self.by_id[node_id]], set()
        while stack:
            node = stack.pop()
            for parent in node.inputs:
                if parent.id == other_id:
                    return True
                if parent.id not in seen:
                    seen.add(parent.id)
                    stack.append(parent)
        return False

    def _declarer(self, node: Transformation) -> str:
        """The name of the operation that declared ``node``'s type (a filter keeps its input's)."""
        while isinstance(node, (ChainedTransformation, KeyByTransformation, PartitionTransformation)) and \
                getattr(node, "operation", "filter") in ("filter", "timestamps", "sink_function"):
            node = node.inputs[0]
        return node.name

    def _add_exit(self, producer: Transformation, consumer: Transformation, chain_nodes: dict) -> None:
        plan = self._plan(self.root_of[producer.id])
        stream_type = producer.type_info
        if isinstance(consumer, SinkTransformation):
            spec = consumer.sink
            translation = sink_translation(spec)
            if translation.in_stage is not None and translation.in_stage(spec, len(self.sinks)) \
                    and not isinstance(self.root_of[producer.id], KeyedTransformation):
                # a mapInArrow stage writes the records itself: one Python pass less
                exit_plan = translation.stage_exit(len(plan.exits), consumer.name, stream_type, sink_spec=spec,
                                                   buffer=translation.stage_buffer)
            else:
                exit_plan = sink_exit(spec, len(plan.exits), consumer.name, stream_type, self.parallelism_of(consumer))
        elif isinstance(consumer, KeyByTransformation):
            keyed = next(c for c in self.consumers[consumer.id] if isinstance(c, KeyedTransformation))
            exit_plan = KeyedExit(index=len(plan.exits), name=consumer.name, type_info=stream_type,
                                  key_selector=consumer.key_selector, key_type=consumer.key_type,
                                  one_step=self.mode is RunMode.ONE_STEP or consumer.id in self.per_subtask_key_bys,
                                  parallelism=self.parallelism_of(keyed), max_parallelism=self.max_parallelism_of(keyed))
        else:
            distribution = self._distribution(producer, consumer)
            exit_plan = StreamExit(index=len(plan.exits), name=consumer.name, type_info=stream_type,
                                   distribution=distribution,
                                   one_step=self.mode is RunMode.ONE_STEP and distribution is not None)
        exit_plan.declared_by = self._declarer(producer)
        assigner = self._assigner(producer)
        if assigner is not None:
            exit_plan.assigner = f"{self.job_id}/{assigner.id}"
            exit_plan.idleness_ms = getattr(assigner.function, "idleness_ms", None)
        plan.exits.append(exit_plan)
        if self.timed[producer.id] or _writes_timestamps(consumer):
            plan.timed_exits.add(exit_plan.index)
        self.exit_of[(producer.id, consumer.id)] = exit_plan
        self._attach(producer, chain_nodes, exit_index=exit_plan.index)

    def _distribution(self, producer: Transformation, union: Transformation) -> Distribution | None:
        """How ``producer``'s elements spread over the instances of the ``union`` they go into: a
        union whose inputs are partitionings repartitions them (kindling/spark/lowering.py)."""
        if not isinstance(producer, PartitionTransformation):
            return None
        return Distribution(producer.strategy, self.parallelism_of(union), self.parallelism_of(producer.inputs[0]),
                            producer.partitioner, producer.key_selector, producer.name)

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
        elif isinstance(producer, (KeyByTransformation, PartitionTransformation)):
            self._attach(producer.inputs[0], chain_nodes, child, exit_index)
        else:
            if child is not None:
                plan.roots.append(child)
            else:
                plan.root_exits.append(exit_index)

    # -- Spark plans ------------------------------------------------------------------
    def compile(self) -> CompiledJob:
        self.plan_stages()
        job = dict(mode=self.mode, bounded=self.bounded, late_records=self.late_records,
                   handoff=self.handoff, metrics=self.metrics, broadcasts=self.broadcasts, persisted=self.persisted)
        if len(self.sinks) == 1 and self.host(self.sinks[0].inputs[0]).path == ():
            # One sink reads its stage's output as it is: no projection, no union.
            sink = self.sinks[0]
            exit_plan = self.exit_of[(sink.inputs[0].id, sink.id)]
            root = self.root_of[sink.inputs[0].id]
            df = self.stage_frame(root)
            if self._shared(root.id):
                df = df.filter(F.col(EXIT) == exit_plan.index)
            columns = {f.name: exit_plan.prefixed(f.name) for f in exit_plan.value_fields()}
            if _writes_timestamps(sink):
                columns[TS] = TS
            return CompiledJob(df, [CompiledSink(0, sink, columns, filtered=False)], **job)
        # Sinks whose rows are in the same frame read it once: a union of per-sink copies would
        # run the stage (and every function in it, sink functions included) once per sink.
        by_frame: dict[int, list[tuple[int, SinkTransformation, ExitPlan, Host]]] = defaultdict(list)
        compiled_sinks, frames = [], []
        joined = self._joined_in_query()
        for i, sink in enumerate(self.sinks):
            if i in joined:
                pairs = joined[i]
                if pairs is not None:  # the join's pairs, written by the writer of its right side's sink
                    spec = dataclasses.replace(sink.sink, pairs=True)
                    compiled_sinks.append(CompiledSink(i, dataclasses.replace(sink, sink=spec),
                                                       {c: f"s{i}__{c}" for c in pairs.columns}))
                    frames.append(pairs.select(F.lit(i).alias(SINK), *[F.col(f"`{c}`").alias(f"s{i}__{c}")
                                                                       for c in pairs.columns]))
                continue
            exit_plan = self.exit_of[(sink.inputs[0].id, sink.id)]
            host = self.host(sink.inputs[0])
            by_frame[host.root].append((i, sink, exit_plan, host))
            names = [f.name for f in exit_plan.value_fields()] + ([TS] if _writes_timestamps(sink) else [])
            compiled_sinks.append(CompiledSink(i, sink, {c: f"s{i}__{c}" for c in names}))
        for root_id, sinks in by_frame.items():
            out = self.stage_frame(self.by_id[root_id])
            chosen = [host.col(EXIT) == exit_plan.index for _, _, exit_plan, host in sinks]
            if self._shared(root_id) or any(host.path for *_, host in sinks):
                out = out.filter(any_of(chosen))
            index = F.lit(sinks[0][0])
            for (i, *_), condition in zip(sinks[1:], chosen[1:]):
                index = F.when(condition, F.lit(i)).otherwise(index)
            columns = [index.alias(SINK)]
            for i, sink, exit_plan, host in sinks:
                columns += [host.col(exit_plan.prefixed(f.name)).alias(f"s{i}__{f.name}")
                            for f in exit_plan.value_fields()]
                if _writes_timestamps(sink):
                    columns.append(host.col(TS).alias(f"s{i}__{TS}"))
            frames.append(out.select(columns))
        return CompiledJob(_union(frames), compiled_sinks, joins_in_query=[
            self.sinks[i].sink.join.name for i, pairs in joined.items() if pairs is not None],
            keyed_in_query=any(isinstance(n, KeyedTransformation) for n in self.nodes), **job)

    def _joined_in_query(self) -> dict[int, DataFrame | None]:
        """The sinks (by index) of the sides of the joins the planner gave Spark's stream-stream join
        (kindling/spark/table/join.py :func:`~kindling.spark.table.join.streamed_pairs`): the right
        side's the pairs, the left side's None (it writes nothing)."""
        sides: dict[int, list[tuple[int, SinkTransformation]]] = defaultdict(list)
        for i, sink in enumerate(self.sinks):
            if self.streaming and isinstance(sink.sink, JoinSideSinkSpec) and sink.sink.streamed:
                sides[id(sink.sink.join)].append((i, sink))
        joined: dict[int, DataFrame | None] = {}
        for pair in sides.values():
            (left_i, left), (right_i, right) = sorted(pair, key=lambda found: found[1].sink.side)
            joined[left_i], joined[right_i] = None, streamed_pairs(right.sink.join, self._sink_rows(left),
                                                                   self._sink_rows(right))
        return joined

    def _sink_rows(self, sink: SinkTransformation) -> DataFrame:
        """The rows of ``sink``, its value columns as they are named, from the frame of its stage (or of
        the stage that carries them)."""
        exit_plan = self.exit_of[(sink.inputs[0].id, sink.id)]
        host = self.host(sink.inputs[0])
        out = self.stage_frame(self.by_id[host.root])
        if self._shared(host.root) or host.path:
            out = out.filter(host.col(EXIT) == exit_plan.index)
        return out.select(*[host.col(exit_plan.prefixed(f.name)).alias(f.name) for f in exit_plan.value_fields()])

    def host(self, producer: Transformation, reader: int | str = SINKS) -> Host:
        """Where ``reader`` (a stage root id, or the sinks) finds ``producer``'s rows."""
        return host_for(self.hosts[self.root_of[producer.id].id], reader)

    def _shared(self, root_id: int) -> bool:
        """Whether the frame of stage ``root_id`` holds rows of other exits or stages than one."""
        return len(self.plans[root_id].exits) > 1 or bool(self.carried.get(root_id))

    def input_frame(self, root: Transformation, producers: list[tuple[Transformation, Transformation]]) -> DataFrame:
        """What stage ``root`` reads: the streams ``(producer, consumer)`` (their exits' value columns,
        __ts, __wm, __ch), one read of each frame they are in. A keyed root also reads every other
        row of the frames it carries, packed in their carry column under a carry key."""
        by_frame: dict[int, list[tuple[ExitPlan, Host]]] = defaultdict(list)
        for producer, consumer in producers:
            host = self.host(producer, root.id)
            by_frame[host.root].append((self.exit_of[(producer.id, consumer.id)], host))
        frames = []
        for frame_id, exits in by_frame.items():
            out = self.stage_frame(self.by_id[frame_id])
            chosen = [host.col(EXIT) == exit_plan.index for exit_plan, host in exits]
            names = [f.name for f in exits[0][0].value_fields()]

            def pick(name: str, at_exit: bool) -> Column:
                picked = None
                for (exit_plan, host), condition in zip(exits, chosen):
                    column = host.col(exit_plan.prefixed(name) if at_exit else name)
                    picked = column if len(exits) == 1 else (
                        F.when(condition, column) if picked is None else picked.when(condition, column))
                return picked

            columns = [pick(n, True).alias(n) for n in names] + [pick(n, False).alias(n) for n in (TS, WM, CHANNEL)]
            if frame_id in self.carried.get(root.id, ()):
                own = F.coalesce(any_of(chosen), F.lit(False))
                columns = [F.when(own, c).alias(n) for c, n in zip(columns, names + [TS, WM, CHANNEL])]
                if KEY in names:  # a keyed carrier groups the carried rows under carry keys
                    columns[names.index(KEY)] = F.when(own, pick(KEY, True)).otherwise(carry_key()).alias(KEY)
                packed = F.struct(*[F.col(f"`{c}`") for c in out.columns])
                columns.append(F.when(~own, packed).alias(carry_column(frame_id)))
            elif self._shared(frame_id) or any(host.path for _, host in exits):
                out = out.filter(any_of(chosen))
            frames.append(out.select(columns))
        return _union(frames)

    def stage_frame(self, root: Transformation) -> DataFrame:
        df = self.stage_frames.get(root.id)
        if df is not None:
            return df
        plan = self.plans[root.id]
        if isinstance(root, SourceTransformation):
            df = self._source_stage_frame(root, plan)
        elif isinstance(root, UnionTransformation):
            df = self._exchanged_source_frame(root, plan)
            if df is None:
                df = self._union_stage_frame(root, plan)
        else:
            # a keyed operator reads one key-by, or several (the inputs of a keyed co-function)
            df = keyed_stage_frame(self, root, self.input_frame(root, [(k.inputs[0], k) for k in root.inputs]),
                                   plan, [carry_column(f) for f in self.carried.get(root.id, ())])
        if not self.streaming and len(self.readers.get(root.id, ())) > 1:
            df = df.persist()  # one Spark batch job: read by several, computed once
            self.persisted.append(df)
        self.stage_frames[root.id] = df
        return df

    def _union_stage_frame(self, root: UnionTransformation, plan: StagePlan) -> DataFrame:
        """A union's stage: a Python pass over its inputs' rows, repartitioned first where it is an exchange."""
        carried = [carry_column(f) for f in self.carried.get(root.id, ())]
        cache = getattr(root, "cache", None)  # DataStream.cache() in BATCH mode (kindling/spark/lowering.py)
        union = cache.get("frame") if cache is not None else None
        if union is None:
            union = self.input_frame(root, [(p, root) for p in root.inputs])
            if PART in union.columns:  # an exchange: a Spark partition per parallel instance, each row to its own
                union = union.repartition(self.parallelism_of(root), PART).drop(PART)
            if cache is not None:
                union = cache["frame"] = union.persist()
        carried_fields = [union.schema[c] for c in carried]
        return union.mapInArrow(arrow_stage_function(plan, carried_fields),
                                StructType(plan.schema().fields + carried_fields))

    def _exchanged_source_frame(self, union: UnionTransformation, plan: StagePlan) -> DataFrame | None:
        """The frame of an exchange's stage whose one input is a source stage that only hands its
        elements on (no function, one reader), where the source's translation reads the source
        into the exchange's instances itself (kindling/spark/connectors.py, ``exchange_frame``).
        Not in a one-step job whose stage hands elements on in time (to keyed operators, or from a
        timestamp assigner): they replay the time the source handed each element
        (kindling/spark/one_step.py), which only the source's own pass gives."""
        edge = union.inputs[0]
        if len(union.inputs) != 1 or not isinstance(edge, PartitionTransformation) or self.carried.get(union.id) \
                or getattr(union, "cache", None) is not None or not isinstance(edge.inputs[0], SourceTransformation):
            return None
        if self.mode is RunMode.ONE_STEP and (one_step_exits(plan.exits) or plan.timed_exits):
            return None
        source = edge.inputs[0]
        exchange_frame = source_translation(source.source).exchange_frame
        source_plan = self.plans[source.id]
        exit_plan = self.exit_of[(edge.id, union.id)]
        if exchange_frame is None or source_plan.roots or source_plan.side_roots or source_plan.exits != [exit_plan] \
                or source_plan.root_exits != [exit_plan.index] or source_plan.timed_exits \
                or self.readers.get(source.id) != {union.id}:
            return None
        return exchange_frame(self, source, exit_plan.distribution, plan)

    def _source_stage_frame(self, root: SourceTransformation, plan: StagePlan) -> DataFrame:
        """A source's stage: read by the source's own tasks where its translation says so
        (kindling/spark/connectors.py), else a Python pass over the source's frame."""
        stage_frame = source_translation(root.source).stage_frame
        df = stage_frame(self, root, plan) if stage_frame is not None else None
        if df is not None:
            return df
        if self.leaves_as_it_is(plan, root.source):
            return _exit_frame(self.source_frame(root), plan.exits[0])
        return self.source_frame(root).mapInArrow(self.stage_function(plan), plan.schema())

    @staticmethod
    def stage_function(plan: StagePlan) -> Any:
        """The function of a stage's Python pass over Arrow batches (kindling/spark/stage.py)."""
        return arrow_stage_function(plan)

    def leaves_as_it_is(self, plan: StagePlan, source: Any = None) -> bool:
        """Whether a source stage of a Spark batch job (BATCH, one step), or of a streaming query whose
        ``source`` (spec) gives no control rows (a frame of Spark's file stream sources only:
        kindling/spark/table/scans.py), only hands its rows to one sink taking them as columns: no
        function, no timestamps, one exit (then no Python pass runs)."""
        return ((not self.streaming or _without_control_rows(source)) and not plan.roots and not plan.side_roots
                and plan.root_exits == [0]
                and len(plan.exits) == 1 and plan.exits[0].layout in ("none", "columns") and not plan.timed_exits)

    def source_frame(self, node: SourceTransformation) -> DataFrame:
        """The rows of a source, as its translation reads them (kindling/spark/connectors.py)."""
        return source_translation(node.source).frame(self, node)

    def source_plan(self, node: SourceTransformation) -> SourcePlan:
        """What Kindling's Python data source reads for ``node`` (kindling/spark/sources.py)."""
        return SourcePlan(node.source, node.type_info, self.parallelism_of(node), self.streaming,
                          self.handoff.path if self.handoff is not None else None, node.name, self.metrics,
                          self.source_batch_records, self.source_batch_files)


def _without_control_rows(source: Any) -> bool:
    """Whether a streaming query's ``source`` (spec) gives data rows only: a frame whose every base
    Spark's own reader reads (no Kindling source, whose control rows end splits and carry watermarks)."""
    return isinstance(source, RelationalSourceSpec) and bool(source.native) and all(source.native)


def _exit_frame(source: DataFrame, exit_plan: ExitPlan) -> DataFrame:
    """The frame of a stage whose source rows all leave by ``exit_plan`` as they are: its value columns
    are the source's (a sink without columns gets them too, so that every column is computed)."""
    names = [f.name for f in exit_plan.value_fields()] or [f"__v{i}" for i in range(len(source.columns))]
    values = [F.col(f"`{c}`").alias(exit_plan.prefixed(n)) for c, n in zip(source.columns, names)]
    times = [F.lit(None).cast(f.dataType).alias(f.name) for f in TIME_FIELDS]
    return source.select(F.lit(exit_plan.index).alias(EXIT), *values, *times)


def _union(frames: list[DataFrame]) -> DataFrame:
    union = frames[0]
    for frame in frames[1:]:
        union = union.unionByName(frame, allowMissingColumns=True)  # carry columns: only from carried frames
    return union
