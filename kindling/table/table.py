"""``pyflink.table.Table`` and ``GroupedTable``: a table of a TableEnvironment, with its schema,
and the relational operations on it.

Example::

    table = t_env.from_path('orders')
    totals = table.group_by(col('user')).select(col('user'), col('amount').sum.alias('total'))
    totals.execute().print()
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Union

from kindling.common.typeinfo import ChangelogRowTypeInfo, RowTypeInfo, TypeInformation
from kindling.common.types import Row, _create_row
from kindling.common.unsupported import unsupported
from kindling.datastream.functions import KeyedProcessFunction
from kindling.table.expressions import Expression, col, unaliased
from kindling.table.schema import Schema
from kindling.table.table_result import TableResult
from kindling.table.types import DataType

__all__ = ["GroupWindowedTable", "GroupedTable", "OverWindowedTable", "Table", "WindowGroupedTable"]


def changelog_type(row_type: RowTypeInfo) -> ChangelogRowTypeInfo:
    """The Row type whose values keep their RowKind between operators."""
    return ChangelogRowTypeInfo(row_type.get_field_types(), row_type.get_field_names())


class Table:
    """Columns (:meth:`get_schema`) and how the rows are made. A table read from a connector or
    elements is a Spark DataFrame plan: a ``scan`` (``() -> Source``) with relational
    ``operations`` run as Spark column expressions, in Spark's JVM operators. Any other table
    (made from a DataStream, by a Python function, by an aggregation) is a DataStream of Rows
    (``rows()``), its operations Python passes of the same job; an ``updating`` table's rows are
    changes (``+I``, ``-U``, ``+U``, ``-D``).

    Example::

        t_env.from_path('orders').where(col('amount') > 10).select(col('id'), (col('amount') * 2).alias('a2'))
    """

    def __init__(self, t_env, schema: Schema, name: str, scan: Optional[Callable[[], object]] = None,
                 operations: tuple = (), rows: Optional[Callable[[], object]] = None, updating: bool = False,
                 rowtime: Optional[str] = None):
        self._rowtime = rowtime  # the event-time column (its values are the rows' timestamps)
        self._time_attributes = (rowtime,)  # the columns printed as *ROWTIME*
        self._plan = (f"TableSourceScan(table=[{name}], fields=[{', '.join(schema.get_field_names())}])", [])
        self._t_env = t_env
        self._schema = schema
        self._name = name
        self._scan = scan
        self._operations = operations
        self._rows = rows
        self._updating = updating

    def get_schema(self) -> Schema:
        return self._schema

    @property
    def _proctime(self) -> Optional[str]:
        """The processing-time attribute column (``PROCTIME()``), if any."""
        return self.__dict__.get("_proctime_column") or getattr(self._schema, "proctime", None)

    @_proctime.setter
    def _proctime(self, column: Optional[str]) -> None:
        self._proctime_column = column

    def print_schema(self) -> None:
        text = repr(self._schema)
        for column in filter(None, () if self._in_batch() else self._time_attributes):  # batch: none
            text = text.replace(f"`{column}` {self._types()[column]!r}",
                                f"`{column}` {self._types()[column]!r} *ROWTIME*")
        proctime = self._proctime
        if proctime and getattr(self._schema, "proctime", None) != proctime:  # a declared schema prints its own
            text = text.replace(f"`{proctime}` {self._types()[proctime]!r}",
                                f"`{proctime}` {self._types()[proctime]!r} *PROCTIME*")
        print(text)

    def explain(self, *extra_details) -> str:
        """Kindling's plan of the table, one operator a line, inputs indented below it: what each
        computes, whether its rows are changes (``changelogMode``), and where it runs (Spark SQL or a
        Python pass, a keyed operator on Spark's transformWithState). Of Flink's explain details,
        ``CHANGELOG_MODE`` and ``PLAN_ADVICE`` are accepted (kindling/table/explain_detail.py)."""
        from kindling.table.explain_detail import plan_details

        ending = plan_details(extra_details)
        return "== Kindling Plan ==\n" + "\n".join(_plan_lines(self, "", "")) + "\n" + ending

    def print_explain(self, *extra_details) -> None:
        """Prints :meth:`explain`."""
        print(self.explain(*extra_details))

    def intersect(self, right: "Table") -> "Table":
        """The distinct rows in both tables."""
        from kindling.table.set_operations import set_operation

        return set_operation(self, right, "intersect")

    def intersect_all(self, right: "Table") -> "Table":
        """The rows in both tables, as many times as in the table holding fewer."""
        from kindling.table.set_operations import set_operation

        return set_operation(self, right, "intersect_all")

    def minus(self, right: "Table") -> "Table":
        """The distinct rows of this table not in ``right`` (batch mode, as in Flink)."""
        from kindling.table.set_operations import set_operation

        return set_operation(self, right, "minus")

    def minus_all(self, right: "Table") -> "Table":
        """The rows of this table, as many times more than in ``right`` (batch mode, as in Flink)."""
        from kindling.table.set_operations import set_operation

        return set_operation(self, right, "minus_all")

    @unsupported("the changelog process table functions are not there; use StreamTableEnvironment's "
                 "to_changelog_stream")
    def to_changelog(self, *arguments) -> "Table": ...

    @unsupported("the changelog process table functions are not there")
    def from_changelog(self, *arguments) -> "Table": ...

    @unsupported("ResolvedSchema belongs to Flink's catalog; use get_schema()")
    def get_resolved_schema(self): ...

    @unsupported("TablePipeline is not there yet; use execute_insert or a StatementSet's add_insert")
    def insert_into(self, table_path: str, overwrite: bool = False): ...

    def _row_type(self) -> RowTypeInfo:
        row_type = self._schema.row_type_info()
        return changelog_type(row_type) if self._updating else row_type

    def _stream(self, type_info: Optional[TypeInformation] = None):
        """The table's rows added to the environment's job: a DataStream of Rows of ``type_info``
        (default: the table's Row type, named by its columns)."""
        natural = self._row_type()
        wanted = type_info or natural
        arity = len(getattr(wanted, "get_field_types", lambda: [None])())
        if arity != len(self._schema.get_field_names()):
            raise ValueError(f"The type {wanted} has {arity} fields, the table {self._name} has "
                             f"{len(self._schema.get_field_names())} columns {self._schema.get_field_names()}")
        if self._updating and not isinstance(wanted, ChangelogRowTypeInfo):
            wanted = changelog_type(wanted)
        if self._rows is not None:
            stream = self._rows()
            return stream if wanted == natural else _keeping_parallelism(stream, _Retyped(wanted), wanted)
        from kindling.common.watermark_strategy import WatermarkStrategy
        from kindling.datastream.connectors.base import Source
        from kindling.graph.specs import TableSourceSpec

        env, source = self._t_env._env, self._scan()
        if not self._operations and wanted == source._type_info:
            return env.from_source(source, WatermarkStrategy.no_watermarks(), self._name)
        names = wanted.get_field_names()
        rename = (lambda df, control: df.toDF(*names, *control),)  # the columns as the Row type names them
        spec = TableSourceSpec(base=source._spec, base_type=source._type_info, operations=self._operations + rename)
        return env.from_source(Source(spec, wanted), WatermarkStrategy.no_watermarks(), self._name)

    def _in_batch(self) -> bool:
        from kindling.datastream.execution_mode import RuntimeExecutionMode

        return self._t_env._env.get_runtime_mode() == RuntimeExecutionMode.BATCH

    # -- relational operations ----------------------------------------------------------------

    def _types(self) -> Dict[str, DataType]:
        return dict(zip(self._schema.get_field_names(), self._schema.get_field_data_types()))

    def _then(self, schema: Schema, operation: Callable, label: str = "Calc") -> "Table":
        """The table after ``operation``, a ``(DataFrame, control_columns) -> DataFrame`` step."""
        table = Table(self._t_env, schema, self._name, self._scan, self._operations + (operation,))
        table._plan = (f"{label} [Spark SQL]", [self])
        return table

    def _python(self, schema: Schema, make: Callable[[object, TypeInformation], object],
                updating: Optional[bool] = None, rowtime: Optional[str] = None, label: str = "Calc",
                row_wise: bool = False) -> "Table":
        """The table whose rows ``make(rows_of_this_table, row_type)`` makes, a Python pass (``label``
        names it in :meth:`explain`). An updating table whose rows leave out ``-U`` (a Top-1, as Flink
        sends them only where needed) gives its rows with ``-U`` to operators that are not ``row_wise``."""
        updating = self._updating if updating is None else updating
        row_type = schema.row_type_info()
        row_type = changelog_type(row_type) if updating else row_type
        with_before = getattr(self, "_with_before", None)

        def rows():
            return make(with_before() if with_before is not None and not row_wise else self._stream(), row_type)

        table = Table(self._t_env, schema, self._name, rows=rows, updating=updating, rowtime=rowtime)
        table._plan = (label, [self])
        if with_before is not None and row_wise:
            table._with_before = lambda: make(with_before(), row_type)
        return table

    def select(self, *fields: Union[Expression, str]) -> "Table":
        """The given expressions as the columns (an unnamed one is ``_c<position>``); with
        aggregates and no group_by, one group of all rows."""
        from kindling.table.row_operations import expand_columns

        fields = tuple(expand_columns([col(f) if isinstance(f, str) else f for f in fields],
                                      self._schema.get_field_names()))
        if any(f.aggregates() for f in fields):
            return self.group_by().select(*fields)
        types = self._types()
        names = [f._name or f"_c{i}" for i, f in enumerate(fields)]
        schema = Schema(names, [f._data_type(types) for f in fields])
        label = f"Calc(select=[{', '.join(map(str, fields))}])"
        if self._scan is not None and not any(f.needs_python() for f in fields):
            def select(df, control):
                return df.select(*[f.spark_column(types).alias(n) for f, n in zip(fields, names)], *control)

            return self._then(schema, select, label)
        project = _Project(self._schema.get_field_names(), list(fields), names)
        rowtime = next((n for f, n in zip(fields, names) if self._rowtime and _is_column(f, self._rowtime)), None)
        table = self._python(schema, lambda rows, row_type: _keeping_parallelism(rows, project, row_type),
                             rowtime=rowtime, label=label, row_wise=True)
        table._proctime = next((n for f, n in zip(fields, names) if self._proctime and _is_column(f, self._proctime)),
                               None)
        table._time_attributes = tuple(n for f, n in zip(fields, names)
                                       if any(_is_column(f, t) for t in filter(None, self._time_attributes)))
        return table

    def where(self, predicate: Expression) -> "Table":
        """The rows for which ``predicate`` is true."""
        types = self._types()
        if predicate._data_type(types).type_name != "BOOLEAN":
            raise ValueError(f"where/filter needs a BOOLEAN condition, got {predicate} of type "
                             f"{predicate._data_type(types)!r}")
        if predicate.aggregates():
            raise ValueError(f"where/filter cannot hold an aggregate ({predicate}); filter the result of "
                             "group_by(...).select(...) instead")
        if getattr(self, "_join_sides", None):
            return self._join_sides[0].join(self._join_sides[1], predicate)
        if self._scan is not None and not predicate.needs_python():
            def where(df, control):
                from pyspark.sql import functions

                condition = predicate.spark_column(types)
                if control:  # control rows (a non-null watermark column) always pass (docs/table.md)
                    condition = functions.coalesce(condition, functions.lit(False)) | \
                        functions.col(control[0]).isNotNull()
                return df.where(condition)

            return self._then(self._schema, where, f"Calc(where=[{predicate}])")
        condition = _Condition(self._schema.get_field_names(), predicate)
        table = self._python(self._schema, lambda rows, row_type: rows.filter(condition), rowtime=self._rowtime,
                             label=f"Calc(where=[{predicate}])", row_wise=True)
        table._proctime, table._time_attributes = self._proctime, self._time_attributes
        return table

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
        """The rows grouped by the given columns, for ``select`` with aggregates."""
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
        lateral = _Lateral(func, call, schema.get_field_names(), keep_input=False, outer=False,
                           input_names=self._schema.get_field_names())
        return self._python(schema, lambda rows, row_type: _keeping_parallelism(rows, lateral, row_type, flat=True),
                            label=f"Correlate(invocation=[{func}])")

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
        lateral = _Lateral(call._function, call, schema.get_field_names(), keep_input=True, outer=outer,
                           input_names=self._schema.get_field_names())
        table = self._python(schema, lambda rows, row_type: _keeping_parallelism(rows, lateral, row_type, flat=True),
                             label=f"Correlate(invocation=[{call}], joinType=[{'LEFT' if outer else 'INNER'}])")
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

    def _join(self, right: "Table", predicate: Optional[Expression], left_outer: bool, right_outer: bool) -> "Table":
        from kindling.table.group_aggregate import GroupKey
        from kindling.table.join import RegularJoinFunction, equi_keys

        left_names, right_names = self._schema.get_field_names(), right._schema.get_field_names()
        both = [n for n in left_names if n in right_names]
        if both:
            raise ValueError(f"join: both tables have the columns {both}; rename one side's first "
                             "(rename_columns or alias)")
        schema = Schema(left_names + right_names, self._schema.get_field_data_types() +
                        right._schema.get_field_data_types())
        if predicate is None:
            if left_outer or right_outer:
                raise ValueError("an outer join needs a join predicate: left_outer_join(right, col('a') == col('b'))")
            pending = Table(self._t_env, schema, self._name, rows=_needs_predicate)
            pending._join_sides = (self, right)
            return pending
        if predicate._data_type({**self._types(), **right._types()}).type_name != "BOOLEAN":
            raise ValueError(f"a join predicate is a BOOLEAN condition, got {predicate}")
        left_keys, right_keys = equi_keys(predicate, left_names, right_names)
        if not left_keys:
            raise ValueError(f"join: the predicate {predicate} has no equality of a column of each table; Kindling "
                             "joins on equal keys (col('a') == col('b'))")
        function = RegularJoinFunction(left_names, right_names, predicate, left_outer, right_outer)
        left_key = GroupKey([left_names.index(k) for k in left_keys])
        right_key = GroupKey([right_names.index(k) for k in right_keys])

        def joined(rows, row_type):
            return rows.connect(right._stream()).key_by(left_key, right_key).process(function, output_type=row_type)

        updating = (self._updating or right._updating or left_outer or right_outer) and not self._in_batch()
        table = self._python(schema, joined, updating=updating,
                             label=f"Join(joinType=[{_JOIN_TYPES[(left_outer, right_outer)]}], where=[{predicate}])")
        table._plan = (table._plan[0], [self, right])
        return table

    def union_all(self, right: "Table") -> "Table":
        """The rows of both tables (same column types; names from this one)."""
        ours, theirs = self._schema.get_field_data_types(), right._schema.get_field_data_types()
        if [t.type_name for t in ours] != [t.type_name for t in theirs]:
            raise ValueError(f"union_all needs tables of the same column types, got {ours} and {theirs}")
        updating = self._updating or right._updating

        def union(rows, row_type):
            if rows.get_type() != row_type:  # an append-only table beside an updating one
                rows = _keeping_parallelism(rows, _Retyped(row_type), row_type)
            return rows.union(right._stream(row_type))

        table = self._python(self._schema, union, updating=updating, label="Union(all=[true])")
        table._plan = (table._plan[0], [self, right])
        return table

    def union(self, right: "Table") -> "Table":
        """The distinct rows of both tables."""
        return self.union_all(right).distinct()

    def order_by(self, *fields: Union[Expression, str]) -> "Table":
        """The rows sorted by ``fields`` (``col('a').desc``; null sorts as the largest value), in batch mode,
        usually with ``fetch``/``limit``."""
        return self._sorted([col(f) if isinstance(f, str) else f for f in fields], 0, None)

    def offset(self, offset: int) -> "Table":
        """The rows after the first ``offset`` (of a sorted table)."""
        keys, _, fetch = self._sort or ([], 0, None)
        return self._sort_base._sorted(keys, offset, fetch)

    def fetch(self, fetch: int) -> "Table":
        """The first ``fetch`` rows (of a sorted table: after its offset)."""
        keys, offset, _ = self._sort or ([], 0, None)
        return self._sort_base._sorted(keys, offset, fetch)

    def limit(self, fetch: int, offset: int = 0) -> "Table":
        """``fetch`` rows after ``offset``."""
        keys = self._sort[0] if self._sort else []
        return self._sort_base._sorted(keys, offset, fetch)

    @property
    def _sort_base(self) -> "Table":
        return getattr(self, "_unsorted", None) or self

    @property
    def _sort(self):
        return getattr(self, "_sort_spec", None)

    def _sorted(self, keys: List[Expression], offset: int, fetch: Optional[int]) -> "Table":
        types = self._types()
        for key in keys:
            key._data_type(types)  # a missing column fails now, naming the columns
        if not self._in_batch():  # as Flink: sorted on the time attribute, or a Top-N with fetch
            from kindling.table.rank import sorted_stream

            if not all(getattr(k, "_name", None) in types for k in keys):
                raise ValueError(f"order_by of a streaming table takes columns, got {list(map(str, keys))}")
            table = sorted_stream(self, [(k._name, getattr(k, "_descending", False)) for k in keys], offset, fetch)
            table._unsorted, table._sort_spec = self, (keys, offset, fetch)
            return table
        sort = _SortAll(self._schema.get_field_names(), keys, offset, fetch)

        def sorted_rows(rows, row_type):
            return rows.key_by(_one_group).process(sort, output_type=row_type).set_parallelism(1)

        table = self._python(self._schema, sorted_rows, label=f"Sort(orderBy=[{', '.join(map(str, keys))}], "
                                                             f"offset=[{offset}], fetch=[{fetch}])")
        table._unsorted, table._sort_spec = self, (keys, offset, fetch)
        return table

    # -- results ------------------------------------------------------------------------------

    def execute(self) -> TableResult:
        """Starts a job computing the rows: ``execute().print()`` or ``execute().collect()``."""
        rows = self._stream().execute_and_collect()
        return TableResult(rows._client, rows, self._schema, with_kind=not self._in_batch())

    def to_pandas(self):
        """The rows as a pandas DataFrame with the table's column names (runs a job); an updating
        table's final rows."""
        import pandas

        with self.execute().collect() as rows:
            return pandas.DataFrame(_final_rows(rows), columns=self._schema.get_field_names())

    def execute_insert(self, table_path: str, overwrite: bool = False) -> TableResult:
        """Writes the rows into the table ``table_path`` (a sink table) and starts the job."""
        if overwrite:
            raise ValueError("execute_insert(overwrite=True) is not supported by Kindling yet")
        return self._t_env._insert(self, table_path)

    def __repr__(self) -> str:
        return f"Table {self._name} {self._schema!r}"

    def __getattr__(self, name: str) -> Expression:
        """``table.amount``: the column ``amount`` (as ``col('amount')``)."""
        schema = self.__dict__.get("_schema")
        if name.startswith("_") or schema is None or name not in schema.get_field_names():
            raise AttributeError(f"The table has no column named '{name}'; columns: "
                                 f"{schema.get_field_names() if schema is not None else []}")
        return col(name)

    def __str__(self) -> str:
        """The table's name for SQL text (``"SELECT * FROM %s" % table``): it is registered as a view
        named ``UnnamedTable$<n>`` as Flink does (quoted, so that the name parses)."""
        return f"`{self._t_env._unnamed(self)}`"


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
        return WindowGroupedTable(self._table, self._window, GroupedTable(self._table, keys)._keys)


def spark_window_aggregate(table: Table, keys: List[str], fields: List[Expression], types: dict, window: tuple,
                           window_columns: Optional[dict] = None):
    """A window aggregation's :class:`GroupAggregateSpec` when Spark's own operators can compute it
    (over an append-only table's event time; ``kindling.table.spark-aggregation`` not false), else None."""
    from kindling.table.group_aggregate import SPARK_AGGREGATION, relational_aggregate

    if table._updating or not table._t_env._env.get_configuration().get_boolean(SPARK_AGGREGATION, True):
        return None
    return relational_aggregate(keys, fields, types, window=window, window_columns=window_columns)


class WindowGroupedTable:
    """Rows grouped by keys and a window; :meth:`select` computes one row per key and fired window,
    with the window's ``col('w').start``, ``.end`` and ``.rowtime``."""

    def __init__(self, table: Table, window, keys: List[str]):
        self._table, self._window, self._keys = table, window, keys

    @unsupported("a window's aggregate() of a ROW-valued function is not there yet; call the function in select")
    def aggregate(self, func): ...

    def select(self, *fields: Union[Expression, str]) -> Table:
        from kindling.table.group_aggregate import GroupKey
        from kindling.table.window_aggregate import WindowAggregateFunction, slice_of

        table, window = self._table, self._window
        fields = [col(f) if isinstance(f, str) else f for f in fields]
        grouped = GroupedTable(table, [col(k) for k in self._keys])
        types = dict(table._types(), **{window.alias_name: table._types()[window.time_field]})
        names, schema = grouped._result_schema(fields, types, allowed=[window.alias_name])
        input_names = table._schema.get_field_names()
        slice_ms = slice_of(window.size_ms, window.slide_ms) if window.kind == "slide" else None
        function = WindowAggregateFunction(input_names, table._types(), self._keys, fields, names,
                                           window.time_field, slice_ms)
        key = GroupKey([input_names.index(k) for k in self._keys])

        session = window.kind == "session"
        relational = None if session else spark_window_aggregate(
            table, self._keys, fields, types, ("tumble" if window.kind == "tumble" else "hop", window.size_ms,
                                               window.slide_ms or window.size_ms, 0))

        def aggregate(rows, row_type):
            return function.aggregated(rows.key_by(key).window(window.assigner()), row_type, relational, session)

        return table._python(schema, aggregate, updating=False,
                             label=f"GroupWindowAggregate(groupBy=[{', '.join(self._keys)}], window=[{window.kind}], "
                                   f"select=[{', '.join(map(str, fields))}])")


class GroupedTable:
    """A table grouped by key columns; :meth:`select` computes one row per group.

    Example::

        table.group_by(col('word')).select(col('word'), lit(1).count.alias('n'))
    """

    def __init__(self, table: Table, keys: List[Expression]):
        bad = [k for k in keys if not getattr(k, "_is_column", False)]
        if bad:
            raise ValueError(f"group_by takes columns, got {[str(b) for b in bad]}; compute them with select or "
                             "add_columns first")
        self._table = table
        self._keys = [k._name for k in keys]
        types = table._types()
        for k in self._keys:
            col(k)._data_type(types)  # a missing column fails here, naming the table's columns

    def select(self, *fields: Union[Expression, str]) -> Table:
        """The group keys and aggregates (``col('v').sum``, ``lit(1).count``, ``call('max', ...)``)
        per group; unnamed ones are ``EXPR$<position>`` as in Flink."""
        from kindling.table.group_aggregate import (MINI_BATCH, SPARK_AGGREGATION, GroupAggregateFunction, GroupKey,
                                                    relational_aggregate)

        table = self._table
        fields = [col(f) if isinstance(f, str) else f for f in fields]
        types = table._types()
        names, schema = self._result_schema(fields, types)
        input_names = table._schema.get_field_names()
        function = GroupAggregateFunction(input_names, types, self._keys, fields, names)
        key = GroupKey([input_names.index(k) for k in self._keys])
        configuration = table._t_env._env.get_configuration()
        relational = None if table._updating or not configuration.get_boolean(SPARK_AGGREGATION, True) else \
            relational_aggregate(self._keys, fields, types, configuration.get_string(MINI_BATCH, "false"))

        def aggregate(rows, row_type):
            aggregated = rows.key_by(key).process(function, output_type=row_type)
            aggregated._transformation.relational = relational  # Spark's own operators can compute it
            return aggregated

        return table._python(schema, aggregate, updating=not table._in_batch(),
                             label=f"GroupAggregate(groupBy=[{', '.join(self._keys)}], "
                                   f"select=[{', '.join(map(str, fields))}])")

    def aggregate(self, func):
        """One row per group of an aggregate function (``udaf``; given without arguments it takes the
        whole row); ``select`` the keys and its result's columns."""
        from kindling.table.row_operations import aggregate

        return aggregate(self._table, self._keys, func)

    def flat_aggregate(self, func):
        """The rows a table aggregate function (``udtaf``) emits per group; ``select`` the keys and its
        result's columns."""
        from kindling.table.row_operations import flat_aggregate

        return flat_aggregate(self._table, self._keys, func)

    def _result_schema(self, fields: List[Expression], types: Dict[str, DataType], allowed: List[str] = ()):
        """The result's column names and schema; fails on a column that is neither grouped nor aggregated."""
        for f in fields:
            stray = [c for c in f.columns() if c not in self._keys and c not in allowed]
            if stray:
                raise ValueError(f"Expression '{f}' reads {stray}, which are not grouped: select group keys "
                                 f"{self._keys} and aggregates only")
        calls = [c for f in fields for c in ([f] if getattr(f, "_window_bound", False) else f.aggregates())]
        # Flink names an unnamed aggregate (or window property) by its place among those, others by position
        places = {id(a): j for j, a in enumerate(calls)}
        names = [f._name or (f"EXPR${places[id(f)]}" if id(f) in places else f"_c{i}") for i, f in enumerate(fields)]
        return names, Schema(names, [f._data_type(types) for f in fields])


def explanation(t_env, statement: str) -> TableResult:
    """The result of ``EXPLAIN statement``: Kindling's plan of a query or of an INSERT's query."""
    from kindling.table.ddl import parse_statement

    kind, *parts = parse_statement(statement)
    if kind == "query":
        return _PlanResult(t_env.sql_query(parts[0]).explain())
    if kind == "insert":
        lines = _plan_lines(t_env.sql_query(parts[1]), "+- ", "   ")
        return _PlanResult("== Kindling Plan ==\n" + "\n".join([f"Sink(table=[{parts[0]}])"] + lines) + "\n")
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


_JOIN_TYPES = {(False, False): "InnerJoin", (True, False): "LeftOuterJoin", (False, True): "RightOuterJoin",
               (True, True): "FullOuterJoin"}


def _plan_lines(table: Table, first: str, rest: str) -> List[str]:
    """The plan of ``table`` as Flink prints plans: a node, its inputs below it after ``+-`` (the last)
    or ``:-``; each node says whether its rows are changes and where it runs."""
    label, inputs = table._plan
    where = "" if label.endswith("[Spark SQL]") or not inputs else " [Python]"
    mode = "I,UB,UA,D" if table._updating else "I"
    lines = [f"{first}{label}{where}, changelogMode=[{mode}]"]
    for i, child in enumerate(inputs):
        last = i == len(inputs) - 1
        lines += _plan_lines(child, rest + ("+- " if last else ":- "), rest + ("   " if last else ":  "))
    return lines


def _keeping_parallelism(stream, function, output_type, flat: bool = False):
    """``stream.map`` (or ``flat_map``) with the parallelism of the stream's operator."""
    from kindling.table.connectors import parallelism_of

    mapped = (stream.flat_map if flat else stream.map)(function, output_type=output_type)
    parallelism = parallelism_of(stream)
    return mapped.set_parallelism(parallelism) if parallelism else mapped


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


class _Project:
    """A row's selected expressions, evaluated in Python, keeping its RowKind."""

    def __init__(self, input_names: List[str], fields: List[Expression], names: List[str]):
        self.input_names, self.fields, self.names = input_names, fields, names
        # a column (maybe aliased) is read by its position: no expression evaluated for it
        self.positions = [_column_position(f, input_names) for f in fields]

    def __call__(self, row):
        values = row._values
        if None not in self.positions:
            return _create_row(self.names, [values[p] for p in self.positions], row._row_kind)
        env = dict(zip(self.input_names, values))
        return _create_row(self.names, [f.evaluate(env) if p is None else values[p]
                                        for f, p in zip(self.fields, self.positions)], row._row_kind)


def _column_position(expression: Expression, names: List[str]) -> Optional[int]:
    """The position of the input column ``expression`` reads as it is (maybe aliased), else None."""
    expression = unaliased(expression)
    if getattr(expression, "_is_column", False) and expression._name in names:
        return names.index(expression._name)
    return None


class _Condition:
    """Whether a row passes a predicate evaluated in Python (null is false, as in SQL)."""

    def __init__(self, input_names: List[str], predicate: Expression):
        self.input_names, self.predicate = input_names, predicate

    def __call__(self, row) -> bool:
        return self.predicate.evaluate(dict(zip(self.input_names, row._values))) is True


class _Lateral:
    """The rows a table function makes for a row: its own values (``flat_map``) or the row's
    followed by them (``join_lateral``; with nulls when it makes none and ``outer``)."""

    def __init__(self, function, call: Optional[Expression], names: List[str], keep_input: bool, outer: bool,
                 input_names: Optional[List[str]] = None):
        self.function, self.call, self.names = function, call, names
        self.keep_input, self.outer, self.input_names = keep_input, outer, input_names

    def __call__(self, row):
        if self.call is None:
            produced = self.function._produce([row])
        else:
            env = dict(zip(self.input_names, row._values))
            produced = self.function._produce([a.evaluate(env) for a in self.call._children])
        kind, prefix = row._row_kind, (list(row._values) if self.keep_input else [])
        made = False
        for values in produced:
            made = True
            yield _create_row(self.names, prefix + values, kind)
        if not made and self.outer:
            yield _create_row(self.names, prefix + [None] * (len(self.names) - len(prefix)), kind)


class _Retyped:
    """A Row with the field names of the wanted Row type, keeping its RowKind."""

    def __init__(self, type_info: RowTypeInfo):
        self.names = type_info.get_field_names()

    def __call__(self, row):
        return _create_row(self.names, list(row), row._row_kind if isinstance(row, Row) else None)


def _is_column(expression: Expression, name: str) -> bool:
    """Whether the expression is the column ``name`` (maybe aliased)."""
    while not getattr(expression, "_is_column", False) and len(expression._children) == 1 and \
            " AS " in expression._text:
        expression = expression._children[0]
    return getattr(expression, "_is_column", False) and expression._name == name


def _needs_predicate():
    raise ValueError("join(right) needs a join predicate: join(right, col('a') == col('b')) or "
                     "join(right).where(col('a') == col('b'))")


def _one_group(row) -> int:
    return 0


class _Descending:
    """A value that sorts in reverse."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __lt__(self, other: "_Descending") -> bool:
        return other.value < self.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Descending) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)


class _SortAll(KeyedProcessFunction):
    """All rows in one group, sorted at the end of the (bounded) input, ``fetch`` of them after ``offset``."""

    def __init__(self, input_names: List[str], keys: List[Expression], offset: int, fetch: Optional[int]):
        self.input_names, self.keys, self.offset, self.fetch = input_names, keys, offset, fetch

    def open(self, runtime_context):
        from kindling.common.typeinfo import Types
        from kindling.datastream.state import ListStateDescriptor

        self.rows = runtime_context.get_list_state(ListStateDescriptor("_kindling_sorted", Types.PICKLED_BYTE_ARRAY()))

    def process_element(self, row, ctx):
        from kindling.common.time import MAX_WATERMARK

        self.rows.add(row)
        ctx.timer_service().register_event_time_timer(MAX_WATERMARK)

    def _key(self, row):
        env = dict(zip(self.input_names, row._values))
        key = []
        for expression in self.keys:
            value = expression.evaluate(env)
            # the Table API sorts null as the largest value, Flink SQL as the smallest
            descending = getattr(expression, "_descending", False)
            nulls_first = descending != getattr(expression, "_null_smallest", False)
            rank = (value is None) != nulls_first
            key.append((rank, 0 if value is None else _Descending(value) if descending else value))
        return key

    def on_timer(self, timestamp, ctx):
        rows = sorted(self.rows.get(), key=self._key) if self.keys else list(self.rows.get())
        end = None if self.fetch is None else self.offset + self.fetch
        yield from rows[self.offset:end]
