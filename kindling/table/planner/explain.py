"""``Table.explain()`` and ``EXPLAIN``: the plan as Flink prints plans (a node a line, its inputs
below it after ``+-`` for the last and ``:-`` for the others), each node with where it runs, as
:mod:`.physical` chooses and :mod:`.lowering` follows (``[Spark JVM, one step]``,
``[Python, micro-batches]``; for a node Spark can compute that runs in Python, why:
``[Python, one step: a stateful node reads its changes]``), and whether its rows are changes
(``changelogMode``)."""
from __future__ import annotations

from typing import List, Sequence

from kindling.table.planner import nodes
from kindling.table.planner.physical import (SPARK_JVM, Choice, Physical, passes_through, rank_strategy, sort_strategy,
                                             stateless)
from kindling.table.planner.rules import optimize

__all__ = ["explain", "label"]

_JOIN_TYPES = {(False, False): "InnerJoin", (True, False): "LeftOuterJoin", (False, True): "RightOuterJoin",
               (True, True): "FullOuterJoin"}


def explain(t_env, roots: Sequence[nodes.Node]) -> str:
    """The text of the plans ``roots`` (a query, or sinks: the inserts of one job), rewritten as they
    run (kindling/table/planner/rules.py)."""
    roots = optimize(roots, t_env.get_current_database())
    physical = Physical(t_env, roots)
    lines = ["== Kindling Plan =="]
    for root in roots:
        lines += _lines(physical, root, "", "", True)
    return "\n".join(lines) + "\n"


def _lines(physical: Physical, node: nodes.Node, first: str, rest: str, stateless_above: bool,
           read_by_frame: bool = False) -> List[str]:
    if passes_through(node, physical.in_batch):  # nothing runs for it
        return _lines(physical, node.input, first, rest, stateless_above, read_by_frame)
    if isinstance(node, nodes.Sink):
        lines = [f"{first}Sink(table=[{node.path}])"]
    elif physical.passes_through(node) and not read_by_frame:  # (a frame reads an event time as a column)
        lines = [f"{first}{label(node, physical)} [not run, {physical.mode}: no node reads the watermark], "
                 f"changelogMode=[{node.out.changelog_mode}]"]
    else:
        choice = physical.choose(node, stateless_above, read_by_frame)
        if not choice.jvm and physical.columns_of_changes(node, stateless_above):
            choice = Choice(SPARK_JVM)
        why = f": {choice.reason}" if choice.reason else (f", {choice.how}" if choice.how else "")
        lines = [f"{first}{label(node, physical)} [{choice.engine}, {physical.mode}{why}], "
                 f"changelogMode=[{node.out.changelog_mode}]"]
    inputs = node.inputs
    for i, child in enumerate(inputs):
        last = i == len(inputs) - 1
        lines += _lines(physical, child, rest + ("+- " if last else ":- "), rest + ("   " if last else ":  "),
                        stateless_above and stateless(node), physical.frame(node))
    return lines


def _fields(expressions) -> str:
    return ", ".join(map(str, expressions))


def label(node: nodes.Node, physical: Physical) -> str:
    """What ``node`` computes, in Flink's words where Flink has them."""
    kind = type(node).__name__
    if isinstance(node, (nodes.Scan, nodes.Values, nodes.FromDataStream)):
        return f"TableSourceScan(table=[{node.name}], fields=[{', '.join(node.out.names)}])"
    if isinstance(node, nodes.Project):
        return f"Calc(select=[{_fields(node.fields)}])"
    if isinstance(node, nodes.Filter):
        return f"Calc(where=[{node.predicate}])"
    if isinstance(node, nodes.Aggregate):
        return f"GroupAggregate(groupBy=[{', '.join(node.keys)}], select=[{_fields(node.fields)}])"
    if isinstance(node, nodes.Expand):
        sets = ", ".join("{" + ", ".join(k for k in node.keys if k in s) + "}" for s in node.sets)
        return f"Expand(groupingSets=[{sets}], expandId=[{node.out.names[-1]}])"
    if isinstance(node, nodes.TableAggregate):
        return f"GroupTableAggregate(groupBy=[{', '.join(node.keys)}], select=[{node.call}])"
    if isinstance(node, nodes.GroupWindowAggregate):
        return (f"GroupWindowAggregate(groupBy=[{', '.join(node.keys)}], window=[{node.window.kind}], "
                f"select=[{_fields(node.fields)}])")
    if isinstance(node, nodes.WindowTVF):
        from kindling.table.window_tvf import describe

        return f"WindowTableFunction({describe(node)})"
    if isinstance(node, nodes.WindowAggregate):
        from kindling.table.window_tvf import describe

        return (f"WindowAggregate(groupBy=[{', '.join(node.keys)}], window=[{describe(node.windows)}], "
                f"select=[{_fields(node.fields)}])")
    if isinstance(node, nodes.MatchRecognize):
        return (f"Match(partitionBy=[{', '.join(node.partition_keys)}], orderBy=[{node.time_field} ASC], "
                f"measures=[{_fields(node.measures)}], after=[SKIP {node.skip.kind}"
                f"{' ' + node.variables[node.skip.variable] if node.skip.variable is not None else ''}], "
                f"pattern=[{node.pattern}]{f', within=[{node.within} ms]' if node.within is not None else ''})")
    if isinstance(node, nodes.Over):
        return f"OverAggregate({node.frame}, select=[{_fields(node.aggregates)}])"
    if isinstance(node, nodes.Rank):
        return _rank_label(node, physical.in_batch)
    if isinstance(node, nodes.Sort):
        return _sort_label(node, sort_strategy(node, physical.in_batch))
    if isinstance(node, nodes.Correlate):
        if not node.keep_input:
            return f"Correlate(invocation=[{node.call if node.call is not None else node.function}])"
        return f"Correlate(invocation=[{node.call}], joinType=[{'LEFT' if node.outer else 'INNER'}])"
    if isinstance(node, nodes.Join):
        kind = f"Left{node.existence.title()}Join" if node.existence else \
            _JOIN_TYPES[(node.left_outer, node.right_outer)]
        return f"Join(joinType=[{kind}], where=[{node.predicate}])"
    if isinstance(node, nodes.WindowJoin):
        from kindling.table.window_tvf import describe

        kind = f"Left{node.existence.title()}Join" if node.existence else \
            _JOIN_TYPES[(node.left_outer, node.right_outer)]
        return f"WindowJoin(window=[{describe(node.windows)}], joinType=[{kind}], where=[{node.predicate}])"
    if isinstance(node, nodes.IntervalJoin):
        where = (f"{list(node.left_keys)} = {list(node.right_keys)} AND {node.right_time} + {node.lower} ms <= "
                 f"{node.left_time} <= {node.right_time} + {node.upper} ms"
                 f"{' AND ' + str(node.predicate) if node.predicate is not None else ''}")
        return f"IntervalJoin(joinType=[{_JOIN_TYPES[(node.left_outer, node.right_outer)]}], where=[{where}])"
    if isinstance(node, nodes.TemporalJoin):
        return (f"TemporalJoin(joinType=[{'LeftOuterJoin' if node.outer else 'InnerJoin'}], where=[{node.condition}], "
                f"rowtime=[{node.left.out.rowtime}])")
    if isinstance(node, nodes.LookupJoin):
        lookup = ", ".join(f"{r}={k}" for k, r in zip(node.left_keys, node.right_keys))
        return (f"LookupJoin(table=[{node.table}], joinType=[{'LeftOuterJoin' if node.outer else 'InnerJoin'}], "
                f"lookup=[{lookup}], where=[{node.condition}])")
    if isinstance(node, nodes.Union):
        return "Union(all=[true])"
    if isinstance(node, nodes.SetOperation):
        return f"{node.operation.title().replace('_', '')}(all=[{str(node.operation.endswith('_all')).lower()}])"
    if isinstance(node, nodes.ChangelogNormalize):
        condition = f", condition=[{node.condition}]" if node.condition is not None else ""
        return f"ChangelogNormalize(key=[{', '.join(node.keys)}]{condition})"
    if isinstance(node, nodes.WatermarkAssigner):
        return f"WatermarkAssigner(rowtime=[{node.column}], watermark=[{node.column} - {node.delay} ms])"
    if isinstance(node, nodes.MetadataColumns):
        return f"Calc(select=[{', '.join(node.out.names)}], metadata=[rowtime])"
    if isinstance(node, nodes.AppendTimestamp):
        return f"Calc(select=[{', '.join(node.out.names)}], metadata=[rowtime])"
    return kind  # Invalid: the job fails when it is built


def _rank_label(node: nodes.Rank, in_batch: bool) -> str:
    strategy = rank_strategy(node.input.out, node.function, node.partition, node.order, node.start, node.end,
                             in_batch)
    if strategy.startswith("invalid"):
        return "Invalid"
    if strategy == "batch":
        head = "Rank"
    elif strategy == "window":
        head = "WindowRank(windowing=[partitionBy=[window_start, window_end]])"
    elif strategy.startswith("deduplicate"):
        time = "ROWTIME" if node.order[0][0] == node.input.out.rowtime else "PROCTIME"
        head = f"Deduplicate(keep=[{'LastRow' if strategy == 'deduplicate_last' else 'FirstRow'}], order=[{time}])"
    else:
        head = f"Rank(strategy=[{'RetractStrategy' if strategy == 'retract_top_n' else 'AppendFastStrategy'}])"
    order = ", ".join(n + (" DESC" if d else "") for n, d in node.order)
    return (f"{head}, rankType=[{node.function}], rankRange=[rankStart={node.start}, rankEnd={node.end}], "
            f"partitionBy=[{', '.join(node.partition)}], orderBy=[{order}]")


def _sort_label(node: nodes.Sort, strategy: str) -> str:
    if strategy == "batch":
        return f"Sort(orderBy=[{_fields(node.keys)}], offset=[{node.offset}], fetch=[{node.fetch}])"
    if strategy.startswith("invalid"):
        return "Invalid"
    names = [k._name for k in node.keys]
    if strategy == "top_n":
        return (f"Rank(rankRange=[rankStart={node.offset + 1}, rankEnd={node.offset + node.fetch}], "
                f"orderBy=[{', '.join(names)}])")
    if strategy == "first_n":
        return f"Limit(offset=[{node.offset}], fetch=[{node.fetch}])"
    descending = [getattr(k, "_descending", False) for k in node.keys]
    return f"Sort(orderBy=[{', '.join(n + (' DESC' if d else '') for n, d in zip(names, descending))}])"
