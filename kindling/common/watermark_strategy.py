"""Placeholder ``WatermarkStrategy`` and ``TimestampAssigner`` (to be extended)."""
from typing import Any, Callable, Optional, Union

from kindling.common.time import Duration, to_millis

__all__ = ['WatermarkStrategy', 'TimestampAssigner']


class TimestampAssigner(object):
    """Extracts an event timestamp (epoch milliseconds) from a stream element."""

    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        raise NotImplementedError


class _FunctionTimestampAssigner(TimestampAssigner):
    def __init__(self, func: Callable[[Any, int], int]) -> None:
        self._func = func

    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return self._func(value, record_timestamp)


class WatermarkStrategy(object):
    """How a source assigns event timestamps and emits watermarks.

    Example: ``WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(5))
    .with_timestamp_assigner(MyAssigner())``.
    """

    def __init__(self, kind: str = 'none', max_out_of_orderness_ms: int = 0) -> None:
        self.kind = kind
        self.max_out_of_orderness_ms = max_out_of_orderness_ms
        self.timestamp_assigner: Optional[TimestampAssigner] = None
        self.idleness_ms: Optional[int] = None

    @staticmethod
    def for_monotonous_timestamps() -> 'WatermarkStrategy':
        return WatermarkStrategy('monotonous', 0)

    @staticmethod
    def for_bounded_out_of_orderness(max_out_of_orderness: Duration) -> 'WatermarkStrategy':
        return WatermarkStrategy('bounded', to_millis(max_out_of_orderness))

    @staticmethod
    def no_watermarks() -> 'WatermarkStrategy':
        return WatermarkStrategy('none', 0)

    def with_timestamp_assigner(self, timestamp_assigner: Union[TimestampAssigner, Callable[[Any, int], int]]
                                ) -> 'WatermarkStrategy':
        if not isinstance(timestamp_assigner, TimestampAssigner):
            if not callable(timestamp_assigner):
                raise TypeError("expected a TimestampAssigner or a function(value, record_timestamp)")
            timestamp_assigner = _FunctionTimestampAssigner(timestamp_assigner)
        self.timestamp_assigner = timestamp_assigner
        return self

    def with_idleness(self, idle_timeout: Duration) -> 'WatermarkStrategy':
        self.idleness_ms = to_millis(idle_timeout)
        return self
