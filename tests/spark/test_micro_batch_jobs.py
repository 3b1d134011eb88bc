"""How many Spark jobs a micro-batch of a sink read on the driver (collect, print) runs: a job
costs its scheduling and planning whatever its rows (docs/testing.md, "Where the time goes")."""
from __future__ import annotations

from kindling.common import Configuration, Types
from kindling.spark.runner import _JobRun, _partitions


def _counted(monkeypatch, spark, planned: list[bool] | None = None) -> tuple[list[int], list[int]]:
    """(the partitions of each micro-batch written, the Spark jobs each ran) from now on; and, into
    ``planned``, whether writing it planned the micro-batch's own frame again."""
    partitions: list[int] = []
    jobs: list[int] = []
    tracker = spark.sparkContext.statusTracker()
    write_batch = _JobRun.write_batch

    def counted(self, df, batch_id: int) -> None:
        group = spark.sparkContext.getLocalProperty("spark.jobGroup.id")  # the query run's (Spark sets it)
        before = set(tracker.getJobIdsForGroup(group))
        write_batch(self, df, batch_id)
        if planned is not None:
            planned.append(df._jdf.queryExecution().tracker().phases().contains("planning"))
        partitions.append(_partitions(df))
        jobs.append(len(set(tracker.getJobIdsForGroup(group)) - before))

    monkeypatch.setattr(_JobRun, "write_batch", counted)
    return partitions, jobs


def _micro_batches(env) -> None:
    env.configure(Configuration().set_string("kindling.bounded.one-step", "false")
                  .set_string("kindling.source.max-records-per-batch", "3"))


def test_a_micro_batch_of_one_partition_collected_runs_one_job(env, spark, monkeypatch):
    env.set_parallelism(1)
    _micro_batches(env)
    planned: list[bool] = []
    partitions, jobs = _counted(monkeypatch, spark, planned)
    values = env.from_collection(list(range(7)), Types.INT()).map(lambda v: v * 10, Types.INT())
    with values.execute_and_collect() as results:
        assert sorted(results) == [v * 10 for v in range(7)]
    assert len(partitions) >= 3 and 1 in partitions  # 3 records a micro-batch; the last has the end's own partition
    # one partition: the reading job computes it, no job counting it first; more: one computing them, one reading each
    assert jobs == [1 if n == 1 else 1 + n for n in partitions]
    # telling its partitions planned no micro-batch of one partition again (more are persisted: planned)
    assert [p for p, n in zip(planned, partitions) if n == 1] == [False] * partitions.count(1)


def test_a_micro_batch_of_one_partition_printed_runs_one_job(env, spark, monkeypatch, capsys):
    env.set_parallelism(1)
    _micro_batches(env)
    partitions, jobs = _counted(monkeypatch, spark)
    env.from_collection(list(range(5)), Types.INT()).map(lambda v: v + 1, Types.INT()).print()
    env.execute("printed")
    assert sorted(capsys.readouterr().out.split()) == [str(v + 1) for v in range(5)]
    assert 1 in partitions and jobs == [1 if n == 1 else 1 + n for n in partitions]


def test_a_micro_batch_of_two_partitions_is_computed_once_then_read_a_partition_at_a_time(env, spark, monkeypatch):
    env.set_parallelism(2)
    _micro_batches(env)
    partitions, jobs = _counted(monkeypatch, spark)
    keyed = env.from_collection(list(range(8)), Types.INT()).key_by(lambda v: v % 4, Types.INT()) \
        .reduce(lambda a, b: a + b)
    with keyed.execute_and_collect() as results:
        assert sorted(results) == [0, 1, 2, 3, 4, 6, 8, 10]  # each key's running sums
    assert partitions and set(partitions) == {2} and jobs == [3] * len(partitions)  # one computing both, one reading each
