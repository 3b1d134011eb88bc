"""A table's plan nodes Spark computes (a :class:`~kindling.graph.specs.RelationalSourceSpec`'s
``plan``, kindling/table/planner/nodes.py) as DataFrame operations on its scans' frames. Nodes are
read as data, by their class name and fields, and the spec's ``operators`` give what a node needs
beyond them (a join's resolved condition, an aggregation's spec); resolved expressions become Spark
Columns (kindling/spark/table/columns.py), evaluated in the JVM.

Every node's frame has its columns named as the node names them, then the RowKind column of a
node whose rows are changes, then the control columns. In a bounded job the rows of a plan with
an event time carry it as their timestamps (``__ts``), as its watermark assigner would give them.
Control rows (a non-null watermark column: kindling/spark/rows.py, micro-batches only, where the
planner gives Spark Calcs and Correlates over one scan) travel through every operation: projections keep the
control columns, filters always pass them."""
from __future__ import annotations

from typing import Any, Callable

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from kindling.graph.specs import RelationalSourceSpec
from kindling.graph.transformation import SourceTransformation
from kindling.runtime.table.key_groups import TableKeyType
from kindling.spark.codec import ROW_KIND, codec_for
from kindling.spark.rows import CHANNEL, TS, WM
from kindling.spark.table.columns import column
from kindling.spark.table.key_subtasks import has_expression, printed_in_parallel, with_flink_subtask
from kindling.spark.type_mapping import spark_type_of

__all__ = ["relational_frame", "relational_source_frame", "scan_frame"]


def relational_source_frame(compiler: Any, node: Any) -> DataFrame:
    """The frame of a RelationalSourceSpec node (its translation, kindling/spark/connectors.py): its
    plan over its bases, read by Spark's own reader (files, in a batch job) or as the compiler reads
    each base's source (Spark's file stream source on micro-batches: no control rows)."""
    spec = node.source
    bases = [scan_frame(compiler.spark, leaf, t, compiler.streaming, compiler.source_batch_files) if native else
             compiler.source_frame(SourceTransformation(name=node.name, type_info=t, source=b))
             for b, t, leaf, native in zip(spec.bases, spec.base_types, spec.leaves, spec.native, strict=True)]
    return relational_frame(spec, bases, [c for c in (WM, CHANNEL) if c in bases[0].columns], compiler.parallelism,
                            placed=_printed_streaming(compiler, node),
                            max_parallelism=compiler.max_parallelism if compiler.max_parallelism > 0 else None)


def _printed_streaming(compiler: Any, node: Any) -> bool:
    """Whether a print sink of parallelism over 1 reads ``node``'s rows in a STREAMING job: its
    ``n> `` prefixes show the subtask of the keyed operator that made a row (BATCH mode's hash
    partitioning of keys is not reproduced, docs/table.md)."""
    from kindling.spark.run_mode import RunMode

    if compiler.mode is RunMode.BATCH:
        return False
    sinks, seen, stack = [], set(), [node]
    while stack:
        current = stack.pop()
        for consumer in compiler.consumers.get(current.id, ()):
            if consumer.id not in seen:
                seen.add(consumer.id)
                stack.append(consumer)
                sinks.append(consumer)
    return printed_in_parallel(sinks, compiler.parallelism)


def scan_frame(spark, scan, type_info, streaming: bool = False, max_files: int = 0) -> DataFrame:
    """The frame Spark's own reader makes of the files of the plan's leaf ``scan`` (a base the spec
    marks ``native``), as the columns of the codec of ``type_info``; ``streaming``: its file stream
    source, at most ``max_files`` new files a micro-batch (0: all)."""
    from kindling.spark.table.scans import csv_frame, csv_stream_frame

    types = scan.out.schema.get_field_data_types()
    if streaming:
        return csv_stream_frame(spark, scan.options, type_info, types, max_files)
    return csv_frame(spark, scan.options, type_info, types)


_ORDER, _SEQ, _NUMBER, _PLACE = "__order", "__seq", "__number", "__place"
#: an interval join's marks of its sides' rows, and of its padded rows
_LEFT, _RIGHT, _PADDED = "__left", "__right", "__padded"
_JOINS = {(False, False): "inner", (True, False): "left", (False, True): "right", (True, True): "full"}
_EXISTENCE_JOINS = {"SEMI": "left_semi", "ANTI": "left_anti"}
_ARRIVAL = "__arrival"  # a frame's rows numbered in the order its partitions hold them
#: Spark's DataFrame method of each set operation (kindling/table/planner/nodes.py SetOperation)
_SET_OPERATIONS = {"intersect": "intersect", "intersect_all": "intersectAll", "minus": "subtract",
                   "minus_all": "exceptAll"}


def relational_frame(spec: RelationalSourceSpec, bases: list[DataFrame], control: list[str],
                     parallelism: int, placed: bool = False, max_parallelism: int | None = None) -> DataFrame:
    """The frame of ``spec``'s plan over ``bases`` (the frames of its sources), its columns named
    ``spec.names``, then the RowKind column of changes, then the ``control`` columns; operations
    that spread rows by key spread them over ``parallelism`` partitions, as Flink's parallel instances
    (``placed``: each key's rows in the partition of Flink's subtask of it, where a sink shows it, of
    ``max_parallelism`` key groups, None: Flink's default)."""
    plan = spec.plan
    frame = _Translation(spec, bases, control, parallelism, placed, max_parallelism).frame(plan)
    if control and control[0] not in frame.columns:  # an aggregation's rows: data, from the frame's own splits
        frame = frame.select("*", *[(F.lit(None).cast("long") if c == WM else _split()).alias(c) for c in control])
    kind = [ROW_KIND] if plan.out.updating else []
    frame = frame.toDF(*spec.names, *kind, *control)
    if plan.out.rowtime is not None and not control:  # the rows' timestamps are their event times
        return frame.select("*", _epoch_millis(spec.names[plan.out.names.index(plan.out.rowtime)]).alias(TS),
                            F.lit(None).cast("long").alias(WM), _split().alias(CHANNEL))
    return frame


def input_refs(expressions) -> list:
    """The input columns (InputRefs: index and name) the resolved ``expressions`` read."""
    read = []
    stack = list(expressions)
    while stack:
        node = stack.pop()
        if type(node).__name__ == "InputRef":
            read.append(node)
        stack.extend(getattr(node, "operands", None) or ())
    return read


def _split() -> Column:
    """The split of a frame's rows, as a source's: one per partition."""
    return F.concat(F.lit("table-"), F.spark_partition_id().cast("string")).cast("binary")


class _Translation:
    """The frames of one spec's nodes, each built once (a node read twice is one frame)."""

    def __init__(self, spec: RelationalSourceSpec, bases: list[DataFrame], control: list[str], parallelism: int,
                 placed: bool = False, max_parallelism: int | None = None):
        self.bases = {id(leaf): base for leaf, base in zip(spec.leaves, bases)}
        self.operators = {id(node): operator for node, operator in spec.operators}
        self.control, self.parallelism, self.placed = control, parallelism, placed
        self.max_parallelism = max_parallelism
        self.frames: dict[int, DataFrame] = {}

    def _key_type(self, node, keys) -> TableKeyType | None:
        """The TableKeyType of the columns ``keys`` of ``node``'s rows, where rows are placed by it."""
        if not (self.placed and keys and self.parallelism > 1):
            return None
        key_type = TableKeyType.of([node.out.types[k] for k in keys])
        return key_type if has_expression(key_type) else None

    def _spread(self, frame: DataFrame, columns: list[str], key_type: TableKeyType | None) -> DataFrame:
        """``frame`` in the partitions of Flink's subtasks of the keys in its ``columns`` (of ``key_type``;
        None: as it is)."""
        if key_type is None:
            return frame
        placed = with_flink_subtask(frame, columns, key_type, self.parallelism, _PLACE, self.max_parallelism)
        return placed.repartition(self.parallelism, _PLACE).drop(_PLACE)

    def frame(self, node) -> DataFrame:
        built = self.frames.get(id(node))
        if built is None:
            kind = type(node).__name__
            make: Callable[..., DataFrame] | None = getattr(self, "_" + kind, None)
            if make is None:
                raise TypeError(f"Spark does not compute the plan node {kind}: kindling/table/planner/physical.py "
                                "left it to the Python operator")
            built = self.frames[id(node)] = make(node)
        return built

    def _kind(self, node) -> list[str]:
        """The RowKind column of a node whose rows are changes."""
        return [ROW_KIND] if node.out.updating else []

    def _Scan(self, node) -> DataFrame:  # the scan's columns (its codec's, first), named as the plan names them
        base, names = self.bases[id(node)], node.out.names
        width = len(names) + len(self._kind(node))
        return base.select(*[F.col(f"`{c}`") for c in base.columns[:width]], *self.control).toDF(
            *names, *self._kind(node), *self.control)

    _Values = _Scan

    def _WatermarkAssigner(self, node) -> DataFrame:  # a bounded input: the event time is a column
        return self.frame(node.input)

    def _Project(self, node) -> DataFrame:
        rows, resolved = self._calc_input(node, node.resolved)
        return rows.select(*[_column(r).alias(n) for r, n in zip(resolved, node.names)], *self._kind(node),
                           *self.control)

    def _Filter(self, node) -> DataFrame:
        rows, (resolved,) = self._calc_input(node, (node.resolved,))
        condition = _column(resolved)
        if self.control:  # control rows always pass (docs/table.md)
            condition = F.coalesce(condition, F.lit(False)) | F.col(self.control[0]).isNotNull()
        kept = rows.where(condition)
        return kept if rows is self.frame(node.input) else kept.select(*[F.col(f"`{c}`") for c in
                                                                          self.frame(node.input).columns])

    def _calc_input(self, node, resolved) -> tuple[DataFrame, tuple]:
        """The rows a Calc's expressions are computed over, and those expressions: its input's frame and
        its own, or, with Python calls made on Arrow batches, the frame with the calls' results and the
        expressions reading them."""
        calls = self.operators.get(id(node))
        if calls is None:
            return self.frame(node.input), tuple(resolved)
        from kindling.spark.table.python_calls import with_python_calls

        rows = self.frame(node.input)
        if type(node).__name__ == "Project":  # only what its expressions read goes through Python
            read = {ref.name for ref in input_refs(calls.expressions)}
            kept = [c for c in rows.columns if c in read or c == ROW_KIND or c in self.control]
        else:
            kept = rows.columns
        return with_python_calls(rows, calls, kept, self.control[0] if self.control else None), calls.expressions

    def _Expand(self, node) -> DataFrame:
        """Each row once per grouping set, in their order (an array exploded in place keeps it), the
        keys a set leaves out null (of their own type)."""
        def value(name: str, kept: tuple) -> Column:
            column = F.col(f"`{name}`")
            return (column if name not in node.keys or name in kept else F.when(F.lit(False), column)).alias(name)

        originals = [F.col(f"`{k}`").alias(f"__original{j}") for j, k in enumerate(node.originals)]
        rows = [F.struct(*[value(n, s) for n in node.input.out.names], *originals,
                         F.lit(i).cast("long").alias("__grouping_id")) for s, i in zip(node.sets, node.ids)]
        return self.frame(node.input).select(F.inline(F.array(*rows)), *self._kind(node), *self.control) \
            .toDF(*node.out.names, *self._kind(node), *self.control)

    def _Correlate(self, node) -> DataFrame:
        """A table function's rows, made on Arrow batches of its input's rows (kindling/spark/table/python_calls.py);
        control rows pass through it once each."""
        from kindling.spark.table.python_calls import with_table_function

        call, batch_size = self.operators[id(node)]
        repeated = list(node.input.out.names) if node.keep_input else []
        made = [f"$made{j}" for j in range(len(node.out.names) - len(repeated))]
        rows = with_table_function(self.frame(node.input), call, repeated + self._kind(node) + self.control, made,
                                   node.outer, batch_size, self.control[0] if self.control else None)
        return rows.select(*[F.col(f"`{c}`") for c in repeated + made], *self._kind(node), *self.control) \
            .toDF(*node.out.names, *self._kind(node), *self.control)

    def _Join(self, node) -> DataFrame:
        kind = _EXISTENCE_JOINS[node.existence] if node.existence else _JOINS[(node.left_outer, node.right_outer)]
        joined = self.frame(node.left).join(self.frame(node.right), _column(self.operators[id(node)]), kind)
        # a stream's LEFT (RIGHT) join of inserts in one step: its BATCH rows, as inserts (physical.py)
        inserts = [F.lit(0).cast("byte").alias(ROW_KIND)] if node.out.updating else []
        return self._joined(joined.select(*[F.col(f"`{n}`") for n in node.out.names], *inserts), node)

    def _joined(self, joined: DataFrame, node) -> DataFrame:
        """A join's rows in the partitions of Flink's subtasks of their left keys, where rows are placed
        and every output row has them (not of a right or full outer join: a row without a left side
        has no left key)."""
        left_names = node.left.out.names
        if node.right_outer or not self.placed:
            return joined
        if hasattr(node, "left_keys"):
            positions = [left_names.index(k) for k in node.left_keys]
        else:
            positions = _left_key_positions(self.operators[id(node)], len(left_names))
        key_type = self._key_type(node.left, [left_names[p] for p in positions])
        return self._spread(joined, [node.out.names[p] for p in positions], key_type)

    def _Aggregate(self, node) -> DataFrame:
        from kindling.spark.table.aggregation import bounded_changes, in_order

        spec, output_type = self.operators[id(node)]
        rows = self.frame(node.input)
        if spec.window is not None:
            rows = rows.withColumn(TS, _epoch_millis(_time_field(node)))
        elif not node.out.updating:  # each group's final row: in no order
            return bounded_changes(rows, spec, output_type).select(*[F.col(f"`{n}`") for n in node.out.names])
        return in_order(bounded_changes(rows, spec, output_type), spec, output_type, self.parallelism,
                        self._key_type(node.input, spec.keys), self.max_parallelism)

    _WindowAggregate = _GroupWindowAggregate = _Aggregate

    def _Over(self, node) -> DataFrame:
        """Each row with its frame's aggregates (BATCH mode, or a stream in one step where no row is
        late): window functions over the partition ordered by its column then the arrival (peers of a
        RANGE frame share their values), or over the whole partition without an order; LAG and LEAD
        count rows in that order, as Flink's. A stream's rows come out as its watermark fires them."""
        from kindling.spark.table.aggregation import _accumulators, _result  # the group aggregation's

        spec, aggregates_type, offsets, streamed = self.operators[id(node)]
        frame, rows = node.frame, self.frame(node.input)
        if frame.order_field is None:
            order = F.lit(0)
        else:
            order = F.col(f"`{frame.order_field}`")
            if node.input.out.types[frame.order_field].type_name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
                order = F.unix_millis(order)  # a RANGE's bound is in ms
        arguments = [F.col(f"`{column}`").alias(f"__a{j}") for j, (_, column, _) in enumerate(spec.calls) if column]
        # an argument column is carried once, by its argument's name (not partition keys, LAG or LEAD's columns)
        named = set(frame.partition_keys) | {a._children[0]._name for a in offsets.values()}
        carried = {}
        for j, (_, column, _) in enumerate(spec.calls):
            if column and column not in named:
                carried.setdefault(column, f"__a{j}")
        rows = rows.select(*[F.col(f"`{n}`") for n in node.input.out.names if n not in carried], *arguments,
                           order.alias(_ORDER), F.monotonically_increasing_id().alias(_SEQ))
        partition = Window.partitionBy(*[F.col(f"`{k}`") for k in frame.partition_keys])
        ordered = F.col(_ORDER).desc() if frame.descending else F.col(_ORDER)  # NULLs last, as Flink's DESC
        start = Window.unboundedPreceding if frame.preceding is None else -frame.preceding
        if frame.order_field is None:
            window = partition.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
        elif frame.rows:
            window = partition.orderBy(ordered, _SEQ).rowsBetween(start, Window.currentRow)
        else:
            window = partition.orderBy(ordered).rangeBetween(start, Window.currentRow)
        rows = rows.select("*", *[aggregate.over(window).alias(name) for name, _, aggregate in _accumulators(spec)])
        results = _result(spec, aggregates_type)
        values = iter([results[f.name] for f in codec_for(aggregates_type).fields])
        in_order = partition.orderBy(ordered, _SEQ)
        types = node.out.schema.get_field_data_types()[-len(node.names):]
        columns = [_offset_column(offsets[j], in_order, types[j]) if j in offsets else next(values)
                   for j in range(len(node.names))]
        names = [*node.input.out.names, *node.names]
        rows = rows.select(*[F.col(carried.get(n, f"`{n}`")).alias(n) for n in node.input.out.names],
                           *[c.alias(n) for c, n in zip(columns, node.names)], _ORDER, _SEQ)
        if streamed:  # the end of input's watermark fires each instance's rows in time order (ties: arrival)
            keys = [F.col(f"`{k}`") for k in frame.partition_keys]
            key_type = self._key_type(node.input, list(frame.partition_keys))
            if key_type is not None:  # each partition's rows in Flink's subtask of it
                rows = with_flink_subtask(rows, list(frame.partition_keys), key_type, self.parallelism, _PLACE,
                                          self.max_parallelism)
                keys = [F.col(_PLACE)]
            rows = rows.repartition(self.parallelism if keys else 1, *keys).sortWithinPartitions(_ORDER, _SEQ)
        return rows.select(*[F.col(f"`{n}`") for n in names])

    def _Rank(self, node) -> DataFrame:
        """The rows numbered per partition in the rank's order (BATCH mode; rows of one order in
        arrival order), those in its range."""
        rows = self.frame(node.input).select("*", F.monotonically_increasing_id().alias(_SEQ))
        order = [F.col(f"`{n}`").desc_nulls_last() if descending else F.col(f"`{n}`").asc_nulls_first()
                 for n, descending in node.order]
        partition = Window.partitionBy(*[F.col(f"`{k}`") for k in node.partition])
        number = {"ROW_NUMBER": F.row_number(), "RANK": F.rank(), "DENSE_RANK": F.dense_rank()}[node.function]
        window = partition.orderBy(*order, _SEQ) if node.function == "ROW_NUMBER" else partition.orderBy(*order)
        numbered = rows.select("*", number.over(window).alias(_NUMBER))
        kept = numbered.where(F.col(_NUMBER) >= node.start)
        if node.end is not None:
            kept = kept.where(F.col(_NUMBER) <= node.end)
        number_column = [F.col(_NUMBER).cast("long").alias(node.number_name)] if node.with_number else []
        return kept.select(*[F.col(f"`{n}`") for n in node.input.out.names], *number_column)

    def _WindowTVF(self, node) -> DataFrame:
        """Each row once per window its time falls in (a row without a time in none), with the
        window's start, end and time (its end less 1 ms)."""
        from kindling.spark.table.aggregation import windows_of

        rows = self.frame(node.input)
        windowed = rows.withColumn(TS, _epoch_millis(node.time_field)).where(F.col(TS).isNotNull()).withColumn(
            "__window", F.explode(windows_of((node.window.lower(), node.size_ms, node.slide_ms or node.size_ms,
                                              node.offset_ms))))
        bounds = [F.timestamp_millis(F.col("__window.start")), F.timestamp_millis(F.col("__window.end")),
                  F.timestamp_millis(F.col("__window.end") - 1)]
        types = node.out.schema.get_field_data_types()[-3:]
        return windowed.select(*[F.col(f"`{n}`") for n in node.input.out.names],
                               *[b.cast(spark_type_of(t.type_info())).alias(n)
                                 for b, t, n in zip(bounds, types, node.out.names[-3:])])

    def _IntervalJoin(self, node) -> DataFrame:
        """The pairs of equal keys whose times are within the bounds (and the rest of the condition);
        an outer side's rows that joined none, padded with nulls (a stream in one step: after each
        parallel instance's pairs, as the end of input's watermark pads them)."""
        rest, padded_last = self.operators[id(node)]
        left_time, right_time = _epoch_millis(node.left_time), _epoch_millis(node.right_time)
        condition = (right_time + node.lower <= left_time) & (left_time <= right_time + node.upper)
        for a, b in zip(node.left_keys, node.right_keys):
            condition = condition & (F.col(f"`{a}`") == F.col(f"`{b}`"))
        if rest is not None:
            condition = condition & _column(rest)
        left, right = self.frame(node.left), self.frame(node.right)
        if padded_last:
            left, right = left.withColumn(_LEFT, F.lit(True)), right.withColumn(_RIGHT, F.lit(True))
        joined = left.join(right, condition, _JOINS[(node.left_outer, node.right_outer)])
        columns = [F.col(f"`{n}`") for n in node.out.names]
        if not padded_last:
            return self._joined(joined.select(*columns), node)
        left_types, right_types = node.left.out.types, node.right.out.types
        keys = [f"__key{i}" for i in range(len(node.left_keys))]
        same = all(left_types[a] == right_types[b] for a, b in zip(node.left_keys, node.right_keys))
        key_type = self._key_type(node.left, list(node.left_keys)) if same else None
        joined = joined.select(*columns, (F.col(_LEFT).isNull() | F.col(_RIGHT).isNull()).alias(_PADDED), *[
            F.coalesce(F.col(f"`{a}`"), F.col(f"`{b}`")).alias(k) for a, b, k in zip(node.left_keys, node.right_keys, keys)])
        if key_type is not None:  # each key's rows in Flink's subtask of it, a padded row's by its own side's key
            joined = self._spread(joined, keys, key_type)
        else:
            joined = joined.repartition(self.parallelism if keys else 1, *[F.col(k) for k in keys])
        return joined.sortWithinPartitions(_PADDED).select(*columns)

    def _Union(self, node) -> DataFrame:
        sides = [self.frame(node.left), self.frame(node.right)]
        if node.out.updating:  # an insert-only side's rows are inserts
            sides = [side if i.out.updating else side.withColumn(ROW_KIND, F.lit(0).cast("byte"))
                     for side, i in zip(sides, node.inputs)]
        return sides[0].union(sides[1])

    def _Sort(self, node) -> DataFrame:
        """All rows sorted into one partition (ties in arrival order: the partitions' in turn), ``fetch`` of
        them after ``offset`` (BATCH mode: no control columns)."""
        order = []
        for key, descending, nulls_first in self.operators[id(node)]:
            column = _column(key)
            order.append(getattr(column, f"{'desc' if descending else 'asc'}_nulls_{'first' if nulls_first else 'last'}")())
        rows = self.frame(node.input).withColumn(_ARRIVAL, F.monotonically_increasing_id())
        rows = rows.orderBy(*order, _ARRIVAL)
        if node.offset:
            rows = rows.offset(node.offset)
        if node.fetch is not None:
            rows = rows.limit(node.fetch)
        return rows.coalesce(1).drop(_ARRIVAL)

    def _SetOperation(self, node) -> DataFrame:
        """INTERSECT, EXCEPT [ALL] of two frames of inserts (BATCH mode: no control columns)."""
        names = node.out.names
        left, right = (self.frame(i).select(*[F.col(f"`{c}`") for c in i.out.names]).toDF(*names)
                       for i in node.inputs)
        return getattr(left, _SET_OPERATIONS[node.operation])(right)


def _left_key_positions(condition, width: int) -> list[int]:
    """The left columns (positions, of the left's ``width`` columns) of the equalities ``left = right``
    of a resolved join condition's conjunction, in their order."""
    if type(condition).__name__ != "Call":
        return []
    if condition.function == "and":
        return [p for operand in condition.operands for p in _left_key_positions(operand, width)]
    refs = [o.index for o in condition.operands if type(o).__name__ == "InputRef"]
    if condition.function == "equals" and len(refs) == 2 and min(refs) < width <= max(refs):
        return [min(refs)]
    return []


def _time_field(node) -> str:
    """The event-time column a window aggregation's windows are of."""
    return node.windows.time_field if type(node).__name__ == "WindowAggregate" else node.window.time_field


def _epoch_millis(name: str) -> Column:
    """The epoch milliseconds of a time column (a TIMESTAMP's as Python holds it: kindling/common/typeinfo.py)."""
    return F.unix_millis(F.col(f"`{name}`"))


def _column(resolved) -> Column:
    """A resolved expression's Spark Column, of the Spark type of its SQL type."""
    return column(resolved).cast(spark_type_of(resolved.type.type_info()))


def _offset_column(call, in_order, data_type) -> Column:
    """LAG or LEAD (``call``, an aggregate with the offset and default as parameters) over the rows of
    the partition ``in_order``, typed as Flink types it."""
    offset, default = call._payload[2]
    function = F.lag if call._aggregate.kind == "lag" else F.lead
    value = function(F.col(f"`{call._children[0]._name}`"), offset, default).over(in_order)
    return value.cast(spark_type_of(data_type.type_info()))
