"""map/flat_map/filter on a KeyedStream run per key, with keyed state, as in PyFlink (end to end
on Spark). Expected results are what PyFlink 2.3 gave for the same programs."""
from __future__ import annotations

import pytest

from kindling.common import Types
from kindling.datastream import DataStream, KeyedStream
from kindling.datastream.functions import (
    FilterFunction, FlatMapFunction, KeyedProcessFunction, MapFunction, ProcessFunction, RuntimeContext,
)
from kindling.datastream.state import ValueStateDescriptor

DATA = [(1, 3), (1, 5), (1, 7), (1, 4), (1, 2), (2, 1), (2, 8), (3, 3)]
DATA_TYPE = Types.TUPLE([Types.LONG(), Types.LONG()])


class CountWindowAverage(FlatMapFunction):
    """The keyed-state example of PyFlink's documentation: the average of every two elements of a key."""

    def open(self, runtime_context: RuntimeContext):
        self.sum = runtime_context.get_state(ValueStateDescriptor("average", Types.PICKLED_BYTE_ARRAY()))

    def flat_map(self, value):
        current = self.sum.value() or (0, 0)
        current = (current[0] + 1, current[1] + value[1])
        self.sum.update(current)
        if current[0] >= 2:
            self.sum.clear()
            yield value[0], int(current[1] / current[0])


class Counting(MapFunction):
    def open(self, runtime_context: RuntimeContext):
        self.n = runtime_context.get_state(ValueStateDescriptor("n", Types.INT()))
        self.task = runtime_context.get_task_name()

    def map(self, value):
        n = (self.n.value() or 0) + 1
        self.n.update(n)
        return value[0], n, self.task


class EveryOther(FilterFunction):
    def open(self, runtime_context: RuntimeContext):
        self.n = runtime_context.get_state(ValueStateDescriptor("n", Types.INT()))

    def filter(self, value):
        n = (self.n.value() or 0) + 1
        self.n.update(n)
        return n % 2 == 1


def keyed(env) -> KeyedStream:
    env.set_parallelism(2)
    return env.from_collection(DATA, type_info=DATA_TYPE).key_by(lambda r: r[0])


def test_keyed_flat_map_with_state(any_env):
    assert sorted(keyed(any_env).flat_map(CountWindowAverage()).execute_and_collect(limit=10)) == [
        (1, 4), (1, 5), (2, 4)]


def test_keyed_map_with_state_and_runtime_context(any_env):
    assert sorted(keyed(any_env).map(Counting()).execute_and_collect(limit=20)) == [
        (1, 1, "Map"), (1, 2, "Map"), (1, 3, "Map"), (1, 4, "Map"), (1, 5, "Map"), (2, 1, "Map"), (2, 2, "Map"),
        (3, 1, "Map")]


def test_keyed_filter_with_state(any_env):
    assert sorted(keyed(any_env).filter(EveryOther()).execute_and_collect(limit=20)) == [
        (1, 2), (1, 3), (1, 7), (2, 1), (3, 3)]


def test_keyed_results_are_unkeyed_streams(any_env):
    ks = keyed(any_env)
    mapped = ks.map(Counting(), output_type=Types.TUPLE([Types.LONG(), Types.INT(), Types.STRING()]))
    assert type(mapped) is DataStream and type(ks.filter(lambda v: True)) is DataStream
    with pytest.raises(TypeError, match="key_by"):
        mapped.process(_Echo())

    class Swap(ProcessFunction):
        def process_element(self, value, ctx):
            yield value[1], value[0]

    # a stateless chain after the keyed map, then a second keyed map with its own state
    again = mapped.process(Swap()).key_by(lambda v: v[0]).map(Counting())
    assert sorted(again.execute_and_collect(limit=20)) == [
        (1, 1, "Map"), (1, 2, "Map"), (1, 3, "Map"), (2, 1, "Map"), (2, 2, "Map"), (3, 1, "Map"), (4, 1, "Map"),
        (5, 1, "Map")]


class _Echo(KeyedProcessFunction):
    def process_element(self, value, ctx):
        yield value


def test_plain_callables_on_a_keyed_stream(any_env):
    ks = keyed(any_env)
    assert sorted(ks.map(lambda v: v[1] * 10).execute_and_collect(limit=20)) == [10, 20, 30, 30, 40, 50, 70, 80]
    assert sorted(ks.flat_map(lambda v: [v[1]] * (v[0] == 2)).execute_and_collect(limit=20)) == [1, 8]
    assert sorted(ks.filter(lambda v: v[1] > 4).execute_and_collect(limit=20)) == [(1, 5), (1, 7), (2, 8)]


def test_keyed_functions_fail_with_the_operator_name(env):
    from kindling.runtime.errors import UserFunctionError

    class Broken(MapFunction):
        def map(self, value):
            raise ValueError("no")

    env.from_collection([1]).key_by(lambda v: v).map(Broken()).print()
    with pytest.raises(UserFunctionError, match="ValueError: no") as info:
        env.execute()
    assert info.value.operator_name == "Map"
    with pytest.raises(TypeError, match="Map expects"):
        env.from_collection([1]).key_by(lambda v: v).map(5)


@pytest.mark.parametrize("call, message", [
    (lambda ks: ks.name("x"), "Set name for KeyedStream is not supported."),
    (lambda ks: ks.get_name(), "Get name of KeyedStream is not supported."),
    (lambda ks: ks.uid("x"), "Set uid for KeyedStream is not supported."),
    (lambda ks: ks.set_uid_hash("x"), "Set uid hash for KeyedStream is not supported."),
    (lambda ks: ks.set_parallelism(2), "Set parallelism for KeyedStream is not supported."),
    (lambda ks: ks.set_max_parallelism(2), "Set max parallelism for KeyedStream is not supported."),
    (lambda ks: ks.force_non_parallel(), "Set force non-parallel for KeyedStream is not supported."),
    (lambda ks: ks.set_buffer_timeout(5), "Set buffer timeout for KeyedStream is not supported."),
    (lambda ks: ks.start_new_chain(), "Start new chain for KeyedStream is not supported."),
    (lambda ks: ks.disable_chaining(), "Disable chaining for KeyedStream is not supported."),
    (lambda ks: ks.slot_sharing_group("x"), "Setting slot sharing group for KeyedStream is not supported."),
    (lambda ks: ks.cache(), "Cache for KeyedStream is not supported."),
    (lambda ks: ks.shuffle(), "Cannot override partitioning for KeyedStream."),
    (lambda ks: ks.rebalance(), "Cannot override partitioning for KeyedStream."),
    (lambda ks: ks.rescale(), "Cannot override partitioning for KeyedStream."),
    (lambda ks: ks.forward(), "Cannot override partitioning for KeyedStream."),
    (lambda ks: ks.broadcast(), "Cannot override partitioning for KeyedStream."),
    (lambda ks: ks.partition_custom(lambda k, n: 0, lambda v: v), "Cannot override partitioning for KeyedStream."),
])
def test_keyed_stream_is_not_an_operator(env, call, message):
    ks = env.from_collection([1, 2]).key_by(lambda v: v)
    with pytest.raises(Exception) as info:
        call(ks)
    assert str(info.value).startswith(message)
    # what follows key_by can be named, as in PyFlink
    ks.map(lambda v: v).name("after key_by").uid("u").set_parallelism(1)


def test_keyed_process_needs_a_keyed_process_function(env):
    class Plain(ProcessFunction):
        def process_element(self, value, ctx):
            yield value

    with pytest.raises(TypeError, match="KeyedProcessFunction is required for KeyedStream"):
        env.from_collection([1]).key_by(lambda v: v).process(Plain())
