"""``pyflink.table.StatementSet``: several inserts run as one job.

Example::

    statements = t_env.create_statement_set()
    statements.add_insert('totals', totals).add_insert_sql("INSERT INTO audit SELECT * FROM orders")
    statements.execute().wait()
"""
from __future__ import annotations

from typing import List, Tuple

from kindling.common.unsupported import unsupported
from kindling.table.table_result import TableResult

__all__ = ["StatementSet"]


class StatementSet:
    """Inserts collected by ``add_insert``/``add_insert_sql`` and run by :meth:`execute` in one job,
    so a source read by several of them is read once."""

    def __init__(self, t_env):
        self._t_env = t_env
        self._inserts: List[Tuple[str, object]] = []

    def add_insert(self, target_path: str, table, overwrite: bool = False) -> "StatementSet":
        if overwrite:
            raise ValueError("add_insert(overwrite=True) is not supported by Kindling yet")
        self._inserts.append((target_path, table))
        return self

    def add_insert_sql(self, stmt: str) -> "StatementSet":
        from kindling.table.sql import parse_statement

        kind, *parts = parse_statement(stmt)
        if kind != "insert":
            raise ValueError(f"add_insert_sql takes an INSERT INTO statement, got {stmt.strip()[:80]!r}")
        return self.add_insert(parts[0], self._t_env.sql_query(parts[1]))

    @unsupported("TablePipeline (Table.insert_into) is not there yet; use add_insert")
    def add(self, table_pipeline) -> "StatementSet": ...

    @unsupported("a statement set's inserts do not join a DataStream job yet; run execute()")
    def attach_as_datastream(self) -> None: ...

    @unsupported("compiled plans are Flink's planner's; JVM-only")
    def compile_plan(self): ...

    def explain(self, *extra_details) -> str:
        """Kindling's plan of the inserts, one sink after another (as ``Table.explain``)."""
        from kindling.table.explain_detail import plan_details
        from kindling.table.planner.explain import explain

        ending = plan_details(extra_details)
        return explain(self._t_env, self._sinks()) + ending

    def print_explain(self, *extra_details) -> None:
        print(self.explain(*extra_details))

    def execute(self) -> TableResult:
        """Starts one job writing every insert."""
        from kindling.table.planner.lowering import add_sinks

        if not self._inserts:
            raise ValueError("The statement set has no inserts: add_insert or add_insert_sql first")
        add_sinks(self._t_env, self._sinks())
        names = ",".join(path for path, _ in self._inserts)
        self._inserts = []
        return TableResult(self._t_env._env.execute_async(f"insert-into_{names}"))

    def _sinks(self) -> list:
        """The plans of the inserts."""
        return [self._t_env._sink_node(table, path) for path, table in self._inserts]
