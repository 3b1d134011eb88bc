"""``pyflink.table.Table`` and ``GroupedTable``: a table of a TableEnvironment, with its schema,
and the relational operations on it.

A Table is a handle on a node of the logical plan (kindling/table/planner/nodes.py): every
operation checks its arguments, derives the result's columns and makes a new node over this one.
Nothing runs until a job is started (``execute``, ``execute_insert``, a DataStream bridge); then
the planner chooses where each node runs and lowers the plan into the job
(kindling/table/planner/).

Example::

    table = t_env.from_path('orders')
    totals = table.group_by(col('user')).select(col('user'), col('amount').sum.alias('total'))
    totals.execute().print()
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple, Union

from kindling.common.typeinfo import ChangelogRowTypeInfo, RowTypeInfo, TypeInformation
from kindling.common.types import Row
from kindling.common.unsupported import unsupported
from kindling.table.expressions import Expression, col, unaliased
from kindling.table.function_catalog import resolving
from kindling.table.planner import nodes
from kindling.table.resolved_schema import (ComputedColumn, MetadataColumn, PhysicalColumn, ResolvedSchema,
                                             UniqueConstraint, WatermarkSpec)
from kindling.table.schema import Schema
from kindling.table.table_result import TableResult
from kindling.table.table_schema import TableSchema
from kindling.table.types import DataType

__all__ = ["GroupWindowedTable", "GroupedTable", "OverWindowedTable", "Table", "WindowGroupedTable"]

#: the prefix of the columns a sort of a stream on expressions computes (kindling/table/table.py ``_sorted``)
_SORT_COLUMN = "$sort"


def changelog_type(row_type: RowTypeInfo) -> ChangelogRowTypeInfo:
    """The Row type whose values keep their RowKind between operators."""
    return ChangelogRowTypeInfo(row_type.get_field_types(), row_type.get_field_names())


@resolving
class Table:
    """A handle on a plan node: the table's columns (:meth:`get_schema`) and how its rows are made.
    Relational operations return new Tables; an ``updating`` table's rows are changes (``+I``,
    ``-U``, ``+U``, ``-D``). :meth:`explain` prints the plan and where each node runs.

    Example::

        t_env.from_path('orders').where(col('amount') > 10).select(col('id'), (col('amount') * 2).alias('a2'))
    """

    def __init__(self, t_env, node: nodes.Node):
        self._t_env = t_env
        self._node = node

    # -- what the node says of the rows -----------------------------------------------------------

    @property
    def _schema(self) -> Schema:
        return self._node.out.schema

    @property
    def _name(self) -> str:
        return nodes.table_name(self._node)

    @property
    def _updating(self) -> bool:
        return self._node.out.updating

    @property
    def _rowtime(self) -> Optional[str]:
        """The event-time column (its values are the rows' timestamps), if any."""
        return self._node.out.rowtime

    @property
    def _proctime(self) -> Optional[str]:
        """The processing-time attribute column (``PROCTIME()``), if any."""
        return self._node.out.proctime

    def _types(self) -> Dict[str, DataType]:
        return self._node.out.types

    def _in_batch(self) -> bool:
        from kindling.datastream.execution_mode import RuntimeExecutionMode

        return self._t_env._env.get_runtime_mode() == RuntimeExecutionMode.BATCH

    def _with(self, node: nodes.Node) -> "Table":
        return Table(self._t_env, node)

    def _output(self, schema: Schema, updating: Optional[bool] = None, rowtime: Optional[str] = None,
                **attributes) -> nodes.Output:
        """The Output of a node over this table: ``updating`` as this table unless given."""
        return nodes.Output(schema, self._updating if updating is None else updating, rowtime, **attributes)

    def get_schema(self) -> TableSchema:
        """The table's column names and types."""
        return TableSchema(self._schema.get_field_names(), self._schema.get_field_data_types(),
                           getattr(self._schema, "primary_key", None))

    def get_resolved_schema(self) -> ResolvedSchema:
        """The table's columns (physical, computed, metadata, with their time attributes and
        comments), its watermark and its primary key, as Flink resolved them."""
        schema = self._schema
        rowtimes = self._node.out.batch_time_attributes if self._in_batch() else self._node.out.rowtime_columns
        proctime = self._proctime or getattr(schema, "proctime", None)
        computed, metadata = getattr(schema, "computed", {}), getattr(schema, "metadata", {})
        comments = getattr(schema, "comments", {})
        columns = []
        for name, data_type in zip(schema.get_field_names(), schema.get_field_data_types()):
            attribute = " *ROWTIME*" if name in rowtimes else " *PROCTIME*" if name == proctime else ""
            extras = {"comment": comments.get(name), "time_attribute": attribute}
            if name in computed:
                columns.append(ComputedColumn(name, data_type, computed[name], **extras))
            elif name in metadata:
                columns.append(MetadataColumn(name, data_type, *metadata[name], **extras))
            else:
                columns.append(PhysicalColumn(name, data_type, **extras))
        watermark, key = getattr(schema, "watermark_spec", None), getattr(schema, "primary_key", None)
        types = dict(zip(schema.get_field_names(), schema.get_field_data_types()))
        return ResolvedSchema(columns, [WatermarkSpec(watermark[0], watermark[1], types[watermark[0]])] if watermark else [],
                              UniqueConstraint(*key) if key else None)

    def print_schema(self) -> None:
        print(self.get_resolved_schema())

    def explain(self, *extra_details) -> str:
        """Kindling's plan of the table, one node a line, inputs indented below it: what each computes,
        where it runs when the table is executed (Spark's JVM operators or Kindling's Python operator,
        in one step, on micro-batches or as a BATCH job: kindling/table/planner/physical.py) and
        whether its rows are changes (``changelogMode``). Of Flink's explain details,
        ``CHANGELOG_MODE`` and ``PLAN_ADVICE`` are accepted (kindling/table/explain_detail.py)."""
        from kindling.table.explain_detail import plan_details
        from kindling.table.planner.explain import explain

        ending = plan_details(extra_details)
        return explain(self._t_env, [self._node]) + ending

    def print_explain(self, *extra_details) -> None:
        """Prints :meth:`explain`."""
        print(self.explain(*extra_details))

    def intersect(self, right: "Table") -> "Table":
        """The distinct rows in both tables."""
        return self._set_operation(right, "intersect")

    def intersect_all(self, right: "Table") -> "Table":
        """The rows in both tables, as many times as in the table holding fewer."""
        return self._set_operation(right, "intersect_all")

    def minus(self, right: "Table") -> "Table":
        """The distinct rows of this table not in ``right`` (batch mode, as in Flink)."""
        return self._set_operation(right, "minus")

    def minus_all(self, right: "Table") -> "Table":
        """The rows of this table, as many times more than in ``right`` (batch mode, as in Flink)."""
        return self._set_operation(right, "minus_all")

    def _set_operation(self, right: "Table", kind: str, in_sql: bool = False) -> "Table":
        """The set operation ``kind`` of the two tables; on unbounded tables SQL's only, as in Flink."""
        if not self._in_batch() and not in_sql:
            raise ValueError(f"The {kind.split('_')[0].upper()} operation on two unbounded tables is currently not "
                             "supported (as in Flink's Table API): run it in batch mode "
                             "(EnvironmentSettings.in_batch_mode()) or write it in SQL")
        left, right = self._aligned(right, kind)
        # a row's copies only grow with insert-only inputs, but for an EXCEPT (its right side can remove them)
        updating = not self._in_batch() and (self._updating or right._updating or kind.startswith("minus"))
        return self._with(nodes.SetOperation(left=left._node, right=right._node, operation=kind,
                                             out=self._output(left._schema, updating=updating)))

    def _aligned(self, right: "Table", what: str) -> Tuple["Table", "Table"]:
        """This table and ``right`` with each column cast to the type both share where they differ, as
        Flink widens a set operation's columns (INT and BIGINT to BIGINT, DECIMALs to one holding both)."""
        from kindling.table.planner.types import common_type

        ours, theirs = self._schema.get_field_data_types(), right._schema.get_field_data_types()
        try:
            if len(ours) != len(theirs):
                raise ValueError("the tables have different numbers of columns")
            shared = [a if repr(a.nullable()) == repr(b.nullable()) else common_type([a, b], what).nullable()
                      for a, b in zip(ours, theirs)]
        except ValueError as e:
            raise ValueError(f"{what} needs tables whose columns have a common type ({e}), got {ours} and "
                             f"{theirs}") from None
        return self._cast_to(shared), right._cast_to(shared)

    def _cast_to(self, types: List[DataType]) -> "Table":
        """This table with the columns whose type is not the one of ``types`` cast to it."""
        names = self._schema.get_field_names()
        own = self._schema.get_field_data_types()
        if all(repr(a.nullable()) == repr(b.nullable()) for a, b in zip(own, types)):
            return self
        return self.select(*[col(n) if repr(a.nullable()) == repr(t.nullable()) else col(n).cast(t).alias(n)
                             for n, a, t in zip(names, own, types)])

    @unsupported("the changelog process table functions are not there; use StreamTableEnvironment's "
                 "to_changelog_stream")
    def to_changelog(self, *arguments) -> "Table": ...

    @unsupported("the changelog process table functions are not there")
    def from_changelog(self, *arguments) -> "Table": ...

    @unsupported("TablePipeline is not there yet; use execute_insert or a StatementSet's add_insert")
    def insert_into(self, table_path: str, overwrite: bool = False): ...

    def _stream(self, type_info: Optional[TypeInformation] = None, final: bool = False):
        """The table's rows added to the environment's job: a DataStream of Rows of ``type_info``
        (default: the table's Row type, named by its columns); ``final``: read by the client only."""
        from kindling.table.planner.lowering import table_stream

        return table_stream(self._t_env, self._node, type_info, final)

    # -- relational operations ----------------------------------------------------------------

    def select(self, *fields: Union[Expression, str]) -> "Table":
        """The given expressions as the columns (an unnamed one is ``_c<position>``); with
        aggregates and no group_by, one group of all rows."""
        from kindling.table.row_operations import expand_columns

        fields = tuple(expand_columns([col(f) if isinstance(f, str) else f for f in fields],
                                      self._schema.get_field_names()))
        if any(f.aggregates() for f in fields):
            return self.group_by().select(*fields)
        types = self._types()
        names = tuple(f._name or f"_c{i}" for i, f in enumerate(fields))
        schema = Schema(list(names), [f._data_type(types) for f in fields])
        out = self._node.out

        def kept(column: Optional[str]) -> Optional[str]:  # the name a time attribute keeps, if selected
            return next((n for f, n in zip(fields, names) if column and _is_column(f, column)), None)

        attributes = tuple(n for f, n in zip(fields, names) if any(_is_column(f, t) for t in out.rowtime_columns))
        return self._with(nodes.project(self._node, fields, names, self._output(
            schema, rowtime=kept(out.rowtime), proctime=kept(out.proctime), time_attributes=attributes)))

    def where(self, predicate: Expression) -> "Table":
        """The rows for which ``predicate`` is true."""
        types = self._types()
        if predicate._data_type(types).type_name != "BOOLEAN":
            raise ValueError(f"where/filter needs a BOOLEAN condition, got {predicate} of type "
                             f"{predicate._data_type(types)!r}")
        if predicate.aggregates():
            raise ValueError(f"where/filter cannot hold an aggregate ({predicate}); filter the result of "
                             "group_by(...).select(...) instead")
        node = self._node
        if isinstance(node, nodes.Join) and node.predicate is None:  # join(right).where(predicate)
            return self._with(node.left)._join(self._with(node.right), predicate, False, False, equi_required=False)
        return self._with(nodes.filtered(node, predicate))

    filter = where

    def add_columns(self, *fields: Expression) -> "Table":
        """The table's columns and then ``fields``."""
        return self.select(*[col(n) for n in self._schema.get_field_names()], *fields)

    def add_or_replace_columns(self, *fields: Expression) -> "Table":
        """The table with each named field replacing the column of its name, or added after the columns."""
        from kindling.table.row_operations import add_or_replace_columns

        return add_or_replace_columns(self, list(fields))

    def map(self, func) -> "Table":
        """The row a scalar function (``udf``; given without arguments it takes the whole row) makes of
        each row: a ROW result's fields are the columns."""
        from kindling.table.row_operations import map_rows

        return map_rows(self, func)

    def aggregate(self, func):
        """One row of an aggregate function (``udaf``) over all rows; ``select`` its columns."""
        from kindling.table.row_operations import aggregate

        return aggregate(self, [], func)

    def flat_aggregate(self, func):
        """The rows a table aggregate function (``udtaf``) emits over all rows; ``select`` its columns."""
        from kindling.table.row_operations import flat_aggregate

        return flat_aggregate(self, [], func)

    def drop_columns(self, *fields: Expression) -> "Table":
        """The table without the named columns."""
        dropped = [f._name if isinstance(f, Expression) else f for f in fields]
        missing = [d for d in dropped if d not in self._schema.get_field_names()]
        if missing:
            raise ValueError(f"drop_columns: no column {missing} in {self._schema.get_field_names()}")
        return self.select(*[col(n) for n in self._schema.get_field_names() if n not in dropped])

    def rename_columns(self, *fields: Expression) -> "Table":
        """The table with columns renamed by ``col('old').alias('new')``."""
        renamed = {f._text.split(" AS ")[0]: f._name for f in fields if isinstance(f, Expression)}
        if len(renamed) != len(fields) or any(old not in self._schema.get_field_names() for old in renamed):
            raise ValueError(f"rename_columns takes col('old').alias('new') of existing columns "
                             f"{self._schema.get_field_names()}, got {list(map(str, fields))}")
        return self.select(*[col(n).alias(renamed[n]) if n in renamed else col(n)
                             for n in self._schema.get_field_names()])

    def alias(self, field: str, *fields: str) -> "Table":
        """The table with its columns renamed, in order (``flat_map(split).alias('word')``)."""
        names = [field, *fields]
        current = self._schema.get_field_names()
        if len(names) != len(current):
            raise ValueError(f"alias: {len(names)} names {names} for the {len(current)} columns {current}")
        return self.select(*[col(old).alias(new) for old, new in zip(current, names)])

    def group_by(self, *fields: Union[Expression, str]) -> "GroupedTable":
        """The rows grouped by the given columns or expressions (``(col('id') % 2).alias('m')``: ``select``
        reads the key as ``col('m')``), for ``select`` with aggregates."""
        return GroupedTable(self, [col(f) if isinstance(f, str) else f for f in fields])

    def window(self, window) -> "GroupWindowedTable":
        """The rows in group windows (``Tumble``, ``Slide``, ``Session`` of ``kindling.table.window``)
        over the table's event-time column, for ``group_by(..., col(alias)).select(...)``."""
        from kindling.table.window import GroupWindow

        if not isinstance(window, GroupWindow) or window.alias_name is None or window.time_field is None:
            raise ValueError("window takes Tumble/Slide/Session ... .on(col('ts')).alias('w')")
        if window.time_field != self._rowtime:
            raise ValueError(f"window: '{window.time_field}' is not the table's event-time column "
                             f"({self._rowtime or 'the table has none'}); declare it with "
                             "Schema.new_builder()...watermark('ts', \"ts - INTERVAL '1' SECOND\")")
        return GroupWindowedTable(self, window)

    def over_window(self, *over_windows) -> "OverWindowedTable":
        """The rows with OVER windows (``Over.partition_by(...).order_by(col('ts')).preceding(...)
        .alias('w')`` of ``kindling.table.window``), for ``select(..., col('v').sum.over(col('w')))``."""
        from kindling.table.window import OverWindow

        if not over_windows or not all(isinstance(w, OverWindow) for w in over_windows):
            raise ValueError("over_window takes Over.partition_by(...).order_by(...).preceding(...).alias('w')")
        return OverWindowedTable(self, list(over_windows))

    def distinct(self) -> "Table":
        """The distinct rows (an updating table in streaming mode, as in Flink)."""
        names = self._schema.get_field_names()
        return self.group_by(*names).select(*[col(n) for n in names])

    def flat_map(self, func) -> "Table":
        """The rows a table function (``udtf``) makes from each row: its result columns
        (``f0``, ``f1``, ... until ``alias``)."""
        from kindling.table.udf import TableFunctionCall, UserDefinedTableFunctionWrapper

        call = func if isinstance(func, TableFunctionCall) else None
        func = func._function if call is not None else func
        if not isinstance(func, UserDefinedTableFunctionWrapper):
            raise TypeError(f"flat_map takes a table function made with udtf(...), got {func!r}")
        schema = Schema([f"f{i}" for i in range(len(func._result_types))], func._result_types)
        return self._with(nodes.Correlate(input=self._node, function=func, call=call, keep_input=False, outer=False,
                                          out=self._output(schema)))

    def join_lateral(self, table_function_call: Expression, join_predicate: Optional[Expression] = None) -> "Table":
        """Each row joined with the rows the table function call makes for it (an inner join)."""
        return self._lateral(table_function_call, join_predicate, outer=False)

    def left_outer_join_lateral(self, table_function_call: Expression,
                                join_predicate: Optional[Expression] = None) -> "Table":
        """As join_lateral, keeping a row the function makes nothing for (with nulls)."""
        return self._lateral(table_function_call, join_predicate, outer=True)

    def _lateral(self, call: Expression, predicate: Optional[Expression], outer: bool) -> "Table":
        from kindling.table.udf import TableFunctionCall, UserDefinedTableFunctionWrapper

        if isinstance(call, UserDefinedTableFunctionWrapper):  # given uncalled, it takes the whole row
            from kindling.table.row_operations import whole_row

            wrapper, call = call, call(whole_row(self))
            call = call.alias(*wrapper._aliases) if wrapper._aliases else call
        if not isinstance(call, TableFunctionCall):
            raise TypeError(f"join_lateral takes a call of a table function (split(col('line'))), got {call!r}")
        names = call._names or [f"f{i}" for i in range(len(call._function._result_types))]
        schema = Schema(self._schema.get_field_names() + names,
                        self._schema.get_field_data_types() + list(call._function._result_types))
        out = self._node.out  # the row's columns keep their time attributes, as Flink's Correlate
        table = self._with(nodes.Correlate(input=self._node, function=call._function, call=call, keep_input=True,
                                           outer=outer, out=self._output(schema, rowtime=out.rowtime,
                                                                         proctime=out.proctime,
                                                                         time_attributes=out.time_attributes)))
        return table.where(predicate) if predicate is not None else table

    def join(self, right: "Table", join_predicate: Optional[Expression] = None) -> "Table":
        """The inner join with ``right`` on ``join_predicate`` (which needs at least one equality of
        a column of each table), or on a following ``where``. Column names must differ."""
        return self._join(right, join_predicate, False, False)

    def left_outer_join(self, right: "Table", join_predicate: Optional[Expression] = None) -> "Table":
        """As join, keeping every row of this table (with nulls while it has no partner)."""
        return self._join(right, join_predicate, True, False)

    def right_outer_join(self, right: "Table", join_predicate: Optional[Expression] = None) -> "Table":
        """As join, keeping every row of ``right``."""
        return self._join(right, join_predicate, False, True)

    def full_outer_join(self, right: "Table", join_predicate: Optional[Expression] = None) -> "Table":
        """As join, keeping every row of both tables."""
        return self._join(right, join_predicate, True, True)

    def _join(self, right: "Table", predicate: Optional[Expression], left_outer: bool, right_outer: bool,
              equi_required: bool = True) -> "Table":
        """The join on ``predicate``; ``equi_required``: the predicate must hold an equality of a column of
        each table (the Table API's rule; SQL joins every pair the condition accepts)."""
        from kindling.table.interval_join import interval_join_of
        from kindling.table.join import conjuncts, equi_keys, joined_schema, python_function_in
        from kindling.table.rank import failing_table
        from kindling.table.window_join import window_join

        left_names, right_names = self._schema.get_field_names(), right._schema.get_field_names()
        both = [n for n in left_names if n in right_names]
        if both:
            raise ValueError(f"join: both tables have the columns {both}; rename one side's first "
                             "(rename_columns or alias)")
        schema = joined_schema(self, right, left_outer, right_outer)
        if predicate is None:
            if left_outer or right_outer:
                raise ValueError("an outer join needs a join predicate: left_outer_join(right, col('a') == col('b'))")
            return self._with(nodes.Join(left=self._node, right=right._node, predicate=None,
                                         out=self._output(schema, updating=False)))
        if predicate._data_type({**self._types(), **right._types()}).type_name != "BOOLEAN":
            raise ValueError(f"a join predicate is a BOOLEAN condition, got {predicate}")
        special = window_join(self, right, predicate, left_outer, right_outer) or \
            interval_join_of(self, right, predicate, left_outer, right_outer)
        if special is not None:
            return special
        if equi_required and not equi_keys(predicate, left_names, right_names)[0]:
            raise ValueError(f"Invalid join condition: {predicate}. At least one equi-join predicate is required.")
        updating = (self._updating or right._updating or left_outer or right_outer) and not self._in_batch()
        joined = self._with(nodes.Join(left=self._node, right=right._node, predicate=predicate, left_outer=left_outer,
                                       right_outer=right_outer, out=self._output(schema, updating=updating)))
        padded = set(left_names) if not left_outer else set(right_names) if not right_outer else set()
        function = next(filter(None, (python_function_in(c, schema) for c in conjuncts(predicate)
                                      if not set(c.columns()) <= padded)), None)  # (those go below the join)
        if function is None or not (left_outer or right_outer):
            return joined
        return failing_table(joined, schema, f"Cannot generate a valid execution plan for the outer join on {predicate} "
                       f"(it calls the Python function {function}): Only inner join condition with equality "
                       "predicates supports the Python UDF taking the inputs from the left table and the right "
                       "table at the same time, e.g., ON T1.id = T2.id && pythonUdf(T1.a, T2.b)")

    def union_all(self, right: "Table") -> "Table":
        """The rows of both tables (names from this one; columns of different types cast to the type both share)."""
        left, right = self._aligned(right, "union_all")
        return self._with(nodes.Union(left=left._node, right=right._node,
                                      out=self._output(left._schema, updating=self._updating or right._updating)))

    def union(self, right: "Table") -> "Table":
        """The distinct rows of both tables."""
        return self.union_all(right).distinct()

    def order_by(self, *fields: Union[Expression, str]) -> "Table":
        """The rows sorted by ``fields``, columns or expressions (``col('a').desc``; null sorts as the largest
        value), in batch mode, usually with ``fetch``/``limit``; in streaming mode starting with the time
        attribute ascending."""
        return self._sorted([col(f) if isinstance(f, str) else f for f in fields], 0, None)

    def offset(self, offset: int) -> "Table":
        """The rows after the first ``offset`` (of a sorted table)."""
        base, keys, _, fetch = self._sort()
        return base._sorted(keys, offset, fetch)

    def fetch(self, fetch: int) -> "Table":
        """The first ``fetch`` rows (of a sorted table: after its offset)."""
        base, keys, offset, _ = self._sort()
        return base._sorted(keys, offset, fetch)

    def limit(self, fetch: int, offset: int = 0) -> "Table":
        """``fetch`` rows after ``offset``."""
        base, keys, _, _ = self._sort()
        return base._sorted(keys, offset, fetch)

    def _sort(self) -> Tuple["Table", list, int, Optional[int]]:
        """The table before its sort (or itself), the sort keys, offset and fetch."""
        node = self._node
        if isinstance(node, nodes.Sort):
            return self._with(node.input), list(node.keys), node.offset, node.fetch
        if isinstance(node, nodes.Project) and isinstance(node.input, nodes.Sort) and \
                isinstance(node.input.input, nodes.Project) and \
                any((k._name or "").startswith(_SORT_COLUMN) for k in node.input.keys):  # sorted on expressions
            sort, computed = node.input, node.input.input
            keys = []
            for key in sort.keys:
                if (key._name or "").startswith(_SORT_COLUMN):
                    expression = computed.fields[computed.names.index(key._name)]._operands[0]
                    key = expression.desc if key._descending else expression
                keys.append(key)
            return self._with(computed.input), keys, sort.offset, sort.fetch
        return self, [], 0, None

    def _sorted(self, keys: List[Expression], offset: int, fetch: Optional[int]) -> "Table":
        from kindling.table.planner.physical import stream_sort

        types = self._types()
        for key in keys:
            key._data_type(types)  # a missing column fails now, naming the columns
        out = self._node.out
        if self._in_batch():
            out = nodes.Output(out.schema, out.updating)
        elif not all(getattr(unaliased(k), "_is_column", False) and k._name in types for k in keys):
            # as Flink's planner: the expressions computed as columns, sorted on, then dropped
            names = self._schema.get_field_names()
            computed, columns = [], []
            for key in keys:
                expression = unaliased(key)
                if getattr(expression, "_is_column", False) and key._name in types:
                    columns.append(key)
                    continue
                name = _unused(f"{_SORT_COLUMN}{len(computed)}", names)
                computed.append(expression.alias(name))
                columns.append(col(name).desc if key._descending else col(name))
            return self.add_columns(*computed)._sorted(columns, offset, fetch).select(*[col(n) for n in names])
        elif stream_sort(out, [k._name for k in keys], [getattr(k, "_descending", False) for k in keys], fetch,
                         offset) == "top_n":  # a Top-N's rows are changes
            out = nodes.Output(out.schema, True, out.rowtime, out.proctime)
        return self._with(nodes.Sort(input=self._node, keys=tuple(keys), offset=offset, fetch=fetch, out=out))

    # -- results ------------------------------------------------------------------------------

    def execute(self) -> TableResult:
        """Starts a job computing the rows: ``execute().print()`` or ``execute().collect()``."""
        rows = self._stream(final=True).execute_and_collect()
        return TableResult(rows._client, rows, self._schema, with_kind=not self._in_batch())

    def to_pandas(self):
        """The rows as a pandas DataFrame with the table's column names (runs a job); an updating
        table's final rows; a ROW value is a dict of its fields, a TIMESTAMP_LTZ value a UTC timestamp, as
        in PyFlink."""
        import pandas

        from kindling.common.time import utc_timestamps

        with self._stream().execute_and_collect() as changes:
            rows = [[v.as_dict(True) if isinstance(v, Row) and v._fields is not None else v for v in row] for row in _final_rows(changes)]
        frame = pandas.DataFrame(rows, columns=self._schema.get_field_names())
        for i, data_type in enumerate(self._schema.get_field_data_types()):
            if data_type.type_name == "TIMESTAMP_LTZ":
                frame.isetitem(i, utc_timestamps(list(frame.iloc[:, i])))
        return frame

    def execute_insert(self, table_path: str, overwrite: bool = False) -> TableResult:
        """Writes the rows into the table ``table_path`` (a sink table) and starts the job."""
        if overwrite:
            raise ValueError("execute_insert(overwrite=True) is not supported by Kindling yet")
        return self._t_env._insert(self, table_path)

    def __repr__(self) -> str:
        return f"Table {self._name} {self._schema!r}"

    def __getattr__(self, name: str) -> Expression:
        """``table.amount``: the column ``amount`` (as ``col('amount')``)."""
        node = self.__dict__.get("_node")
        names = node.out.schema.get_field_names() if node is not None else []
        if name.startswith("_") or name not in names:
            raise AttributeError(f"The table has no column named '{name}'; columns: {names}")
        return col(name)

    def __str__(self) -> str:
        """The table's name for SQL text (``"SELECT * FROM %s" % table``): it is registered as a view
        named ``UnnamedTable$<n>`` as Flink does (its full identifier, quoted, so that the name parses
        whatever the current catalog and database)."""
        return self._t_env._unnamed(self)


@resolving
class OverWindowedTable:
    """A table with OVER windows; :meth:`select` computes each row's ``aggregate.over(col(alias))``."""

    def __init__(self, table: Table, windows: list):
        self._table, self._windows = table, {w.alias_name: w for w in windows}

    def select(self, *fields: Union[Expression, str]) -> Table:
        """The given expressions per row; ``col('v').sum.over(col('w'))`` aggregates over the window
        ``w`` (every OVER aggregate of a select uses the same window, as in Flink)."""
        from kindling.table.over_aggregate import over_aggregate

        fields = [col(f) if isinstance(f, str) else f for f in fields]
        calls = [c for f in fields for c in _over_calls(f)]
        if not calls:
            return self._table.select(*fields)
        aliases = {c._over_window for c in calls}
        if len(aliases) > 1 or not aliases <= set(self._windows):
            raise ValueError(f"select: the OVER aggregates name the windows {sorted(aliases)}; use one window of "
                             f"over_window ({sorted(self._windows)}), as Flink does")
        window = self._windows[aliases.pop()]
        for i, call in enumerate(calls):
            call._over_column = f"__over{i}"
        over = over_aggregate(self._table, window.frame(), [c._over_aggregate for c in calls],
                              [c._over_column for c in calls])
        return over.select(*fields)


def _over_calls(expression: Expression) -> List[Expression]:
    """The ``aggregate.over(window)`` calls in an expression."""
    if getattr(expression, "_over_aggregate", None) is not None:
        return [expression]
    return [c for child in expression._children for c in _over_calls(child)]


@resolving
class GroupWindowedTable:
    """A table in group windows; ``group_by`` names the keys and the window's alias."""

    def __init__(self, table: Table, window):
        self._table, self._window = table, window

    def group_by(self, *fields: Union[Expression, str]) -> "WindowGroupedTable":
        fields = [col(f) if isinstance(f, str) else f for f in fields]
        names = [getattr(f, "_name", None) for f in fields]
        if self._window.alias_name not in names:
            raise ValueError(f"group_by of a windowed table names the window: group_by(..., col("
                             f"'{self._window.alias_name}'))")
        keys = [f for f, n in zip(fields, names) if n != self._window.alias_name]
        grouped = GroupedTable(self._table, keys)
        return WindowGroupedTable(grouped._table, self._window, grouped._keys)


@resolving
class WindowGroupedTable:
    """Rows grouped by keys and a window; :meth:`select` computes one row per key and fired window,
    with the window's ``col('w').start``, ``.end`` and ``.rowtime``."""

    def __init__(self, table: Table, window, keys: List[str]):
        self._table, self._window, self._keys = table, window, keys

    @unsupported("a window's aggregate() of a ROW-valued function is not there yet; call the function in select")
    def aggregate(self, func): ...

    def select(self, *fields: Union[Expression, str]) -> Table:
        table, window = self._table, self._window
        fields = [col(f) if isinstance(f, str) else f for f in fields]
        grouped = GroupedTable(table, [col(k) for k in self._keys])
        types = dict(table._types(), **{window.alias_name: table._types()[window.time_field]})
        names, schema = grouped._result_schema(fields, types, allowed=[window.alias_name])
        return table._with(nodes.GroupWindowAggregate(input=table._node, window=window, keys=tuple(self._keys),
                                                      fields=tuple(fields), names=tuple(names),
                                                      out=table._output(schema, updating=False)))


@resolving
class GroupedTable:
    """A table grouped by key columns; :meth:`select` computes one row per group.

    Example::

        table.group_by(col('word')).select(col('word'), lit(1).count.alias('n'))
    """

    def __init__(self, table: Table, keys: List[Expression]):
        self._table, self._keys, self._computed = _with_key_columns(table, keys)

    def select(self, *fields: Union[Expression, str]) -> Table:
        """The group keys and aggregates (``col('v').sum``, ``lit(1).count``, ``call('max', ...)``)
        per group; unnamed ones are ``EXPR$<position>`` as in Flink."""
        from kindling.table.planner.rules import mini_batch

        table = self._table
        fields = [col(f) if isinstance(f, str) else f for f in fields]
        names, schema = self._result_schema(fields, table._types())
        return table._with(nodes.Aggregate(input=table._node, keys=tuple(self._keys), fields=tuple(fields),
                                           names=tuple(names), mini_batch=mini_batch(table._t_env),
                                           out=table._output(schema, updating=not table._in_batch())))

    def aggregate(self, func):
        """One row per group of an aggregate function (``udaf``; given without arguments it takes the
        whole row); ``select`` the keys and its result's columns."""
        from kindling.table.row_operations import aggregate

        self._refuse_computed("aggregate")
        return aggregate(self._table, self._keys, func)

    def flat_aggregate(self, func):
        """The rows a table aggregate function (``udtaf``) emits per group; ``select`` the keys and its
        result's columns."""
        from kindling.table.row_operations import flat_aggregate

        self._refuse_computed("flat_aggregate")
        return flat_aggregate(self._table, self._keys, func)

    def _refuse_computed(self, operation: str) -> None:
        if self._computed:
            raise ValueError(f"group_by(...).{operation} with the key expressions {self._computed} is not supported "
                             "by Kindling yet: add them as columns first (add_columns) and group by those")

    def _result_schema(self, fields: List[Expression], types: Dict[str, DataType], allowed: List[str] = ()):
        """The result's column names and schema; fails on a column that is neither grouped nor aggregated."""
        for f in fields:
            stray = [c for c in f.columns() if c not in self._keys and c not in allowed]
            if stray:
                raise ValueError(f"Expression '{stray[0]}' is not being grouped: '{f}' reads {stray}, which are not "
                                 f"grouped; select group keys {self._keys} and aggregates only")
        calls = [c for f in fields for c in ([f] if getattr(f, "_window_bound", False) else f.aggregates())]
        # Flink names an unnamed aggregate (or window property) by its place among those, others by position
        places = {id(a): j for j, a in enumerate(calls)}
        names = [f._name or (f"EXPR${places[id(f)]}" if id(f) in places else f"_c{i}") for i, f in enumerate(fields)]
        return names, Schema(names, [f._data_type(types) for f in fields])


def explanation(t_env, statement: str) -> TableResult:
    """The result of ``EXPLAIN statement``: Kindling's plan of a query or of an INSERT's query."""
    from kindling.table.ddl import parse_statement
    from kindling.table.planner.explain import explain

    kind, *parts = parse_statement(statement)
    if kind == "query":
        return _PlanResult(t_env.sql_query(parts[0]).explain())
    if kind == "insert":
        return _PlanResult(explain(t_env, [t_env._sink_node(t_env.sql_query(parts[1]), parts[0])]))
    raise ValueError(f"EXPLAIN takes a query or an INSERT INTO, got {statement.strip()[:80]!r}")


class _PlanResult(TableResult):
    """A plan's text, printed as is (as PyFlink prints an EXPLAIN's result)."""

    def __init__(self, text: str):
        super().__init__()
        self._text = text

    def print(self) -> None:
        print(self._text)

    def collect(self):
        return _Rows([Row(self._text)])

    def get_result_kind(self) -> int:
        from kindling.table.result_kind import ResultKind

        return ResultKind.SUCCESS_WITH_CONTENT


class _Rows:
    """Rows already at hand, iterated as a job's CloseableIterator is (``with result.collect() as rows``)."""

    def __init__(self, rows: list):
        self._rows = iter(rows)

    def __iter__(self):
        return self._rows

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._rows = iter(())


def _final_rows(changes) -> list:
    """The rows an applied changelog leaves (retractions remove an equal earlier row)."""
    rows: list = []
    for change in changes:
        values = list(change)
        if isinstance(change, Row) and change._is_retract_msg():
            rows.remove(values)
        else:
            rows.append(values)
    return rows


def _with_key_columns(table: Table, keys: List[Expression]) -> Tuple[Table, List[str], List[str]]:
    """The table to aggregate, its key columns and the key expressions it computes: as Flink's planner, a
    key expression is computed as a column of a projection below the aggregation, named by its alias
    (which the select list reads) or, unaliased, by a name nothing else reads."""
    types = table._types()
    names = table.get_schema().get_field_names()
    computed = [k for k in keys if not getattr(unaliased(k), "_is_column", False) or
                (k._name is not None and k._name != unaliased(k)._name)]
    is_computed = {id(k) for k in computed}
    for k in keys:
        if id(k) not in is_computed:
            col(k._name)._data_type(types)  # a missing column fails here, naming the table's columns
    if not computed:
        return table, [k._name for k in keys], []
    added, hidden = [], [n for n in names]
    for key in computed:
        key._data_type(types)  # fails naming the expression and the problem
        if key.aggregates():
            raise ValueError(f"group_by: the key {key} holds an aggregate; group by columns or expressions of them")
        if key._name is not None and key._name in names:
            raise ValueError(f"group_by: the key {key} is named as the table's column '{key._name}' (Flink fails on "
                             "it when the job runs: field not found); give it another name")
        name = key._name or _unused(f"$f{len(hidden)}", hidden)
        hidden.append(name)
        added.append(unaliased(key).alias(name))
    keyed = table.select(*[col(n) for n in names], *added)
    computed_names = iter(hidden[len(names):])
    return keyed, [next(computed_names) if id(k) in is_computed else k._name for k in keys], [str(k) for k in computed]


def _unused(name: str, taken: List[str]) -> str:
    """``name``, or ``name_<n>`` when a column is named so."""
    unique, n = name, 0
    while unique in taken:
        unique, n = f"{name}_{n}", n + 1
    return unique


def _is_column(expression: Expression, name: str) -> bool:
    """Whether the expression is the column ``name`` (maybe aliased)."""
    while not getattr(expression, "_is_column", False) and len(expression._children) == 1 and \
            " AS " in expression._text:
        expression = expression._children[0]
    return getattr(expression, "_is_column", False) and expression._name == name
