"""End-to-end tests of the stateless DataStream API on Spark, in both runtime modes."""
from __future__ import annotations

import pytest

from kindling.common import Row, Types, WatermarkStrategy
from kindling.datastream import (
    FilterFunction,
    FlatMapFunction,
    MapFunction,
    OutputTag,
    ProcessFunction,
    RuntimeContext,
)


def test_map_filter_flat_map(any_env):
    ds = any_env.from_collection([1, 2, 3, 4])
    out = ds.map(lambda x: x * 10).filter(lambda x: x != 20).flat_map(lambda x: [x, x + 1])
    assert out.execute_and_collect(limit=100) == [10, 11, 30, 31, 40, 41]


def test_function_classes_with_open(any_env):
    class Scale(MapFunction):
        def open(self, ctx: RuntimeContext):
            self.factor = int(ctx.get_job_parameter("factor", "3"))
            self.task = ctx.get_task_name()

        def map(self, value):
            return (self.task, value * self.factor)

    class Words(FlatMapFunction):
        def flat_map(self, value):
            yield from value.split()

    class Long(FilterFunction):
        def filter(self, value):
            return len(value) > 1

    words = any_env.from_collection(["a bb", "ccc d"]).flat_map(Words()).filter(Long())
    assert sorted(words.execute_and_collect(limit=10)) == ["bb", "ccc"]
    out = any_env.from_collection([1, 2]).map(Scale()).name("scale").execute_and_collect(limit=10)
    assert out == [("scale", 3), ("scale", 6)]


def test_flat_map_generator_and_none(any_env):
    def gen(x):
        for i in range(x):
            yield i

    out = any_env.from_collection([0, 1, 3]).flat_map(gen).execute_and_collect(limit=100)
    assert sorted(out) == [0, 0, 1, 2]  # the flat map's parallel instances hand their outputs on in any order


def test_from_elements_and_untyped_values_round_trip(any_env):
    values = [{"a": 1}, (1, "x"), None, 3.5, Row(name="n", id=2)]
    assert any_env.from_elements(*values).execute_and_collect(limit=10) == values


def test_typed_stream_round_trip(any_env):
    row_type = Types.ROW_NAMED(["name", "score"], [Types.STRING(), Types.DOUBLE()])
    ds = any_env.from_collection([("a", 1.5), ("b", 2.0)], type_info=Types.TUPLE([Types.STRING(), Types.DOUBLE()]))
    rows = ds.map(lambda t: Row(name=t[0], score=t[1] * 2), output_type=row_type)
    assert rows.get_type() == row_type
    out = rows.execute_and_collect(limit=10)
    assert out == [Row(name="a", score=3.0), Row(name="b", score=4.0)]
    assert out[0].name == "a" and out[0]["score"] == 3.0


def test_generate_sequence_and_number_sequence_source(any_env):
    from kindling.common import WatermarkStrategy
    from kindling.datastream.connectors import NumberSequenceSource

    seq = any_env.generate_sequence(1, 1000)
    assert seq.get_type() == Types.LONG()
    assert sorted(seq.execute_and_collect(limit=2000)) == list(range(1, 1001))
    src = any_env.from_source(NumberSequenceSource(5, 9), WatermarkStrategy.no_watermarks(), "numbers")
    assert sorted(src.execute_and_collect(limit=100)) == [5, 6, 7, 8, 9]


def test_union_and_project(any_env):
    t = Types.TUPLE([Types.INT(), Types.STRING(), Types.LONG()])
    a = any_env.from_collection([(1, "a", 10)], type_info=t)
    b = any_env.from_collection([(2, "b", 20)], type_info=t)
    projected = a.union(b).project(2, 0)
    assert projected.get_type() == Types.TUPLE([Types.LONG(), Types.INT()])
    assert sorted(projected.execute_and_collect(limit=10)) == [(10, 1), (20, 2)]


def test_union_of_untyped_streams_of_one_source(any_env):
    ds = any_env.from_collection([1, 2, 3])
    odd = ds.filter(lambda x: x % 2 == 1)
    doubled = ds.map(lambda x: x * 100)
    assert sorted(odd.union(doubled).execute_and_collect(limit=10)) == [1, 3, 100, 200, 300]


def test_process_function_with_side_output(any_env):
    small = OutputTag("small", Types.INT())

    class Split(ProcessFunction):
        def process_element(self, value, ctx):
            assert ctx.timestamp() is None
            if value < 3:
                ctx.output(small, value)
            else:
                yield value * 10

    main = any_env.from_collection([1, 2, 3, 4], type_info=Types.INT()).process(Split(), output_type=Types.INT())
    main.get_side_output(small).map(lambda x: -x).print("small")
    assert main.execute_and_collect(limit=10) == [30, 40]


def test_side_output_collected(any_env):
    evens = OutputTag("evens")

    class Split(ProcessFunction):
        def process_element(self, value, ctx):
            if value % 2 == 0:
                ctx.output(evens, value)
            return [value]

    main = any_env.from_collection(list(range(6))).process(Split())
    assert main.get_side_output(evens).execute_and_collect(limit=10) == [0, 2, 4]


def test_several_sinks_in_one_job(any_env, capsys):
    any_env.set_parallelism(1)  # print() writes no subtask prefix
    ds = any_env.from_collection(["x", "y"])
    ds.print()
    ds.map(str.upper).print("up")
    result = any_env.execute("two sinks")
    out = capsys.readouterr().out.splitlines()
    assert sorted(out) == ["up> X", "up> Y", "x", "y"]
    assert result.get_accumulator_result("records-written:Print to Std. Out") == 4
    assert result.get_net_runtime() >= 0


def test_print_formats_typed_values_like_flink(any_env, capsys):
    any_env.set_parallelism(1)  # print() writes no subtask prefix
    any_env.from_collection([(1, "a")], type_info=Types.ROW([Types.INT(), Types.STRING()])).print()
    any_env.from_collection([(2, "b")], type_info=Types.TUPLE([Types.INT(), Types.STRING()])).print()
    any_env.from_collection([True], type_info=Types.BOOLEAN()).print()
    any_env.execute()
    assert sorted(capsys.readouterr().out.splitlines()) == ["(2,b)", "+I[1,a]", "true"]


def test_execute_and_collect_iterator_is_closeable(env):
    with env.generate_sequence(1, 50).execute_and_collect() as it:
        first = next(it)
        assert isinstance(first, int)
    it2 = env.from_collection([1, 2, 3]).execute_and_collect()
    assert list(it2) == [1, 2, 3]
    it2.close()


def test_execute_async_job_client(env):
    from kindling.common import JobStatus

    env.from_collection([1, 2]).print()
    client = env.execute_async("async job")
    assert len(client.get_job_id().to_hex_string()) == 32
    result = client.get_job_execution_result().result(timeout=300)
    assert client.get_job_status().result() == JobStatus.FINISHED
    assert result.get_job_id() == client.get_job_id()


def test_cancel_unbounded_job(env, tmp_path):
    from kindling.common import Duration, JobStatus, WatermarkStrategy
    from kindling.datastream.connectors.file_system import FileSource, StreamFormat

    source = (FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(tmp_path))
              .monitor_continuously(Duration.of_millis(200)).build())
    env.from_source(source, WatermarkStrategy.no_watermarks(), "files").print()
    client = env.execute_async("forever")
    client.cancel().result(timeout=120)
    assert client.get_job_status().result() == JobStatus.CANCELED
    with pytest.raises(RuntimeError, match="cancelled"):
        client.get_job_execution_result().result()


def test_names_uids_plan_and_hints(env):
    import json

    ds = env.from_collection([1]).map(lambda x: x).name("my map").uid("map-1").set_parallelism(1)
    ds = ds.start_new_chain().disable_chaining().slot_sharing_group("g")
    assert ds.get_name() == "my map"
    ds = ds.rebalance().shuffle().forward().rescale()
    ds.print().name("out").uid("sink-1").set_parallelism(1)
    plan = json.loads(env.get_execution_plan())
    names = [n["type"] for n in plan["nodes"]]
    # print() reads the Python objects through PyFlink's Map to strings, which disable_chaining keeps apart
    assert names == ["Source: Collection Source", "my map", "Map", "Sink: out"]
    assert plan["nodes"][1]["predecessors"][0]["id"] == plan["nodes"][0]["id"]
    assert plan["nodes"][3]["pact"] == "Data Sink"


def test_environment_settings(env):
    from kindling.datastream import RuntimeExecutionMode

    env.set_parallelism(3)
    assert env.get_parallelism() == 3
    env.set_max_parallelism(64)
    assert env.get_max_parallelism() == 64
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    assert env.get_config() is env.get_config()
    with pytest.raises(ValueError):
        env.set_parallelism(0)
    with pytest.raises(RuntimeError, match="No operators"):
        env.execute()


def test_parallelism_splits_sources(env):
    env.set_parallelism(2)

    class Index(MapFunction):
        def open(self, ctx):
            self.n = ctx.get_number_of_parallel_subtasks()

        def map(self, value):
            return self.n

    assert set(env.generate_sequence(1, 100).map(Index()).execute_and_collect(limit=200)) == {2}


def test_add_sink_runs_function_on_workers(any_env, tmp_path):
    from kindling.datastream import SinkFunction

    class Append(SinkFunction):
        def __init__(self, path):
            self.path = path

        def invoke(self, value, context):
            with open(self.path, "a") as f:
                f.write(f"{value}\n")

    target = tmp_path / "out.txt"
    any_env.from_collection([1, 2, 3]).add_sink(Append(str(target)))
    any_env.execute()
    assert sorted(target.read_text().split()) == ["1", "2", "3"]


def test_a_missing_file_source_path_fails_when_the_job_is_built(tmp_path):
    from kindling.datastream import StreamExecutionEnvironment
    from kindling.datastream.connectors.file_system import FileSource, StreamFormat

    env = StreamExecutionEnvironment.get_execution_environment()
    source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(tmp_path / "nope")).build()
    with pytest.raises(FileNotFoundError, match="FileSource path does not exist: .*nope"):
        env.from_source(source, WatermarkStrategy.no_watermarks(), "files")
    with pytest.raises(FileNotFoundError, match="nope"):
        env.read_text_file(str(tmp_path / "nope"))


def test_read_text_file(any_env, tmp_path):
    (tmp_path / "a.txt").write_text("one\ntwo\r\nthree")
    assert any_env.read_text_file(str(tmp_path / "a.txt")).execute_and_collect(limit=10) == ["one", "two", "three"]


def test_user_function_error_names_operator(any_env):
    from kindling.runtime.errors import UserFunctionError

    def explode(x):
        raise KeyError(f"no {x}")

    # one element: the map's two instances would race to fail first on two
    any_env.from_collection([1]).map(explode).name("exploding map").print()
    with pytest.raises(UserFunctionError) as info:
        any_env.execute()
    assert info.value.operator_name == "exploding map"
    assert "KeyError: 'no 1'" in str(info.value) and "explode" in info.value.user_traceback
    assert "py4j" not in str(info.value).lower() and "at org.apache" not in str(info.value)
    assert isinstance(info.value.cause, KeyError)
    assert info.value.element == "1" and "failed on the element 1:" in str(info.value)


def test_the_error_of_a_keyed_function_names_the_element(any_env):
    from kindling.runtime.errors import UserFunctionError

    def only_small(a, b):
        if b[1] > 2:
            raise ValueError("too big")
        return a[0], a[1] + b[1]

    any_env.from_collection([("k", 1), ("k", 2), ("k", 3)]).key_by(lambda v: v[0]).reduce(only_small).print()
    with pytest.raises(UserFunctionError, match="too big") as info:
        any_env.execute()
    assert info.value.element == "('k', 3)"


@pytest.mark.parametrize("chained", [False, True])
def test_value_not_fitting_output_type(any_env, chained):
    from kindling.runtime.errors import UserFunctionError

    ds = any_env.from_collection(["1", "x"]).map(lambda s: s if s == "x" else int(s), output_type=Types.INT()).name("parse")
    if chained:
        ds = ds.filter(lambda v: True)  # keeps the declared type; checked where the values leave the pass
    ds.print()
    with pytest.raises(UserFunctionError, match=r"'x' \(str\) does not fit") as info:
        any_env.execute()
    assert info.value.operator_name == "parse"


def test_non_picklable_map_fails_when_built(env):
    import threading

    lock = threading.Lock()
    with pytest.raises(TypeError, match="function .* of operator 'Map' cannot be pickled"):
        env.from_collection([1]).map(lambda x: (lock, x))
    with pytest.raises(TypeError, match="MapFunction or a callable"):
        env.from_collection([1]).map(42)


def test_progress_lines(spark, capfd):
    from kindling.common import Configuration
    from kindling.datastream import StreamExecutionEnvironment

    conf = Configuration()
    conf.set_integer("kindling.progress.after-ms", 0)
    conf.set_boolean("kindling.bounded.one-step", False)  # progress lines are the micro-batches'
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.from_collection([1, 2, 3]).map(lambda x: x).add_sink(lambda v: None)
    env.execute("chatty")
    err = capfd.readouterr().err
    assert "[kindling] chatty: batch 0, 5 input rows" in err  # 3 elements, the end rows of the split and the input


def test_missing_java_is_one_clear_line(monkeypatch, tmp_path):
    from kindling.spark.session import JavaNotFoundError, check_java

    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(JavaNotFoundError, match="apt-get install -y openjdk-17-jre-headless"):
        check_java()


def test_file_sink(any_env, tmp_path):
    from kindling.common.serialization import Encoder
    from kindling.datastream.connectors.file_system import BucketAssigner, FileSink, OutputFileConfig

    out = tmp_path / "out"
    sink = (FileSink.for_row_format(str(out), Encoder.simple_string_encoder())
            .with_output_file_config(OutputFileConfig.builder().with_part_prefix("res").with_part_suffix(".txt").build())
            .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
            .build())
    any_env.from_collection([1, 2, 3]).map(lambda x: x * 2).sink_to(sink)
    result = any_env.execute()
    files = sorted(p.name for p in out.iterdir())
    assert files and all(f.startswith("res-") and f.endswith(".txt") for f in files)
    lines = sorted(line for p in out.iterdir() for line in p.read_text().splitlines())
    assert lines == ["2", "4", "6"]
    assert result.get_accumulator_result("records-written:FileSink") == 3


def test_file_sink_default_buckets_and_file_source_directory(any_env, tmp_path):
    from kindling.common import WatermarkStrategy
    from kindling.common.serialization import Encoder
    from kindling.datastream.connectors.file_system import FileSink, FileSource, StreamFormat

    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text("x\ny\n")
    (src / "b.txt").write_text("z\n")
    source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(src)).build()
    lines = any_env.from_source(source, WatermarkStrategy.no_watermarks(), "files")
    lines.sink_to(FileSink.for_row_format(str(tmp_path / "out"), Encoder.simple_string_encoder()).build())
    any_env.execute()
    # hidden files (a micro-batch's bucket time, kept so that a replay writes the same bucket) are not buckets
    buckets = [p for p in (tmp_path / "out").iterdir() if not p.name.startswith(".")]
    assert len(buckets) == 1 and len(buckets[0].name) == len("2026-01-01--00")
    assert sorted(line for p in buckets[0].iterdir() for line in p.read_text().splitlines()) == ["x", "y", "z"]
