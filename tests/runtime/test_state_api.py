import pytest

from kindling.common.time import Duration, Time
from kindling.common.typeinfo import Types
from kindling.datastream.functions import AggregateFunction, ReduceFunction
from kindling.datastream.state import (
    AggregatingStateDescriptor, ListStateDescriptor, MapStateDescriptor, ReducingStateDescriptor,
    StateTtlConfig, ValueStateDescriptor,
)


class Avg(AggregateFunction):
    def create_accumulator(self):
        return (0, 0)

    def add(self, value, acc):
        return acc[0] + value, acc[1] + 1

    def get_result(self, acc):
        return acc[0] / acc[1]


def test_descriptors():
    v = ValueStateDescriptor("v", Types.LONG())
    assert v.get_name() == "v" and v.name == "v" and v.type_info == Types.LONG()
    lst = ListStateDescriptor("l", Types.STRING())
    assert lst.type_info == Types.LIST(Types.STRING())
    assert lst.elem_type_info == Types.STRING()
    m = MapStateDescriptor("m", Types.STRING(), Types.INT())
    assert m.type_info == Types.MAP(Types.STRING(), Types.INT())
    r = ReducingStateDescriptor("r", lambda a, b: a + b, Types.INT())
    assert r.get_reduce_function()(1, 2) == 3

    class Add(ReduceFunction):
        def reduce(self, a, b):
            return a + b
    assert isinstance(ReducingStateDescriptor("r", Add(), Types.INT()).get_reduce_function(), Add)
    a = AggregatingStateDescriptor("a", Avg(), Types.TUPLE([Types.LONG(), Types.LONG()]))
    assert isinstance(a.get_agg_function(), Avg)


def test_descriptor_argument_errors():
    with pytest.raises(TypeError):
        ReducingStateDescriptor("r", 42, Types.INT())
    with pytest.raises(TypeError):
        AggregatingStateDescriptor("a", lambda a: a, Types.INT())
    with pytest.raises(ValueError):
        ValueStateDescriptor("", Types.INT())
    with pytest.raises(TypeError):
        ValueStateDescriptor("v", Types.INT()).enable_time_to_live("1 day")


def test_ttl_builder_defaults():
    cfg = StateTtlConfig.new_builder(Time.seconds(1)).build()
    assert cfg.get_update_type() is StateTtlConfig.UpdateType.OnCreateAndWrite
    assert cfg.get_state_visibility() is StateTtlConfig.StateVisibility.NeverReturnExpired
    assert cfg.get_ttl_time_characteristic() is StateTtlConfig.TtlTimeCharacteristic.ProcessingTime
    assert cfg.get_ttl() == Time.seconds(1)
    assert cfg.get_ttl_millis() == 1000
    assert cfg.is_enabled()
    cs = cfg.get_cleanup_strategies()
    assert cs.is_cleanup_in_background()
    assert not cs.in_full_snapshot()
    assert cs.get_incremental_cleanup_strategy().get_cleanup_size() == 5
    assert cs.get_rocksdb_compact_filter_cleanup_strategy().get_query_time_after_num_entries() == 1000


def test_ttl_builder_setters():
    cfg = (StateTtlConfig.new_builder(Time.minutes(1))
           .update_ttl_on_read_and_write()
           .return_expired_if_not_cleaned_up()
           .cleanup_full_snapshot()
           .cleanup_incrementally(10, True)
           .cleanup_in_rocksdb_compact_filter(500)
           .disable_cleanup_in_background()
           .set_ttl(Time.seconds(2))
           .build())
    assert cfg.get_update_type() is StateTtlConfig.UpdateType.OnReadAndWrite
    assert cfg.get_state_visibility() is StateTtlConfig.StateVisibility.ReturnExpiredIfNotCleanedUp
    assert cfg.get_ttl_millis() == 2000
    cs = cfg.get_cleanup_strategies()
    assert not cs.is_cleanup_in_background()
    assert cs.in_full_snapshot()
    inc = cs.get_incremental_cleanup_strategy()
    assert inc.get_cleanup_size() == 10 and inc.run_cleanup_for_every_record()
    rocks = cs.get_rocksdb_compact_filter_cleanup_strategy()
    assert rocks.get_query_time_after_num_entries() == 500
    assert rocks.get_periodic_compaction_time() == Duration.of_days(30)
    assert cs.cleans_on_write_back()
    assert "OnReadAndWrite" in repr(cfg)


def test_ttl_disabled_and_no_background_cleanup():
    cfg = StateTtlConfig.new_builder(Time.seconds(1)).set_update_type(
        StateTtlConfig.UpdateType.Disabled).build()
    assert not cfg.is_enabled()
    cfg2 = StateTtlConfig.new_builder(Duration.of_millis(5)).disable_cleanup_in_background().build()
    cs = cfg2.get_cleanup_strategies()
    assert cs.get_incremental_cleanup_strategy() is None
    assert cs.get_rocksdb_compact_filter_cleanup_strategy() is None
    assert not cs.cleans_on_write_back()
    assert cfg2.get_ttl_millis() == 5


def test_enable_time_to_live():
    d = ValueStateDescriptor("v", Types.INT())
    assert d.get_ttl_config() is None
    cfg = StateTtlConfig.new_builder(Time.seconds(1)).build()
    d.enable_time_to_live(cfg)
    assert d.get_ttl_config() is cfg
