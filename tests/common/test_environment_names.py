"""Names PyFlink jobs and tests still use on the environment: time characteristic, operator
chaining, slot sharing groups, and the methods Kindling refuses with a clear reason."""
from __future__ import annotations

import pytest

from kindling.common import Configuration
from kindling.common.unsupported import UnsupportedError
from kindling.datastream import (MemorySize, SlotSharingGroup, SourceFunction, StreamExecutionEnvironment,
                                 TimeCharacteristic)


def _env() -> StreamExecutionEnvironment:
    return StreamExecutionEnvironment.get_execution_environment()


def test_time_characteristic_is_recorded_and_configurable():
    env = _env()
    assert env.get_stream_time_characteristic() is TimeCharacteristic.EventTime
    env.set_stream_time_characteristic(TimeCharacteristic.ProcessingTime)
    assert env.get_stream_time_characteristic() is TimeCharacteristic.ProcessingTime
    with pytest.raises(TypeError, match="expects a TimeCharacteristic"):
        env.set_stream_time_characteristic("EventTime")
    configured = _env()
    conf = Configuration()
    conf.set_string("pipeline.time-characteristic", "IngestionTime")
    conf.set_string("pipeline.operator-chaining", "false")
    configured.configure(conf)
    assert configured.get_stream_time_characteristic() is TimeCharacteristic.IngestionTime
    assert not configured.is_chaining_enabled()


def test_operator_chaining_can_be_disabled():
    env = _env()
    assert env.is_chaining_enabled()
    assert env.disable_operator_chaining() is env
    assert not env.is_chaining_enabled()


def test_slot_sharing_groups_are_recorded():
    group = SlotSharingGroup.builder("heavy").set_cpu_cores(2.0).set_task_heap_memory_mb(200) \
        .set_managed_memory(MemorySize(bytes_size=1 << 30)).set_external_resource("gpu", 1.0).build()
    assert (group.get_name(), group.get_cpu_cores(), group.get_task_heap_memory(),
            group.get_managed_memory().get_gibi_bytes(), group.get_task_off_heap_memory(),
            group.get_external_resources()) == ("heavy", 2.0, MemorySize.of_mebi_bytes(200), 1, None, {"gpu": 1.0})
    assert group == SlotSharingGroup.builder("heavy").set_cpu_cores(2.0).set_task_heap_memory_mb(200) \
        .set_managed_memory(MemorySize.of_mebi_bytes(1024)).set_external_resource("gpu", 1.0).build()
    assert MemorySize.of_mebi_bytes(1) < MemorySize.of_mebi_bytes(2)
    env = _env()
    assert env.register_slot_sharing_group(group) is env
    with pytest.raises(TypeError, match="expects a SlotSharingGroup"):
        env.register_slot_sharing_group("heavy")
    with pytest.raises(UnsupportedError, match="JVM"):
        group.get_java_slot_sharing_group()


@pytest.mark.parametrize("call, reason", [
    (lambda env: env.add_source(None), "from_source"),
    (lambda env: env.register_cached_file("a.txt", "a"), "distributed cache"),
    (lambda env: SourceFunction("org.example.MySource"), "from_source"),
])
def test_refused_methods_say_why(call, reason):
    with pytest.raises(UnsupportedError, match=f"is not supported by Kindling yet: .*{reason}"):
        call(_env())
