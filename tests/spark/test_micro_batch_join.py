"""Regular joins computed by Spark's own operators on micro-batches (kindling/spark/table/join.py)
give the rows the Python operator gives (Flink's join, kindling/runtime/table/join.py): on two
partitions, across micro-batches with a key's rows arriving on each side in different batches, when
a batch is replayed; null keys join nothing; what Spark cannot compute as Flink does stays on the
Python operator. Outer joins: each batch's changes are the Python operator's for one arrival order
of the batch's rows."""
from __future__ import annotations

from collections import Counter

import pytest

from kindling.common import Configuration, Types
from kindling.table import StreamTableEnvironment
from kindling.table.expressions import col, to_timestamp_ltz
from kindling.table.udf import udf
from failure_support import fail_first_time  # tests/: on sys.path (tests/conftest.py)
from file_sink_support import committed_lines  # tests/: on sys.path (tests/conftest.py)
from join_writer_support import SEQUENCE_ROWS as N, capturing_writer, jobs_of_batch, python_join, sequence_rows, \
    sequence_streams, stages_of_batch, write_batch  # tests/: on sys.path (tests/conftest.py)


def _tables(env, spark_operators: bool):
    """The tables of :func:`sequence_streams`' rows: left (n, k, v), right (m, key, w)."""
    t_env = StreamTableEnvironment.create(env)
    t_env.get_config().set("kindling.table.spark-operators", str(spark_operators).lower())
    left, right = sequence_streams(env)
    return t_env, t_env.from_data_stream(left), t_env.from_data_stream(right)


def _condition():
    return (col('k') == col('key')) & (col('v') <= col('w'))


def _joined(env, spark_operators: bool, condition=_condition) -> Counter:
    _, left, right = _tables(env, spark_operators)
    with left.join(right, condition()).execute().collect() as rows:
        return Counter((str(r.get_row_kind()), tuple(r)) for r in rows)


def _micro_batches(env, parallelism: int, per_batch: int = 30) -> None:
    env.set_parallelism(parallelism)
    env.configure(Configuration().set_string("kindling.bounded.one-step", "false")
                  .set_string("kindling.source.max-records-per-batch", str(per_batch)))


def _expected(condition=lambda l, r: l[2] <= r[2]) -> Counter:
    """The pairs of the rows :func:`_tables` makes, by definition."""
    left, right = sequence_rows()
    return Counter(("+I", a + b) for a in left for b in right if a[1] is not None and a[1] == b[1] and condition(a, b))


@pytest.mark.parametrize("parallelism", [1, 2])
def test_spark_joins_what_the_python_operator_joins(env, parallelism):
    _micro_batches(env, parallelism)
    by_spark = _joined(env, True)
    assert by_spark == _expected() and len(by_spark) > 50
    if parallelism == 2:
        assert by_spark == _joined(env, False)


def test_explain_says_spark_joins_on_micro_batches_and_why_not(env):
    _micro_batches(env, 1)
    t_env, left, right = _tables(env, True)
    assert "Join(joinType=[InnerJoin]" in left.join(right, _condition()).explain()
    lines = [line for line in left.join(right, _condition()).explain().splitlines() if "Join(" in line]
    # an inner join: test_micro_batch_stream_join.py
    assert "[Spark JVM, micro-batches, Spark's stream-stream join in the streaming query]" in lines[0], lines
    for outer in (left.left_outer_join, left.right_outer_join, left.full_outer_join):
        lines = [line for line in outer(right, _condition()).explain().splitlines() if "Join(" in line]
        assert "[Spark JVM, micro-batches]" in lines[0], lines
    t_env.create_temporary_view("l", left)
    t_env.create_temporary_view("r", right)
    semi = t_env.sql_query("SELECT * FROM l WHERE k IN (SELECT key FROM r)").explain()
    assert "LeftSemiJoin" in semi and "[Spark JVM, micro-batches]" in semi, semi  # test_micro_batch_semi_join.py
    twice = left.join(right, _condition()).group_by(col('k')).select(col('k'), col('n').count)
    assert "a stateful node reads its rows" in twice.explain()


@udf(result_type="BOOLEAN")
def smaller(v, w):
    return v <= w


def test_a_python_function_in_the_condition_keeps_the_python_operator(env):
    _micro_batches(env, 2)
    condition = lambda: (col('k') == col('key')) & smaller(col('v'), col('w'))  # noqa: E731
    _, left, right = _tables(env, True)
    assert left.join(right, condition())._stream()._transformation.relational is None
    assert _joined(env, True, condition) == _expected()


def test_integer_keys_of_different_types_join_as_numbers(env):
    """An INT key joins a BIGINT one of the same value (compared as BIGINT)."""
    _micro_batches(env, 2)
    t_env = StreamTableEnvironment.create(env)
    left = t_env.from_data_stream(env.from_collection(
        [(i, i % 4 if i % 5 else None) for i in range(20)],
        Types.ROW_NAMED(['a', 'x'], [Types.INT(), Types.INT()])))
    right = t_env.from_data_stream(env.from_collection(
        [(j, (j % 3) if j % 7 else None, 2.5 * j) for j in range(10)],
        Types.ROW_NAMED(['b', 'y', 'd'], [Types.LONG(), Types.LONG(), Types.DOUBLE()])))
    joined = left.join(right, col('x') == col('y'))
    assert joined._stream()._transformation.relational is not None
    with joined.execute().collect() as rows:
        got = Counter(tuple(r) for r in rows)
    expected = Counter((i, i % 4, j, j % 3, 2.5 * j) for i in range(20) for j in range(10)
                       if i % 5 and j % 7 and i % 4 == j % 3)
    assert got == expected


def test_a_join_of_float_and_local_time_columns_is_spark_s(env):
    """The join's state keeps the column types a deduplication's keeps (one list), FLOAT and
    TIMESTAMP_LTZ among them."""
    _micro_batches(env, 1)
    t_env = StreamTableEnvironment.create(env)
    left = t_env.from_data_stream(env.from_collection([(1, 0.5)], Types.ROW_NAMED(['a', 'f'], [Types.INT(), Types.FLOAT()])))
    right = t_env.from_data_stream(env.from_collection([(1, 2)], Types.ROW_NAMED(['b', 'n'], [Types.INT(), Types.INT()])))
    right = right.add_columns(to_timestamp_ltz(col('n'), 3).alias('at'))
    joined = left.join(right, col('a') == col('b'))
    assert joined._stream()._transformation.relational is not None, joined.explain()
    with joined.execute().collect() as rows:
        assert [tuple(r)[:4] for r in rows] == [(1, 0.5, 1, 2)]


def _writer(tmp_path, seen: list):
    """A micro-batch writer of ``SELECT * FROM l JOIN r ON l.k = r.k AND l.v < r.w`` whose pairs go to ``seen``."""
    from kindling.common.typeinfo import RowTypeInfo
    from kindling.graph.specs import GroupAggregateSpec, RegularJoinSpec
    from kindling.spark.compiler import Compiler
    from kindling.spark.table.join import JoinSinkSpec, JoinWriter
    from kindling.table.planner.expressions import resolve
    from kindling.table.types import DataTypes

    types = [DataTypes.STRING(), DataTypes.INT(), DataTypes.STRING(), DataTypes.INT()]
    condition = resolve((col('k') == col('k2')) & (col('v') < col('w')), ['k', 'v', 'k2', 'w'], types)
    output_type = RowTypeInfo([Types.STRING(), Types.INT(), Types.STRING(), Types.INT()], ['k', 'v', 'k2', 'w'])
    spec = JoinSinkSpec(join=RegularJoinSpec([0], [0], condition), output_type=output_type, parallelism=2,
                        aggregate=GroupAggregateSpec(keys=["k0"]))
    writer = JoinWriter(spec, Compiler, None)
    writer.bind(str(tmp_path))
    writer._emit = lambda pairs, _: seen.append(sorted(tuple(r)[:4] for r in pairs.collect())) or 0
    return writer


def test_a_replayed_micro_batch_gives_the_same_pairs_and_state(spark, tmp_path):
    seen = []
    writer = _writer(tmp_path, seen)
    side = "k string, v int"
    writer.write_side(0, spark.createDataFrame([("a", 1), ("b", 2), (None, 0)], side), 0)
    assert writer.write_side(1, spark.createDataFrame([("a", 5), ("a", 0), (None, 9)], side), 0) == 0
    first, second = spark.createDataFrame([("a", 3), ("c", 1)], side), spark.createDataFrame([("b", 7), ("c", 2)], side)
    for _ in range(2):  # replayed after a failure before Spark committed batch 1
        writer.write_side(1, second, 1)
        writer.write_side(0, first, 1)  # either side first
    assert seen[0] == [("a", 1, "a", 5)]
    assert seen[1] == seen[2] == [("a", 3, "a", 5), ("b", 2, "b", 7), ("c", 1, "c", 2)]
    assert writer.state_rows_written == 3  # the keys a, b, c of the batch
    writer.write_side(0, spark.createDataFrame([("c", 0)], side), 2)
    writer.write_side(1, spark.createDataFrame([], side), 2)
    assert seen[3] == [("c", 0, "c", 2)]  # batch 1's state, once


def test_the_state_s_columns_are_planned_for_the_first_batch_only(spark, tmp_path, monkeypatch):
    """Each batch's frames are planned on the driver; the state's columns, the same every batch, once."""
    from kindling.spark.table import join

    planned = []
    state_schema = join._state_schema
    monkeypatch.setattr(join, "_state_schema", lambda *args: planned.append(1) or state_schema(*args))
    seen = []
    writer = _writer(tmp_path, seen)
    side = "k string, v int"
    for batch_id, (left, right) in enumerate([([("a", 1)], [("a", 5)]), ([("b", 2)], [("a", 7), ("b", 3)]),
                                              ([("a", 0)], [])]):
        writer.write_side(0, spark.createDataFrame(left, side), batch_id)
        writer.write_side(1, spark.createDataFrame(right, side), batch_id)
    assert seen == [[("a", 1, "a", 5)], [("a", 1, "a", 7), ("b", 2, "b", 3)], [("a", 0, "a", 5), ("a", 0, "a", 7)]]
    assert len(planned) == 1


def test_a_micro_batch_runs_one_spark_job_before_its_pairs_are_written(spark, tmp_path):
    """An inner join's batch state is read, joined and written, and its pairs computed, in one Spark
    job; the emit (here one ``collect``) then reads the pairs kept: no join or broadcast runs again."""
    seen = []
    writer = _writer(tmp_path, seen)
    batches = [([("a", 1), ("b", 2), (None, 0)], [("a", 5), ("c", 0)]), ([("a", 3), ("c", 1)], [("b", 7), ("c", 2)])]
    for batch_id, sides in enumerate(batches):
        jobs = jobs_of_batch(spark, writer, sides, batch_id)
        assert jobs == 2, (batch_id, jobs)  # the writer's one, the emit's collect
    assert len(seen) == 2 and seen[1]


def test_a_micro_batch_looks_up_its_keys_stored_rows_without_a_shuffle_of_its_own(spark, tmp_path):
    """The stored rows of a batch's keys are looked up in the partitions where the batch's rows are
    grouped by key, beside them: no shuffle of the keys to look up and none to join what was found
    with the batch's rows. The job's stages: the grouping's map side, the grouping with the lookup
    and the pairs, the state's write (a partition per SQLite shard). Before, five."""
    seen = []
    writer = _writer(tmp_path, seen)
    batches = [([("a", 1), ("b", 2), (None, 0)], [("a", 5), ("c", 0)]), ([("a", 3), ("c", 1)], [("b", 7), ("c", 2)])]
    for batch_id, sides in enumerate(batches):
        stages = stages_of_batch(spark, writer, sides, batch_id)
        assert stages[0] == 3, (batch_id, stages)
    assert seen == [[("a", 1, "a", 5)], [("a", 3, "a", 5), ("b", 2, "b", 7), ("c", 1, "c", 2)]]  # l.v < r.w


class _FailOnce:
    """A map of the joined rows that raises the first time it sees ``poison`` (counted in a file: Spark's
    Python workers are separate processes), after the join has stored the batch's state."""

    def __init__(self, counter: str, poison: int):
        self.counter, self.poison = counter, poison

    def __call__(self, row) -> str:
        if row[0] == self.poison:
            fail_first_time(self.counter, row)
        return "|".join(map(str, row))


def test_a_batch_replayed_after_a_failure_past_the_state_write_neither_loses_nor_doubles_a_pair(env, tmp_path):
    from kindling.common import RestartStrategies
    from kindling.common.serialization import Encoder
    from kindling.datastream.connectors.file_system import FileSink

    _micro_batches(env, 2)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(1, 0))
    t_env, left, right = _tables(env, True)
    counter = str(tmp_path / "failures")
    poison = next(row[0] for _, row in sorted(_expected(), key=str) if row[0] > N // 2)
    t_env.to_data_stream(left.join(right, _condition())).map(_FailOnce(counter, poison), Types.STRING()) \
        .sink_to(FileSink.for_row_format(str(tmp_path / "out"), Encoder.simple_string_encoder()).build())
    env.execute("replayed join")
    assert open(counter).read() == "x"  # failed once
    lines = committed_lines(tmp_path / "out")
    assert Counter(lines) == Counter("|".join(map(str, row)) for _, row in _expected().elements())


def test_stored_rows_come_back_as_they_were(spark, tmp_path):
    """The values of every type the planner lets the join store are read back from its state as they
    were written (a JSON text): doubles and floats (NaN, -0.0, infinities, 0.1), decimals, dates,
    timestamps with and without a time zone to the microsecond, booleans, nulls."""
    import datetime
    import decimal
    import math
    import struct

    from kindling.common.typeinfo import RowTypeInfo
    from kindling.graph.specs import GroupAggregateSpec, RegularJoinSpec
    from kindling.spark.compiler import Compiler
    from kindling.spark.table.join import JoinSinkSpec, JoinWriter
    from kindling.table.planner.expressions import resolve
    from kindling.table.types import DataTypes

    from kindling.table.planner.physical import _SPARK_KEPT

    names = ['k', 'd', 'm', 'day', 'at', 'b', 'f', 'lz', 'k2']
    types = [DataTypes.BIGINT(), DataTypes.DOUBLE(), DataTypes.DECIMAL(20, 4), DataTypes.DATE(),
             DataTypes.TIMESTAMP(6), DataTypes.BOOLEAN(), DataTypes.FLOAT(), DataTypes.TIMESTAMP_LTZ(6),
             DataTypes.BIGINT()]
    assert {t.type_name for t in types} <= set(_SPARK_KEPT)  # the types the planner lets the state keep
    condition = resolve(col('k') == col('k2'), names, types)
    output_type = RowTypeInfo([t.type_info() for t in types], names)
    spec = JoinSinkSpec(join=RegularJoinSpec([0], [0], condition), output_type=output_type, parallelism=1,
                        aggregate=GroupAggregateSpec(keys=["k0"]))
    writer = JoinWriter(spec, Compiler, None)
    writer.bind(str(tmp_path))
    seen = []
    writer._emit = lambda pairs, _: seen.append(sorted((tuple(r)[:9] for r in pairs.collect()), key=str)) or 0
    at = datetime.datetime(2026, 3, 1, 12, 30, 45, 123456)
    near = datetime.datetime(1969, 12, 31, 23, 59, 59, 999999)
    f32 = lambda x: struct.unpack("f", struct.pack("f", x))[0]  # noqa: E731  a FLOAT's value
    rows = [(1, math.nan, decimal.Decimal("12345678.1234"), datetime.date(1969, 12, 31), at, True, math.nan, at),
            (2, -0.0, None, None, None, False, -0.0, None),
            (3, math.inf, decimal.Decimal("-0.0001"), None, at, None, math.inf, near),
            (4, 0.1, decimal.Decimal("0"), datetime.date(2026, 1, 1), None, None, f32(0.1), None),
            (5, -math.inf, None, None, None, None, f32(-3.4e38), datetime.datetime(2026, 7, 1, 0, 0, 0, 1))]
    left = spark.createDataFrame(rows, "k bigint, d double, m decimal(20,4), day date, at timestamp_ntz, b boolean, "
                                       "f float, lz timestamp")
    writer.write_side(0, left, 0)
    writer.write_side(1, spark.createDataFrame([], "k2 bigint"), 0)
    writer.write_side(0, spark.createDataFrame([], left.schema), 1)
    writer.write_side(1, spark.createDataFrame([(k,) for k in range(1, 6)], "k2 bigint"), 1)
    assert seen[0] == []
    got = {row[0]: row for row in seen[1]}
    for row in rows:
        back = got[row[0]]
        assert back[8] == row[0]
        for mine, stored in zip(row[1:], back[1:8]):
            if isinstance(mine, float) and math.isnan(mine):
                assert math.isnan(stored)
            else:
                assert stored == mine and type(stored) is type(mine), (mine, stored)
                if isinstance(mine, float):  # -0.0 stays -0.0
                    assert math.copysign(1, stored) == math.copysign(1, mine)


# -- outer joins -------------------------------------------------------------------------------------

def _outer_writer(tmp_path, seen: list, left_outer: bool, right_outer: bool):
    """A micro-batch writer of ``l [LEFT|RIGHT|FULL] JOIN r ON l.k = r.k2 AND l.v < r.w`` whose changes
    go to ``seen`` (a batch's list of ``(kind, row)`` in the order each key's changes are emitted)."""
    from kindling.common.typeinfo import ChangelogRowTypeInfo
    from kindling.graph.specs import RegularJoinSpec
    from kindling.spark.table.join import JoinWriter
    from kindling.table.planner.expressions import resolve
    from kindling.table.types import DataTypes

    types = [DataTypes.STRING(), DataTypes.INT(), DataTypes.STRING(), DataTypes.INT()]
    condition = resolve((col('k') == col('k2')) & (col('v') < col('w')), ['k', 'v', 'k2', 'w'], types)
    output_type = ChangelogRowTypeInfo([Types.STRING(), Types.INT(), Types.STRING(), Types.INT()],
                                       ['k', 'v', 'k2', 'w'])
    writer = capturing_writer(JoinWriter, RegularJoinSpec([0], [0], condition, False, left_outer, right_outer),
                              output_type, tmp_path, seen, 4)
    return writer, (col('k') == col('k2')) & (col('v') < col('w'))


def _valid(changes: list, rows: Counter) -> Counter:
    """``rows`` after ``changes``, each retraction one of a row there."""
    for kind, row in changes:
        if kind == "-D":
            assert rows[row] > 0, f"{row} retracted, not there"
            rows[row] -= 1
        else:
            rows[row] += 1
    return rows


@pytest.mark.parametrize("left_outer, right_outer", [(True, False), (False, True), (True, True)])
def test_an_outer_join_s_changes_per_batch_are_flink_s_for_one_arrival(spark, tmp_path, left_outer, right_outer):
    """Each micro-batch's changes are those the Python operator (Flink's join) makes when the batch's
    rows of the side that is not outer come first (FULL: the left's); padded rows retracted at their
    first partner, in a later batch on either side; equal rows each padded and retracted; null keys
    padded, never joined; pairs failing the rest of the condition are not partners; a replayed batch
    gives the same changes and leaves the same state."""
    import random

    seen = []
    writer, condition = _outer_writer(tmp_path, seen, left_outer, right_outer)
    feed = python_join(condition, left_outer, right_outer)
    first = 1 if left_outer and not right_outer else 0
    rng = random.Random(7)
    side = "k string, v int"
    expected, rows = [], Counter()
    for batch in range(4):
        sides = [[(rng.choice(["a", "b", "c", None]), rng.randrange(4)) for _ in range(rng.randrange(2, 7))]
                 for _ in range(2)]
        if batch == 1:  # equal rows of each side, padded where outer, partnered in a later batch
            sides[0] += [("d", 1), ("d", 1)]
            sides[1] += [("e", 0), ("e", 0)]
        if batch == 3:
            sides[0] += [("e", -1)]
            sides[1] += [("d", 5)]
        expected.append(feed(first, sides[first]) + feed(1 - first, sides[1 - first]))
        frames = [spark.createDataFrame(s, side) for s in sides]
        assert Counter(write_batch(writer, frames, batch, seen, replayed=batch == 2, order=(1, 0))) == \
            Counter(expected[-1]), batch
        rows = _valid(seen[-1], rows)
    assert Counter(seen[3])[("-D", ("d", 1, None, None))] == (2 if left_outer else 0)
    assert Counter(seen[3])[("-D", (None, None, "e", 0))] == (2 if right_outer else 0)
    assert +rows == _valid([c for changes in expected for c in changes], Counter())


def test_an_outer_join_s_micro_batch_runs_one_spark_job_before_its_changes_are_written(spark, tmp_path):
    """An outer join's batch state is read, its rows paired per key and the state written, and its
    changes computed, in one Spark job, no join of arriving rows and partners; the emit (here one
    ``collect``) then reads the changes kept. Before, each batch ran the state write, the emit and a
    job per broadcast of a partner frame."""
    seen = []
    writer, condition = _outer_writer(tmp_path, seen, True, True)
    feed = python_join(condition, True, True)
    batches = [([("a", 1), ("b", 2), (None, 0)], [("a", 5), ("c", 0)]),
               ([("a", 3), ("c", -1), ("a", 9)], [("b", 7), ("c", 2), (None, 4)])]
    for batch_id, sides in enumerate(batches):
        jobs = jobs_of_batch(spark, writer, sides, batch_id)
        assert jobs == 2, (batch_id, jobs)  # the writer's one, the emit's collect
        assert Counter(seen[-1]) == Counter(feed(0, sides[0]) + feed(1, sides[1])), batch_id
    assert ("-D", (None, None, "c", 0)) in seen[1] and ("-D", ("b", 2, None, None)) in seen[1]


def _changes(env, spark_operators: bool, method: str) -> list:
    _, left, right = _tables(env, spark_operators)
    joined = getattr(left, method)(right, _condition())
    assert (joined._stream()._transformation.relational is not None) == spark_operators
    with joined.execute().collect() as rows:
        return [(str(r.get_row_kind()), tuple(r)) for r in rows]


def _outer_expected(left_outer: bool, right_outer: bool) -> Counter:
    """The rows of the outer join of :func:`_tables`' rows, by definition."""
    left, right = sequence_rows()
    pairs = [a + b for a in left for b in right if a[1] is not None and a[1] == b[1] and a[2] <= b[2]]
    rows = Counter(pairs)
    if left_outer:
        rows.update(a + (None,) * 3 for a in left if not any(p[:3] == a for p in pairs))
    if right_outer:
        rows.update((None,) * 3 + b for b in right if not any(p[3:] == b for p in pairs))
    return rows


@pytest.mark.parametrize("method, left_outer, right_outer", [  # RIGHT: as LEFT, the sides swapped (the writer's tests)
    ("left_outer_join", True, False), ("full_outer_join", True, True)])
def test_spark_outer_joins_give_the_python_operator_s_rows(env, method, left_outer, right_outer):
    """On two partitions, across micro-batches where a key's partners arrive in later batches on both
    sides: Spark's changes, applied in order, retract only rows they emitted and leave the rows of the
    outer join, as the Python operator's; the same pairs; padded rows (null keys among them, never
    joined) retracted only where a partner came in a later batch or after them in the same one."""
    _micro_batches(env, 2)
    by_spark, by_python = _changes(env, True, method), _changes(env, False, method)
    expected = _outer_expected(left_outer, right_outer)
    assert +_valid(by_spark, Counter()) == expected == +_valid(by_python, Counter())
    pairs = lambda changes: Counter(row for kind, row in changes if None not in (row[0], row[3]))  # noqa: E731
    assert pairs(by_spark) == pairs(by_python)
    assert all(kind == "+I" for kind, row in by_spark if None not in (row[0], row[3]))
    assert any(kind == "-D" for kind, _ in by_spark)
