"""Keyed state interfaces, state descriptors and state TTL, as in ``pyflink.datastream.state``.

A function on a :class:`KeyedStream` obtains state from its runtime context, usually in
``open``; the state object then always shows the value of the key being processed::

    class CountPerKey(KeyedProcessFunction):
        def open(self, ctx):
            ttl = StateTtlConfig.new_builder(Time.minutes(10)).build()
            desc = ValueStateDescriptor("count", Types.LONG())
            desc.enable_time_to_live(ttl)
            self.count = ctx.get_state(desc)

        def process_element(self, value, ctx):
            n = (self.count.value() or 0) + 1
            self.count.update(n)
            yield ctx.get_current_key(), n

Kindling keeps all states of one key, and the key's timers, in one record that Spark stores
(see ``kindling.runtime.key_state``); TTL is implemented by Kindling itself, on processing
time, per value, per list element and per map entry.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from enum import Enum
from typing import Dict, Generic, Iterable, Iterator, List, Optional, Tuple, TypeVar

from kindling.common.time import Duration, Time, to_millis
from kindling.common.typeinfo import TypeInformation, Types

__all__ = [
    'State',
    'ValueState',
    'AppendingState',
    'MergingState',
    'ListState',
    'MapState',
    'ReducingState',
    'AggregatingState',
    'ReadOnlyBroadcastState',
    'BroadcastState',
    'OperatorStateStore',
    'StateDescriptor',
    'ValueStateDescriptor',
    'ListStateDescriptor',
    'MapStateDescriptor',
    'ReducingStateDescriptor',
    'AggregatingStateDescriptor',
    'StateTtlConfig',
]

T = TypeVar('T')
K = TypeVar('K')
V = TypeVar('V')
IN = TypeVar('IN')
OUT = TypeVar('OUT')


class OperatorStateStore(ABC):
    """Gives access to operator (non-keyed) state; only broadcast state is supported."""

    @abstractmethod
    def get_broadcast_state(self, state_descriptor: 'MapStateDescriptor') -> 'BroadcastState':
        """The broadcast state described by ``state_descriptor``, readable and writable."""


class State(ABC):
    """Base of every kind of keyed state."""

    @abstractmethod
    def clear(self) -> None:
        """Removes the value of the current key."""


class ValueState(State, Generic[T]):
    """One value per key: ``value()`` reads it (None when absent), ``update(v)`` writes it;
    ``update(None)`` removes it."""

    @abstractmethod
    def value(self) -> T:
        """The value of the current key, or None."""

    @abstractmethod
    def update(self, value: T) -> None:
        """Sets the value of the current key; None clears it."""


class AppendingState(State, Generic[IN, OUT]):
    """State to which values are added and whose current content can be read."""

    @abstractmethod
    def get(self) -> OUT:
        """The current content for the current key."""

    @abstractmethod
    def add(self, value: IN) -> None:
        """Adds ``value`` to the state of the current key."""


class MergingState(AppendingState[IN, OUT]):
    """An :class:`AppendingState` whose instances can be merged (as windows merge)."""


class ReducingState(MergingState[T, T]):
    """State that folds every added value into one with a reduce function."""


class AggregatingState(MergingState[IN, OUT]):
    """State that folds added values into an accumulator with an AggregateFunction; ``get``
    returns ``get_result(accumulator)``."""


class ListState(MergingState[T, Iterable[T]]):
    """A list of values per key."""

    @abstractmethod
    def update(self, values: List[T]) -> None:
        """Replaces the list of the current key by ``values``."""

    @abstractmethod
    def add_all(self, values: List[T]) -> None:
        """Appends every value of ``values``."""

    def __iter__(self) -> Iterator[T]:
        return iter(self.get())


class MapState(State, Generic[K, V]):
    """A map per key."""

    @abstractmethod
    def get(self, key: K) -> V:
        """The value mapped to ``key``, or None."""

    @abstractmethod
    def put(self, key: K, value: V) -> None:
        """Maps ``key`` to ``value``."""

    @abstractmethod
    def put_all(self, dict_value: Dict[K, V]) -> None:
        """Copies every mapping of ``dict_value`` into the state."""

    @abstractmethod
    def remove(self, key: K) -> None:
        """Removes the mapping of ``key``."""

    @abstractmethod
    def contains(self, key: K) -> bool:
        """Whether ``key`` is mapped."""

    @abstractmethod
    def items(self) -> Iterable[Tuple[K, V]]:
        """All mappings."""

    @abstractmethod
    def keys(self) -> Iterable[K]:
        """All keys."""

    @abstractmethod
    def values(self) -> Iterable[V]:
        """All values."""

    @abstractmethod
    def is_empty(self) -> bool:
        """Whether there is no mapping."""

    def __getitem__(self, key: K) -> V:
        return self.get(key)

    def __setitem__(self, key: K, value: V) -> None:
        self.put(key, value)

    def __delitem__(self, key: K) -> None:
        self.remove(key)

    def __contains__(self, key: K) -> bool:
        return self.contains(key)

    def __iter__(self) -> Iterator[K]:
        return iter(self.keys())


class ReadOnlyBroadcastState(State, Generic[K, V]):
    """A read-only view of a :class:`BroadcastState`."""

    @abstractmethod
    def get(self, key: K) -> V: ...

    @abstractmethod
    def contains(self, key: K) -> bool: ...

    @abstractmethod
    def items(self) -> Iterable[Tuple[K, V]]: ...

    @abstractmethod
    def keys(self) -> Iterable[K]: ...

    @abstractmethod
    def values(self) -> Iterable[V]: ...

    @abstractmethod
    def is_empty(self) -> bool: ...

    def __getitem__(self, key: K) -> V:
        return self.get(key)

    def __contains__(self, key: K) -> bool:
        return self.contains(key)

    def __iter__(self) -> Iterator[K]:
        return iter(self.keys())


class BroadcastState(ReadOnlyBroadcastState[K, V]):
    """Map state of a broadcast stream; every parallel instance must store the same content."""

    @abstractmethod
    def put(self, key: K, value: V) -> None: ...

    @abstractmethod
    def put_all(self, dict_value: Dict[K, V]) -> None: ...

    @abstractmethod
    def remove(self, key: K) -> None: ...

    def __setitem__(self, key: K, value: V) -> None:
        self.put(key, value)

    def __delitem__(self, key: K) -> None:
        self.remove(key)


# ---------------------------------------------------------------------------------------------
# descriptors


class StateDescriptor(ABC):
    """Names a state and declares its type; passed to ``RuntimeContext.get_state`` and friends."""

    def __init__(self, name: str, type_info: Optional[TypeInformation]):
        if not isinstance(name, str) or not name:
            raise ValueError("a state descriptor needs a non-empty string name")
        self.name = name
        self.type_info = type_info
        self._ttl_config = None  # type: Optional[StateTtlConfig]

    def get_name(self) -> str:
        return self.name

    def enable_time_to_live(self, ttl_config: 'StateTtlConfig') -> None:
        """Lets values of this state expire after the configured time to live."""
        if not isinstance(ttl_config, StateTtlConfig):
            raise TypeError("enable_time_to_live expects a StateTtlConfig, got %r" % (ttl_config,))
        self._ttl_config = ttl_config

    def get_ttl_config(self) -> Optional['StateTtlConfig']:
        return self._ttl_config

    def __repr__(self) -> str:
        return '%s(%r, %r)' % (type(self).__name__, self.name, self.type_info)


class ValueStateDescriptor(StateDescriptor, Generic[T]):
    """Describes a :class:`ValueState`: ``ValueStateDescriptor("count", Types.LONG())``."""

    def __init__(self, name: str, value_type_info: Optional[TypeInformation]):
        super().__init__(name, value_type_info)


class ListStateDescriptor(StateDescriptor, Generic[T]):
    """Describes a :class:`ListState` by the type of its elements."""

    def __init__(self, name: str, elem_type_info: Optional[TypeInformation]):
        super().__init__(name, Types.LIST(elem_type_info) if elem_type_info is not None else None)
        self.elem_type_info = elem_type_info


class MapStateDescriptor(StateDescriptor, Generic[K, V]):
    """Describes a :class:`MapState` by the types of its keys and values."""

    def __init__(self, name: str, key_type_info: Optional[TypeInformation],
                 value_type_info: Optional[TypeInformation]):
        type_info = None
        if key_type_info is not None and value_type_info is not None:
            type_info = Types.MAP(key_type_info, value_type_info)
        super().__init__(name, type_info)
        self.key_type_info = key_type_info
        self.value_type_info = value_type_info


class ReducingStateDescriptor(StateDescriptor, Generic[T]):
    """Describes a :class:`ReducingState`: a ReduceFunction (or a two-argument callable) and
    the type of the values."""

    def __init__(self, name: str, reduce_function, type_info: Optional[TypeInformation]):
        super().__init__(name, type_info)
        from kindling.datastream.functions import ReduceFunction
        if not isinstance(reduce_function, ReduceFunction):
            if not callable(reduce_function):
                raise TypeError("The input must be a ReduceFunction or a callable function!")
        self._reduce_function = reduce_function

    def get_reduce_function(self):
        return self._reduce_function


class AggregatingStateDescriptor(StateDescriptor, Generic[IN, OUT]):
    """Describes an :class:`AggregatingState`: an AggregateFunction and the type of its
    accumulator."""

    def __init__(self, name: str, agg_function, state_type_info: Optional[TypeInformation]):
        super().__init__(name, state_type_info)
        from kindling.datastream.functions import AggregateFunction
        if not isinstance(agg_function, AggregateFunction):
            raise TypeError("The input must be a kindling.datastream.functions.AggregateFunction!")
        self._agg_function = agg_function

    def get_agg_function(self):
        return self._agg_function


# ---------------------------------------------------------------------------------------------
# TTL


class StateTtlConfig(object):
    """How long state values live. Build one with :meth:`new_builder`::

        ttl = (StateTtlConfig.new_builder(Time.seconds(30))
               .set_update_type(StateTtlConfig.UpdateType.OnReadAndWrite)
               .never_return_expired()
               .build())
        descriptor.enable_time_to_live(ttl)

    Expiry is judged on processing time; each value (list element, map entry) has its own
    last-access time.
    """

    class UpdateType(Enum):
        """When the last-access time of a value is refreshed."""

        Disabled = 0
        """TTL is off: values never expire."""
        OnCreateAndWrite = 1
        """On creation and on every write."""
        OnReadAndWrite = 2
        """On creation, on every write and on every read."""

    class StateVisibility(Enum):
        """Whether an expired value that is still stored may be returned."""

        ReturnExpiredIfNotCleanedUp = 0
        NeverReturnExpired = 1

    class TtlTimeCharacteristic(Enum):
        """The time scale of TTL; only processing time exists."""

        ProcessingTime = 0

    def __init__(self, update_type: 'StateTtlConfig.UpdateType',
                 state_visibility: 'StateTtlConfig.StateVisibility',
                 ttl_time_characteristic: 'StateTtlConfig.TtlTimeCharacteristic',
                 ttl: Time, cleanup_strategies: 'StateTtlConfig.CleanupStrategies'):
        self._update_type = update_type
        self._state_visibility = state_visibility
        self._ttl_time_characteristic = ttl_time_characteristic
        self._ttl = ttl
        self._cleanup_strategies = cleanup_strategies

    @staticmethod
    def new_builder(ttl: Time) -> 'StateTtlConfig.Builder':
        return StateTtlConfig.Builder(ttl)

    def get_update_type(self) -> 'StateTtlConfig.UpdateType':
        return self._update_type

    def get_state_visibility(self) -> 'StateTtlConfig.StateVisibility':
        return self._state_visibility

    def get_ttl(self) -> Time:
        return self._ttl

    def get_ttl_time_characteristic(self) -> 'StateTtlConfig.TtlTimeCharacteristic':
        return self._ttl_time_characteristic

    def is_enabled(self) -> bool:
        return self._update_type is not StateTtlConfig.UpdateType.Disabled

    def get_cleanup_strategies(self) -> 'StateTtlConfig.CleanupStrategies':
        return self._cleanup_strategies

    def get_ttl_millis(self) -> int:
        """The time to live in milliseconds (Kindling addition)."""
        return to_millis(self._ttl)

    def __repr__(self) -> str:
        return ("StateTtlConfig<update_type=%s, state_visibility=%s, ttl_time_characteristic=%s, "
                "ttl=%s>" % (self._update_type, self._state_visibility,
                             self._ttl_time_characteristic, self._ttl))

    class Builder(object):
        """Builds a :class:`StateTtlConfig`; defaults: OnCreateAndWrite, NeverReturnExpired,
        processing time, background cleanup on."""

        def __init__(self, ttl: Time):
            to_millis(ttl)  # validates
            self._ttl = ttl
            self._update_type = StateTtlConfig.UpdateType.OnCreateAndWrite
            self._state_visibility = StateTtlConfig.StateVisibility.NeverReturnExpired
            self._ttl_time_characteristic = StateTtlConfig.TtlTimeCharacteristic.ProcessingTime
            self._is_cleanup_in_background = True
            self._strategies = {}  # type: Dict

        def set_update_type(self, update_type: 'StateTtlConfig.UpdateType') -> 'StateTtlConfig.Builder':
            self._update_type = update_type
            return self

        def update_ttl_on_create_and_write(self) -> 'StateTtlConfig.Builder':
            return self.set_update_type(StateTtlConfig.UpdateType.OnCreateAndWrite)

        def update_ttl_on_read_and_write(self) -> 'StateTtlConfig.Builder':
            return self.set_update_type(StateTtlConfig.UpdateType.OnReadAndWrite)

        def set_state_visibility(self, state_visibility: 'StateTtlConfig.StateVisibility') \
                -> 'StateTtlConfig.Builder':
            self._state_visibility = state_visibility
            return self

        def return_expired_if_not_cleaned_up(self) -> 'StateTtlConfig.Builder':
            return self.set_state_visibility(StateTtlConfig.StateVisibility.ReturnExpiredIfNotCleanedUp)

        def never_return_expired(self) -> 'StateTtlConfig.Builder':
            return self.set_state_visibility(StateTtlConfig.StateVisibility.NeverReturnExpired)

        def set_ttl_time_characteristic(self, ttl_time_characteristic: 'StateTtlConfig.TtlTimeCharacteristic') \
                -> 'StateTtlConfig.Builder':
            self._ttl_time_characteristic = ttl_time_characteristic
            return self

        def use_processing_time(self) -> 'StateTtlConfig.Builder':
            return self.set_ttl_time_characteristic(StateTtlConfig.TtlTimeCharacteristic.ProcessingTime)

        def cleanup_full_snapshot(self) -> 'StateTtlConfig.Builder':
            """Kindling removes expired values whenever a key's state is written back."""
            self._strategies[StateTtlConfig.CleanupStrategies.Strategies.FULL_STATE_SCAN_SNAPSHOT] = \
                StateTtlConfig.CleanupStrategies.EMPTY_STRATEGY
            return self

        def cleanup_incrementally(self, cleanup_size: int,
                                  run_cleanup_for_every_record) -> 'StateTtlConfig.Builder':
            self._strategies[StateTtlConfig.CleanupStrategies.Strategies.INCREMENTAL_CLEANUP] = \
                StateTtlConfig.CleanupStrategies.IncrementalCleanupStrategy(
                    cleanup_size, run_cleanup_for_every_record)
            return self

        def cleanup_in_rocksdb_compact_filter(self, query_time_after_num_entries,
                                              periodic_compaction_time=None) -> 'StateTtlConfig.Builder':
            if periodic_compaction_time is None:
                periodic_compaction_time = Duration.of_days(30)
            self._strategies[StateTtlConfig.CleanupStrategies.Strategies.ROCKSDB_COMPACTION_FILTER] = \
                StateTtlConfig.CleanupStrategies.RocksdbCompactFilterCleanupStrategy(
                    query_time_after_num_entries, periodic_compaction_time)
            return self

        def disable_cleanup_in_background(self) -> 'StateTtlConfig.Builder':
            """Expired values are then removed only when read (unless a specific cleanup
            strategy is configured)."""
            self._is_cleanup_in_background = False
            return self

        def set_ttl(self, ttl: Time) -> 'StateTtlConfig.Builder':
            to_millis(ttl)
            self._ttl = ttl
            return self

        def build(self) -> 'StateTtlConfig':
            return StateTtlConfig(
                self._update_type, self._state_visibility, self._ttl_time_characteristic,
                self._ttl,
                StateTtlConfig.CleanupStrategies(dict(self._strategies), self._is_cleanup_in_background))

    class CleanupStrategies(object):
        """When expired values are removed besides on read."""

        class Strategies(Enum):
            FULL_STATE_SCAN_SNAPSHOT = 0
            INCREMENTAL_CLEANUP = 1
            ROCKSDB_COMPACTION_FILTER = 2

        class CleanupStrategy(ABC):
            """Base of cleanup strategy configurations."""

        class EmptyCleanupStrategy(CleanupStrategy):
            pass

        class IncrementalCleanupStrategy(CleanupStrategy):
            def __init__(self, cleanup_size: int, run_cleanup_for_every_record: bool):
                self._cleanup_size = cleanup_size
                self._run_cleanup_for_every_record = run_cleanup_for_every_record

            def get_cleanup_size(self) -> int:
                return self._cleanup_size

            def run_cleanup_for_every_record(self) -> bool:
                return self._run_cleanup_for_every_record

        class RocksdbCompactFilterCleanupStrategy(CleanupStrategy):
            def __init__(self, query_time_after_num_entries: int, periodic_compaction_time=None):
                self._query_time_after_num_entries = query_time_after_num_entries
                self._periodic_compaction_time = (periodic_compaction_time if periodic_compaction_time
                                                  is not None else Duration.of_days(30))

            def get_query_time_after_num_entries(self) -> int:
                return self._query_time_after_num_entries

            def get_periodic_compaction_time(self) -> Duration:
                return self._periodic_compaction_time

        EMPTY_STRATEGY = None  # set below

        def __init__(self, strategies: Dict, is_cleanup_in_background: bool):
            self._strategies = strategies
            self._is_cleanup_in_background = is_cleanup_in_background

        def is_cleanup_in_background(self) -> bool:
            return self._is_cleanup_in_background

        def in_full_snapshot(self) -> bool:
            return StateTtlConfig.CleanupStrategies.Strategies.FULL_STATE_SCAN_SNAPSHOT in self._strategies

        def get_incremental_cleanup_strategy(self):
            default = (StateTtlConfig.CleanupStrategies.IncrementalCleanupStrategy(5, False)
                       if self._is_cleanup_in_background else None)
            return self._strategies.get(
                StateTtlConfig.CleanupStrategies.Strategies.INCREMENTAL_CLEANUP, default)

        def get_rocksdb_compact_filter_cleanup_strategy(self):
            default = (StateTtlConfig.CleanupStrategies.RocksdbCompactFilterCleanupStrategy(1000)
                       if self._is_cleanup_in_background else None)
            return self._strategies.get(
                StateTtlConfig.CleanupStrategies.Strategies.ROCKSDB_COMPACTION_FILTER, default)

        def cleans_on_write_back(self) -> bool:
            """Whether Kindling removes expired values when a key's state is written back
            (true unless background cleanup is disabled and no strategy is configured)."""
            return self._is_cleanup_in_background or bool(self._strategies)


StateTtlConfig.CleanupStrategies.EMPTY_STRATEGY = StateTtlConfig.CleanupStrategies.EmptyCleanupStrategy()
