"""A stage whose output feeds several consumers runs once: every function in it sees each element
once, as each Flink operator does (side effects, sink functions and counters are not repeated)."""
from __future__ import annotations

import os

import pytest

from kindling.common import Types
from kindling.datastream import OutputTag, ProcessFunction
from kindling.datastream.functions import MapFunction, SinkFunction


class AppendToFile(SinkFunction):
    def __init__(self, path: str):
        self.path = path

    def invoke(self, value, context=None):
        with open(self.path, "a") as f:
            f.write(f"{value}\n")


class LogThrough(MapFunction):
    def __init__(self, path: str):
        self.path = path

    def map(self, value):
        with open(self.path, "a") as f:
            f.write(f"{value[0]}\n")
        return value


class MainAndSide(ProcessFunction):
    def __init__(self, tag):
        self.tag = tag

    def process_element(self, value, ctx):
        yield value[0]
        yield self.tag, value[1]


def _lines(path: str) -> list[str]:
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return sorted(f.read().split())


def test_sink_functions_on_main_and_side_output_see_each_element_once(any_env, tmp_path):
    tag = OutputTag("side", Types.INT())
    any_env.set_parallelism(2)
    ds = any_env.from_collection([("a", 0), ("b", 1), ("c", 2)], type_info=Types.ROW([Types.STRING(), Types.INT()]))
    main = ds.map(LogThrough(str(tmp_path / "map")), output_type=Types.ROW([Types.STRING(), Types.INT()])) \
        .process(MainAndSide(tag), output_type=Types.STRING())
    main.add_sink(AppendToFile(str(tmp_path / "main")))
    main.get_side_output(tag).add_sink(AppendToFile(str(tmp_path / "side")))
    main.get_side_output(tag).map(lambda v: v * 10).add_sink(AppendToFile(str(tmp_path / "side10")))
    any_env.execute("shared stage")
    assert _lines(str(tmp_path / "map")) == ["a", "b", "c"]
    assert _lines(str(tmp_path / "main")) == ["a", "b", "c"]
    assert _lines(str(tmp_path / "side")) == ["0", "1", "2"]
    assert _lines(str(tmp_path / "side10")) == ["0", "10", "20"]


@pytest.fixture(params=["one-step", "micro-batches", "BATCH"])
def every_path(request, env):
    """A bounded STREAMING job runs as one Spark batch job, or as a streaming query (micro-batches:
    checkpointing, unbounded sources); BATCH mode as Spark batch jobs."""
    from kindling.datastream import RuntimeExecutionMode

    if request.param == "micro-batches":
        env.get_configuration().set_boolean("kindling.bounded.one-step", False)
    elif request.param == "BATCH":
        env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    return env


def test_stage_feeding_a_sink_and_a_keyed_operator_runs_once(every_path, tmp_path):
    env = every_path
    env.set_parallelism(2)
    ds = env.from_collection([("a", 0), ("b", 1), ("c", 2)], type_info=Types.TUPLE([Types.STRING(), Types.INT()]))
    logged = ds.map(LogThrough(str(tmp_path / "map")), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
    logged.add_sink(AppendToFile(str(tmp_path / "all")))
    logged.key_by(lambda v: v[0]).reduce(lambda a, b: a).add_sink(AppendToFile(str(tmp_path / "reduced")))
    env.execute("branching stage")
    assert _lines(str(tmp_path / "all")) == ["('a',", "('b',", "('c',", "0)", "1)", "2)"]
    assert _lines(str(tmp_path / "map")) == ["a", "b", "c"]
    assert len(_lines(str(tmp_path / "reduced"))) == 6


def test_a_stage_read_by_two_keyed_operators_a_union_and_sinks_runs_once(every_path, tmp_path):
    env = every_path
    env.set_parallelism(2)
    words = env.from_collection(["a", "b", "a", "c"], Types.STRING()) \
        .map(LogThrough(str(tmp_path / "map")), output_type=Types.STRING())
    counts = words.key_by(lambda w: w).map(lambda w: (w, 1), Types.TUPLE([Types.STRING(), Types.INT()])) \
        .key_by(lambda p: p[0]).sum(1)
    firsts = words.key_by(lambda w: w).reduce(lambda a, b: a)
    out = counts.map(lambda p: f"{p[0]}={p[1]}", Types.STRING()).union(firsts, words)
    out.add_sink(AppendToFile(str(tmp_path / "out")))
    words.print()
    env.execute("two keyed readers")
    assert _lines(str(tmp_path / "map")) == ["a", "a", "b", "c"]
    words_again = ["a", "a", "b", "c"]
    if env.get_runtime_mode().name == "BATCH":  # keyed reductions emit their final values only
        assert _lines(str(tmp_path / "out")) == sorted(["a=2", "b=1", "c=1", "a", "b", "c"] + words_again)
    else:
        assert _lines(str(tmp_path / "out")) == sorted(["a=1", "a=2", "b=1", "c=1", "a", "a", "b", "c"] + words_again)


def test_a_stage_read_by_a_union_and_a_sink_runs_once(every_path, tmp_path):
    # no keyed reader: in a streaming query the union carries the stage's rows for the sink
    env = every_path
    env.set_parallelism(2)
    words = env.from_collection(["a", "b", "c"], Types.STRING()) \
        .map(LogThrough(str(tmp_path / "map")), output_type=Types.STRING())
    others = env.from_collection(["x"], Types.STRING())
    words.union(others).map(str.upper, Types.STRING()).add_sink(AppendToFile(str(tmp_path / "upper")))
    words.add_sink(AppendToFile(str(tmp_path / "words")))
    env.execute("union and sink")
    assert _lines(str(tmp_path / "map")) == ["a", "b", "c"]
    assert _lines(str(tmp_path / "upper")) == ["A", "B", "C", "X"]
    assert _lines(str(tmp_path / "words")) == ["a", "b", "c"]
