"""Where each plan node runs: THE one place that chooses between Spark's JVM operators and Kindling's
Python operators (kindling/runtime, inside Spark tasks), and how the job runs.

The rule: **a node runs in Spark's JVM operators when they give Flink's answer for it in the run
mode; otherwise in the Python operator.** The run mode is the job's (the runner's rule,
kindling/spark/runner.py ``run_mode``): BATCH, a bounded STREAMING job in *one step* (one Spark
batch job; the watermark stays at its minimum until the input ends), or *micro-batches* (a
Structured Streaming query). Per node kind, today:

* **Frames.** In a bounded job (one step or BATCH: the whole input in one Spark batch job) Spark
  computes a node as part of a *frame*: DataFrame operations over its inputs' frames, down to the
  scans (kindling/spark/table/translate.py; one source of the job reading the scans, whatever
  reads the frame). A node whose input is computed in Python runs in Python (but aggregations, below).
  On micro-batches a frame is Calcs and Correlates over one scan (the sources' control rows travel
  through them).
  A frame reads an event time as a column: the watermark assigner under it runs for no row (in a
  bounded job read at once no row is late: BATCH has no watermarks, one step emits none before the
  input ends).
* **Scan, Values**: the leaves of frames. In one step and BATCH, the files of a ``filesystem`` table
  are read by Spark's own reader where it gives the values Flink's format gives
  (kindling/table/formats.py ``spark_reader_differs``; kindling/spark/table/scans.py); on
  micro-batches by Spark's file stream source where, besides, its rows (which carry no control rows)
  go only through frames to Spark's writers of micro-batches (a group aggregation, join or
  deduplication Spark computes), no node reads a watermark and no records limit is set (Kindling's
  source honours one exactly; ``kindling.source.max-files-per-batch`` both readers honour:
  :meth:`Physical._stream_scan`); other connector tables by their Kindling source, in Python
  (``kindling.table.spark-scan: false``: always). Elements given in the program are a Spark local relation (JVM) in one step and BATCH where
  a frame or a sink reads them, else read in the task of the Python operator reading them, and a
  Kindling source on micro-batches (the compiler's rule for collections: kindling/spark/sources.py).
* **Project, Filter (Calc)**: JVM when their input is a frame and every expression is one Spark
  computes as Flink does (no Python function, no built-in Spark computes otherwise:
  kindling/table/planner/expressions.py ``python_only``): Spark column expressions. A Calc over a
  frame whose Python scalar functions can be called on Arrow batches (kindling/table/planner/arrow_calls.py:
  general or pandas, arguments Spark computes, no ``open`` of their own) is part of the frame too
  (:data:`PYTHON_ON_ARROW`; on micro-batches too: the pass calls no function for the control rows): Spark
  computes the arguments and the rest, one pass calls the functions on a batch's columns
  (``kindling.table.spark-operators: false``: never). On micro-batches, such Calcs right after a group
  aggregation, join or deduplication Spark computes are Spark columns of its changes
  (:meth:`Physical.columns_of_changes`, kindling/spark/table/downstream.py). Else a Python map or filter.
* **Correlate** (a table function: a lateral join, ``flat_map``): over a frame, called on Arrow batches
  of the frame's rows on the Calc's conditions (:data:`PYTHON_ON_ARROW`; arguments Spark computes, no
  ``open`` or ``close`` of its own; on micro-batches too: the pass calls no function for the control
  rows), each row's columns repeated beside each row it makes; else the Python operator.
* **Aggregate (GROUP BY)**: JVM when its input is append-only and every field is a group key or a
  built-in ``COUNT``/``SUM``/``SUM0``/``AVG``/``MIN``/``MAX`` of a column of a type whose arithmetic
  Spark shares with Flink (integers, DOUBLE, DECIMAL of scale up to 6: Spark adds two DECIMAL(38, s)
  without rounding up to there; MIN/MAX also strings and DECIMAL; COUNT any type; not FLOAT sums,
  which Flink adds row by row in float32); DISTINCT ones too (in a stream, of types whose equality
  Spark decides as Flink's: not floats, Flink's 0.0 and -0.0 being two values; a group keeps the
  values it has seen, per value); FILTER (WHERE ...) ones are aggregates of a CASE column:
  the rewrites before this choice compute other arguments by a projection below and expressions of
  aggregates by one above, as Flink (kindling/table/planner/python_calls.py). Over a frame in
  a bounded job it is part of the frame, whatever reads it: BATCH gives each group's row, one step
  Flink's changes after every row (or, with mini-batches, once per group), each parallel instance's
  in the order they were made (but in one step an aggregation with ``COUNT(*)`` that only a blackhole
  reads is left out of the frame: Spark's aggregation counts its changes, not computing them).
  Otherwise, when only stateless nodes (Calc, Correlate, a sink) read its changes, the aggregation
  is taken out of the job's query and computed with DataFrame aggregations per batch
  (kindling/spark/table/aggregation.py). ``kindling.table.spark-aggregation: false`` keeps it in
  Python. Else the Python group aggregation on keyed state.
* **Window aggregations** (a window TVF's GROUP BY, the Table API's tumbling and sliding group
  windows): as the Aggregate, and only in one step or BATCH: on micro-batches Flink's per-element
  watermark (the minimum over splits) decides which rows are late and when a window fires, which
  Spark's per-batch watermark cannot; session windows and windows of processing time are Python.
  A window aggregation only a blackhole reads writes its rows in no order (nothing sees it).
  A bounded job whose watermark can make no row late runs in one step (the run mode, below).
* **Join** (regular): a frame's join of two frames in a bounded job, with the whole condition
  (``kindling.table.spark-operators: false`` keeps it in Python, for comparison). BATCH: every join
  kind, each key's final rows. One step: inner joins of append-only inputs, each joined row once
  (``+I``; Flink's order of them depends on the inputs' arrival, any order one could give), and
  LEFT (RIGHT) joins of them, the BATCH rows as ``+I`` (Flink's changes when every right (left) row
  comes first); a FULL join's changes depend on the order its rows arrive (a row padded with nulls
  while it has no partner, ``-D`` of it when the first partner comes), as an anti join's (NOT IN,
  NOT EXISTS: a row until its first partner comes), and a join of changes (an aggregation's)
  follows them row by row: those stay on the Python operator. A semi join (IN, EXISTS) of inserts
  emits each left row with a partner once, as Spark's ``left_semi`` join. On micro-batches, an
  inner, outer, semi or anti join of append-only inputs on equal keys (of types whose equality Spark
  decides as Flink's binary keys: integers, as BIGINT, strings, BOOLEAN, DATE) read only by
  stateless nodes, its columns of types the store keeps and its condition one Spark computes, is
  taken out of the job's query and joined per batch, the new rows of each side with the other side's
  stored rows of their keys and with each other, each pair once, an outer join's padded rows and
  their ``-D`` as Flink's join emits them when the batch's rows of the side that is not outer arrive
  first (kindling/spark/table/join.py; as the aggregation's state, the rows live in SQLite under a
  local checkpoint directory); a semi join's left rows (``+I`` at their first partner) and an anti
  join's (``+I`` without a partner, ``-D`` at the first) as Flink's join emits them when the batch's
  right rows arrive first (kindling/spark/table/semi_join.py). Such an inner join is instead Spark's
  stream-stream join inside the job's streaming query, its rows kept in the query's state store (the
  JVM's heap under Flink's default ``state.backend.type: hashmap``, kindling/spark/runner.py
  ``_state_store``; ``kindling.table.spark-stream-join: false`` keeps the per-batch join), its pairs
  put in the per-batch join's order where a sink sees it. Joins of changes follow the rows'
  arrival row by row, and a NOT IN of nullable values is Flink's null-aware anti join (a NULL on
  either side keeps a row out): Python.
* **UNION ALL**: part of a frame in a bounded job when both inputs are frames.
* **INTERSECT, EXCEPT [ALL]** (SetOperation): part of a frame in BATCH mode, Spark's ``intersect``,
  ``intersectAll``, ``subtract``, ``exceptAll`` (NULLs equal, as Flink's), when every column is of a type
  whose equality Spark decides as Flink (not FLOAT/DOUBLE: Flink compares bits); in a stream the Python
  operator (its rows change as they arrive).
* **Sort** (ORDER BY, LIMIT, OFFSET): part of a frame in BATCH mode, Spark's sort of all rows into one
  partition, ties in arrival order (the partitions' in turn), as the Python operator's sort at
  parallelism 1 (SQL's nulls the smallest values, the Table API's the largest); a stream's sorts emit rows
  as time or the ranks allow: the Python operators.
* **Expand** (GROUPING SETS, ROLLUP, CUBE before their aggregation): part of a frame in a bounded job
  when its input is one: each row exploded into its grouping sets' rows, in their order.
* **OVER, Top-N and deduplication (Rank), window TVFs, interval joins**: part of a frame in BATCH mode
  (``kindling.table.spark-operators: false`` keeps them in Python): OVER as window functions over the
  partition ordered by its column then the arrival (peers of a RANGE frame share their values), its
  aggregates those of the Aggregate above (but a FLOAT/DOUBLE sum over a bounded frame); a rank
  numbering each partition's rows (ties in arrival order) and keeping those in its range; TUMBLE, HOP,
  CUMULATE of an event-time column each row once per window; an interval join a join on the keys,
  the bounds and the rest of its condition. In a stream they run in Python: with a declared WATERMARK
  a bounded stream runs on micro-batches (Flink's watermark follows each element, so its late rows
  and firings depend on the order rows arrive; Spark's watermark is per batch); a Top-N of a stream
  changes its rows as they arrive. (But an OVER ordered by a file scan's rowtime and an interval join
  of two file scans' rowtimes, in one step when no row can be late: the run mode, below.)
* **Deduplication of a stream** (a Rank ``ROW_NUMBER() OVER (PARTITION BY k ORDER BY proctime
  [DESC]) = 1``): in one step and on micro-batches, JVM as a group aggregation whose state per key is
  its first or last row (kindling/spark/table/aggregation.py), when only stateless nodes read its
  changes, as the Aggregate's rule (and ``kindling.table.spark-operators`` the switch); Flink's
  changes by processing time are by arrival, which a batch's row order gives. By event time it stays
  Python: keep-first emits when Flink's per-element watermark passes a row, keep-last by the rows' times.
* **Every other node** (sorts and set operations of a stream, temporal and
  lookup joins, ...): the Python operator; which one for ranks and sorts of a stream, as Flink
  chooses it, :func:`rank_strategy` and :func:`sort_strategy` say.

**The run mode.** A Flink SQL ``WATERMARK`` makes a bounded job run on micro-batches (its input does
not all precede the first watermark, as one step assumes; kindling/spark/runner.py ``run_mode``),
unless no node's answer depends on the watermark or on the rows' timestamps (:func:`reads_time`: no
window, interval or temporal join, OVER, event-time sort, deduplication or Top-N of windows) and the
rows go only to table sinks or to the client: then Flink's answer is the same whenever watermarks
come, the assigner is not run (nothing reads what it makes) and the job runs in one step.
So does a bounded STREAMING job whose only nodes reading time are window aggregations Spark computes
over Calcs of a ``filesystem`` scan's ``WATERMARK FOR t AS t - delay``, when **no row can be late,
whatever the timing**: Flink's SQL watermark when a row r reaches the window operator is at most the
one r's source reader emitted before r, at most (the largest t its reader read before r) - delay. A
reader reads each file as one split, and may have read any other file whole before r's (the files
are handed to the readers as they ask). A window aggregation drops r (or leaves it out of fired
windows) only if the end of r's earliest window - 1 <= that watermark. So if for every row,
end - 1 > max(t before r in its file, t of any other file) - delay, no row is dropped and Flink's
answer is each window's aggregate over all rows, which Spark computes. An OVER ordered by that rowtime
joins the rule with r's own time in place of its window's end - 1 (Flink's OVER drops r when
t <= the watermark): its rows come out per instance in time order, as the end of input fires them
(in no order when only blackholes see them, through projections and filters: no sort). An interval
join of the rowtimes of two such scans joins the rule with each row's own time, as the OVER, and
t > 0: Flink's join (its watermark taken as 0 when below 0) keeps a row l while the watermark < l's
last partner time (l.t - lower, for ``r.t + lower <= l.t <= r.t + upper``), and the same for r, so a
pair is missed only when, on the later row's arrival, the watermark passed the earlier row's last
partner time, which is at least the later row's own time; that watermark is at most the later row's
side's bound above. So Flink emits every pair once and pads each unjoined row of an outer side once,
when the watermark passes it (at the end of input in one step: after its instance's pairs). It
is decided before the plan is chosen (kindling/spark/table/scans.py ``rows_may_be_late``: pyarrow's
CSV reader, or a Spark job for files it may read otherwise); a row that may be late
(or a null time) keeps the job on micro-batches (Flink's late rows, with its replay of time). A table
handed to the DataStream API keeps its watermarks: the operators reading it are not in the plan.

One thing the plan cannot see: a table handed to the DataStream API (``to_changelog_stream``) whose
changes a keyed DataStream operator reads. Spark's aggregation cannot feed one, so the job then
computes that aggregation in Python (kindling/spark/table/aggregation.py keeps to what follows it in
the job). Explain tells what runs when the table itself is executed or inserted.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

from kindling.common.read_limits import MAX_FILES_PER_BATCH, MAX_RECORDS_PER_BATCH, ReadLimits
from kindling.graph.specs import GroupAggregateSpec, RegularJoinSpec
from kindling.table.expressions import Expression, unaliased
from kindling.table.planner import nodes
from kindling.table.planner.types import INTEGRAL, precision_scale

__all__ = ["BATCH", "MICRO_BATCHES", "ONE_STEP", "PYTHON", "PYTHON_ON_ARROW", "SPARK_AGGREGATION", "SPARK_JVM", "SPARK_OPERATORS",
           "SPARK_SCAN", "SPARK_STREAM_JOIN", "Choice", "Physical", "aggregation_spec", "passes_through", "rank_strategy", "reads_time",
           "sort_strategy", "stream_sort"]

SPARK_JVM, PYTHON = "Spark JVM", "Python"
#: a Calc whose Python calls one pass makes on Arrow batches in Spark's frame (Spark computes the rest)
PYTHON_ON_ARROW = "Python on Arrow batches"
#: the run modes, as explain prints them (the runner's names: kindling/spark/runner.py)
ONE_STEP, MICRO_BATCHES, BATCH = "one step", "micro-batches", "BATCH"
_MODES = {"one_step": ONE_STEP, "micro_batch": MICRO_BATCHES, "batch": BATCH}

#: whether group aggregations Spark can compute run in Spark's own operators (default true; false:
#: always the Python operator, for comparison)
SPARK_AGGREGATION = "kindling.table.spark-aggregation"

#: whether the nodes Spark can compute other than Calcs and aggregations (joins, ...) run in Spark's
#: own operators, and Python functions on Arrow batches in its frames (default true; false: on the Python
#: operators, for comparison)
SPARK_OPERATORS = "kindling.table.spark-operators"

#: whether an inner join on micro-batches is Spark's stream-stream join inside the streaming query
#: (default true; false: joined per batch by kindling/spark/table/join.py)
SPARK_STREAM_JOIN = "kindling.table.spark-stream-join"

#: whether the files of a table are read by Spark's own reader where it can (default true; false:
#: always Kindling's reader, for comparison)
SPARK_SCAN = "kindling.table.spark-scan"

#: the argument types of the aggregates Spark computes as Flink does (Flink sums FLOAT row by row in
#: float32, Spark in double: those stay in Python; DECIMAL: below)
_SPARK_SUMMABLE = INTEGRAL + ["DOUBLE"]
_SPARK_COMPARABLE = _SPARK_SUMMABLE + ["STRING", "VARCHAR", "CHAR"]
#: the largest scale of a DECIMAL a group aggregation sums on Spark: its sums are DECIMAL(38, s), as
#: Flink's, and Spark adds two DECIMAL(38, s) without rounding only up to scale 6 (beyond, it drops a
#: fraction digit to keep 38 digits; Flink keeps the scale)
_SPARK_DECIMAL_SCALE = 6
#: the argument types of a DISTINCT aggregate Spark computes per value in a stream (a group's values
#: seen are kept by value): those whose equality Spark decides as Flink's (not floats: Flink's 0.0
#: and -0.0 are distinct values)
_SPARK_DISTINCT = INTEGRAL + ["STRING", "VARCHAR", "CHAR", "BOOLEAN", "DATE", "DECIMAL"]
#: the column types the SQLite state of a deduplication or a join Spark computes keeps (a JSON text
#: each row reads back as it was)
_SPARK_KEPT = _SPARK_COMPARABLE + ["FLOAT", "BOOLEAN", "DECIMAL", "DATE", "TIMESTAMP", "TIMESTAMP_LTZ"]
#: nodes that read their input row by row, keeping no state: Spark's aggregation can feed them
_STATELESS = (nodes.Project, nodes.Filter, nodes.Expand, nodes.Correlate, nodes.Sink)
_JVM_CALC = (nodes.Project, nodes.Filter)
_WINDOW_AGGREGATIONS = (nodes.WindowAggregate, nodes.GroupWindowAggregate)
_AGGREGATIONS = (nodes.Aggregate,) + _WINDOW_AGGREGATIONS
_LEAVES = (nodes.Scan, nodes.Values)
#: the key types a join on micro-batches compares as Flink's does (floats: Flink's keys are binary,
#: 0.0 and -0.0 differ), besides integers, compared as BIGINT
_JOIN_KEYS = ("STRING", "VARCHAR", "CHAR", "BOOLEAN", "DATE")
#: the other nodes a frame may hold (each one's conditions: ``Physical._<class name>``)
_OPERATORS = (nodes.Over, nodes.Rank, nodes.WindowTVF, nodes.IntervalJoin, nodes.Union, nodes.Expand,
              nodes.SetOperation, nodes.Sort)
#: the column types whose equality Spark's set operations decide as Flink's: those of a stream's DISTINCT
#: values, and times (not floats: Flink compares their bits, -0.0 is not 0.0; not nested types)
_SET_COMPARED = tuple(_SPARK_DISTINCT) + ("TIMESTAMP", "TIME")
#: why an event-time node of a stream runs in Python (the module docstring)
_FOLLOWS_THE_WATERMARK = "a stream's event-time rows follow Flink's per-element watermark"


@dataclass(frozen=True)
class Choice:
    """Where a node runs (``engine``: :data:`SPARK_JVM` or :data:`PYTHON`); ``reason``: why a node Spark
    can compute runs in Python (None otherwise)."""

    engine: str
    reason: Optional[str] = None
    how: Optional[str] = None  # which of Spark's ways, where the engine has several for the node

    @property
    def jvm(self) -> bool:
        return self.engine == SPARK_JVM

    @property
    def framed(self) -> bool:
        """Whether the node is part of a frame (Spark's DataFrame operations)."""
        return self.engine in (SPARK_JVM, PYTHON_ON_ARROW)


class Physical:
    """The physical choices for the plans ``roots`` of one job (a query, or the inserts of a
    statement set): the run mode, and per node :meth:`choose`. ``final``: the rows go only to table
    sinks or to the client (not to DataStream operators the plan cannot see)."""

    def __init__(self, t_env, roots: Sequence[nodes.Node], final: bool = True):
        from kindling.datastream.execution_mode import RuntimeExecutionMode

        env = t_env._env
        self._t_env = t_env
        self.in_batch = env.get_runtime_mode() == RuntimeExecutionMode.BATCH  # the tables' semantics
        _check_python_aggregates(roots, self.in_batch)
        self.spark_aggregation = env.get_configuration().get_boolean(SPARK_AGGREGATION, True)
        self.spark_operators = env.get_configuration().get_boolean(SPARK_OPERATORS, True)
        self.spark_scan = env.get_configuration().get_boolean(SPARK_SCAN, True)
        self.spark_stream_join = env.get_configuration().get_boolean(SPARK_STREAM_JOIN, True)
        self.arrow_batch_size = _arrow_batch_size(env.get_configuration())
        storage = env.get_checkpoint_config().get_checkpoint_storage()
        checkpoints = (storage.get_checkpoint_path() if storage is not None else None) or ""
        #: the Spark group aggregation of micro-batches needs its checkpoint directory on a local path
        self._remote_checkpoints = "://" in checkpoints and not checkpoints.startswith("file:")
        self._frames: dict = {}  # id(node) -> whether Spark computes it as part of a frame (:meth:`frame`)
        readers = Counter(id(i) for node in _nodes(roots) for i in node.inputs)
        #: the nodes an operator (not a sink) reads
        self._read_by_operators = {id(i) for node in _nodes(roots) if not isinstance(node, nodes.Sink)
                                   for i in node.inputs}
        #: the nodes only a blackhole reads (one step counts an aggregation's changes: :meth:`_counted`)
        blackholes = [n for n in _nodes(roots) if isinstance(n, nodes.Sink)
                      and n.descriptor.get_options().get("connector") == "blackhole"]
        self._blackholed = {id(n.input) for n in blackholes if readers[id(n.input)] == 1}
        self._roots = roots
        in_plan, in_streams = _eager_watermarks(roots)
        #: the plan's Flink SQL watermarks are read by no node, or change no answer: their assigners are not run
        self.unread_watermarks = in_plan and final and (
            not reads_time(roots) or (not in_streams and self._no_row_late(env, roots)))
        self.mode = _MODES[env._run_mode(_sources(roots), in_streams or (in_plan and not self.unread_watermarks))]
        self.bounded = self.mode != MICRO_BATCHES  # the whole input at once: one Spark batch job
        #: a node reads a Flink SQL watermark of the plan (Kindling's source hands it on, on micro-batches)
        self._watermark_read = in_plan and not self.unread_watermarks
        self._records_limit = _records_limit(env)
        self._readers: dict = {}  # id(node) -> the nodes reading its rows
        for node in _nodes(roots):
            for i in node.inputs:
                self._readers.setdefault(id(i), []).append(node)

    def _no_row_late(self, env, roots: Sequence[nodes.Node]) -> bool:
        """Whether the window aggregations are the only nodes reading time, each computed by Spark in one
        step over a Calc of a file scan's watermark, and the check (scans.py) finds that no row can be late
        for its windows (the rule in the module docstring)."""
        windows = [n for n in _nodes(roots) if isinstance(n, _WINDOW_AGGREGATIONS) or
                   isinstance(n, nodes.Over) and n.frame.order_field == n.input.out.rowtime is not None or
                   isinstance(n, nodes.IntervalJoin) and _of_rowtimes(n)]
        tvfs = [n.windows for n in windows if isinstance(n, nodes.WindowAggregate)]
        if self.in_batch or not windows or any(n not in windows + tvfs for n in _time_readers(roots)) or \
                _MODES[env._run_mode(_sources(roots), False)] != ONE_STEP:
            return False
        self.mode, self.bounded = ONE_STEP, True  # what Spark computes if no row is late
        checks = [self._lateness_check(n, side) for n in windows for side in n.inputs]
        self._frames.clear()
        return None not in checks and not env._rows_may_be_late(checks)

    def _lateness_check(self, node: nodes.Node, side: nodes.Node) -> Optional[tuple]:
        """What decides whether a row of the scan under the window aggregation, OVER or interval join
        ``node`` (its input ``side``) may be late (kindling/spark/table/scans.py ``rows_may_be_late``),
        when Spark computes it over the event time of a file scan, through Calcs; else None."""
        below, least = side, None
        while isinstance(below, _JVM_CALC):
            below = below.input
        scanned = _scanned_column(below.input, below.column) if isinstance(below, nodes.WatermarkAssigner) else None
        if not (scanned and below.delay is not None and self.frame(node) and self._scan(scanned[0]).jvm):
            return None
        if isinstance(node, nodes.Over):  # a row is late when the watermark passed its own time
            time, step, phase = node.frame.order_field, 1, 0
        elif isinstance(node, nodes.IntervalJoin):  # the same, and Flink's join takes a watermark below 0 as 0
            time, step, phase, least = node.left_time if side is node.left else node.right_time, 1, 0, 0
        else:
            if isinstance(node, nodes.WindowAggregate):
                window = node.windows
                kind, time, offset = window.window, window.time_field, window.offset_ms
            else:
                window = node.window
                kind, time, offset = window.kind, window.time_field, 0
            size, step = window.size_ms, window.slide_ms or window.size_ms
            phase = (offset + (size if kind.upper() in ("HOP", "SLIDE") else 0)) % step  # the ends: phase + k * step
        if time != side.out.rowtime:
            return None
        scan, column = scanned
        return (scan.options, scan.out.schema.row_type_info(), scan.out.schema.get_field_data_types(), column,
                below.delay, step, phase, least)

    def choose(self, node: nodes.Node, stateless_above: bool = True, read_by_frame: bool = False) -> Choice:
        """Where ``node`` runs; ``stateless_above``: only stateless nodes read its rows, up to the
        plan's root; ``read_by_frame``: a node Spark computes in a frame reads it."""
        if isinstance(node, nodes.Scan):
            return self._scan(node)
        if isinstance(node, nodes.Values):
            if self.mode == MICRO_BATCHES:
                return Choice(PYTHON, "elements are read by Kindling's source on micro-batches")
            if read_by_frame or id(node) not in self._read_by_operators:
                return Choice(SPARK_JVM)
            return Choice(PYTHON, "elements are read in the task of the operator reading them")
        if isinstance(node, nodes.WatermarkAssigner):  # a frame reads the event time as a column
            return Choice(SPARK_JVM) if read_by_frame else Choice(PYTHON)
        if isinstance(node, _JVM_CALC):
            return self._calc(node)
        if isinstance(node, _AGGREGATIONS):
            spec, reason = self._aggregation(node, stateless_above)
            return Choice(SPARK_JVM) if spec is not None else Choice(PYTHON, reason)
        if isinstance(node, nodes.Join):
            return self._join(node) if self.bounded else self._micro_batch_join(node, stateless_above)
        if isinstance(node, nodes.Correlate):
            return self._correlate(node)
        if isinstance(node, nodes.Rank) and not self.in_batch:
            spec, reason = self._deduplication(node, stateless_above)
            return Choice(SPARK_JVM) if spec is not None else Choice(PYTHON, reason)
        if isinstance(node, _OPERATORS):
            reason = self._frame_inputs(node) or getattr(self, "_" + type(node).__name__)(node)
            return Choice(PYTHON, reason) if reason else Choice(SPARK_JVM)
        return Choice(PYTHON)

    def frame(self, node: nodes.Node) -> bool:
        """Whether Spark computes ``node`` and every node below it as DataFrame operations over the
        scans at its leaves (a *frame*: one source of the job, kindling/spark/table/translate.py)."""
        known = self._frames.get(id(node))
        if known is None:
            known = self._frames[id(node)] = isinstance(node, _LEAVES) or (
                isinstance(node, _JVM_CALC + _AGGREGATIONS + _OPERATORS + (nodes.Join, nodes.Correlate)) and
                self._in_frame(node))
        return known

    def _in_frame(self, node: nodes.Node) -> bool:
        if isinstance(node, nodes.Join) and not self.bounded:  # its own writer (kindling/spark/table/join.py)
            return False
        if isinstance(node, _AGGREGATIONS):
            spec = self._aggregation(node, True)[0]
            return self.bounded and self.frame(self._time_input(node.input)) and spec is not None and \
                not self._counted(node, spec)
        if isinstance(node, nodes.Rank) and not self.in_batch:  # a stream's deduplication: outside frames
            return False
        return self.choose(node).framed

    def _counted(self, node: nodes.Node, spec: GroupAggregateSpec) -> bool:
        """Whether ``node`` is an aggregation only a blackhole reads whose every row changes its group
        in one step: then only how many changes it makes counts, and Spark's aggregation outside the
        frame counts them with one hash aggregation (kindling/spark/table/aggregation.py
        ``one_step_change_count``) instead of computing them."""
        return self.mode == ONE_STEP and id(node) in self._blackholed and spec.every_row_changes

    def _time_input(self, node: nodes.Node) -> nodes.Node:
        """What a frame reads of ``node``: the rows under its watermark assigner in a bounded job (the
        whole input comes before any watermark: an event time is a column) or when no node reads the
        watermark (:meth:`passes_through`), else ``node``."""
        return node.input if isinstance(node, nodes.WatermarkAssigner) and (
            self.bounded or self.passes_through(node)) else node

    def passes_through(self, node: nodes.Node) -> bool:
        """Whether nothing runs for ``node`` (:func:`passes_through`, or a watermark no node reads)."""
        return passes_through(node, self.in_batch) or (
            self.unread_watermarks and isinstance(node, nodes.WatermarkAssigner))

    def _scan(self, node: nodes.Scan) -> Choice:
        from kindling.table.formats import spark_reader_differs

        if node.options is None or node.options.get("connector") != "filesystem":
            return Choice(PYTHON)
        stream = self.mode == MICRO_BATCHES
        reason = spark_reader_differs(node.options, node.out.schema, node.source, stream) or (
            None if self.spark_scan else f"{SPARK_SCAN} is false")
        if stream and not reason:
            reason = self._stream_scan(node)
        return Choice(PYTHON, reason) if reason else Choice(SPARK_JVM)

    def _stream_scan(self, node: nodes.Scan) -> Optional[str]:
        """Why Spark's file stream source cannot read a ``filesystem`` table on micro-batches (None: it
        can): its rows carry no control rows (the watermark and the ends of splits Kindling's source
        sends), so only where no node reads a watermark and only Spark's writers of micro-batches (a
        group aggregation, join or deduplication Spark computes) read its frame; and it limits a batch
        by files, not records."""
        if self._watermark_read:
            return "a node reads the watermark, which Kindling's source hands on"
        if self._records_limit:
            return self._records_limit
        readers, stack = [], [node]
        while stack:
            read = self._readers.get(id(stack.pop()))
            if not read:  # a root: the client reads its rows
                return "its rows go to the client, as Kindling's source gives them"
            for reader in read:
                if self.passes_through(reader) or isinstance(reader, _JVM_CALC + (nodes.Correlate,)) and \
                        self.choose(reader).framed:
                    stack.append(reader)
                else:
                    readers.append(reader)
        for reader in readers:
            if not self._spark_writer(reader, self._stateless_above(reader)):
                return f"{type(reader).__name__} reads its rows as Kindling's source gives them"
        return None

    def _spark_writer(self, node: nodes.Node, stateless_above: bool) -> bool:
        """Whether ``node`` is a group aggregation, join or deduplication Spark computes on
        micro-batches: a writer of its changes (kindling/spark/table/aggregation.py, join.py)."""
        return self.mode == MICRO_BATCHES and isinstance(node, _AGGREGATIONS + (nodes.Join, nodes.Rank)) and \
            self.choose(node, stateless_above).jvm

    def _stateless_above(self, node: nodes.Node) -> bool:
        """Whether only stateless nodes read ``node``'s rows, up to the plan's roots."""
        return all(stateless(r) and self._stateless_above(r) for r in self._readers.get(id(node), ()))

    def _calc(self, node: nodes.Node) -> Choice:
        from kindling.table.planner.expressions import python_only

        if not self.frame(self._time_input(node.input)):
            return Choice(PYTHON, "its input is computed in Python")
        reason = next((r for r in map(python_only, _calc_expressions(node)) if r is not None), None)
        if reason is None:
            return Choice(SPARK_JVM)
        if not self.spark_operators:
            return Choice(PYTHON, f"{SPARK_OPERATORS} is false")
        return Choice(PYTHON_ON_ARROW) if self._arrow_calls(node) else Choice(PYTHON, reason)

    def spark_computes(self, node: nodes.Node) -> bool:
        """Whether Spark computes every expression of the Calc ``node`` as Flink (it may still run in
        Python: a Calc over a join or aggregation of micro-batches is Spark columns of their changes,
        kindling/spark/table/downstream.py)."""
        from kindling.table.planner.expressions import python_only

        return self.spark_operators and all(python_only(e) is None for e in _calc_expressions(node))

    def columns_of_changes(self, node: nodes.Node, stateless_above: bool = True) -> bool:
        """Whether the Calc ``node`` runs as Spark columns of a micro-batch writer's changes
        (kindling/spark/table/downstream.py): Spark computes its expressions, and it reads, through
        such Calcs only, a group aggregation, join or deduplication Spark computes on micro-batches."""
        while self.mode == MICRO_BATCHES and isinstance(node, _JVM_CALC) and self.spark_computes(node):
            node = node.input
            while self.passes_through(node):
                node = node.input
        return self._spark_writer(node, stateless_above)

    def _arrow_calls(self, node: nodes.Node):
        """The Python calls of the Calc ``node`` a frame makes on Arrow batches (None: it cannot)."""
        from kindling.table.planner.arrow_calls import arrow_calls

        return arrow_calls(_calc_expressions(node), self.arrow_batch_size)

    def _correlate(self, node: nodes.Correlate) -> Choice:
        """A table function: called on Arrow batches of its input's frame (as a Calc's Python calls,
        :meth:`_table_call`; on micro-batches the sources' control rows pass through uncalled); else the
        Python operator."""
        if not self.frame(self._time_input(node.input)):
            return Choice(PYTHON, "its input is computed in Python")
        if not self.spark_operators:
            return Choice(PYTHON, f"{SPARK_OPERATORS} is false")
        if self._table_call(node) is None:
            return Choice(PYTHON, "a table function with its own open or close, or of arguments Spark does not "
                                  "compute as Flink")
        return Choice(PYTHON_ON_ARROW)

    def _table_call(self, node: nodes.Correlate):
        """The table function's call a frame makes on Arrow batches (None: it cannot)."""
        from kindling.table.planner.arrow_calls import arrow_table_call
        from kindling.table.planner.expressions import UdtfCall, resolve

        if node.call is None:
            return None
        call = resolve(node.call, node.input.out.names, node.input.out.schema.get_field_data_types())
        return arrow_table_call(call) if isinstance(call, UdtfCall) else None

    def _join(self, node: nodes.Join) -> Choice:
        """A regular join: Spark's join of two frames in a bounded job. BATCH gives each key's final
        rows; in one step an inner join of inserts emits each joined row once, in an order the
        inputs' arrival could give, and a LEFT (RIGHT) join the rows of its BATCH answer as ``+I``:
        Flink's changes when every right (left) row arrives first. A full outer join's changes (a row
        padded with nulls, retracted when its first partner comes) depend on the order the rows
        arrive: the Python operator."""
        from kindling.table.planner.expressions import python_only

        if not self.bounded or node.predicate is None:
            return Choice(PYTHON)
        if not self.spark_operators:
            return Choice(PYTHON, f"{SPARK_OPERATORS} is false")
        if not (self.frame(node.left) and self.frame(node.right)):
            return Choice(PYTHON, "its input is computed in Python")
        if not self.in_batch and (node.left.out.updating or node.right.out.updating):
            return Choice(PYTHON, "its input is updating")
        if not self.in_batch and (node.existence == "ANTI" or (node.left_outer and node.right_outer)):
            return Choice(PYTHON, f"{'an anti' if node.existence else 'a full outer'} join's changes depend on the "
                                  "order its rows arrive")
        reason = python_only(self.join_condition(node))
        return Choice(SPARK_JVM) if reason is None else Choice(PYTHON, reason)

    def _micro_batch_join(self, node: nodes.Join, stateless_above: bool) -> Choice:
        """A regular join on micro-batches: Spark joins each batch's rows with each other and with the
        other side's stored rows of the batch's keys (kindling/spark/table/join.py) when the join is
        an inner, outer, semi or anti equi-join of inserts (an outer or anti join's changes those of
        one arrival order of each batch's rows Flink could see: kindling/spark/table/semi_join.py for
        semi and anti joins); a join of changes follows the order its rows arrive, row by row, and a
        NOT IN of nullable values is Flink's null-aware anti join: the Python operator."""
        spec, reason = self._spark_join(node, stateless_above)
        if spec is None:
            return Choice(PYTHON, reason)
        return Choice(SPARK_JVM, how="Spark's stream-stream join in the streaming query" if spec.streamed else None)

    def spark_join_spec(self, node: nodes.Join, stateless_above: bool) -> Optional[RegularJoinSpec]:
        """The regular join as a :class:`RegularJoinSpec` when Spark computes it on micro-batches, else None."""
        return None if self.bounded else self._spark_join(node, stateless_above)[0]

    def _spark_join(self, node: nodes.Join, stateless_above: bool) -> Tuple[Optional[RegularJoinSpec], Optional[str]]:
        from kindling.table.join import conjuncts, equi_keys
        from kindling.table.planner.expressions import python_only

        def or_null(e) -> bool:  # sql.py's NOT IN of a nullable value: (x = y) OR x IS NULL [OR y IS NULL]
            return e._kind == "call" and e._payload[0] == "or" and any(
                c._kind == "call" and c._payload[0] == "isNull" or or_null(c) for c in e._children)

        if node.predicate is None:
            return None, None
        if not self.spark_operators:
            return None, f"{SPARK_OPERATORS} is false"
        if self._remote_checkpoints:
            return None, "its state would live in SQLite under a checkpoint directory outside the local file system"
        if node.left.out.updating or node.right.out.updating:
            return None, "its input is updating"
        if node.existence == "ANTI" and any(map(or_null, conjuncts(node.predicate))):
            return None, "a NOT IN of nullable values (Flink's null-aware anti join: a NULL on either side keeps " \
                         "the row out)"
        if not stateless_above:
            return None, "a stateful node reads its rows"
        left_names, right_names = node.left.out.names, node.right.out.names
        left_keys, right_keys = equi_keys(node.predicate, left_names, right_names)
        if not left_keys:
            return None, "a join without equal keys"
        left_types, right_types = node.left.out.types, node.right.out.types
        pairs = [(left_types[a].type_name, right_types[b].type_name) for a, b in zip(left_keys, right_keys)]
        widened = all(a in INTEGRAL and b in INTEGRAL for a, b in pairs)
        if not widened and any(a != b or a not in _JOIN_KEYS for a, b in pairs):
            return None, "keys of types whose equality Spark decides otherwise than Flink's join"
        kept = [t.type_name for t in list(left_types.values()) + list(right_types.values())]
        if any(t not in _SPARK_KEPT for t in kept):
            return None, f"a column of type {next(t for t in kept if t not in _SPARK_KEPT)} the join's state does " \
                         "not keep"
        condition = self.join_condition(node)
        reason = python_only(condition)
        if reason is not None:
            return None, reason
        return RegularJoinSpec([left_names.index(k) for k in left_keys], [right_names.index(k) for k in right_keys],
                               condition, widened, node.left_outer, node.right_outer, node.existence,
                               len(conjuncts(node.predicate)) == len(left_keys), self.streamed_join(node)), None

    def streamed_join(self, node: nodes.Join) -> bool:
        """Whether the join on micro-batches ``node`` (one Spark computes) is Spark's stream-stream join
        inside the streaming query: an inner join (kindling/spark/table/join.py ``streamed_pairs``; the
        one decision, which the compiler and the join's writer follow)."""
        return self.spark_stream_join and not (node.left_outer or node.right_outer or node.existence)

    def _frame_inputs(self, node: nodes.Node) -> Optional[str]:
        """Why Spark cannot compute ``node`` in a frame whatever it computes, or None."""
        if not self.bounded:
            return "the frames of micro-batches are Calcs and Correlates over a scan"
        if not self.spark_operators:
            return f"{SPARK_OPERATORS} is false"
        if not all(self.frame(self._time_input(i)) for i in node.inputs):
            return "its input is computed in Python"
        return None

    def _Over(self, node: nodes.Over) -> Optional[str]:
        """OVER: window functions over each partition ordered by its column (then arrival), each row once
        with its frame's aggregates."""
        frame = node.frame
        if not self.in_batch and self.mode != ONE_STEP:  # one step: no row is late (_no_row_late)
            return _FOLLOWS_THE_WATERMARK
        if frame.order_field == node.input.out.proctime:
            return "an OVER of processing time"
        offsets, aggregates = over_offsets(node)
        if not self.in_batch and any(a._aggregate.kind == "lead" for a in offsets.values()):
            return "LEAD of a stream (Flink refuses it)"
        if not all(getattr(a._children[0], "_is_column", False) for a in offsets.values()):
            return "a LAG or LEAD of an expression (Spark's takes a column)"
        spec = aggregation_spec(frame.partition_keys, aggregates, node.input.out.types)
        if spec is None:
            return "an aggregate Spark does not compute as Flink does"
        if frame.preceding is not None and any(kind in ("sum", "sum0", "avg") and not integral
                                               for kind, _, integral in spec.calls):
            return "a sum over a bounded frame rounds as Flink's rows come and go"
        return None

    def _Rank(self, node: nodes.Rank) -> Optional[str]:
        """Top-N, deduplication: the rows numbered per partition in its order (ties in arrival order),
        those in its range."""
        return None if self.in_batch else "a Top-N of a stream changes its rows as they arrive"

    def deduplication_spec(self, node: nodes.Rank, stateless_above: bool) -> Optional[GroupAggregateSpec]:
        """A stream's Rank as a :class:`GroupAggregateSpec` when Spark computes it (a deduplication by
        processing time: the rule in the module docstring), else None."""
        return self._deduplication(node, stateless_above)[0]

    def _deduplication(self, node: nodes.Rank, stateless_above: bool) -> Tuple[Optional[GroupAggregateSpec], str]:
        """A stream's Rank: the spec of its deduplication by processing time, computed by Spark's
        aggregation machinery (kindling/spark/table/aggregation.py) per group and batch, else None and why."""
        base = node.input.out
        strategy = rank_strategy(base, node.function, node.partition, node.order, node.start, node.end, False)
        if not strategy.startswith("deduplicate"):
            return None, "a Top-N of a stream changes its rows as they arrive"
        if node.order[0][0] != base.proctime:
            return None, ("an event-time deduplication follows Flink's per-element watermark (keep-first) "
                          "and its rows' times (keep-last), not their arrival")
        if not self.spark_operators:
            return None, f"{SPARK_OPERATORS} is false"
        if not self.bounded and self._remote_checkpoints:
            return None, "its state would live in SQLite under a checkpoint directory outside the local file system"
        if not stateless_above:
            return None, "a stateful node reads its changes"
        unkept = next((c for c in base.names if base.types[c].type_name not in _SPARK_KEPT), None)
        if unkept is not None:
            return None, f"a column of type {base.types[unkept].type_name} (its state keeps only simple types)"
        from kindling.table.planner.rules import mini_batch

        spec = GroupAggregateSpec(keys=list(node.partition), per_batch=mini_batch(self._t_env),
                                  deduplicate="last" if strategy == "deduplicate_last" else "first",
                                  columns=list(base.names))
        spec.fields = [("column", i) for i in range(len(base.names))] + ([("number", 1)] if node.with_number else [])
        spec.ordered = id(node) not in self._blackholed
        return spec, ""

    def _WindowTVF(self, node: nodes.WindowTVF) -> Optional[str]:
        """TUMBLE, HOP and CUMULATE of an event-time column: each row once per window it falls in."""
        if not self.in_batch:
            return _FOLLOWS_THE_WATERMARK
        return "session windows and windows of processing time" if node.window == "SESSION" or node.proctime \
            else None

    def _IntervalJoin(self, node: nodes.IntervalJoin) -> Optional[str]:
        """A join of rows of equal keys whose times are within the bounds; an outer side's rows that
        joined none padded with nulls (BATCH, or one step over rowtimes where no row is late)."""
        from kindling.table.planner.expressions import python_only

        if not self.in_batch and (self.mode != ONE_STEP or not _of_rowtimes(node)):  # one step: _no_row_late
            return _FOLLOWS_THE_WATERMARK
        return python_only(self.join_condition(node)) if node.predicate is not None else None

    def _Union(self, node: nodes.Union) -> Optional[str]:
        """UNION ALL: the rows of both frames."""
        return None

    def _Expand(self, node: nodes.Expand) -> Optional[str]:
        """GROUPING SETS: each row once per grouping set."""
        return None

    def _Sort(self, node: nodes.Sort) -> Optional[str]:
        """ORDER BY [LIMIT, OFFSET] in BATCH mode: Spark's sort of all rows into one partition (ties in
        arrival order), as the Python operator's sort of the whole input at parallelism 1. A stream's
        sorts emit rows as time or the ranks allow: the Python operators."""
        if not self.in_batch:
            return "a stream's sort follows its rows' arrival"
        if node.input.out.updating:
            return "its input is updating"
        return next((r for r in (_unsortable(k) for k, _, _ in self.sort_keys(node)) if r is not None), None)

    def sort_keys(self, node: nodes.Sort) -> list:
        """Each sort key resolved, with whether it is descending and whether nulls come first (SQL's nulls are
        the smallest values, the Table API's the largest)."""
        from kindling.table.planner.expressions import resolve

        names, types = node.input.out.names, node.input.out.schema.get_field_data_types()
        keys = []
        for key in node.keys:
            descending = getattr(key, "_descending", False)
            keys.append((resolve(key, names, types), descending, descending != getattr(key, "_null_smallest", False)))
        return keys

    def _SetOperation(self, node: nodes.SetOperation) -> Optional[str]:
        """INTERSECT, EXCEPT [ALL] in BATCH mode: Spark's set operations, each distinct row's copies as
        Flink's (NULLs equal). A stream's changes them as its rows arrive: the Python operator."""
        if not self.in_batch:
            return "a stream's set operation changes its rows as they arrive"
        if node.left.out.updating or node.right.out.updating:
            return "its input is updating"
        other = next((t.type_name for i in node.inputs for t in i.out.types.values()
                      if t.type_name not in _SET_COMPARED), None)
        return None if other is None else f"a column of type {other}, whose equality Spark decides otherwise " \
                                           "than Flink"

    def join_condition(self, node: nodes.Join):
        """The join's predicate resolved against the joined columns."""
        from kindling.table.planner.expressions import resolve

        return resolve(node.predicate, node.left.out.names + node.right.out.names,
                       node.left.out.schema.get_field_data_types() + node.right.out.schema.get_field_data_types())

    def operators(self, node: nodes.Node) -> Tuple[list, list]:
        """The leaves of the frame ``node`` (each once, in the order first met) and, per node in it that
        needs more than its fields to be computed by Spark, ``(node, what Spark computes it by)``."""
        from kindling.table.planner.lowering import row_type

        leaves, operators, seen, stack = [], [], set(), [node]
        while stack:
            current = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            if isinstance(current, _LEAVES):
                leaves.append(current)
            elif isinstance(current, nodes.IntervalJoin):
                operators.append((current, self._interval_join_operator(current)))
            elif isinstance(current, nodes.Join) and current.predicate is not None:
                operators.append((current, self.join_condition(current)))
            elif isinstance(current, nodes.Over):
                operators.append((current, self._over_operator(current)))
            elif isinstance(current, _AGGREGATIONS):
                operators.append((current, (self._aggregation(current, True)[0], row_type(current.out))))
            elif isinstance(current, _JVM_CALC) and self.choose(current).engine == PYTHON_ON_ARROW:
                operators.append((current, self._arrow_calls(current)))
            elif isinstance(current, nodes.Sort):
                operators.append((current, self.sort_keys(current)))
            elif isinstance(current, nodes.Correlate):
                operators.append((current, (self._table_call(current), self.arrow_batch_size)))
            stack.extend(reversed([self._time_input(i) for i in current.inputs]))
        return leaves, operators

    def _over_operator(self, node: nodes.Over) -> tuple:
        """What Spark computes an OVER by: its aggregates' spec, their row type, its LAG and LEAD
        calls by position (:func:`over_offsets`) and whether its rows come out in a stream's order
        (one step, and something other than a blackhole reads them)."""
        from kindling.table.schema import Schema

        offsets, aggregates = over_offsets(node)
        types = node.out.schema.get_field_data_types()[-len(node.names):]
        others = [j for j in range(len(node.names)) if j not in offsets]
        row = Schema([node.names[j] for j in others], [types[j] for j in others])
        return aggregation_spec(node.frame.partition_keys, aggregates, node.input.out.types), row.row_type_info(), \
            offsets, not self.in_batch and not self._order_unseen(node)

    def _interval_join_operator(self, node: nodes.IntervalJoin) -> tuple:
        """What Spark computes an interval join by: the rest of its condition (None: none), and whether
        each parallel instance's padded rows come after its joined rows (one step: the end of input's
        watermark pads them; and something other than a blackhole reads them)."""
        condition = self.join_condition(node) if node.predicate is not None else None
        return condition, (node.left_outer or node.right_outer) and not self.in_batch and not self._order_unseen(node)

    def _order_unseen(self, node: nodes.Node) -> bool:
        """Whether no one can see the order of ``node``'s rows: they reach only blackhole sinks, through
        projections and filters (which keep it, row by row)."""
        readers = [n for n in _nodes(self._roots) if any(i is node for i in n.inputs)]
        return bool(readers) and all(
            isinstance(n, nodes.Sink) and n.descriptor.get_options().get("connector") == "blackhole" or
            isinstance(n, _JVM_CALC) and self._order_unseen(n) for n in readers)

    def spark_aggregation_spec(self, node: nodes.Node, stateless_above: bool) -> Optional[GroupAggregateSpec]:
        """The aggregation node as a :class:`GroupAggregateSpec` when Spark computes it (the rule in
        the module docstring), else None."""
        return self._aggregation(node, stateless_above)[0]

    def _aggregation(self, node: nodes.Node, stateless_above: bool) -> Tuple[Optional[GroupAggregateSpec], str]:
        """The aggregation's spec when Spark computes it, else None, and why not."""
        if node.input.out.updating:
            return None, "its input is updating"
        if not self.spark_aggregation:
            return None, f"{SPARK_AGGREGATION} is false"
        if not self.bounded and self._remote_checkpoints:
            return None, "its state would live in SQLite under a checkpoint directory outside the local file system"
        in_frame = self.bounded and self.frame(self._time_input(node.input))
        if not stateless_above and not in_frame:
            return None, "a stateful node reads its changes"
        if isinstance(node, nodes.Aggregate):
            spec = aggregation_spec(node.keys, node.fields, node.input.out.types, node.mini_batch,
                                    distinct=self.in_batch, distinct_values=True, decimals=True)
        elif self.mode == MICRO_BATCHES:
            return None, "windows on micro-batches follow Flink's per-element watermark"
        elif isinstance(node, nodes.WindowAggregate):
            windows = node.windows
            if windows.window == "SESSION" or windows.proctime:
                return None, "session windows and windows of processing time"
            spec = aggregation_spec(node.keys, node.fields, _window_types(node), window=(
                windows.window.lower(), windows.size_ms, windows.slide_ms or windows.size_ms, windows.offset_ms),
                window_columns=_WINDOW_COLUMNS, distinct=True, decimals=True)
        elif node.window.kind == "session":
            return None, "session windows"
        else:
            window = node.window
            spec = aggregation_spec(node.keys, node.fields, node.input.out.types, window=(
                "tumble" if window.kind == "tumble" else "hop", window.size_ms, window.slide_ms or window.size_ms, 0),
                distinct=True, decimals=True)
        if spec is not None:
            spec.ordered = id(node) not in self._blackholed
        return spec, "an aggregate Spark does not compute as Flink does"


_WINDOW_COLUMNS = {"window_start": "start", "window_end": "end", "window_time": "rowtime"}


def _unsortable(key: Any) -> Optional[str]:
    """Why Spark cannot sort by the resolved ``key`` as Flink (None: it can)."""
    from kindling.table.planner.expressions import python_only

    reason = python_only(key)
    if reason is None and key.type.type_name in ("ARRAY", "MAP", "MULTISET", "ROW", "RAW"):
        reason = f"a sort key of type {key.type.type_name}"
    return reason


def _calc_expressions(node: nodes.Node) -> tuple:
    return tuple(node.resolved) if isinstance(node, nodes.Project) else (node.resolved,)


def _arrow_batch_size(configuration) -> int:
    """How many rows a pandas function gets at most, as PyFlink's Arrow batches:
    ``python.fn-execution.arrow.batch.size``, at most ``.bundle.size``."""
    from kindling.common.configuration import positive_integer

    return min(positive_integer(configuration, "python.fn-execution.arrow.batch.size", 10_000),
               positive_integer(configuration, "python.fn-execution.bundle.size", 100_000))


def _of_rowtimes(node: nodes.IntervalJoin) -> bool:
    """Whether the interval join bounds its inputs' rowtimes (not processing times)."""
    return node.left_time == node.left.out.rowtime is not None and node.right_time == node.right.out.rowtime


def _window_types(node: nodes.WindowAggregate) -> dict:
    from kindling.table.window_tvf import window_column_types

    types = node.input.out.types
    return dict(types, **dict(zip(_WINDOW_COLUMNS, window_column_types(types[node.windows.time_field]))))


def _scanned_column(node: nodes.Node, column: str) -> Optional[Tuple[nodes.Scan, str]]:
    """The scan, and its column, whose values the column ``column`` of ``node`` passes on through Calcs."""
    from kindling.table.planner.expressions import InputRef

    while isinstance(node, _JVM_CALC):
        if isinstance(node, nodes.Project):
            reference = node.resolved[node.names.index(column)] if column in node.names else None
            if not isinstance(reference, InputRef):
                return None
            column = node.input.out.names[reference.index]
        node = node.input
    return (node, column) if isinstance(node, nodes.Scan) else None


def aggregation_spec(keys: Sequence[str], fields: Sequence[Expression], types: dict, mini_batch: bool = False,
                     window: Optional[tuple] = None, window_columns: Optional[dict] = None, distinct: bool = False,
                     distinct_values: bool = False, decimals: bool = False) -> Optional[GroupAggregateSpec]:
    """The aggregation as a :class:`GroupAggregateSpec` when Spark's own operators compute it as
    Flink does: every field a key column, an expression of key columns Spark computes as Flink does,
    a built-in aggregate of one column (``COUNT`` also of a literal; DISTINCT when ``distinct``: a
    group's rows are aggregated at once, in BATCH mode and the windows of a bounded input; or when
    ``distinct_values`` and the column's type is one of ``_SPARK_DISTINCT``: a stream's group keeps
    the values it has seen; of DECIMAL columns when ``decimals``: MIN/MAX, and sums and averages up
    to ``_SPARK_DECIMAL_SCALE``) or, of a ``window`` aggregation, a window property
    (``col('w').start``, or the columns ``window_columns`` names: ``{'window_start': 'start', ...}``);
    else None (the Python operator computes it)."""
    spec = GroupAggregateSpec(keys=list(keys), per_batch=mini_batch, window=window)
    for field in fields:
        inner = unaliased(field)
        which = getattr(inner, "_window_which", None) if window else None
        if which is None and window and getattr(inner, "_is_column", False):
            which = (window_columns or {}).get(inner._name)
        if which is not None:
            spec.fields.append(("window", which))
            continue
        if field.needs_python():
            return None
        if getattr(inner, "_is_column", False) and inner._name in keys:
            spec.fields.append(("key", list(keys).index(inner._name)))
            continue
        if not inner.aggregates() and set(inner.columns()) <= set(keys):  # CAST(k AS BIGINT): of the keys only
            from kindling.table.planner.expressions import python_only, resolve

            resolved = resolve(inner, list(keys), [types[k] for k in keys])
            if python_only(resolved) is not None:
                return None
            spec.fields.append(("expression", resolved))
            continue
        aggregate = inner._aggregate
        if aggregate is None or (aggregate.distinct and not (distinct or distinct_values)) or aggregate.kind not in (
                "count", "sum", "sum0", "avg", "min", "max"):
            return None
        kind = aggregate.kind + ("_distinct" if aggregate.distinct and aggregate.kind not in ("min", "max") else "")
        argument = inner._children[0]
        if getattr(argument, "_is_column", False):
            data_type = types[argument._name]
            type_name = data_type.type_name
            allowed = _SPARK_SUMMABLE if aggregate.kind in ("sum", "sum0", "avg") else _SPARK_COMPARABLE
            if decimals and type_name == "DECIMAL" and aggregate.kind != "count":
                scale = precision_scale(data_type)[1]
                if aggregate.kind in ("sum", "sum0", "avg") and scale <= _SPARK_DECIMAL_SCALE:
                    spec.scales[len(spec.calls)] = scale
                    allowed = ["DECIMAL"]
                elif aggregate.kind in ("min", "max"):
                    allowed = ["DECIMAL"]
            if aggregate.kind != "count" and type_name not in allowed:  # COUNT counts values of any type
                return None
            if aggregate.distinct and not distinct and type_name not in _SPARK_DISTINCT:
                return None
            call = (kind, argument._name, type_name in INTEGRAL)
        elif aggregate.kind == "count" and not aggregate.distinct and not argument._children and not argument.columns():
            call = ("count", None, False)  # COUNT(*), or of a literal
        else:
            return None
        spec.fields.append(("call", len(spec.calls)))
        spec.calls.append(call)
    return spec


def over_offsets(node: nodes.Over) -> Tuple[dict, list]:
    """An OVER's LAG and LEAD calls by position, and its other aggregates."""
    offsets = {j: unaliased(a) for j, a in enumerate(node.aggregates)
               if getattr(unaliased(a)._aggregate, "kind", None) in ("lag", "lead")}
    return offsets, [a for j, a in enumerate(node.aggregates) if j not in offsets]


def stateless(node: nodes.Node) -> bool:
    """Whether ``node`` reads its input row by row without state (Spark's aggregation may feed it)."""
    return isinstance(node, _STATELESS)


# -- which Python operator: ranks and sorts of a stream --------------------------------------------

def rank_strategy(base: nodes.Output, function: str, partition: Sequence[str], order: Sequence[tuple], start: int,
                  end: Optional[int], in_batch: bool) -> str:
    """Which operator ranks: ``batch`` (BATCH mode), ``window`` (window Top-N or deduplication of
    event-time windows), ``deduplicate_first`` / ``deduplicate_last`` (ROW_NUMBER over a time
    attribute, rank 1), ``top1``, ``top_n`` (append-only input) or ``retract_top_n`` (updating
    input), as Flink chooses; ``invalid: <Flink's message>`` for what Flink refuses on a stream."""
    if in_batch:
        return "batch"
    if function != "ROW_NUMBER" or end is None:  # Flink's errors, raised when the job starts
        return "invalid: " + (f"{function}() on streaming table is not supported currently"
                              if function != "ROW_NUMBER" else "The window can only be ordered in ASCENDING mode."
                              if any(d for _, d in order) else "Rank end is not specified. Currently rank only "
                              "support TopN, which means the rank end must be specified.")
    time = order[0][0] if len(order) == 1 else None
    if {"window_start", "window_end"} <= set(partition) and not base.updating and not base.windows_of_proctime:
        return "window"
    if time is not None and time in (base.rowtime, base.proctime) and start == end == 1 and not base.updating:
        return "deduplicate_last" if order[0][1] else "deduplicate_first"
    if start == end == 1 and not base.updating:
        return "top1"
    return "retract_top_n" if base.updating else "top_n"


def stream_sort(base: nodes.Output, names: List[str], descending: List[bool], fetch: Optional[int],
                offset: int = 0) -> str:
    """How a stream is sorted, as Flink allows it: ``top_n`` (an order starting with the time
    attribute ascending, with a fetch), ``first_n`` (a fetch alone), ``temporal`` (rows leave in
    time order), ``as_is`` (an order on the processing time: rows already come in it), or
    ``invalid: <Flink's message>``. OFFSET without a fetch fails now."""
    if names and (names[0] not in (base.rowtime, base.proctime) or descending[0]):
        return "invalid: Sort on a non-time-attribute field is not supported."
    if base.updating:
        return "invalid: ORDER BY / LIMIT of an updating streaming table is not supported by Kindling yet"
    if fetch is not None:
        return "top_n" if names else "first_n"
    if offset:
        raise ValueError("OFFSET without LIMIT (FETCH) on a stream is not supported by Kindling yet")
    return "as_is" if not names or names[0] == base.proctime else "temporal"


def passes_through(node: nodes.Node, in_batch: bool) -> bool:
    """Whether ``node`` leaves its input's rows as they are, so that nothing runs for it: a sort on the
    processing time of a stream (rows come in that order), the stream's own watermarks
    (``SOURCE_WATERMARK()``)."""
    if isinstance(node, nodes.Sort):
        return sort_strategy(node, in_batch) == "as_is"
    return isinstance(node, nodes.WatermarkAssigner) and node.delay is None


def sort_strategy(node: nodes.Sort, in_batch: bool) -> str:
    """How a Sort node sorts: ``batch`` (all rows at the end of the input), else :func:`stream_sort`."""
    if in_batch:
        return "batch"
    return stream_sort(node.input.out, [k._name for k in node.keys],
                       [getattr(k, "_descending", False) for k in node.keys], node.fetch, node.offset)


# -- the job's sources, for its run mode ----------------------------------------------------------

def _leaves(roots: Sequence[nodes.Node]) -> List[nodes.Node]:
    return [node for node in _nodes(roots) if not node.inputs]


def _sources(roots: Sequence[nodes.Node]) -> list:
    """The source specs the plans read (a DataStream's: those of its job graph)."""
    from kindling.graph.specs import CollectionSourceSpec
    from kindling.graph.transformation import SourceTransformation, upstream_graph

    specs = []
    for leaf in _leaves(roots):
        if isinstance(leaf, nodes.Scan):
            specs.append(leaf.source._spec)
        elif isinstance(leaf, nodes.Values):
            specs.append(CollectionSourceSpec(values=list(leaf.rows)))
        elif isinstance(leaf, nodes.FromDataStream):
            specs += [n.source for n in upstream_graph([leaf.stream._transformation])
                      if isinstance(n, SourceTransformation)]
    return specs


def _check_python_aggregates(roots: Sequence[nodes.Node], in_batch: bool) -> None:
    """Refuses, with PyFlink 2.3's reason, the Python aggregate functions its planner does not run in
    the job's mode: in BATCH mode general (not pandas) ones and table aggregate functions; in STREAMING
    mode pandas ones in a group aggregation or a window TVF's, general ones in an OVER window, and
    pandas ones over UNBOUNDED PRECEDING rows."""
    for node in _nodes(roots):
        if isinstance(node, nodes.TableAggregate) and in_batch:
            raise ValueError(f"flat_aggregate: the Python table aggregate function {node.call} is not supported in "
                             "batch mode (PyFlink 2.3's planner has no rule for it); run it in streaming mode")
        if isinstance(node, nodes.Over):
            expressions = node.aggregates
        elif isinstance(node, (nodes.Aggregate, nodes.WindowAggregate, nodes.GroupWindowAggregate)):
            expressions = node.fields
        else:
            continue
        for call in (a for e in expressions for a in e.aggregates() if not isinstance(a._payload[0], str)):
            reason = _python_aggregate_refusal(node, call._payload[0]._func_type == "pandas", in_batch)
            if reason:
                raise ValueError(f"{call}: {reason}")


def _python_aggregate_refusal(node: nodes.Node, pandas: bool, in_batch: bool) -> Optional[str]:
    """PyFlink 2.3's words refusing a Python aggregate function (``pandas``: a pandas one) in ``node``."""
    if in_batch:
        return None if pandas else ("non-Pandas UDAFs are not supported in batch mode currently (PyFlink 2.3); "
                                    "use a pandas UDAF (func_type='pandas') or streaming mode")
    if pandas and isinstance(node, (nodes.Aggregate, nodes.WindowAggregate)):
        return ("Pandas UDAFs are not supported in streaming mode currently (PyFlink 2.3): use a general UDAF, or "
                "a pandas one in batch mode or in a group window (window(Tumble ...))")
    if isinstance(node, nodes.Over) and not pandas:
        return ("Non-Pandas Python UDAFs are not supported in stream mode currently (PyFlink 2.3): use a pandas UDAF "
                "over a bounded frame, or batch mode")
    if isinstance(node, nodes.Over) and node.frame.preceding is None:
        return ("Python UDAF is not supported to be used in UNBOUNDED PRECEDING OVER windows (PyFlink 2.3): "
                "bound the frame (ROWS BETWEEN n PRECEDING AND CURRENT ROW)")
    return None


def _nodes(roots: Sequence[nodes.Node]) -> List[nodes.Node]:
    """Every node of the plans ``roots`` once (a window aggregation's windows included)."""
    out, stack, seen = [], list(roots), set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        stack.extend(node.inputs)
        if isinstance(node, nodes.WindowAggregate):
            stack.append(node.windows)
    return out


def _records_limit(env) -> Optional[str]:
    """Why a micro-batch is limited by records (Kindling's file source honours that exactly; Spark's
    file stream source limits by files), or None: a records limit applies (kindling/common/read_limits.py)
    and is not checkpointing's default where ``kindling.source.max-files-per-batch`` limits the files."""
    limits = ReadLimits.of(env.get_configuration(), env.get_checkpoint_interval())
    if not limits.records or (limits.records_by_default and limits.files):
        return None
    if not limits.records_by_default:
        return f"{MAX_RECORDS_PER_BATCH} is set (Kindling's source honours it)"
    return (f"checkpointing limits a micro-batch's records ({MAX_RECORDS_PER_BATCH}'s default); "
            f"{MAX_FILES_PER_BATCH} limits its files instead")


def _eager_watermarks(roots: Sequence[nodes.Node]) -> Tuple[bool, bool]:
    """Whether a Flink SQL watermark (emitted as elements move it) is in the plans, and whether one is
    in the DataStreams they read."""
    from kindling.graph.transformation import upstream_graph

    in_plan = in_streams = False
    for node in _nodes(roots):
        if isinstance(node, nodes.WatermarkAssigner) and node.eager and node.delay is not None:
            in_plan = True
        if isinstance(node, nodes.FromDataStream) and any(
                getattr(n, "operation", None) == "timestamps" and getattr(n.function, "eager", False)
                for n in upstream_graph([node.stream._transformation])):
            in_streams = True
    return in_plan, in_streams


#: nodes whose answer depends neither on the watermark nor on the rows' timestamps
_TIMELESS = (nodes.Scan, nodes.Values, nodes.FromDataStream, nodes.Project, nodes.Filter, nodes.Aggregate,
             nodes.Expand, nodes.TableAggregate, nodes.Correlate, nodes.ChangelogNormalize, nodes.WatermarkAssigner,
             nodes.Join, nodes.Union, nodes.SetOperation, nodes.LookupJoin, nodes.Sink, nodes.Invalid)
#: Top-N without time: what a Rank computes regardless of the watermark
_TIMELESS_RANKS = ("batch", "top1", "top_n", "retract_top_n")


def reads_time(roots: Sequence[nodes.Node]) -> bool:
    """Whether some node of the plans ``roots`` reads the watermark or the rows' timestamps (a window,
    an interval or temporal join, OVER, a sort or deduplication on time, a Top-N of windows; the
    DataStream timestamps of metadata columns made above a WATERMARK), so that when watermarks come
    can change its answer."""
    return bool(_time_readers(roots))


def _time_readers(roots: Sequence[nodes.Node]) -> List[nodes.Node]:
    """The nodes of the plans ``roots`` that read the watermark or the rows' timestamps (:func:`reads_time`)."""
    readers = []
    for node in _nodes(roots):
        if isinstance(node, (nodes.MetadataColumns, nodes.AppendTimestamp)):
            if any(isinstance(n, nodes.WatermarkAssigner) for n in _nodes(node.inputs)):
                readers.append(node)
        elif isinstance(node, nodes.Rank):
            if rank_strategy(node.input.out, node.function, node.partition, node.order, node.start, node.end,
                             False) not in _TIMELESS_RANKS:
                readers.append(node)
        elif not isinstance(node, _TIMELESS):
            readers.append(node)
    return readers
