"""Flink SQL's ``ROW_NUMBER()`` patterns (Top-N, deduplication, window Top-N) and sorts of a stream, as
plan nodes: the builders SQL and the Table API call. The operators that run them, and their
semantics: kindling/runtime/table/rank.py; which one runs: kindling/table/planner/physical.py."""
from __future__ import annotations

from typing import List, Optional, Tuple

__all__ = ["RankSpec", "failing_table", "pending_rank", "sorted_stream"]


class RankSpec:
    """``SELECT fields, <function>() OVER (PARTITION BY ... ORDER BY ...) AS name FROM base``, made a
    table once the query around it says the rank range (``WHERE name <= N``) and whether it reads the
    rank number; ``name`` comes after the first ``before`` fields."""

    def __init__(self, base, function: str, partition: list, order: list, fields: list, name: str, before: int):
        types = base._types()
        bad = [str(e) for e in partition + [o for o, _ in order] if getattr(e, "_name", None) not in types]
        if bad:
            raise ValueError(f"{function}() OVER (PARTITION BY ... ORDER BY ...) takes columns of the table, got {bad}")
        self.base, self.function, self.name, self.fields, self.before = base, function, name, fields, before
        self.partition = [e._name for e in partition]
        self.order = [(e._name, descending) for e, descending in order]

    def table(self, start: int, end: Optional[int], with_number: bool, pending: bool = False):
        """The ranked table: rows ranked ``start`` to ``end`` (None: all) in their partition; a
        ``pending`` one (the subquery itself) is remade by the query reading it (:meth:`table`)."""
        from kindling.table.planner import nodes
        from kindling.table.planner.physical import rank_strategy
        from kindling.table.schema import Schema
        from kindling.table.types import DataTypes

        base = self.base
        names = base.get_schema().get_field_names()
        out_names = names + [self.name] if with_number else names
        schema = Schema(out_names, base.get_schema().get_field_data_types() +
                        ([DataTypes.BIGINT().not_null()] if with_number else []))
        strategy = rank_strategy(base._node.out, self.function, self.partition, self.order, start, end,
                                 base._in_batch())
        out = base._node.out
        if strategy.startswith("invalid"):  # fails when the job is built, as Flink's translation does
            output = nodes.Output(schema, out.updating, out.rowtime, time_attributes=out.time_attributes)
        else:
            updating = strategy in ("deduplicate_last", "top1", "top_n", "retract_top_n")
            output = nodes.Output(schema, updating, out.rowtime, out.proctime)
        ranked = base._with(nodes.Rank(input=base._node, function=self.function, partition=tuple(self.partition),
                                       order=tuple(self.order), start=start, end=end, with_number=with_number,
                                       number_name=self.name, pending=pending, out=output))
        return self._projected(ranked, with_number)

    def _projected(self, table, with_number: bool):
        """The ranked rows as the query selects them (``rn`` among the fields)."""
        from kindling.table.expressions import col

        out_names = table.get_schema().get_field_names()
        fields = list(self.fields)
        if with_number:
            fields.insert(self.before, col(self.name))
        if [getattr(f, "_name", None) for f in fields] != out_names or not all(getattr(f, "_is_column", False)
                                                                               for f in fields):
            table = table.select(*fields)
        return table


def pending_rank(table) -> Optional[RankSpec]:
    """The ranking a query's subquery made (SQL's ``ROW_NUMBER() OVER (...) AS rn`` not yet bounded
    by the query reading it), as a :class:`RankSpec` to bound; None when ``table`` is no such one."""
    from kindling.table.expressions import col
    from kindling.table.planner import nodes

    node = table._node
    project = node if isinstance(node, nodes.Project) else None
    rank = project.input if project is not None else node
    if not isinstance(rank, nodes.Rank) or not rank.pending:
        return None
    fields = list(project.fields) if project is not None else [col(n) for n in rank.out.names]
    before = next(i for i, f in enumerate(fields) if getattr(f, "_is_column", False) and f._name == rank.number_name)
    del fields[before]
    base = table._with(rank.input)
    return RankSpec(base, rank.function, [col(n) for n in rank.partition],
                    [(col(n), descending) for n, descending in rank.order], fields, rank.number_name, before)


def failing_table(table, schema, message: str):
    """A table of ``schema`` over ``table`` whose job fails with ``message`` when it is built (as
    Flink fails when the plan is translated, after the query's schema was known)."""
    from kindling.table.planner import nodes

    out = table._node.out
    return table._with(nodes.Invalid(input=table._node, message=message, out=nodes.Output(
        schema, out.updating, out.rowtime, time_attributes=out.time_attributes)))


def sorted_stream(table, keys: List[Tuple[str, bool]], offset: int, fetch: Optional[int]):
    """``ORDER BY`` / ``LIMIT`` of a streaming table, as Flink allows them: an order starting with the
    time attribute ascending (rows leave in time order; with LIMIT a Top-N), or LIMIT alone (the first
    rows); kindling/table/planner/physical.py ``stream_sort`` says which."""
    from kindling.table.expressions import col

    return table._sorted([col(n).desc if descending else col(n) for n, descending in keys], offset, fetch)
