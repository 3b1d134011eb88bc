"""Each operator runs at its own parallelism and elements travel between operators as Flink sends
them (rebalance, rescale, shuffle, broadcast, partition_custom), end to end on Spark. The expected
values are those PyFlink 2.3 gives for the same programs (Flink's rebalance starts its round robin
at a random instance: only the turn is compared)."""
from __future__ import annotations

import os

import pytest

from kindling.common import Types
from kindling.datastream import MapFunction


class Subtask(MapFunction):
    """Each element with the index of the instance that maps it and the number of instances."""

    def open(self, ctx):
        self.index = ctx.get_index_of_this_subtask()
        self.instances = ctx.get_number_of_parallel_subtasks()

    def map(self, value):
        return value, self.index, self.instances


def _collection(env, n=12):
    env.set_parallelism(2)
    return env.from_collection(list(range(n)), type_info=Types.INT())  # read by one instance, as in Flink


def test_rebalance_spreads_a_one_instance_source_over_every_instance_in_turn(any_env):
    out = sorted(_collection(any_env).rebalance().map(Subtask()).set_parallelism(4).execute_and_collect())
    assert {instances for *_, instances in out} == {4}
    first = out[0][1]
    assert [index for _, index, _ in out] == [(first + i) % 4 for i in range(12)]


def test_an_operator_at_the_job_parallelism_after_a_collection_gets_its_elements_in_turn(any_env):
    out = sorted(_collection(any_env).map(Subtask()).execute_and_collect())
    first = out[0][1]
    assert out == [(i, (first + i) % 2, 2) for i in range(12)]


def test_rescale_from_one_instance_feeds_each_instance_from_the_first(any_env):
    out = sorted(_collection(any_env).rescale().map(Subtask()).set_parallelism(4).execute_and_collect())
    assert out == [(i, i % 4, 4) for i in range(12)]


def test_partition_custom_sends_each_element_to_the_instance_the_partitioner_picks(any_env):
    out = _collection(any_env).partition_custom(lambda key, n: key % n, lambda v: v) \
        .map(Subtask()).set_parallelism(3).execute_and_collect()
    assert sorted(out) == [(i, i % 3, 3) for i in range(12)]


def test_broadcast_sends_a_copy_to_every_instance(any_env):
    out = _collection(any_env, 4).broadcast().map(Subtask()).set_parallelism(3).execute_and_collect()
    assert sorted(out) == [(i, s, 3) for i in range(4) for s in range(3)]


def test_shuffle_sends_each_element_to_one_instance(any_env):
    out = list(_collection(any_env, 60).shuffle().map(Subtask()).set_parallelism(3).execute_and_collect())
    assert sorted(v for v, *_ in out) == list(range(60))
    assert {instances for *_, instances in out} == {3}
    assert {index for _, index, _ in out} == {0, 1, 2}  # at random: all three, but for 3 * (2/3)**60


def test_forward_between_different_parallelisms_is_refused_as_in_flink(env):
    mapped = _collection(env).forward().map(Subtask()).set_parallelism(3)
    with pytest.raises(ValueError, match="Forward partitioning does not allow change of parallelism"):
        mapped.execute_and_collect()


@pytest.mark.parametrize("instances", [3, 1])
def test_a_file_sink_writes_a_part_file_per_instance(any_env, tmp_path, instances):
    from kindling.common.serialization import Encoder
    from kindling.datastream.connectors.file_system import FileSink

    sink = FileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder()).build()
    _collection(any_env, 30).sink_to(sink).set_parallelism(instances)
    any_env.execute()
    parts = [os.path.join(root, f) for root, _, files in os.walk(tmp_path) for f in files if not f.startswith(".")]
    assert len(parts) == instances
    assert sorted(int(line) for p in parts for line in open(p).read().split()) == list(range(30))


def test_each_instance_gets_its_share_of_a_collection_in_the_collection_order(any_env):
    out = list(_collection(any_env, 40).rebalance().map(Subtask()).set_parallelism(3).execute_and_collect())
    shares = [[v for v, index, _ in out if index == instance] for instance in range(3)]
    assert sorted(v for v, *_ in out) == list(range(40))
    first = shares[0][0]
    assert shares == [list(range((first + i) % 3, 40, 3)) for i in range(3)]


def _executed_plan(spark, env, mode: str) -> str:
    from kindling.spark.compiler import Compiler
    from kindling.spark.run_mode import RunMode

    return Compiler(spark, list(env._sinks), RunMode[mode], 2).compile().df._jdf.queryExecution() \
        .executedPlan().toString()


@pytest.mark.parametrize("mode", ["BATCH", "ONE_STEP"])
@pytest.mark.parametrize("partitioning", ["rebalance", "rescale", "shuffle", "broadcast", None])
def test_the_driver_gives_each_instance_behind_an_exchange_its_share_of_a_collection(spark, env, mode, partitioning):
    """The collection is the driver's own: each instance's task reads its share itself (one Python
    pass, no Spark exchange), not a pass of the source's one task naming each element's instance."""
    stream = _collection(env)
    env.set_parallelism(3)
    if partitioning is not None:
        stream = getattr(stream, partitioning)()
    stream.map(Subtask()).print()
    plan = _executed_plan(spark, env, mode)
    assert "Exchange" not in plan and plan.count("MapInArrow") == 1 and "Range" in plan


def test_a_collection_at_its_consumers_parallelism_is_read_by_their_task(spark, env):
    stream = _collection(env)
    env.set_parallelism(1)
    stream.map(Subtask()).print()
    plan = _executed_plan(spark, env, "BATCH")
    assert plan.count("MapInArrow") == 1 and "Range" in plan and "Scan" not in plan


@pytest.mark.parametrize("mode", ["BATCH", "ONE_STEP"])
def test_partition_custom_after_a_collection_stays_an_exchange_its_partitioner_runs_in_the_tasks(spark, env, mode):
    stream = _collection(env)
    env.set_parallelism(3)
    stream.partition_custom(lambda key, n: key % n, lambda v: v).map(Subtask()).print()
    assert "hashpartitioning(__part" in _executed_plan(spark, env, mode)


def test_a_one_step_exchange_into_a_keyed_operator_keeps_the_time_the_source_read_each_element(spark, env):
    """Keyed operators replay the time the source's own pass handed each element
    (tests/spark/test_one_step.py): that exchange stays."""
    stream = _collection(env)
    env.set_parallelism(3)
    stream.map(Subtask()).key_by(lambda v: v[1]).map(lambda v: v).print()
    assert "hashpartitioning(__part" in _executed_plan(spark, env, "ONE_STEP")
