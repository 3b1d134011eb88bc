"""The job graph as Flink's JSON execution plan (``env.get_execution_plan()``).

Flink's plan is a list of nodes with ``id``, ``type`` (the operator's name as PyFlink gives it,
e.g. ``Source: Collection Source``, ``Map``, ``KEYED PROCESS``), ``pact`` (``Data Source``,
``Operator`` or ``Data Sink``), ``contents``, ``parallelism`` and ``predecessors`` (``id``,
``ship_strategy``, ``side``), which Flink's plan visualiser and PyFlink's own tests read. As in
Flink, unions and side outputs are not nodes: their consumers name their inputs. PyFlink's
``key_by`` adds an operator named ``_stream_key_by_map_operator`` whose consumers read it with a
HASH strategy; a keyed stream used as a plain stream is read through ``_keyed_stream_values_operator``.
Kindling adds ``spark_stage``, the number of the fused Python pass (Spark stage) the node runs in,
and ``spark_stage_root``, the id of the transformation that starts that pass: a source, a keyed
operator, or a union (whose id is not a node of Flink's plan).

The result has no ``true``/``false``/``null``, so PyFlink's tests can ``eval`` it.
"""
from __future__ import annotations

import itertools
import json
from typing import Iterable

from kindling.graph.parallelism import parallelism_of, ship_strategy
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
        "partition", "cache")


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

    # -- facts per node ---------------------------------------------------------------
    def physical_inputs(self, node: Transformation) -> list[tuple[Transformation, str | None]]:
        """The plan nodes ``node`` reads, through virtual nodes, with a partitioning hint if any."""
        found: list[tuple[Transformation, str | None]] = []
        for parent in node.inputs:
            if _is_sink_function(parent) and isinstance(node, SinkTransformation):
                found.extend(self.physical_inputs(parent))
            elif _is_virtual(parent):
                hint = getattr(parent, "strategy", None) if getattr(parent, "kind", "") == "partition" else None
                found.extend((p, hint or h) for p, h in self.physical_inputs(parent))
            else:
                found.append((parent, None))
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
    def predecessor(self, consumer: Transformation, parent: Transformation, hint: str | None) -> dict:
        if isinstance(parent, KeyByTransformation) and not _reads_keys(consumer):
            return {"id": self.keyed_values_node(consumer, parent), "ship_strategy": hint or "FORWARD", "side": "second"}
        strategy = "HASH" if _reads_keys(consumer) else ship_strategy(
            self.node_parallelism(parent), self.node_parallelism(consumer), hint, consumer.name, parent.name)
        return {"id": parent.id, "ship_strategy": strategy, "side": "second"}

    def keyed_values_node(self, consumer: Transformation, key_by: KeyByTransformation) -> int:
        """PyFlink strips the key of a keyed stream read as a plain stream in an operator of its own."""
        node_id = next(self.extra_ids)
        stage, root = self.stage[consumer.id]  # the keys are dropped where the consumer reads the stream
        self.extra_nodes.append((consumer.id, {
            "id": node_id, "type": KEYED_VALUES_OPERATOR, "pact": "Operator", "contents": KEYED_VALUES_OPERATOR,
            "parallelism": self.node_parallelism(consumer),
            "predecessors": [{"id": key_by.id, "ship_strategy": "HASH", "side": "second"}],
            "spark_stage": stage, "spark_stage_root": root,
        }))
        return node_id

    def entry(self, node: Transformation) -> dict:
        name = _type_name(node)
        stage, root = self.stage[node.id]
        entry = {"id": node.id, "type": name, "pact": _pact(node), "contents": name,
                 "parallelism": self.node_parallelism(node)}
        predecessors = [self.predecessor(node, parent, hint) for parent, hint in self.physical_inputs(node)]
        if predecessors:
            entry["predecessors"] = predecessors
        entry["spark_stage"] = stage
        entry["spark_stage_root"] = root
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
        return {"nodes": self.nodes}

    def _only_feeds_sinks(self, node: Transformation) -> bool:
        consumers = [n for n in self.graph if node in n.inputs]
        return bool(consumers) and all(isinstance(c, SinkTransformation) for c in consumers)


def execution_plan(sinks: Iterable[Transformation], default_parallelism: int) -> dict:
    """Flink's execution plan of the job that ends in ``sinks``, as a dict (see the module doc)."""
    return _PlanBuilder(list(sinks), default_parallelism).build()


def execution_plan_json(sinks: Iterable[Transformation], default_parallelism: int) -> str:
    """:func:`execution_plan` as JSON text, indented as Flink prints it."""
    return json.dumps(execution_plan(sinks, default_parallelism), indent=2, ensure_ascii=False)
