"""The plan turned into the job: each node the physical choice (:mod:`.physical`) leaves to Python
becomes DataStream transformations running a Table operator inside Spark tasks; each subtree Spark
computes becomes one source of the job carrying that subplan as data
(:class:`~kindling.graph.specs.RelationalSourceSpec`, translated into DataFrame operations by
kindling/spark/table/translate.py); an aggregation Spark computes is the Python operator's keyed
node carrying its :class:`~kindling.graph.specs.GroupAggregateSpec`, which the Spark compiler takes
out of the streaming query (kindling/spark/table/aggregation.py), as is a stream's deduplication
Spark computes.

A path's consumers matter twice: an aggregation runs in Spark only when stateless nodes read its
changes (``stateless_above``), and a Top-1 sends ``-U`` before its ``+U`` only to operators that
retract rows (``before``; Flink sends them only where needed, not to a sink)."""
from __future__ import annotations

from typing import Optional, Sequence

from kindling.common.typeinfo import ChangelogRowTypeInfo, RowTypeInfo, TypeInformation
from kindling.table.planner import nodes
from kindling.table.planner.explain import label
from kindling.table.planner.physical import Physical, over_offsets, rank_strategy, sort_strategy, stateless
from kindling.table.planner.rules import optimize

__all__ = ["Lowering", "add_sinks", "table_stream"]

#: nodes that read their input row by row: a Top-1 below them sends ``-U`` only if their reader needs it
_ROW_WISE = (nodes.Project, nodes.Filter, nodes.Expand, nodes.LookupJoin)


def table_stream(t_env, node: nodes.Node, type_info: Optional[TypeInformation] = None, final: bool = False):
    """The rows of the plan ``node`` added to the environment's job: a DataStream of Rows of
    ``type_info`` (default: the node's Row type, named by its columns); ``final``: only the client
    reads them (no DataStream operator the plan cannot see)."""
    lowering = Lowering(t_env, [node], final)
    return lowering.stream_as(lowering.roots[0], type_info)


def add_sinks(t_env, sinks: Sequence[nodes.Sink]) -> None:
    """Adds the plans writing into sink tables (the inserts of one job) to the environment's job."""
    lowering = Lowering(t_env, sinks)
    for sink in lowering.roots:
        lowering.sink(sink)


def row_type(out: nodes.Output) -> RowTypeInfo:
    """The Row type of a node's rows in a DataStream (keeping each row's RowKind when updating)."""
    natural = out.schema.row_type_info()
    return _changelog(natural) if out.updating else natural


def _changelog(row_type_info: RowTypeInfo) -> ChangelogRowTypeInfo:
    return ChangelogRowTypeInfo(row_type_info.get_field_types(), row_type_info.get_field_names())


def keeping_parallelism(stream, function, output_type, flat: bool = False):
    """``stream.map`` (or ``flat_map``) with the parallelism of the stream's operator."""
    from kindling.table.connectors import parallelism_of

    mapped = (stream.flat_map if flat else stream.map)(function, output_type=output_type)
    parallelism = parallelism_of(stream)
    return mapped.set_parallelism(parallelism) if parallelism else mapped


def table_key_type(out: nodes.Output, positions: Sequence[int]):
    """The :class:`~kindling.runtime.table.key_groups.TableKeyType` of the columns at ``positions`` of
    ``out``, which places their keys in Flink's subtasks; None where Kindling does not reproduce
    Flink's hash of a column's type (docs/table.md) or there is no key."""
    from kindling.runtime.table.key_groups import TableKeyType

    types = out.schema.get_field_data_types()
    key_type = TableKeyType.of([types[p] for p in positions])
    return key_type if key_type.reproducible() else None


def keyed_by(rows, out: nodes.Output, positions: Sequence[int]):
    """``rows`` (of ``out``) keyed by the columns at ``positions``, each key in Flink's subtask of it."""
    from kindling.runtime.table.group_aggregate import GroupKey

    keyed = rows.key_by(GroupKey(positions))
    keyed._transformation.key_type = table_key_type(out, positions)
    return keyed


class Lowering:
    """Lowers the plans ``roots`` of one job, rewritten (:attr:`roots`, kindling/table/planner/rules.py),
    into the TableEnvironment's StreamExecutionEnvironment; ``final``: their rows go only to table
    sinks or the client."""

    def __init__(self, t_env, roots: Sequence[nodes.Node], final: bool = True):
        self.t_env, self.env = t_env, t_env._env
        self.roots = optimize(roots, t_env.get_current_database())
        self.physical = Physical(t_env, self.roots, final)
        self.in_batch = self.physical.in_batch

    # -- entry points -------------------------------------------------------------------------------

    def stream_as(self, node: nodes.Node, type_info: Optional[TypeInformation] = None, stateless_above: bool = True,
                  before: bool = False):
        """The rows of ``node`` as a DataStream of ``type_info`` (default: its Row type)."""
        from kindling.runtime.table.rows import Retyped

        natural = row_type(node.out)
        wanted = type_info or natural
        arity = len(getattr(wanted, "get_field_types", lambda: [None])())
        if arity != len(node.out.names):
            raise ValueError(f"The type {wanted} has {arity} fields, the table {nodes.table_name(node)} has "
                             f"{len(node.out.names)} columns {node.out.names}")
        if node.out.updating and not isinstance(wanted, ChangelogRowTypeInfo):
            wanted = _changelog(wanted)
        if self.physical.frame(node):
            return self._jvm_source(node, wanted)
        stream = self.stream(node, stateless_above, before)
        return stream if wanted == natural else keeping_parallelism(stream, Retyped(wanted.get_field_names()), wanted)

    def sink(self, sink: nodes.Sink):
        """Adds the sink writing ``sink``'s rows."""
        from kindling.table.connectors import insert_into
        from kindling.table.schema import _DeclaredSchema

        declared = sink.descriptor.get_schema()
        written = declared.persisted() if isinstance(declared, _DeclaredSchema) else declared
        rows = self.stream_as(sink.input, written.row_type_info())
        return insert_into(rows, declared, sink.descriptor.get_options(), sink.path, sink.input.out.updating)

    def stream(self, node: nodes.Node, stateless_above: bool = True, before: bool = False):
        """The rows of ``node`` as a DataStream of its Row type, its last operator described as explain
        prints the node."""
        if self.physical.frame(node):
            return self._jvm_source(node, row_type(node.out))
        if self.physical.passes_through(node):
            return self._input(node, node.input, stateless_above, before)
        produced = getattr(self, "_" + type(node).__name__)(node, stateless_above, before)
        return produced.set_description(label(node, self.physical))

    def _input(self, node: nodes.Node, child: nodes.Node, stateless_above: bool, before: bool):
        """The rows of ``child`` as ``node`` reads them."""
        return self.stream(child, stateless_above and stateless(node), before if isinstance(node, _ROW_WISE) else True)

    def _inputs(self, node: nodes.Node, stateless_above: bool):
        return [self._input(node, child, stateless_above, True) for child in node.inputs]

    def _jvm_source(self, node: nodes.Node, wanted: RowTypeInfo):
        """The source reading a frame Spark computes: its scans, and the nodes above them as data."""
        from kindling.common.watermark_strategy import WatermarkStrategy
        from kindling.datastream.connectors.base import Source
        from kindling.graph.specs import RelationalSourceSpec

        leaves, operators = self.physical.operators(node)
        sources = [_leaf_source(leaf) for leaf in leaves]
        name = nodes.table_name(node)
        native = [isinstance(leaf, nodes.Scan) and self.physical.choose(leaf).jvm for leaf in leaves]
        if node is leaves[0] and wanted == sources[0]._type_info and not native[0]:
            return self.env.from_source(sources[0], WatermarkStrategy.no_watermarks(), name)
        spec = RelationalSourceSpec(bases=[s._spec for s in sources], base_types=[s._type_info for s in sources],
                                    leaves=leaves, plan=node, names=list(wanted.get_field_names()),
                                    operators=operators, native=native)
        return self.env.from_source(Source(spec, wanted), WatermarkStrategy.no_watermarks(), name)

    # -- one method per node the Python operators run -------------------------------------------------

    def _FromDataStream(self, node: nodes.FromDataStream, stateless_above: bool, before: bool):
        from kindling.runtime.table.rows import AsRow, InsertRow, Retyped

        names = node.out.names  # Rows named as the columns (a chained function may have made tuples)
        convert = (InsertRow(names) if node.insert_only else Retyped(names)) if node.rows else AsRow(names)
        return keeping_parallelism(node.stream, convert, row_type(node.out))

    def _Project(self, node: nodes.Project, stateless_above: bool, before: bool):
        from kindling.runtime.table.rows import Project

        project = Project(list(node.names), list(node.resolved), self._arrow_batch_size(), self._async_options())
        project.in_spark = self.physical.spark_computes(node)
        return keeping_parallelism(self._input(node, node.input, stateless_above, before), project, row_type(node.out))

    def _Filter(self, node: nodes.Filter, stateless_above: bool, before: bool):
        from kindling.runtime.table.rows import Condition

        rows = self._input(node, node.input, stateless_above, before)
        condition = Condition(node.resolved, self._arrow_batch_size(), self._async_options())
        condition.in_spark = self.physical.spark_computes(node)
        return rows.filter(condition)

    def _arrow_batch_size(self) -> int:
        return self.physical.arrow_batch_size

    def _async_options(self):
        """How async scalar functions are called: Flink's ``table.exec.async-scalar.*`` options."""
        from kindling.common.configuration import positive_integer
        from kindling.common.time import duration_millis
        from kindling.runtime.table.async_functions import AsyncOptions

        configuration, prefix = self.env.get_configuration(), "table.exec.async-scalar."
        strategy = configuration.get_string(prefix + "retry-strategy", "FIXED_DELAY").strip().upper()
        if strategy not in ("FIXED_DELAY", "NO_RETRY"):
            raise ValueError(f"{prefix}retry-strategy must be FIXED_DELAY or NO_RETRY, got {strategy!r}")
        return AsyncOptions(
            max_concurrent_operations=positive_integer(configuration, prefix + "max-concurrent-operations", 10),
            timeout_ms=duration_millis(configuration.get_string(prefix + "timeout", "3 min"), prefix + "timeout"),
            retries=strategy == "FIXED_DELAY",
            max_attempts=positive_integer(configuration, prefix + "max-attempts", 3),
            retry_delay_ms=duration_millis(configuration.get_string(prefix + "retry-delay", "100 ms"),
                                           prefix + "retry-delay"))

    def _Aggregate(self, node: nodes.Aggregate, stateless_above: bool, before: bool):
        from kindling.runtime.table.group_aggregate import GroupAggregateFunction

        names = node.input.out.names
        function = GroupAggregateFunction(aggregate_calls(node.input.out, node.keys, node.fields, node.names),
                                          list(node.names))
        rows = self._input(node, node.input, stateless_above, before)
        aggregated = keyed_by(rows, node.input.out, [names.index(k) for k in node.keys]).process(
            function, output_type=row_type(node.out))
        aggregated._transformation.relational = self.physical.spark_aggregation_spec(node, stateless_above)
        pandas = any(getattr(a._aggregate, "function", None) is not None and a._aggregate.function._func_type == "pandas"
                     for f in node.fields for a in f.aggregates())
        if self.in_batch and not node.keys and not pandas and aggregated._transformation.relational is None:
            return self._with_empty_input_result(node, aggregated)
        return aggregated

    def _with_empty_input_result(self, node: nodes.Aggregate, aggregated):
        """A BATCH global aggregation's rows, or its one row over no rows (Spark's aggregation gives it; as
        PyFlink's, a pandas aggregate function's gives none, the caller's choice)."""
        from kindling.common.typeinfo import Types
        from kindling.runtime.table.group_aggregate import EmptyInputResult
        from kindling.runtime.table.rows import one_group

        calls = aggregate_calls(node.input.out, node.keys, node.fields, node.names)
        marker = self.env.from_collection([0], type_info=Types.INT())
        return aggregated.connect(marker).key_by(one_group, one_group).process(
            EmptyInputResult(calls, list(node.names)), output_type=row_type(node.out))

    def _TableAggregate(self, node: nodes.TableAggregate, stateless_above: bool, before: bool):
        from kindling.runtime.table.group_aggregate import GroupTableAggregateFunction
        from kindling.table.expressions import col
        from kindling.table.row_operations import RESULT

        names, keys = node.input.out.names, list(node.keys)
        calls = aggregate_calls(node.input.out, keys, [col(k) for k in keys] + [node.call], keys + [RESULT])
        function = GroupTableAggregateFunction(calls, keys + list(node.names))
        rows = self._input(node, node.input, stateless_above, before)
        return keyed_by(rows, node.input.out, [names.index(k) for k in keys]).process(function, output_type=row_type(node.out))

    def _Expand(self, node: nodes.Expand, stateless_above: bool, before: bool):
        from kindling.runtime.table.rows import Expand

        names = node.input.out.names
        nulled = [[names.index(k) for k in node.keys if k not in s] for s in node.sets]
        rows = self._input(node, node.input, stateless_above, before)
        expand = Expand(node.out.names, nulled, [names.index(k) for k in node.originals], list(node.ids))
        return keeping_parallelism(rows, expand, row_type(node.out), flat=True)

    def _GroupWindowAggregate(self, node: nodes.GroupWindowAggregate, stateless_above: bool, before: bool):
        from kindling.table.window_aggregate import slice_of

        window, names = node.window, node.input.out.names
        slice_ms = slice_of(window.size_ms, window.slide_ms) if window.kind == "slide" else None
        rows = self._input(node, node.input, stateless_above, before)
        windowed = keyed_by(rows, node.input.out, [names.index(k) for k in node.keys]).window(window.assigner())
        return self._window_aggregated(node, windowed, window.time_field, slice_ms, False, window.kind == "session",
                                       stateless_above)

    def _WindowAggregate(self, node: nodes.WindowAggregate, stateless_above: bool, before: bool):
        from kindling.runtime.table.rows import one_group
        from kindling.table.window_tvf import assigner, slice_ms

        windows, names = node.windows, node.input.out.names
        rows = self._input(node, node.input, stateless_above, before)
        keyed = keyed_by(rows, node.input.out, [names.index(k) for k in node.keys]) if node.keys else rows.key_by(one_group)
        return self._window_aggregated(node, keyed.window(assigner(windows)), windows.time_field, slice_ms(windows),
                                       True, windows.window == "SESSION", stateless_above)

    def _window_aggregated(self, node: nodes.Node, windowed, time_field: str, slice_ms: Optional[int],
                           window_columns: bool, merging: bool, stateless_above: bool):
        """``windowed`` (a WindowedStream) aggregated: each row added to its windows' accumulators as it
        comes where it can be (not in merging windows), the keyed node carrying the aggregation's spec
        when Spark computes it."""
        from kindling.runtime.table.window_aggregate import WindowAggregateFunction
        from kindling.table.window_aggregate import WINDOW_BOUNDS

        ltz = node.input.out.types[time_field].type_name == "TIMESTAMP_LTZ"
        function = WindowAggregateFunction(aggregate_calls(node.input.out, node.keys, node.fields, node.names),
                                           time_field, slice_ms, ltz, WINDOW_BOUNDS, window_columns)
        incremental = None if merging else function.incremental()
        if incremental is not None:
            aggregated = windowed.aggregate(*incremental, output_type=row_type(node.out))
        else:
            aggregated = windowed.process(function, output_type=row_type(node.out))
        aggregated._transformation.relational = self.physical.spark_aggregation_spec(node, stateless_above)
        return aggregated

    def _WindowTVF(self, node: nodes.WindowTVF, stateless_above: bool, before: bool):
        from kindling.runtime.table.rows import one_group
        from kindling.runtime.table.window_aggregate import AssignWindows, SessionRows
        from kindling.table.window_tvf import assigner

        names, out_names = node.input.out.names, node.out.names
        ltz = node.out.schema.get_field_data_types()[-1].type_name == "TIMESTAMP_LTZ"
        rows = self._input(node, node.input, stateless_above, before)
        if node.window == "SESSION":
            keys = [names.index(k) for k in node.partition_keys]
            keyed = keyed_by(rows, node.input.out, keys) if keys else rows.key_by(one_group)
            return keyed.window(assigner(node)).process(SessionRows(out_names, ltz), output_type=row_type(node.out))
        assign = AssignWindows(out_names, names.index(node.time_field), assigner(node, True), ltz)
        return keeping_parallelism(rows, assign, row_type(node.out), flat=True)

    def _Over(self, node: nodes.Over, stateless_above: bool, before: bool):
        from kindling.runtime.table.over_aggregate import OverAggregateFunction
        from kindling.runtime.table.rows import one_group

        frame, names = node.frame, node.input.out.names
        offsets, others = over_offsets(node)
        if not self.in_batch:  # a stream's LAG is an aggregate, as Flink's (over_aggregate refuses LEAD)
            offsets, others = {}, node.aggregates
        proctime = frame.order_field is not None and frame.order_field == node.input.out.proctime
        if offsets and proctime:
            raise ValueError("LAG and LEAD over processing time in BATCH mode are not supported by Kindling yet")
        calls = aggregate_calls(node.input.out, (), others, [str(a) for a in others])
        function = OverAggregateFunction(calls, frame, node.out.names, proctime,
                                         frame.order_field is not None and node.input.out.types[
                                             frame.order_field].type_name in ("TIMESTAMP", "TIMESTAMP_LTZ"), offsets)
        rows = self._input(node, node.input, stateless_above, before)
        keys = [names.index(k) for k in frame.partition_keys]
        keyed = keyed_by(rows, node.input.out, keys) if keys else rows.key_by(one_group)
        return keyed.process(function, output_type=row_type(node.out))

    def _MatchRecognize(self, node: nodes.MatchRecognize, stateless_above: bool, before: bool):
        from kindling.runtime.table.match_recognize import MatchRecognizeFunction
        from kindling.table.match_recognize import ROWTIME
        from kindling.runtime.table.rows import one_group

        names = node.input.out.names
        aggregates = {variable: (aggregate_calls(node.input.out, (), [a for _, a in calls], [n for n, _ in calls]),
                                 [n for n, _ in calls]) for variable, calls in node.aggregates.items()}
        function = MatchRecognizeFunction(
            list(node.elements), list(node.conditions), list(node.condition_refs), list(node.measures),
            list(node.measure_refs), aggregates, ROWTIME, [names.index(k) for k in node.partition_keys],
            names.index(node.time_field), node.skip, node.within, node.out.names)
        rows = self._input(node, node.input, stateless_above, before)
        keys = [names.index(k) for k in node.partition_keys]
        keyed = keyed_by(rows, node.input.out, keys) if keys else rows.key_by(one_group)
        return keyed.process(function, output_type=row_type(node.out))

    def _Rank(self, node: nodes.Rank, stateless_above: bool, before: bool):
        from kindling.runtime.table import rank
        from kindling.runtime.table.rows import one_group

        base, names, out_names = node.input.out, node.input.out.names, node.out.names
        strategy = rank_strategy(base, node.function, node.partition, node.order, node.start, node.end, self.in_batch)
        if strategy.startswith("invalid: "):
            raise ValueError(strategy[len("invalid: "):])
        sort_key = rank.SortKey([(names.index(n), descending) for n, descending in node.order])
        shape = (out_names, sort_key, node.start, node.end, node.with_number)
        if strategy == "batch":
            function = rank.BatchRankFunction(*shape, node.function)
        elif strategy == "window":
            function = rank.WindowRankFunction(*shape, names.index("window_end"))
        elif strategy.startswith("deduplicate"):
            time = node.order[0][0]
            function = rank.DeduplicateFunction(out_names, names.index(time) if time == base.rowtime else None,
                                                strategy == "deduplicate_last", node.with_number)
        elif strategy == "top1":
            function = rank.Top1Function(out_names, sort_key, node.with_number, before=before)
        else:
            function = (rank.RetractTopNFunction if strategy == "retract_top_n" else rank.TopNFunction)(*shape)
        rows = self._input(node, node.input, stateless_above, before)
        keys = [names.index(k) for k in node.partition]
        keyed = keyed_by(rows, node.input.out, keys) if keys else rows.key_by(one_group)
        ranked = keyed.process(function, output_type=row_type(node.out))
        if strategy.startswith("deduplicate"):  # Spark's aggregation machinery may compute it instead
            ranked._transformation.relational = self.physical.deduplication_spec(node, stateless_above)
        return ranked

    def _Sort(self, node: nodes.Sort, stateless_above: bool, before: bool):
        from kindling.runtime.table import rank
        from kindling.runtime.table.rows import one_group

        names = node.input.out.names
        rows = self._input(node, node.input, stateless_above, before)
        if self.in_batch:
            function = rank.SortAll(names, list(node.keys), node.offset, node.fetch)
        else:
            keys = [(k._name, getattr(k, "_descending", False)) for k in node.keys]
            strategy = sort_strategy(node, False)
            if strategy.startswith("invalid: "):
                raise ValueError(strategy[len("invalid: "):])
            sort_key = rank.SortKey([(names.index(n), descending) for n, descending in keys])
            if strategy == "top_n":
                function = rank.TopNFunction(names, sort_key, node.offset + 1, node.offset + node.fetch, False)
            elif strategy == "first_n":
                function = rank.FirstNFunction(node.offset, node.fetch)
            else:
                function = rank.TemporalSortFunction(names.index(keys[0][0]), rank.SortKey(
                    [(names.index(n), descending) for n, descending in keys[1:]]))
        return rows.key_by(one_group).process(function, output_type=row_type(node.out)).set_parallelism(1)

    def _Correlate(self, node: nodes.Correlate, stateless_above: bool, before: bool):
        from kindling.runtime.table.rows import Lateral

        arguments = list(node.call._children) if node.call is not None else None
        ltz = [a._data_type(node.input.out.types).type_name == "TIMESTAMP_LTZ" for a in arguments or ()]
        lateral = Lateral(node.function, arguments, node.out.names, node.keep_input, node.outer, node.input.out.names,
                          ltz)
        rows = self._input(node, node.input, stateless_above, before)
        return keeping_parallelism(rows, lateral, row_type(node.out), flat=True)

    def _ChangelogNormalize(self, node: nodes.ChangelogNormalize, stateless_above: bool, before: bool):
        from kindling.runtime.table.changelog_normalize import ChangelogNormalize
        from kindling.runtime.table.rows import Condition
        from kindling.table.planner.expressions import resolve

        positions = [node.out.names.index(k) for k in node.keys]
        condition = None if node.condition is None else Condition(
            resolve(node.condition, node.out.names, node.out.schema.get_field_data_types()))
        rows = self._input(node, node.input, stateless_above, before)
        return keyed_by(rows, node.out, positions).process(ChangelogNormalize(node.deleted_column, condition),
                                                          output_type=row_type(node.out))

    def _WatermarkAssigner(self, node: nodes.WatermarkAssigner, stateless_above: bool, before: bool):
        from kindling.common.time import Duration
        from kindling.common.watermark_strategy import WatermarkStrategy
        from kindling.runtime.table.rows import RowtimeOf

        rows = self._input(node, node.input, stateless_above, before)
        # Flink SQL's watermark is max(ts) - delay; a DataStream strategy's is one ms less
        strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(max(node.delay - 1, 0)))
        strategy.eager = node.eager
        position = node.out.names.index(node.column)
        return rows.assign_timestamps_and_watermarks(strategy.with_timestamp_assigner(RowtimeOf(position)))

    def _AppendTimestamp(self, node: nodes.AppendTimestamp, stateless_above: bool, before: bool):
        from kindling.runtime.table.rows import AddTimestamp

        rows = self._input(node, node.input, stateless_above, before)
        return rows.process(AddTimestamp(node.out.names), output_type=row_type(node.out))

    def _MetadataColumns(self, node: nodes.MetadataColumns, stateless_above: bool, before: bool):
        from kindling.runtime.table.rows import DeclaredRow

        source = node.input
        # a Row DataStream's elements are read as they are: a function reads their fields by position
        rows = source.stream if isinstance(source, nodes.FromDataStream) and source.rows else \
            self._input(node, source, stateless_above, before)
        makers = [s if isinstance(s, int) else _of_epoch_millis(s) for s in node.sources]
        return rows.process(DeclaredRow(node.out.names, makers), output_type=row_type(node.out))

    def _Invalid(self, node: nodes.Invalid, stateless_above: bool, before: bool):
        raise ValueError(node.message)

    def _LookupJoin(self, node: nodes.LookupJoin, stateless_above: bool, before: bool):
        from kindling.common.time import Time
        from kindling.datastream.async_data_stream import AsyncDataStream
        from kindling.table.connectors import parallelism_of
        from kindling.table.lookup_join import LOOKUP_BATCH, lookup_function

        rows = self._input(node, node.input, stateless_above, before)
        looked_up = AsyncDataStream.ordered_wait(rows, lookup_function(node), Time.milliseconds(0), LOOKUP_BATCH,
                                                 row_type(node.out))
        parallelism = parallelism_of(rows)
        return looked_up.set_parallelism(parallelism) if parallelism else looked_up

    def _Join(self, node: nodes.Join, stateless_above: bool, before: bool):
        from kindling.runtime.table.join import RegularJoinFunction
        from kindling.table.join import equi_keys

        left_names, right_names = node.left.out.names, node.right.out.names
        left_keys, right_keys = equi_keys(node.predicate, left_names, right_names) if node.predicate is not None \
            else ([], [])  # every pair (one key)
        function = RegularJoinFunction(left_names, right_names, node.predicate, node.left_outer, node.right_outer,
                                       node.existence)
        joined = self._keyed_pair(node, stateless_above, [left_names.index(k) for k in left_keys],
                                  [right_names.index(k) for k in right_keys], function)
        # on micro-batches Spark may join instead (kindling/spark/table/join.py)
        joined._transformation.relational = self.physical.spark_join_spec(node, stateless_above)
        return joined

    def _IntervalJoin(self, node: nodes.IntervalJoin, stateless_above: bool, before: bool):
        from kindling.runtime.table.interval_join import IntervalJoinFunction

        left_names, right_names = node.left.out.names, node.right.out.names
        function = IntervalJoinFunction(left_names, right_names, left_names.index(node.left_time),
                                        right_names.index(node.right_time), node.lower, node.upper, node.predicate,
                                        node.left_outer, node.right_outer)
        return self._keyed_pair(node, stateless_above, [left_names.index(k) for k in node.left_keys],
                                [right_names.index(k) for k in node.right_keys], function)

    def _WindowJoin(self, node: nodes.WindowJoin, stateless_above: bool, before: bool):
        from kindling.runtime.table.window_join import WindowJoinFunction

        left_names, right_names = node.left.out.names, node.right.out.names
        function = WindowJoinFunction(left_names, right_names, left_names.index(node.left_end),
                                      right_names.index(node.right_end), node.predicate, node.left_outer,
                                      node.right_outer, node.existence)
        return self._keyed_pair(node, stateless_above, [left_names.index(k) for k in node.left_keys],
                                [right_names.index(k) for k in node.right_keys], function)

    def _TemporalJoin(self, node: nodes.TemporalJoin, stateless_above: bool, before: bool):
        from kindling.runtime.table.temporal_join import TemporalJoinFunction

        left_names, right_names = node.left.out.names, node.right.out.names
        width = len(left_names)
        function = TemporalJoinFunction(left_names + right_names, left_names.index(node.left.out.rowtime), width,
                                        width + right_names.index(node.right.out.rowtime), node.condition, node.outer)
        return self._keyed_pair(node, stateless_above, [left_names.index(k) for k in node.left_keys],
                                [right_names.index(k) for k in node.right_keys], function)

    def _SetOperation(self, node: nodes.SetOperation, stateless_above: bool, before: bool):
        from kindling.runtime.table.set_operations import SetOperationFunction

        everything = range(len(node.out.names))
        return self._keyed_pair(node, stateless_above, everything, everything,
                                SetOperationFunction(node.operation, node.out.names))

    def _keyed_pair(self, node: nodes.Node, stateless_above: bool, left_key, right_key, function):
        """The two inputs of ``node`` connected, keyed by the columns at ``left_key`` and ``right_key``."""
        from kindling.runtime.table.group_aggregate import GroupKey

        left, right = self._inputs(node, stateless_above)
        connected = left.connect(right).key_by(GroupKey(left_key), GroupKey(right_key))
        key_type = table_key_type(node.left.out, left_key)
        if key_type is not None and key_type == table_key_type(node.right.out, right_key):
            connected.stream1._transformation.key_type = connected.stream2._transformation.key_type = key_type
        return connected.process(function, output_type=row_type(node.out))

    def _Union(self, node: nodes.Union, stateless_above: bool, before: bool):
        from kindling.runtime.table.rows import Retyped

        wanted = row_type(node.out)
        rows = self._input(node, node.left, stateless_above, before)
        if rows.get_type() != wanted:  # an append-only table beside an updating one
            rows = keeping_parallelism(rows, Retyped(wanted.get_field_names()), wanted)
        return rows.union(self.stream_as(node.right, wanted, False, True))


def aggregate_calls(rows: nodes.Output, keys: Sequence[str], fields: Sequence, names: Sequence[str]):
    """The runtime's AggregateCalls of the aggregates in ``fields`` (result columns ``names``, group keys
    ``keys``) over ``rows``, each typed: a pandas function's Series take its arguments' dtypes, AVG of
    integers divides as integers, FLOAT sums in FLOAT."""
    from kindling.runtime.table.group_aggregate import AggregateCalls
    from kindling.table.planner.types import INTEGRAL

    types, seen = rows.types, {}
    for field in fields:
        for aggregate in field.aggregates():
            seen.setdefault(id(aggregate), aggregate)
    aggregates = list(seen.values())
    argument_types = [[c._data_type(types).type_name for c in a._children] for a in aggregates]
    for aggregate, type_names in zip(aggregates, argument_types):
        aggregate._aggregate.argument_types = type_names
    return AggregateCalls(rows.names, list(keys), list(fields), list(names), aggregates,
                          [any(t in INTEGRAL for t in type_names) for type_names in argument_types],
                          [type_names == ["FLOAT"] for type_names in argument_types])


def _leaf_source(leaf: nodes.Node):
    """The source reading a frame's leaf: a scan's connector source, or one of the elements."""
    from kindling.datastream.connectors.base import Source
    from kindling.graph.specs import CollectionSourceSpec

    if isinstance(leaf, nodes.Scan):
        return leaf.source
    spec = CollectionSourceSpec(values=list(leaf.rows))
    spec.parallel = leaf.parallel
    return Source(spec, leaf.out.schema.row_type_info())


def _of_epoch_millis(data_type):
    """The function making a value of ``data_type`` of a timestamp in epoch milliseconds."""
    import functools

    from kindling.common.time import Instant
    from kindling.runtime.table.casts import cast_value
    from kindling.table.types import DataTypes

    if data_type.type_name == "TIMESTAMP_LTZ":
        return Instant.of_epoch_milli
    return functools.partial(cast_value, source=DataTypes.BIGINT(), target=data_type)


