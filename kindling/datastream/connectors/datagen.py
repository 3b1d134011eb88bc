"""Flink's DataGeneratorSource: records made by a function from their index, for demos, tests
and load generation. (PyFlink 2.3 has it in Java only; Kindling's is Flink's, in Python.)

Example::

    source = DataGeneratorSource(lambda i: Row(i % 10, i), 1000, RateLimiterStrategy.per_second(100),
                                 Types.ROW([Types.INT(), Types.LONG()]))
    env.from_source(source, WatermarkStrategy.no_watermarks(), "Generator")
"""
from __future__ import annotations

from typing import Any, Callable

from kindling.common.typeinfo import TypeInformation
from kindling.datastream.connectors.base import Source
from kindling.datastream.functions import Function
from kindling.graph.specs import DataGenSourceSpec

__all__ = ["DataGeneratorSource", "GeneratorFunction", "RateLimiterStrategy"]

#: Java's Long.MAX_VALUE: a count this large (Flink's idiom for "endless") makes an unbounded source
UNBOUNDED = 2 ** 63 - 1


class GeneratorFunction(Function):
    """Makes the record of index ``i`` (0, 1, 2, ...); a plain callable ``i -> record`` works too."""

    def map(self, value: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must override map(value)")


class RateLimiterStrategy:
    """How fast a DataGeneratorSource emits: at most ``per_second(n)`` records a second over all
    its parallel splits, or ``no_op()`` (as fast as it is read)."""

    def __init__(self, records_per_second: float | None):
        self.records_per_second = records_per_second

    @staticmethod
    def per_second(records_per_second: float) -> "RateLimiterStrategy":
        if isinstance(records_per_second, bool) or not isinstance(records_per_second, (int, float)) \
                or records_per_second <= 0:
            raise ValueError(f"RateLimiterStrategy.per_second needs a positive rate, got {records_per_second!r}")
        return RateLimiterStrategy(float(records_per_second))

    @staticmethod
    def no_op() -> "RateLimiterStrategy":
        return RateLimiterStrategy(None)


class DataGeneratorSource(Source):
    """The records ``generator_function(i)`` for ``0 <= i < count``, in ``parallelism`` splits of
    consecutive indexes; bounded, unless ``count`` is None or ``2**63 - 1`` (Flink's Long.MAX_VALUE),
    then it goes on until the job is cancelled. Offsets are in Spark's checkpoint: a restarted job
    goes on from the next index. ``type_info`` may also come third, as in Flink's constructor
    without a rate limiter."""

    def __init__(self, generator_function: GeneratorFunction | Callable[[int], Any], count: int | None,
                 rate_limiter_strategy: RateLimiterStrategy | TypeInformation | None = None,
                 type_info: TypeInformation | None = None):
        if isinstance(rate_limiter_strategy, TypeInformation) and type_info is None:
            rate_limiter_strategy, type_info = None, rate_limiter_strategy
        if not callable(getattr(generator_function, "map", generator_function)):
            raise TypeError(f"DataGeneratorSource needs a GeneratorFunction or a callable index -> record, "
                            f"got {generator_function!r}")
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
            raise ValueError(f"DataGeneratorSource needs a count >= 0 (or None: endless), got {count!r}")
        if rate_limiter_strategy is not None and not isinstance(rate_limiter_strategy, RateLimiterStrategy):
            raise TypeError(f"rate_limiter_strategy must be a RateLimiterStrategy, got {rate_limiter_strategy!r}")
        if type_info is not None and not isinstance(type_info, TypeInformation):
            raise TypeError(f"type_info must be a TypeInformation such as Types.ROW([...]), got {type_info!r}")
        from kindling.datastream.picklable import check_picklable

        check_picklable(generator_function, "generator function", "DataGeneratorSource")
        rate = rate_limiter_strategy.records_per_second if rate_limiter_strategy is not None else None
        super().__init__(DataGenSourceSpec(generator=generator_function, count=None if count == UNBOUNDED else count,
                                           rate=rate), type_info)
