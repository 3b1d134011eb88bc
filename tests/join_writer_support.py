"""What the micro-batch join tests share: Flink's join (the Python operator) fed row by row, and a
Spark join writer whose changes a test collects instead of writing."""
from __future__ import annotations

from keyed_state_support import KeyContext


SEQUENCE_ROWS = 120  # the left rows of :func:`sequence_streams`; the right has half as many


def sequence_rows() -> tuple[list, list]:
    """The rows :func:`sequence_streams` makes: left (n, k, v), keys k0..k16 (null for every 11th n),
    and right (m, key, w), its keys counting down (k of (N - m) % 23) so that a key's rows come in
    other micro-batches on each side."""
    n = SEQUENCE_ROWS
    return ([(i, None if i % 11 == 0 else f"k{i % 17}", i % 7) for i in range(1, n + 1)],
            [(m, None if m % 13 == 0 else f"k{(n - m) % 23}", m % 5) for m in range(1, n // 2 + 1)])


def sequence_streams(env) -> tuple:
    """Streams of :func:`sequence_rows`' left and right rows from number sequences (Kindling's source)."""
    from kindling.common import Types
    from kindling.common.watermark_strategy import WatermarkStrategy
    from kindling.datastream.connectors.number_seq import NumberSequenceSource

    n = SEQUENCE_ROWS
    left = env.from_source(NumberSequenceSource(1, n), WatermarkStrategy.no_watermarks(), "left").map(
        lambda i: (i, None if i % 11 == 0 else f"k{i % 17}", i % 7),
        output_type=Types.ROW_NAMED(['n', 'k', 'v'], [Types.LONG(), Types.STRING(), Types.INT()]))
    right = env.from_source(NumberSequenceSource(1, n // 2), WatermarkStrategy.no_watermarks(), "right").map(
        lambda m: (m, None if m % 13 == 0 else f"k{(n - m) % 23}", m % 5),
        output_type=Types.ROW_NAMED(['m', 'key', 'w'], [Types.LONG(), Types.STRING(), Types.INT()]))
    return left, right


def python_join(condition, left_outer: bool = False, right_outer: bool = False, existence: str | None = None):
    """The Python operator (Flink's join) of ``l [kind] JOIN r ON condition`` (columns ``k, v`` and
    ``k2, w``), one instance per key: ``feed(side, rows)`` -> its changes ``(kind, row)`` in order."""
    from kindling.common.types import RowKind, _create_row
    from kindling.runtime.table.join import RegularJoinFunction

    per_key = {}

    def feed(side: int, rows: list) -> list:
        out = []
        for row in rows:
            if row[0] not in per_key:
                per_key[row[0]] = RegularJoinFunction(['k', 'v'], ['k2', 'w'], condition, left_outer, right_outer,
                                                      existence)
                per_key[row[0]].open(KeyContext())
            join = per_key[row[0]]
            names = ['k', 'v'] if side == 0 else ['k2', 'w']
            process = join.process_element1 if side == 0 else join.process_element2
            out += [(str(c.get_row_kind()), tuple(c)) for c in process(_create_row(names, list(row), RowKind.INSERT),
                                                                          None)]
        return out
    return feed


def capturing_writer(writer_class: type, join, output_type, tmp_path, seen: list, width: int):
    """A ``writer_class`` of the micro-batch join ``join`` (a RegularJoinSpec) at parallelism 2 whose changes
    go to ``seen``: per batch a list of ``(kind, the row's first width columns)``, each key's in the
    order they are emitted."""
    from kindling.graph.specs import GroupAggregateSpec
    from kindling.spark.compiler import Compiler
    from kindling.spark.table.join import JoinSinkSpec

    spec = JoinSinkSpec(join=join, output_type=output_type, parallelism=2, aggregate=GroupAggregateSpec(keys=["k0"]))
    writer = writer_class(spec, Compiler, None)
    writer.bind(str(tmp_path))
    kinds = {0: "+I", 3: "-D"}

    def emit(changes, _):
        rows = sorted(changes.collect(), key=lambda r: (str(r["__k0"]), tuple(r["__seq"]), tuple(r["__pos"])))
        seen.append([(kinds[r["__kind"]] if "__kind" in r else "+I", tuple(r)[:width]) for r in rows])
        return 0
    writer._emit = emit
    return writer


def write_batch(writer, frames: list, batch: int, seen: list, replayed: bool = False, order=(0, 1)) -> list:
    """Writes one micro-batch's two sides (in ``order``) through ``writer``; ``replayed``: twice, as
    Spark does when it failed before committing the batch, the second time giving the same changes.
    The batch's changes."""
    for _ in range(2 if replayed else 1):
        for side in order:
            writer.write_side(side, frames[side], batch)
    if replayed:
        assert seen[-1] == seen[-2]
        seen.pop()
    return seen[-1]


def spark_jobs(spark, run) -> int:
    """How many Spark jobs ``run()`` starts (on this thread)."""
    return len(spark_job_stages(spark, run))


def spark_job_stages(spark, run) -> list[int]:
    """The stages of each Spark job ``run()`` starts (on this thread), in the order the jobs started."""
    import uuid

    context = spark.sparkContext
    group = f"counted-{uuid.uuid4().hex}"
    context.setJobGroup(group, "jobs counted by a test")
    try:
        run()
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
        context.setLocalProperty("spark.job.description", None)
    tracker = context.statusTracker()
    return [len(tracker.getJobInfo(job).stageIds) for job in sorted(tracker.getJobIdsForGroup(group))]


def jobs_of_batch(spark, writer, sides: tuple, batch: int, schema: str = "k string, v int") -> int:
    """How many Spark jobs ``writer`` starts for one micro-batch of ``sides`` (the left rows, the right
    rows; written right side first, as the joins take them)."""
    frames = [spark.createDataFrame(rows, schema) for rows in sides]
    return spark_jobs(spark, lambda: [writer.write_side(s, frames[s], batch) for s in (1, 0)])


def stages_of_batch(spark, writer, sides: tuple, batch: int, schema: str = "k string, v int") -> list[int]:
    """The stages of each Spark job ``writer`` starts for one micro-batch of ``sides`` (as :func:`jobs_of_batch`)."""
    frames = [spark.createDataFrame(rows, schema) for rows in sides]
    return spark_job_stages(spark, lambda: [writer.write_side(s, frames[s], batch) for s in (1, 0)])
