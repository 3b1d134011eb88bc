"""get_execution_plan() in Flink's shape (kindling.graph.plan), checked against plans PyFlink 2.3
printed for the same jobs (node types, pacts, parallelism, ship strategies; Python operators chained
as PyFlink chains them; the order of nodes and their ids are Kindling's)."""
from __future__ import annotations

import json

import pytest

from kindling.common.typeinfo import Types
from kindling.datastream import KeyedProcessFunction, OutputTag, ProcessFunction, StreamExecutionEnvironment
from kindling.datastream.functions import SinkFunction
from kindling.graph.plan import execution_plan, execution_plan_json
from kindling.graph.specs import PrintSinkSpec
from kindling.graph.transformation import KeyByTransformation, SinkTransformation


@pytest.fixture
def env():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    return env


def _plan(env):
    return execution_plan(env._sinks, env.get_parallelism())


def _shape(plan):
    return [(n["type"], n["pact"], n["parallelism"], [(p["ship_strategy"]) for p in n.get("predecessors", [])])
            for n in plan["nodes"]]


class _Collect(SinkFunction):
    def invoke(self, value, context):
        pass


class _Keyed(KeyedProcessFunction):
    def process_element(self, value, ctx):
        yield value


def test_chain_key_by_reduce_print_has_pyflinks_nodes_and_strategies(env):
    env.from_collection([("a", 1)]).map(lambda x: x).filter(lambda x: True) \
        .key_by(lambda x: x[0]).reduce(lambda a, b: a).print()
    plan = _plan(env)
    assert _shape(plan) == [  # as PyFlink 2.3 prints it: print() maps the reduce's Python objects to strings
        ("Source: Collection Source", "Data Source", 1, []),
        ("Map, Filter, _stream_key_by_map_operator", "Operator", 2, ["REBALANCE"]),
        ("Reduce, Map", "Operator", 2, ["HASH"]),
        ("Sink: Print to Std. Out", "Data Sink", 2, ["FORWARD"]),
    ]
    ids = [n["id"] for n in plan["nodes"]]
    assert [n["predecessors"][0]["id"] for n in plan["nodes"][1:]] == ids[:-1]
    assert all(p["side"] == "second" for n in plan["nodes"] for p in n.get("predecessors", []))
    assert all(n["contents"] == n["type"] for n in plan["nodes"])
    assert not any(key.startswith("_") for n in plan["nodes"] for key in n)
    # Kindling's fused passes: the source's pass runs up to the key-by; the reduce's pass prints.
    assert [n["spark_stage"] for n in plan["nodes"]] == [0, 0, 1, 1]
    assert [n["spark_stage_root"] for n in plan["nodes"]][-2:] == [ids[2], ids[2]]


def test_chaining_follows_parallelism_consumers_groups_and_chaining_calls(env):
    """As PyFlink 2.3 printed each job: an operator joins the chain of the one it reads only at the
    same parallelism, as its only consumer, in the same slot sharing group, unless told otherwise."""
    env.from_collection([1, 2]).map(lambda x: x).set_parallelism(3).filter(lambda x: True).print()
    assert _shape(_plan(env))[1:3] == [("Map", "Operator", 3, ["REBALANCE"]), ("Filter, Map", "Operator", 2, ["REBALANCE"])]

    other = StreamExecutionEnvironment.get_execution_environment()
    other.set_parallelism(2)
    (other.from_collection([1, 2]).map(lambda x: x).filter(lambda x: True).start_new_chain()
     .map(lambda x: x).disable_chaining().flat_map(lambda x: [x]).print())
    assert [n[0] for n in _shape(_plan(other))] == ["Source: Collection Source", "Map", "Filter", "Map",
                                                   "FlatMap, Map", "Sink: Print to Std. Out"]

    other._sinks.clear()
    shared = other.from_collection([1, 2]).map(lambda x: x)
    shared.map(lambda x: x).print()
    shared.filter(lambda x: True).print()
    assert [n[0] for n in _shape(_plan(other))] == ["Source: Collection Source", "Map", "Map, Map", "Filter, Map",
                                                   "Sink: Print to Std. Out", "Sink: Print to Std. Out"]

    other._sinks.clear()
    other.from_collection([1, 2]).map(lambda x: x).slot_sharing_group("g").filter(lambda x: True).print()
    assert [n[0] for n in _shape(_plan(other))] == ["Source: Collection Source", "Map", "Filter, Map",
                                                   "Sink: Print to Std. Out"]

    other._sinks.clear()
    other.from_collection([1, 2], Types.INT()).map(lambda x: x, Types.INT()).set_max_parallelism(10) \
        .map(lambda x: x, Types.INT()).print()
    assert [n[0] for n in _shape(_plan(other))] == ["Source: Collection Source", "Map", "Map", "Sink: Print to Std. Out"]


def test_a_python_timestamp_assigner_is_extracted_assigned_and_removed(env):
    from kindling.common import WatermarkStrategy
    from kindling.common.watermark_strategy import TimestampAssigner

    class FirstField(TimestampAssigner):
        def extract_timestamp(self, value, record_timestamp):
            return value[1]

    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(FirstField())
    env.from_collection([("a", 1)]).map(lambda x: x).assign_timestamps_and_watermarks(strategy) \
        .map(lambda x: x).key_by(lambda x: x[0]).reduce(lambda a, b: a).print()
    assert _shape(_plan(env)) == [  # as PyFlink 2.3 printed it
        ("Source: Collection Source", "Data Source", 1, []),
        ("Map, Extract-Timestamp", "Operator", 2, ["REBALANCE"]),
        ("Timestamps/Watermarks", "Operator", 2, ["FORWARD"]),
        ("Remove-Timestamp", "Operator", 2, ["FORWARD"]),
        ("Map, _stream_key_by_map_operator", "Operator", 2, ["FORWARD"]),
        ("Reduce, Map", "Operator", 2, ["HASH"]),
        ("Sink: Print to Std. Out", "Data Sink", 2, ["FORWARD"]),
    ]


def test_a_sources_watermark_strategy_is_part_of_the_source(env):
    from kindling.common import WatermarkStrategy
    from kindling.datastream.connectors.number_seq import NumberSequenceSource

    env.from_source(NumberSequenceSource(0, 3), WatermarkStrategy.for_monotonous_timestamps(), "seq") \
        .map(lambda x: x, Types.LONG()).print()
    assert _shape(_plan(env)) == [("Source: seq", "Data Source", 2, []), ("Map", "Operator", 2, ["FORWARD"]),
                                  ("Sink: Print to Std. Out", "Data Sink", 2, ["FORWARD"])]


def test_key_by_right_after_the_collection_source_runs_at_its_parallelism(env):
    env.from_collection([("a", 1)]).key_by(lambda x: x[0]).sum(1).print()
    assert _shape(_plan(env))[1:3] == [("_stream_key_by_map_operator", "Operator", 1, ["FORWARD"]),
                                       ("Reduce, Map", "Operator", 2, ["HASH"])]


def test_json_can_be_evaled_back_as_pyflinks_tests_do(env):
    source = env.from_collection([1, 2]).force_non_parallel()
    source.map(lambda x: x).set_parallelism(3).uid("m").add_sink(_Collect())
    text = execution_plan_json(env._sinks, env.get_parallelism())
    plan = eval(text)  # PyFlink's tests read the plan with eval
    assert plan == json.loads(text)
    assert plan["nodes"][0]["parallelism"] == 1
    assert plan["nodes"][1]["parallelism"] == 3
    for word in ("true", "false", "null"):
        assert word not in text


def test_get_execution_plan_of_the_environment_is_flinks(env):
    env.from_collection([1]).map(lambda x: x).print()
    plan = eval(env.get_execution_plan())
    assert [n["pact"] for n in plan["nodes"]] == ["Data Source", "Operator", "Data Sink"]


def test_union_is_not_a_node_its_consumer_reads_every_input(env):
    a, b, c = (env.from_collection([i]) for i in range(3))
    c.union(a, b).map(lambda x: x + 1).add_sink(_Collect())
    plan = _plan(env)
    sources = sorted(n["id"] for n in plan["nodes"] if n["pact"] == "Data Source")
    operators = [n for n in plan["nodes"] if n["pact"] == "Operator"]
    assert len(operators) == 1 and operators[0]["type"] == "Map"
    assert sorted(p["id"] for p in operators[0]["predecessors"]) == sources
    assert {p["ship_strategy"] for p in operators[0]["predecessors"]} == {"REBALANCE"}


def test_sink_function_is_one_data_sink_node(env):
    env.from_collection([1]).map(lambda x: x).add_sink(_Collect())
    assert _shape(_plan(env)) == [("Source: Collection Source", "Data Source", 1, []),
                                  ("Map", "Operator", 2, ["REBALANCE"]),
                                  ("Sink: _Collect", "Data Sink", 2, ["FORWARD"])]


def test_side_output_consumers_read_the_emitting_operator_through_a_map(env):
    tag = OutputTag("side", Types.STRING())

    class Split(ProcessFunction):
        def process_element(self, value, ctx):
            yield tag, str(value)

    keyed = env.from_collection([("a", 1)]).key_by(lambda x: x[0]).process(_Keyed())
    processed = keyed.process(Split())
    processed.get_side_output(tag).print()
    plan = _plan(env)
    by_type = {n["type"]: n for n in plan["nodes"]}
    # as PyFlink 2.3 printed it: get_side_output maps the side output; the process chains with the
    # keyed process, whose only consumer it is
    assert set(by_type) == {"Source: Collection Source", "_stream_key_by_map_operator", "KEYED PROCESS, PROCESS",
                            "Map", "Sink: Print to Std. Out"}
    emitter = by_type["KEYED PROCESS, PROCESS"]
    assert by_type["Sink: Print to Std. Out"]["predecessors"][0]["id"] == by_type["Map"]["id"]
    assert by_type["Map"]["predecessors"] == [{"id": emitter["id"], "ship_strategy": "FORWARD", "side": "second"}]
    assert by_type["Map"]["spark_stage"] == emitter["spark_stage"]


def test_windows_are_named_by_their_assigner(env):
    from kindling.common.time import Time
    from kindling.datastream.window import TumblingEventTimeWindows

    keyed = env.from_collection([("a", 1)]).key_by(lambda x: x[0])
    keyed.window(TumblingEventTimeWindows.of(Time.milliseconds(5))).reduce(lambda a, b: a).print()
    keyed.count_window(2).reduce(lambda a, b: a).print()
    types = [n["type"] for n in _plan(env)["nodes"] if n["pact"] == "Operator"]
    assert sorted(types) == ["CountTumblingWindowAssigner, Map", "TumblingEventTimeWindows, Map",
                             "_stream_key_by_map_operator"]


def test_a_keyed_stream_read_as_a_plain_stream_goes_through_the_values_operator():
    source = StreamExecutionEnvironment.get_execution_environment().from_collection([1])._transformation
    key_by = KeyByTransformation(name="KeyBy", inputs=[source], key_selector=lambda x: x)
    sink = SinkTransformation(name="Print to Std. Out", inputs=[key_by], sink=PrintSinkSpec())
    nodes = execution_plan([sink], 2)["nodes"]
    assert [n["type"] for n in nodes] == ["Source: Collection Source", "_stream_key_by_map_operator",
                                          "_keyed_stream_values_operator, Map", "Sink: Print to Std. Out"]
    assert nodes[2]["predecessors"] == [{"id": key_by.id, "ship_strategy": "HASH", "side": "second"}]
    assert nodes[3]["predecessors"][0]["id"] == nodes[2]["id"]
    assert len({n["id"] for n in nodes}) == 4


def test_partitioning_methods_give_their_strategy_to_the_consumer(env):
    ds = env.from_collection([1, 2, 3])
    ds.shuffle().map(lambda x: x + 1).rescale().map(lambda x: x * 10).rebalance().forward().print()
    nodes = _plan(env)["nodes"]
    # as PyFlink 2.3 printed it: print()'s Map reads through rebalance().forward(), so it does not chain
    assert _shape({"nodes": nodes}) == [("Source: Collection Source", "Data Source", 1, []),
                                        ("Map", "Operator", 2, ["SHUFFLE"]), ("Map", "Operator", 2, ["RESCALE"]),
                                        ("Map", "Operator", 2, ["FORWARD"]),
                                        ("Sink: Print to Std. Out", "Data Sink", 2, ["FORWARD"])]


def test_a_union_of_keyed_streams_reads_each_through_the_values_operator(env):
    ds_1 = env.from_collection([1, 2, 3])
    ds_2 = env.from_collection([4, 5, 6])
    ds_1.key_by(lambda x: x).union(ds_2.key_by(lambda x: x)).add_sink(_Collect())
    nodes = _plan(env)["nodes"]
    values = sorted(n["id"] for n in nodes if n["type"] == "_keyed_stream_values_operator")
    sink = [n for n in nodes if n["pact"] == "Data Sink"][0]
    assert len(values) == 2 and sorted(p["id"] for p in sink["predecessors"]) == values


def test_connected_streams_have_pyflinks_co_operator_nodes(env):
    from kindling.datastream import CoMapFunction, KeyedCoProcessFunction

    class Join(KeyedCoProcessFunction):
        def process_element1(self, value, ctx):
            yield value

        def process_element2(self, value, ctx):
            yield value

    class Both(CoMapFunction):
        def map1(self, value):
            return value

        def map2(self, value):
            return value

    a = env.from_collection([1, 2], Types.INT())
    b = env.from_collection([3, 4], Types.INT())
    a.connect(b).key_by(lambda v: v, lambda v: v).process(Join(), Types.INT()).print()
    a.connect(b).map(Both(), Types.INT()).print()
    # as PyFlink 2.3 printed it for the same job
    assert _shape(_plan(env)) == [
        ("Source: Collection Source", "Data Source", 1, []),
        ("Source: Collection Source", "Data Source", 1, []),
        ("_stream_key_by_map_operator", "Operator", 1, ["FORWARD"]),
        ("_stream_key_by_map_operator", "Operator", 1, ["FORWARD"]),
        ("Keyed Co-Process", "Operator", 2, ["HASH", "HASH"]),
        ("Co-Map", "Operator", 2, ["REBALANCE", "REBALANCE"]),
        ("Sink: Print to Std. Out", "Data Sink", 2, ["FORWARD"]),
        ("Sink: Print to Std. Out", "Data Sink", 2, ["FORWARD"]),
    ]


def test_parallelisms_and_strategies_follow_the_rules_the_job_runs_by(env):
    """As PyFlink 2.3 plans it: the timestamp assigner runs at its input's parallelism, a change of
    parallelism rebalances, and forward between different parallelisms is refused."""
    from kindling.common import WatermarkStrategy

    env.from_collection([1, 2, 3]).assign_timestamps_and_watermarks(WatermarkStrategy.for_monotonous_timestamps()) \
        .map(lambda x: x).set_parallelism(3).print()
    assert _shape(_plan(env)) == [("Source: Collection Source", "Data Source", 1, []),
                                  ("Timestamps/Watermarks", "Operator", 1, ["FORWARD"]),
                                  ("Map", "Operator", 3, ["REBALANCE"]),
                                  ("Map", "Operator", 2, ["REBALANCE"]),
                                  ("Sink: Print to Std. Out", "Data Sink", 2, ["FORWARD"])]
    other = StreamExecutionEnvironment.get_execution_environment()
    other.set_parallelism(2)
    other.from_collection([1, 2, 3]).forward().map(lambda x: x).print()
    with pytest.raises(ValueError, match="Forward partitioning does not allow change of parallelism"):
        _plan(other)


def test_a_collection_source_refuses_another_parallelism_as_in_flink(env):
    source = env.from_collection([1, 2, 3])
    with pytest.raises(ValueError, match="The parallelism of non parallel operator must be 1"):
        source.set_parallelism(2)
    assert source.set_parallelism(1) is source
