"""Semi and anti joins computed by Spark's own operators on micro-batches (kindling/spark/table/semi_join.py)
give the Python operator's changes (Flink's join, kindling/runtime/table/join.py) for one arrival order
of each batch's rows (its right rows first): partners arriving in later batches on either side, null
keys (never matched), a condition beyond the keys, a replayed batch; a NOT IN of nullable values stays
on the Python operator."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from kindling.common import Configuration, Types
from kindling.common.watermark_strategy import WatermarkStrategy
from kindling.datastream.connectors.number_seq import NumberSequenceSource
from kindling.table import StreamTableEnvironment
from kindling.table.expressions import col
from failure_support import fail_first_time  # tests/: on sys.path (tests/conftest.py)
from file_sink_support import committed_lines  # tests/: on sys.path (tests/conftest.py)
from join_writer_support import capturing_writer, jobs_of_batch, python_join, stages_of_batch, write_batch  # tests/: on sys.path (tests/conftest.py)

N = 36


def _writer(tmp_path, seen: list, existence: str, keys_only: bool):
    """A micro-batch writer of ``l [SEMI|ANTI] JOIN r ON l.k = r.k2 [AND l.v < r.w]`` whose changes go to
    ``seen`` (a batch's list of ``(kind, row)``, each key's in the order they are emitted)."""
    from kindling.common.typeinfo import ChangelogRowTypeInfo, RowTypeInfo
    from kindling.graph.specs import RegularJoinSpec
    from kindling.spark.table.semi_join import SemiJoinWriter
    from kindling.table.planner.expressions import resolve
    from kindling.table.types import DataTypes

    types = [DataTypes.STRING(), DataTypes.INT(), DataTypes.STRING(), DataTypes.INT()]
    condition = col('k') == col('k2') if keys_only else (col('k') == col('k2')) & (col('v') < col('w'))
    resolved = resolve(condition, ['k', 'v', 'k2', 'w'], types)
    output_type = (ChangelogRowTypeInfo if existence == "ANTI" else RowTypeInfo)([Types.STRING(), Types.INT()],
                                                                                  ['k', 'v'])
    writer = capturing_writer(SemiJoinWriter, RegularJoinSpec([0], [0], resolved, False, False, False, existence,
                                                              keys_only), output_type, tmp_path, seen, 2)
    return writer, condition


@pytest.mark.parametrize("existence, keys_only", [("SEMI", False), ("ANTI", False), ("ANTI", True)])
def test_each_batch_s_changes_are_flink_s_for_its_right_rows_first(spark, tmp_path, existence, keys_only):
    """Per micro-batch the Python operator's changes when the batch's right rows come first, each
    key's in its order: left rows partnered by right rows of later batches (and right rows stored for
    left rows of later batches), equal left rows each emitted, null keys never matched (an anti join
    emits them once), pairs failing the rest of the condition not partners; a replayed batch gives
    the same changes and leaves the same state. (Flink's order of one row's partners follows its state,
    not their arrival: the same changes, each key's retractions after their rows.)"""
    seen = []
    writer, condition = _writer(tmp_path, seen, existence, keys_only)
    feed = python_join(condition, existence=existence)
    rng = random.Random(11)
    side = "k string, v int"
    for batch in range(3):
        sides = [[(rng.choice(["a", "b", "c", "d", None]), rng.randrange(4)) for _ in range(rng.randrange(3, 8))]
                 for _ in range(2)]
        if batch == 1:  # equal left rows waiting for a partner of a later batch; a right row for later left rows
            sides[0] += [("e", 1), ("e", 1)]
            sides[1] += [("f", 3)]
        if batch == 2:
            sides[0] += [("f", 0)]
            sides[1] += [("e", 5)]
        expected = feed(1, sides[1]) + feed(0, sides[0])
        frames = [spark.createDataFrame(s, side) for s in sides]
        assert Counter(write_batch(writer, frames, batch, seen, replayed=batch == 1)) == Counter(expected), batch
    assert _valid([c for changes in seen for c in changes])  # each key's in an order Flink's could be
    shown = ("-D" if existence == "ANTI" else "+I", ("e", 1))
    assert Counter(seen[2])[shown] == 2 and Counter(seen[2])[("+I", ("f", 0))] == (existence == "SEMI")
    assert existence == "SEMI" or any(row[0] is None for _, row in seen[0] + seen[1])


@pytest.mark.parametrize("existence, keys_only", [("ANTI", False), ("SEMI", True)])
def test_a_micro_batch_runs_one_spark_job_before_its_changes_are_written(spark, tmp_path, existence, keys_only):
    """A semi or anti join's batch state is read and written, and its changes computed, in one Spark job;
    the emit (here one ``collect``) then reads the changes kept: no join or broadcast runs again."""
    seen = []
    writer, _ = _writer(tmp_path, seen, existence, keys_only)
    batches = [([("a", 1), ("b", 2), (None, 0)], [("a", 5), ("c", 0)]), ([("c", 1), ("b", 0)], [("b", 7), ("d", 2)])]
    for batch_id, sides in enumerate(batches):
        jobs = jobs_of_batch(spark, writer, sides, batch_id)
        assert jobs == 2, (batch_id, jobs)  # the writer's one, the emit's collect
    assert writer.state_rows_written == 3  # the keys b, c, d of batch 1
    kind = "+I" if existence == "SEMI" else "-D"
    assert (kind, ("b", 2)) in seen[1] and ("+I", ("c", 1)) in seen[1]


@pytest.mark.parametrize("existence, keys_only", [("ANTI", False), ("SEMI", True), ("SEMI", False)])
def test_a_micro_batch_looks_up_its_keys_state_without_a_shuffle_of_its_own(spark, tmp_path, existence, keys_only):
    """The state of a batch's keys is looked up in the partitions where the batch's rows are grouped by
    key, beside them, and the changes and new state taken from each key's row: no shuffle of the keys to
    look up, no join of the rows with their partners. The job's stages: the grouping's map side, the
    grouping with the lookup and the changes, the state's write (a partition per SQLite shard). Before, eight."""
    seen = []
    writer, _ = _writer(tmp_path, seen, existence, keys_only)
    batches = [([("a", 1), ("b", 2), (None, 0)], [("a", 5), ("c", 0)]), ([("c", 1), ("b", 0)], [("b", 7), ("d", 2)])]
    for batch_id, sides in enumerate(batches):
        stages = stages_of_batch(spark, writer, sides, batch_id)
        assert stages[0] == 3, (batch_id, stages)
    kind = "+I" if existence == "SEMI" else "-D"
    assert (kind, ("b", 2)) in seen[1]  # met by a right row of the next batch


def _tables(env, spark_operators: bool):
    """Left rows (n, k, v) and right rows (m, key, w) from sequences, keys k0..k6 (null for every 7th
    n and 9th m), the right's counting down and its w growing so that a key's partners come in other
    batches on each side."""
    t_env = StreamTableEnvironment.create(env)
    t_env.get_config().set("kindling.table.spark-operators", str(spark_operators).lower())
    left = env.from_source(NumberSequenceSource(1, N), WatermarkStrategy.no_watermarks(), "left").map(
        lambda n: (n, None if n % 7 == 0 else f"k{n % 5}", n % 4),
        output_type=Types.ROW_NAMED(['n', 'k', 'v'], [Types.LONG(), Types.STRING(), Types.INT()]))
    right = env.from_source(NumberSequenceSource(1, N // 2), WatermarkStrategy.no_watermarks(), "right").map(
        lambda m: (m, None if m % 9 == 0 else f"k{(N - m) % 6}", m // 4),
        output_type=Types.ROW_NAMED(['m', 'key', 'w'], [Types.LONG(), Types.STRING(), Types.INT()]))
    t_env.create_temporary_view("l", t_env.from_data_stream(left))
    t_env.create_temporary_view("r", t_env.from_data_stream(right))
    return t_env


def _micro_batches(env) -> None:
    env.set_parallelism(2)
    env.configure(Configuration().set_string("kindling.bounded.one-step", "false")
                  .set_string("kindling.source.max-records-per-batch", "12"))  # 3 batches of each side


_QUERIES = {"SEMI": "SELECT n, k FROM l WHERE EXISTS (SELECT * FROM r WHERE key = k AND v < w)",
            "ANTI": "SELECT n, k FROM l WHERE NOT EXISTS (SELECT * FROM r WHERE key = k AND v < w)"}


def _valid(changes: list) -> Counter:
    """The rows after ``changes``, each retraction one of a row there."""
    rows = Counter()
    for kind, row in changes:
        if kind == "-D":
            assert rows[row] > 0, f"{row} retracted, not there"
            rows[row] -= 1
        else:
            rows[row] += 1
    return +rows


def _spark_joins(table) -> bool:
    """Whether Spark computes the join of ``table``'s plan on micro-batches."""
    from kindling.graph.transformation import TwoInputTransformation, upstream_graph

    joins = [n for n in upstream_graph([table._stream()._transformation]) if isinstance(n, TwoInputTransformation)]
    return joins[0].relational is not None


def _changes(env, spark_operators: bool, existence: str) -> list:
    table = _tables(env, spark_operators).sql_query(_QUERIES[existence])
    assert _spark_joins(table) == spark_operators
    with table.execute().collect() as rows:
        return [(str(r.get_row_kind()), tuple(r)) for r in rows]


class _FailOnce:
    """A map of the join's changes that raises the first time it sees a ``-D`` (counted in a file: Spark's
    Python workers are separate processes), after the join has stored the batch's state."""

    def __init__(self, counter: str):
        self.counter = counter

    def __call__(self, row) -> str:
        if str(row.get_row_kind()) == "-D":
            fail_first_time(self.counter, row)
        return f"{row.get_row_kind()}|{row[0]}|{row[1]}"


def _replayed_changes(env, tmp_path, existence: str) -> list:
    """The join's changes through a map that fails once, its batch replayed (a restart strategy)."""
    from kindling.common import RestartStrategies
    from kindling.common.serialization import Encoder
    from kindling.datastream.connectors.file_system import FileSink

    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(1, 0))
    t_env = _tables(env, True)
    table = t_env.sql_query(_QUERIES[existence])
    assert _spark_joins(table)
    counter = str(tmp_path / "failures")
    t_env.to_changelog_stream(table).map(_FailOnce(counter), Types.STRING()) \
        .sink_to(FileSink.for_row_format(str(tmp_path / "out"), Encoder.simple_string_encoder()).build())
    env.execute("replayed anti join")
    assert open(counter).read() == "x"  # failed once
    changes = []
    for line in committed_lines(tmp_path / "out"):
        kind, n, k = line.split("|")
        changes.append((kind, (int(n), None if k == "None" else k)))
    return changes


@pytest.mark.slow  # two jobs
@pytest.mark.parametrize("existence", ["SEMI", "ANTI"])
def test_spark_semi_and_anti_joins_give_the_python_operator_s_rows(env, tmp_path, existence):
    """On two partitions, across micro-batches where a key's partners arrive in later batches on both
    sides: Spark's changes leave the rows of the Python operator's (and of the definition); a semi
    join's rows once each, ``+I``, applied in order; an anti join's null-keyed rows kept, rows
    retracted when a partner comes in a later batch, each retraction once though the batch that
    made it failed after storing its state and ran again."""
    _micro_batches(env)
    by_python = _changes(env, False, existence)
    by_spark = _changes(env, True, existence) if existence == "SEMI" else _replayed_changes(env, tmp_path, existence)
    left = [(n, None if n % 7 == 0 else f"k{n % 5}", n % 4) for n in range(1, N + 1)]
    right = [(m, None if m % 9 == 0 else f"k{(N - m) % 6}", m // 4) for m in range(1, N // 2 + 1)]
    partnered = {n for n, k, v in left if any(k is not None and k == key and v < w for _, key, w in right)}
    expected = Counter((n, k) for n, k, _ in left if (n in partnered) == (existence == "SEMI"))
    assert _valid(by_python) == expected and len(expected) > 5
    if existence == "SEMI":
        assert _valid(by_spark) == expected
        assert all(kind == "+I" for kind, _ in by_spark) and len(by_spark) == len(expected)
    else:  # the files' order is not the changes' order: each row's insertions less its retractions
        inserted = Counter(row for kind, row in by_spark if kind == "+I")
        retracted = Counter(row for kind, row in by_spark if kind == "-D")
        assert retracted and all(inserted[row] >= count for row, count in retracted.items())
        assert +(inserted - retracted) == expected and (7, None) in expected


def test_explain_says_spark_computes_semi_and_anti_joins_and_why_not(env):
    _micro_batches(env)
    t_env = _tables(env, True)
    for query in list(_QUERIES.values()) + ["SELECT * FROM l WHERE k IN (SELECT key FROM r)",
                                            "SELECT * FROM l WHERE NOT EXISTS (SELECT * FROM r WHERE key = k)"]:
        lines = [line for line in t_env.sql_query(query).explain().splitlines() if "Join(" in line]
        assert "[Spark JVM, micro-batches]" in lines[-1], (query, lines)
    nullable = t_env.sql_query("SELECT * FROM l WHERE k NOT IN (SELECT key FROM r)")
    assert "a NOT IN of nullable values (Flink's null-aware anti join" in nullable.explain()
    assert not _spark_joins(nullable)
