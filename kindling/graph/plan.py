"""The job graph as Flink's JSON execution plan (``env.get_execution_plan()``).

Flink's plan is a list of nodes with ``id``, ``type`` (the operator's name as PyFlink gives it,
e.g. ``Source: Collection Source``, ``Map``, ``KEYED PROCESS``), ``pact`` (``Data Source``,
``Operator`` or ``Data Sink``), ``contents``, ``parallelism`` and ``predecessors`` (``id``,
``ship_strategy``, ``side``), which Flink's plan visualiser and PyFlink's own tests read. As in
Flink, unions and side outputs are not nodes: their consumers name their inputs. PyFlink's
``key_by`` adds an operator named ``_stream_key_by_map_operator`` whose consumers read it with a
HASH strategy; a keyed stream used as a plain stream is read through ``_keyed_stream_values_operator``.
``print()`` of a stream of Python objects (no declared type) reads it through a ``Map`` that turns them
into strings, and ``get_side_output`` adds a ``Map``, as PyFlink's API adds them.

Python operators are chained as PyFlink's PythonOperatorChainingOptimizer chains them: a one-input
non-keyed Python operator (map, filter, flat_map, process, the key-by's map) joins the Python
operator it reads when it reads it directly (or through ``forward()``), is its only consumer, and
both have the same parallelism, max parallelism and slot sharing group, unless
``start_new_chain()`` or ``disable_chaining()`` says otherwise. The chain is one node named by its
operators' names joined with ", " (``Map, Filter, _stream_key_by_map_operator``); it keeps its
first operator's id (Flink gives it a new one). Kindling runs such a chain in one Python pass too.
A Python TimestampAssigner shows as PyFlink's ``Extract-Timestamp``, ``Timestamps/Watermarks`` and
``Remove-Timestamp``, at the parallelism Kindling assigns at (its input's; see docs/semantics.md).

Kindling adds ``spark_stage``, the number of the fused Python pass (Spark stage) the node runs in,
and ``spark_stage_root``, the id of the transformation that starts that pass: a source, a keyed
operator, or a union (whose id is not a node of Flink's plan).

The result has no ``true``/``false``/``null``, so PyFlink's tests can ``eval`` it.
"""
from __future__ import annotations

import itertools
import json
from collections import Counter
from typing import Iterable

from kindling.common.typeinfo import Types
from kindling.graph.parallelism import parallelism_of, ship_strategy
from kindling.graph.specs import PrintSinkSpec
from kindling.graph.transformation import (
    ChainedTransformation,
    KeyByTransformation,
    KeyedTransformation,
    SideOutputTransformation,
    SinkTransformation,
    SourceTransformation,
    Transformation,
    TwoInputTransformation,
    UnionTransformation,
    upstream_graph,
)

KEY_BY_OPERATOR = "_stream_key_by_map_operator"
KEYED_VALUES_OPERATOR = "_keyed_stream_values_operator"

# Kindling's default operator names that PyFlink spells otherwise.
_PYFLINK_NAMES = {"Process": "PROCESS", "KeyedProcess": "KEYED PROCESS"}
# PyFlink's rolling aggregations are reduces.
_KEYED_PYFLINK_NAMES = {"Sum": "Reduce", "Min": "Reduce", "Max": "Reduce", "Min_by": "Reduce", "Max_by": "Reduce"}


def _is_virtual(node: Transformation) -> bool:
    """Nodes Flink's plan leaves out: their consumers read their inputs directly."""
    return isinstance(node, (UnionTransformation, SideOutputTransformation)) or getattr(node, "kind", "") in (
        "partition", "cache") or _in_source(node)


def _is_sink_function(node: Transformation) -> bool:
    return isinstance(node, ChainedTransformation) and node.operation == "sink_function"


def _type_name(node: Transformation) -> str:
    if isinstance(node, SourceTransformation):
        return node.name if node.name.startswith("Source: ") else f"Source: {node.name}"
    if isinstance(node, SinkTransformation):
        return node.name if node.name.startswith("Sink: ") else f"Sink: {node.name}"
    if isinstance(node, KeyByTransformation):
        return KEY_BY_OPERATOR
    if isinstance(node, KeyedTransformation) and node.name in _KEYED_PYFLINK_NAMES:
        return _KEYED_PYFLINK_NAMES[node.name]
    return _PYFLINK_NAMES.get(node.name, node.name)


def _reads_keys(node: Transformation) -> bool:
    """Whether ``node`` reads its keyed inputs by key (HASH) rather than as plain streams."""
    return isinstance(node, KeyedTransformation) or (isinstance(node, TwoInputTransformation) and node.keyed)


def _python_kind(node: Transformation) -> str | None:
    """How PyFlink's chaining sees ``node``: ``process`` (a one-input non-keyed Python operator,
    which may join the operator it reads), ``python`` (another Python operator, which may only
    start a chain) or None (a Java operator)."""
    if isinstance(node, KeyByTransformation) or (
            isinstance(node, ChainedTransformation) and node.operation not in ("timestamps", "sink_function")):
        return "process"
    if isinstance(node, (KeyedTransformation, TwoInputTransformation)):
        return "python"
    return None


def _assigns_in_python(node: Transformation) -> bool:
    """Whether ``node`` is assign_timestamps_and_watermarks with a Python TimestampAssigner."""
    return (isinstance(node, ChainedTransformation) and node.operation == "timestamps"
            and node.function.timestamp_assigner is not None)


def _in_source(node: Transformation) -> bool:
    """A watermark strategy given to ``from_source``: part of the source in Flink's plan."""
    return (isinstance(node, ChainedTransformation) and node.operation == "timestamps"
            and isinstance(node.inputs[0], SourceTransformation)
            and node.name == f"{node.inputs[0].name}: Timestamps/Watermarks")


def _pickled(type_info) -> bool:
    return type_info is None or type_info == Types.PICKLED_BYTE_ARRAY()


def _pact(node: Transformation) -> str:
    if isinstance(node, SourceTransformation):
        return "Data Source"
    if isinstance(node, SinkTransformation):
        return "Data Sink"
    return "Operator"


class _PlanBuilder:
    def __init__(self, sinks: list[Transformation], default_parallelism: int):
        self.graph = upstream_graph(sinks)
        self.default_parallelism = default_parallelism
        self.stage: dict[int, tuple[int, int]] = {}
        self.extra_ids = itertools.count(max((n.id for n in self.graph), default=0) + 1)
        self.nodes: list[dict] = []
        self.extra_nodes: list[tuple[int, dict]] = []  # (consumer id, node): placed before the consumer
        self.added: dict[int, dict] = {}  # id -> a node PyFlink's API adds
        self.side_output_maps: dict[int, int] = {}

    # -- facts per node ---------------------------------------------------------------
    def physical_inputs(self, node: Transformation) -> list[tuple[Transformation | int, str | None, bool]]:
        """The plan nodes ``node`` reads (or the id of a node PyFlink's API adds), through virtual
        nodes, with a partitioning hint if any, and whether it reads them directly (only through
        ``forward()``), which chaining needs."""
        found: list[tuple[Transformation | int, str | None, bool]] = []
        for parent in node.inputs:
            if _is_sink_function(parent) and isinstance(node, SinkTransformation):
                found.extend(self.physical_inputs(parent))
            elif isinstance(parent, SideOutputTransformation):
                found.append((self.side_output_map(parent), None, True))
            elif _is_virtual(parent):
                hint = getattr(parent, "strategy", None) if getattr(parent, "kind", "") == "partition" else None
                direct = hint == "FORWARD"
                found.extend((p, hint or h, d and direct) for p, h, d in self.physical_inputs(parent))
            else:
                found.append((parent, None, True))
        return found

    def node_parallelism(self, node: Transformation) -> int:
        return parallelism_of(node, self.default_parallelism)

    def assign_stages(self) -> None:
        """Kindling's fused passes: a source, a union or a keyed operator starts one; stateless
        operators, key-by exits, side outputs and sinks run in their input's pass."""
        count = itertools.count()
        for node in self.graph:
            if isinstance(node, (SourceTransformation, UnionTransformation, KeyedTransformation,
                                 TwoInputTransformation)) or not node.inputs:
                self.stage[node.id] = (next(count), node.id)
            else:
                self.stage[node.id] = self.stage[node.inputs[0].id]

    # -- building ---------------------------------------------------------------------
    def predecessor(self, consumer: Transformation, parent: Transformation | int, hint: str | None,
                    direct: bool, consumer_parallelism: int | None = None) -> dict:
        """How ``consumer`` (at ``consumer_parallelism``, default its own) reads ``parent``;
        ``_direct``: whether the two may chain (dropped before the plan is returned)."""
        parallelism = consumer_parallelism or self.node_parallelism(consumer)
        if isinstance(parent, int):  # a node PyFlink's API adds
            added = self.added[parent]
            strategy = ship_strategy(added["parallelism"], parallelism, hint, consumer.name, added["type"])
            return {"id": parent, "ship_strategy": strategy, "side": "second", "_direct": direct}
        if isinstance(parent, KeyByTransformation) and not _reads_keys(consumer):
            return {"id": self.keyed_values_node(consumer, parent), "ship_strategy": hint or "FORWARD",
                    "side": "second", "_direct": direct}
        strategy = "HASH" if _reads_keys(consumer) else ship_strategy(
            self.node_parallelism(parent), parallelism, hint, consumer.name, parent.name)
        return {"id": parent.id, "ship_strategy": strategy, "side": "second", "_direct": direct and strategy != "HASH"}

    def added_node(self, name: str, python: str | None, parallelism: int, predecessors: list[dict],
                   stage_of: Transformation, before: int) -> int:
        """A node PyFlink's API adds (``python``: see _python_kind), placed before node ``before``."""
        node_id = next(self.extra_ids)
        stage, root = self.stage[stage_of.id]
        node = {"id": node_id, "type": name, "pact": "Operator", "contents": name, "parallelism": parallelism,
                "predecessors": predecessors, "spark_stage": stage, "spark_stage_root": root,
                "_python": python, "_chaining": "ALWAYS", "_max": None, "_group": None}
        self.added[node_id] = node
        self.extra_nodes.append((before, node))
        return node_id

    def side_output_map(self, side_output: SideOutputTransformation) -> int:
        """PyFlink's ``get_side_output`` maps the side output (typing it by its tag): one Map per call."""
        if side_output.id not in self.side_output_maps:
            emitter = side_output.inputs[0]
            read = {"id": emitter.id, "ship_strategy": ship_strategy(
                self.node_parallelism(emitter), self.default_parallelism, None, "Map", emitter.name),
                "side": "second", "_direct": False}
            consumer = next(n for n in self.graph if side_output in n.inputs)
            self.side_output_maps[side_output.id] = self.added_node(
                "Map", "process", self.default_parallelism, [read], emitter, consumer.id)
        return self.side_output_maps[side_output.id]

    def keyed_values_node(self, consumer: Transformation, key_by: KeyByTransformation) -> int:
        """PyFlink strips the key of a keyed stream read as a plain stream in an operator of its own
        (the keys are dropped where the consumer reads the stream)."""
        read = {"id": key_by.id, "ship_strategy": "HASH", "side": "second", "_direct": False}
        return self.added_node(KEYED_VALUES_OPERATOR, "process", self.node_parallelism(consumer), [read],
                               consumer, consumer.id)

    def entry(self, node: Transformation) -> dict:
        name = _type_name(node)
        stage, root = self.stage[node.id]
        entry = {"id": node.id, "type": name, "pact": _pact(node), "contents": name,
                 "parallelism": self.node_parallelism(node)}
        inputs = self.physical_inputs(node)
        if isinstance(node, SinkTransformation) and isinstance(node.sink, PrintSinkSpec) and _pickled(node.type_info):
            # PyFlink's print() turns Python objects into strings in a Map first
            parallelism = self.default_parallelism
            to_strings = self.added_node("Map", "process", parallelism, [
                self.predecessor(node, *read, parallelism) for read in inputs], node, node.id)
            inputs = [(to_strings, None, True)]
        elif _assigns_in_python(node):
            # PyFlink extracts the timestamps in Python, then Flink's operator assigns them and drops them
            parallelism = self.node_parallelism(node)
            extract = self.added_node("Extract-Timestamp", "process", parallelism,
                                      [self.predecessor(node, *read) for read in inputs], node, node.id)
            forward = {"id": extract, "ship_strategy": "FORWARD", "side": "second", "_direct": False}
            assign = self.added_node("Timestamps/Watermarks", None, parallelism, [forward], node, node.id)
            inputs = [(assign, None, False)]
            entry["type"] = entry["contents"] = "Remove-Timestamp"
        predecessors = [self.predecessor(node, *read) for read in inputs]
        if predecessors:
            entry["predecessors"] = predecessors
        entry["spark_stage"] = stage
        entry["spark_stage_root"] = root
        entry.update(_python=_python_kind(node), _chaining=node.chaining, _max=node.max_parallelism,
                     _group=node.slot_sharing_group)
        return entry

    def build(self) -> dict:
        self.assign_stages()
        shown = [n for n in self.graph if not _is_virtual(n) and not _is_sink_function(n)
                 or (_is_sink_function(n) and not self._only_feeds_sinks(n))]
        # Flink lists sources first and sinks last; inputs always precede their consumers.
        ordered = ([n for n in shown if isinstance(n, SourceTransformation)]
                   + [n for n in shown if not isinstance(n, (SourceTransformation, SinkTransformation))]
                   + [n for n in shown if isinstance(n, SinkTransformation)])
        entries = [self.entry(n) for n in ordered]
        for node, node_entry in zip(ordered, entries):
            self.nodes.extend(extra for consumer, extra in self.extra_nodes if consumer == node.id)
            self.nodes.append(node_entry)
        return {"nodes": _chained(self.nodes)}

    def _only_feeds_sinks(self, node: Transformation) -> bool:
        consumers = [n for n in self.graph if node in n.inputs]
        return bool(consumers) and all(isinstance(c, SinkTransformation) for c in consumers)


def _chains_into(up: dict, down: dict, readers: int) -> bool:
    """Whether PyFlink chains ``down`` into ``up``, the one node it reads (see the module doc)."""
    return (down["_python"] == "process" and up["_python"] is not None and readers == 1
            and down["predecessors"][0]["_direct"]
            and up["parallelism"] == down["parallelism"] and up["_max"] == down["_max"]
            and up["_group"] == down["_group"] and up["_chaining"] != "NEVER" and down["_chaining"] == "ALWAYS")


def _chained(nodes: list[dict]) -> list[dict]:
    """``nodes`` (inputs before consumers) with Python operator chains merged into one node each,
    internal keys dropped."""
    by_id = {n["id"]: n for n in nodes}
    readers = Counter(i for n in nodes for i in {p["id"] for p in n.get("predecessors", [])})
    head_of: dict[int, int] = {}
    for node in nodes:
        predecessors = node.get("predecessors", [])
        if len(predecessors) != 1:
            continue
        up = predecessors[0]["id"]
        head = by_id[head_of.get(up, up)]
        if _chains_into(head, node, readers[up]):
            head["type"] = head["contents"] = f"{head['type']}, {node['type']}"
            head_of[node["id"]] = head["id"]
    chained = [n for n in nodes if n["id"] not in head_of]
    for node in chained:
        for p in node.get("predecessors", []):
            p["id"] = head_of.get(p["id"], p["id"])
            del p["_direct"]
        for key in ("_python", "_chaining", "_max", "_group"):
            del node[key]
    return chained


def execution_plan(sinks: Iterable[Transformation], default_parallelism: int) -> dict:
    """Flink's execution plan of the job that ends in ``sinks``, as a dict (see the module doc)."""
    return _PlanBuilder(list(sinks), default_parallelism).build()


def execution_plan_json(sinks: Iterable[Transformation], default_parallelism: int) -> str:
    """:func:`execution_plan` as JSON text, indented as Flink prints it."""
    return json.dumps(execution_plan(sinks, default_parallelism), indent=2, ensure_ascii=False)
