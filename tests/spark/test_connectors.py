"""The table of connectors' translations (kindling/spark/connectors.py): every source and sink spec
of the job graph has one, found by its type, and a spec without one is refused by name."""
import inspect

import pytest

from kindling.graph import specs
from kindling.spark.compiler import Compiler
from kindling.spark.connectors import sink_translation, source_translation, writer_for
from kindling.spark.exit_buffers import ExitBuffer
from kindling.spark.table.aggregation import AggregationSinkSpec
from kindling.spark.stage_plan import ConnectorExit


def _spec_types(base: type) -> list[type]:
    return [cls for _, cls in inspect.getmembers(specs, inspect.isclass) if issubclass(cls, base) and cls is not base]


@pytest.mark.parametrize("spec_type", _spec_types(specs.SourceSpec), ids=lambda t: t.__name__)
def test_every_source_spec_has_a_translation(spec_type):
    assert callable(source_translation(spec_type.__new__(spec_type)).frame)


@pytest.mark.parametrize("spec_type", _spec_types(specs.SinkSpec) + [AggregationSinkSpec], ids=lambda t: t.__name__)
def test_every_sink_spec_has_a_writer(spec_type):
    translation = sink_translation(spec_type.__new__(spec_type))
    assert callable(translation.writer)
    if translation.stage_exit is not None:  # the stage writes the records itself, through its own exit buffer
        assert issubclass(translation.stage_exit, ConnectorExit) and issubclass(translation.stage_buffer, ExitBuffer)
        assert callable(translation.in_stage)


def test_a_subclass_of_a_spec_is_translated_as_its_base():
    class MyPrintSpec(specs.PrintSinkSpec):
        pass

    assert sink_translation(MyPrintSpec()) is sink_translation(specs.PrintSinkSpec())


def test_a_spec_without_a_translation_is_refused_by_name():
    class Elsewhere(specs.SinkSpec):
        pass

    with pytest.raises(TypeError, match="no Spark translation for the sink .*Elsewhere"):
        writer_for(Elsewhere(), Compiler)
