"""Exits as a tagged union (kindling/spark/stage_plan.py): each sink's exit is the variant of its
layout, holding what that layout needs, with that layout's columns."""
from kindling.common import Types
from kindling.common.serialization import Encoder
from kindling.graph.specs import CollectSinkSpec, DiscardSinkSpec, FileSinkSpec, PrintSinkSpec, SinkSpec
from kindling.spark.stage_plan import (CollectedExit, CountedExit, EncodedExit, KeyedExit, PickledExit, PrintExit,
                                       StreamExit, sink_exit)


def test_a_sink_s_exit_is_the_variant_of_its_layout(tmp_path):
    printing = sink_exit(PrintSinkSpec(identifier="out"), 0, "Print", Types.LONG(), 2)
    assert type(printing) is PrintExit and printing.line_prefix(1) == "out:2> "
    assert type(sink_exit(CollectSinkSpec(), 1, "Collect", None, 1)) is CollectedExit
    assert type(sink_exit(SinkSpec(), 1, "Custom", None, 1)) is PickledExit
    counted = sink_exit(DiscardSinkSpec(), 2, "Discard", None, 1)
    assert type(counted) is CountedExit and counted.value_fields() == []
    spec = FileSinkSpec(base_path=str(tmp_path), encoder=Encoder.simple_string_encoder())
    encoded = sink_exit(spec, 3, "File", Types.STRING(), 1)
    assert type(encoded) is EncodedExit and encoded.encoder is spec.encoder
    assert [f.name for f in encoded.value_fields()] == ["f0"]


def test_only_streams_between_stages_carry_control_rows():
    assert StreamExit.carries_control and KeyedExit.carries_control
    assert not any(cls.carries_control for cls in (CountedExit, PickledExit, CollectedExit, EncodedExit, PrintExit))
