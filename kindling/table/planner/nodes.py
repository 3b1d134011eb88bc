"""The logical plan of a Table: frozen nodes, one per relational operation, each with what its rows
are (:class:`Output`: columns, whether they are changes, time attributes). The Table API and SQL
build them (a Table is a handle on one); :mod:`.physical` chooses where each runs and
:mod:`.lowering` turns them into the job.

Nodes are data: their fields are names, numbers, types, expressions (and, of Calcs, the resolved
expressions Spark and Python compute), connector sources and the user's functions. The builders in
kindling/table check the operation and derive its :class:`Output` first. Nodes compare by identity:
a node used twice (a view read by two queries) is one node.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence, Tuple

from kindling.table.schema import Schema
from kindling.table.types import DataType

__all__ = ["Aggregate", "AppendTimestamp", "ChangelogNormalize", "Correlate", "Expand", "Filter", "FromDataStream",
           "GroupWindowAggregate", "IntervalJoin", "Invalid", "Join", "LookupJoin", "MatchRecognize", "MetadataColumns", "Node",
           "Output", "Over", "Project", "Rank", "Scan", "SetOperation", "Sink", "Sort", "TableAggregate",
           "TemporalJoin", "Union", "Values", "WatermarkAssigner", "WindowAggregate", "WindowJoin", "WindowTVF", "filtered",
           "project", "table_name"]


@dataclass(frozen=True, eq=False)
class Output:
    """What a node's rows are: its columns (``schema``), whether they are changes (``updating``:
    ``+I``, ``-U``, ``+U``, ``-D``; else inserts only), the event-time column whose values are the
    rows' timestamps (``rowtime``), the processing-time attribute (``proctime``), the columns
    printed ``*ROWTIME*`` (``time_attributes``, default the rowtime) and whether the window columns
    a window TVF added are of processing time (``proctime_windows``, default: the table has a
    processing-time attribute)."""

    schema: Schema
    updating: bool = False
    rowtime: Optional[str] = None
    proctime: Optional[str] = None
    time_attributes: Tuple[Optional[str], ...] = ()
    proctime_windows: Optional[bool] = None
    #: the columns printed ``*ROWTIME*`` in batch mode too (MATCH_ROWTIME(): Flink types it a rowtime in both)
    batch_time_attributes: Tuple[str, ...] = ()

    @property
    def names(self) -> list:
        return self.schema.get_field_names()

    @property
    def types(self) -> Dict[str, DataType]:
        return dict(zip(self.schema.get_field_names(), self.schema.get_field_data_types()))

    @property
    def changelog_mode(self) -> str:
        """Flink's changelog mode of the rows, as EXPLAIN prints it."""
        return "I,UB,UA,D" if self.updating else "I"

    @property
    def rowtime_columns(self) -> Tuple[str, ...]:
        return tuple(c for c in (self.time_attributes or (self.rowtime,)) if c)

    @property
    def windows_of_proctime(self) -> bool:
        return self.proctime is not None if self.proctime_windows is None else self.proctime_windows


@dataclass(frozen=True, eq=False, kw_only=True)
class Node:
    """A plan node: its :class:`Output`; :attr:`inputs` are the nodes it reads."""

    out: Output

    @property
    def inputs(self) -> tuple:
        return ()


@dataclass(frozen=True, eq=False, kw_only=True)
class _Unary(Node):
    input: Node

    @property
    def inputs(self) -> tuple:
        return (self.input,)


@dataclass(frozen=True, eq=False, kw_only=True)
class _Binary(Node):
    left: Node
    right: Node

    @property
    def inputs(self) -> tuple:
        return (self.left, self.right)


# -- leaves ------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False, kw_only=True)
class Scan(Node):
    """A connector table's rows, read by ``source`` (a DataStream connector's Source); ``options``: the
    table's connector options (its WITH clause), for Spark's own readers (kindling/spark/table/scans.py)."""

    name: str
    source: Any
    options: Optional[Dict[str, str]] = None


@dataclass(frozen=True, eq=False, kw_only=True)
class Values(Node):
    """Rows given in the program (``from_elements``, SQL's ``VALUES``); ``parallel``: read by one
    instance of a source of the job's parallelism, else by a source of parallelism 1."""

    rows: tuple
    parallel: bool = True
    name = "from_elements"


@dataclass(frozen=True, eq=False, kw_only=True)
class FromDataStream(Node):
    """A DataStream's elements as rows (``from_data_stream``, ``from_changelog_stream``): Row
    elements' fields are the columns (``rows``), an atomic element the one column ``f0``. Rows keep
    their RowKind (an updating ``out``: a changelog stream's changes); ``insert_only``: a row of
    another kind fails the job (``ChangelogMode.insert_only()``)."""

    stream: Any
    rows: bool
    insert_only: bool = False
    name = "from_data_stream"


# -- one input ---------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False, kw_only=True)
class Project(_Unary):
    """``select``: one column per expression of ``fields``, named ``names``; ``resolved``: the fields
    resolved against the input's columns (kindling/table/planner/expressions.py), as Spark and the
    Python operator compute them (:func:`project` makes one)."""

    fields: tuple
    names: tuple
    resolved: tuple


@dataclass(frozen=True, eq=False, kw_only=True)
class Filter(_Unary):
    """``where``: the rows for which ``predicate`` is true; ``resolved``: the predicate resolved
    against the input's columns (:func:`filtered` makes one)."""

    predicate: Any
    resolved: Any


@dataclass(frozen=True, eq=False, kw_only=True)
class Aggregate(_Unary):
    """``group_by(keys).select(fields)``: one row of ``fields`` (group keys and aggregates) per
    group, named ``names``; ``mini_batch``: a group's changes once per micro-batch (Flink's
    ``table.exec.mini-batch.enabled``)."""

    keys: tuple
    fields: tuple
    names: tuple
    mini_batch: bool = False


@dataclass(frozen=True, eq=False, kw_only=True)
class TableAggregate(_Unary):
    """``group_by(keys).flat_aggregate(call)``: the rows a table aggregate function emits per group."""

    keys: tuple
    call: Any
    names: tuple


@dataclass(frozen=True, eq=False, kw_only=True)
class Expand(_Unary):
    """SQL's GROUPING SETS, ROLLUP and CUBE before their aggregation: each row once per grouping set
    of ``sets`` (each a set of the columns ``keys``), in that order, with the keys the set does not
    group by null, then the values of the keys ``originals`` as they are (for the aggregates reading
    them) and, as the last column, the set's grouping id (bit ``len(keys) - 1 - i`` set when the set
    leaves out ``keys[i]``, as Flink's ``$e``)."""

    keys: tuple
    sets: tuple
    originals: tuple = ()

    @property
    def ids(self) -> tuple:
        """Each set's grouping id."""
        width = len(self.keys)
        return tuple(sum(1 << (width - 1 - i) for i, k in enumerate(self.keys) if k not in s) for s in self.sets)


@dataclass(frozen=True, eq=False, kw_only=True)
class GroupWindowAggregate(_Unary):
    """``window(Tumble/Slide/Session ...).group_by(keys).select(fields)``: a row per key and fired
    window (``window``: kindling.table.window.GroupWindow)."""

    window: Any
    keys: tuple
    fields: tuple
    names: tuple


@dataclass(frozen=True, eq=False, kw_only=True)
class WindowTVF(_Unary):
    """``TUMBLE``, ``HOP``, ``CUMULATE`` or ``SESSION`` (``window``) over the column ``time_field``:
    the rows with ``window_start``, ``window_end``, ``window_time``. Sizes in ms (``slide_ms``: HOP's
    slide or CUMULATE's step); ``proctime``: windows of a processing-time attribute."""

    window: str
    time_field: str
    size_ms: int
    slide_ms: Optional[int] = None
    offset_ms: int = 0
    partition_keys: tuple = ()
    proctime: bool = False


@dataclass(frozen=True, eq=False, kw_only=True)
class WindowAggregate(_Unary):
    """``GROUP BY window_start, window_end, keys`` over a window TVF (``windows``, whose input is
    this node's input): a row of ``fields`` per key and window."""

    windows: WindowTVF
    keys: tuple
    fields: tuple
    names: tuple


@dataclass(frozen=True, eq=False, kw_only=True)
class MatchRecognize(_Unary):
    """MATCH_RECOGNIZE: one row per match of ``elements`` (of ``variables``, each with its DEFINE
    condition or None) in each partition's rows ordered by ``time_field``: the partition keys, then
    the ``measures`` (kindling/table/match_recognize.py; ``aggregates``: {variable or None: ((name,
    aggregate), ...)}; ``skip``, ``within`` ms or None: kindling/runtime/table/match_recognize.py)."""

    partition_keys: tuple
    time_field: str
    variables: tuple
    elements: tuple
    conditions: tuple
    condition_refs: tuple
    measures: tuple
    measure_refs: tuple
    aggregates: dict
    skip: Any
    within: Optional[int]
    pattern: str


@dataclass(frozen=True, eq=False, kw_only=True)
class Over(_Unary):
    """OVER aggregates: the rows with one more column per aggregate (``names``) over ``frame``
    (kindling.table.over_aggregate.OverFrame)."""

    frame: Any
    aggregates: tuple
    names: tuple


@dataclass(frozen=True, eq=False, kw_only=True)
class Rank(_Unary):
    """``<function>() OVER (PARTITION BY partition ORDER BY order)`` kept from rank ``start`` to
    ``end`` (None: no end), with the rank number as the last column ``number_name`` when
    ``with_number``: Top-N, deduplication and window Top-N. ``order``: ``(column, descending)``.
    ``pending``: made by SQL's ranking SELECT, whose enclosing query may still set the range."""

    function: str
    partition: tuple
    order: tuple
    start: int
    end: Optional[int]
    with_number: bool
    number_name: str
    pending: bool = False


@dataclass(frozen=True, eq=False, kw_only=True)
class Sort(_Unary):
    """``order_by(keys)`` with ``offset`` and ``fetch`` (None: all rows); ``keys`` are expressions
    (descending ones ``.desc``)."""

    keys: tuple
    offset: int = 0
    fetch: Optional[int] = None


@dataclass(frozen=True, eq=False, kw_only=True)
class Correlate(_Unary):
    """The rows a table function ``function`` makes of each row (``call`` its call, None: of the
    whole row): its own (``flat_map``) or each row's followed by them (``keep_input``: join_lateral,
    with nulls when it makes none and ``outer``)."""

    function: Any
    call: Any
    keep_input: bool
    outer: bool


@dataclass(frozen=True, eq=False, kw_only=True)
class ChangelogNormalize(_Unary):
    """Upserts and deletes as Flink's changelog of the primary key ``keys``: upsert-kafka records
    (``deleted_column``: the last column says whether one deletes) or an upsert changelog stream's
    rows (their RowKind says it). ``condition``: a filter Flink pushes into the normalization (None:
    every row), so that a key's row starting or stopping to match inserts or deletes it."""

    keys: tuple
    deleted_column: bool = True
    condition: Any = None


@dataclass(frozen=True, eq=False, kw_only=True)
class WatermarkAssigner(_Unary):
    """The event time ``column`` with watermarks ``delay`` ms behind it (None: the stream's own,
    ``SOURCE_WATERMARK()``); ``eager``: emitted as Flink SQL emits them (also after an element that
    moves them past the interval), else periodically only."""

    column: str
    delay: Optional[int]
    eager: bool = True


@dataclass(frozen=True, eq=False, kw_only=True)
class AppendTimestamp(_Unary):
    """The rows with their DataStream timestamps (epoch ms) as one more column."""


@dataclass(frozen=True, eq=False, kw_only=True)
class MetadataColumns(_Unary):
    """The columns of a declared schema in one step: per column, the position of an input column
    (an int) or the type of a metadata column made of the row's DataStream timestamp."""

    sources: tuple


@dataclass(frozen=True, eq=False, kw_only=True)
class Invalid(_Unary):
    """A query Flink accepts but refuses to run: the job fails with ``message`` when it is built
    (as Flink fails when it translates the plan, after the query's schema was known)."""

    message: str


@dataclass(frozen=True, eq=False, kw_only=True)
class LookupJoin(_Unary):
    """A processing-time lookup join: each row joined with the rows of the jdbc table ``table``
    (``spec``: kindling.table.lookup_join.LookupSpec, its columns named ``dim_names`` here and
    ``dim_columns`` in the database) whose ``right_keys`` equal the row's ``left_keys``."""

    table: str
    spec: Any
    dim_names: tuple
    dim_columns: tuple
    left_keys: tuple
    right_keys: tuple
    condition: Any
    outer: bool


@dataclass(frozen=True, eq=False, kw_only=True)
class Sink(_Unary):
    """The rows written into the table ``path`` (``descriptor``: its TableDescriptor)."""

    path: str
    descriptor: Any


# -- two inputs --------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False, kw_only=True)
class Join(_Binary):
    """A regular join on ``predicate`` (None: given by a following ``where``), outer on the sides
    ``left_outer`` / ``right_outer``; or (``existence``) the left's rows that have a partner
    (``"SEMI"``: SQL's IN and EXISTS) or none (``"ANTI"``: NOT IN, NOT EXISTS), of the left's columns."""

    predicate: Any
    left_outer: bool = False
    right_outer: bool = False
    existence: Optional[str] = None


@dataclass(frozen=True, eq=False, kw_only=True)
class IntervalJoin(_Binary):
    """Rows of equal keys with ``right_time + lower <= left_time <= right_time + upper`` (ms) and
    ``predicate`` (None: no more condition)."""

    left_keys: tuple
    right_keys: tuple
    left_time: str
    right_time: str
    lower: int
    upper: int
    predicate: Any
    left_outer: bool = False
    right_outer: bool = False


@dataclass(frozen=True, eq=False, kw_only=True)
class WindowJoin(_Binary):
    """Rows of equal keys in the same window of two window TVFs (``windows``, the left's; both sides'
    alike), joined on ``predicate`` (the whole ON condition) when the watermark passes the window's
    end; ``left_end``/``right_end``: each side's window_end column. Outer on the sides ``left_outer`` /
    ``right_outer``, or (``existence``) the left's rows with a partner (``"SEMI"``) or none (``"ANTI"``)."""

    windows: WindowTVF
    left_keys: tuple
    right_keys: tuple
    left_end: str
    right_end: str
    predicate: Any
    left_outer: bool = False
    right_outer: bool = False
    existence: Optional[str] = None


@dataclass(frozen=True, eq=False, kw_only=True)
class TemporalJoin(_Binary):
    """Each row of ``left`` (the probe) joined with the version of ``right`` (a versioned table)
    valid at its event time, on the key equalities and ``condition``."""

    left_keys: tuple
    right_keys: tuple
    condition: Any
    outer: bool = False


@dataclass(frozen=True, eq=False, kw_only=True)
class Union(_Binary):
    """``union_all``: the rows of both (the right's columns named as the left's)."""


@dataclass(frozen=True, eq=False, kw_only=True)
class SetOperation(_Binary):
    """``intersect``, ``intersect_all``, ``minus`` or ``minus_all`` (``operation``)."""

    operation: str


def project(input: Node, fields: Sequence, names: Sequence[str], out: Output) -> Project:
    """The Project of ``fields`` over ``input``, resolved. An OVER call reads the column its OVER node
    computed (``_over_column``: kindling/table/table.py ``OverWindowedTable``)."""
    from kindling.table.planner.expressions import resolve

    resolved = []
    for field in fields:
        origins: Dict[int, Any] = {}
        resolved.append(_over_calls_read(resolve(field, input.out.names, input.out.schema.get_field_data_types(),
                                                 origins), origins, input.out.names))
    return Project(input=input, fields=tuple(fields), names=tuple(names), resolved=tuple(resolved), out=out)


def filtered(input: Node, predicate: Any, out: Optional[Output] = None) -> Filter:
    """The Filter of ``predicate`` over ``input``, resolved; its rows are the input's (``out``)."""
    from kindling.table.planner.expressions import resolve

    return Filter(input=input, predicate=predicate, out=out or input.out,
                  resolved=resolve(predicate, input.out.names, input.out.schema.get_field_data_types()))


def _over_calls_read(node: Any, origins: Dict[int, Any], names: list) -> Any:
    """A resolved expression with each OVER call replaced by the input column holding its values."""
    from kindling.table.planner.expressions import InputRef, OverCall

    if isinstance(node, OverCall):
        column = origins[id(node)]._over_column
        return InputRef(names.index(column), column, node.type)
    operands = getattr(node, "operands", ())
    if not operands:
        return node
    return dataclasses.replace(node, operands=tuple(_over_calls_read(o, origins, names) for o in operands))


def table_name(node: Node) -> str:
    """The name of the table a node's rows come from first (its first input's, down to a leaf)."""
    while node.inputs:
        node = node.inputs[0]
    return getattr(node, "name", "table")
