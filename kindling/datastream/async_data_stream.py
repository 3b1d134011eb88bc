"""``AsyncDataStream``: async I/O on a stream, as in ``pyflink.datastream.async_data_stream``.

The ``AsyncFunction`` runs inside the Spark task of the stream's stage, fused with its
neighbours: many ``async_invoke`` calls are in flight at once on an asyncio event loop, so a
slow lookup service does not serialize the stream (see ``kindling/runtime/async_wait.py``).
"""
from __future__ import annotations

import inspect
from typing import Any

from kindling.common.typeinfo import TypeInformation
from kindling.datastream import async_retry_strategies
from kindling.datastream.data_stream import DataStream, _check_type_info
from kindling.datastream.picklable import check_picklable
from kindling.datastream.functions import AsyncFunction, AsyncFunctionDescriptor, AsyncRetryStrategy

OPERATOR_NAME = "async wait operator"  # as PyFlink names it


class AsyncDataStream:
    """Applies an :class:`AsyncFunction` to a data stream.

    Example::

        class Lookup(AsyncFunction):
            async def async_invoke(self, value):
                return [await client.get(value)]

        AsyncDataStream.unordered_wait(ds, Lookup(), Time.seconds(10), capacity=100,
                                       output_type=Types.STRING())
    """

    @staticmethod
    def unordered_wait(data_stream: DataStream, async_function: AsyncFunction, timeout: Any,
                       capacity: int = 100, output_type: TypeInformation = None) -> DataStream:
        """Outputs in the order results complete (never past a watermark); ``timeout`` (a
        ``Time``) bounds each element, ``capacity`` the elements in flight per parallel instance."""
        return AsyncDataStream.unordered_wait_with_retry(
            data_stream, async_function, timeout, async_retry_strategies.NO_RETRY_STRATEGY, capacity, output_type)

    @staticmethod
    def unordered_wait_with_retry(data_stream: DataStream, async_function: AsyncFunction, timeout: Any,
                                  async_retry_strategy: AsyncRetryStrategy, capacity: int = 100,
                                  output_type: TypeInformation = None) -> DataStream:
        """As :meth:`unordered_wait`, attempting ``async_invoke`` again as the strategy says."""
        return AsyncDataStream._wait(data_stream, async_function, timeout, async_retry_strategy, capacity,
                                     output_type, AsyncFunctionDescriptor.OutputMode.UNORDERED)

    @staticmethod
    def ordered_wait(data_stream: DataStream, async_function: AsyncFunction, timeout: Any,
                     capacity: int = 100, output_type: TypeInformation = None) -> DataStream:
        """Outputs in the order of the input elements; otherwise as :meth:`unordered_wait`."""
        return AsyncDataStream.ordered_wait_with_retry(
            data_stream, async_function, timeout, async_retry_strategies.NO_RETRY_STRATEGY, capacity, output_type)

    @staticmethod
    def ordered_wait_with_retry(data_stream: DataStream, async_function: AsyncFunction, timeout: Any,
                                async_retry_strategy: AsyncRetryStrategy, capacity: int = 100,
                                output_type: TypeInformation = None) -> DataStream:
        """As :meth:`ordered_wait`, attempting ``async_invoke`` again as the strategy says."""
        return AsyncDataStream._wait(data_stream, async_function, timeout, async_retry_strategy, capacity,
                                     output_type, AsyncFunctionDescriptor.OutputMode.ORDERED)

    @staticmethod
    def _wait(data_stream: DataStream, async_function: AsyncFunction, timeout: Any,
              async_retry_strategy: AsyncRetryStrategy, capacity: int, output_type: TypeInformation,
              output_mode: AsyncFunctionDescriptor.OutputMode) -> DataStream:
        AsyncDataStream._validate(async_function, timeout, async_retry_strategy, capacity)
        _check_type_info(output_type, OPERATOR_NAME)
        descriptor = AsyncFunctionDescriptor(async_function, timeout, capacity, async_retry_strategy, output_mode)
        check_picklable(descriptor, "function", OPERATOR_NAME)
        return data_stream._chain("async", descriptor, OPERATOR_NAME, output_type)

    @staticmethod
    def _validate(async_function: AsyncFunction, timeout: Any, async_retry_strategy: AsyncRetryStrategy,
                  capacity: int) -> None:
        if not isinstance(async_function, AsyncFunction):
            raise TypeError(f"AsyncDataStream expects an instance of AsyncFunction, got {async_function!r}")
        if not inspect.iscoroutinefunction(async_function.async_invoke):
            raise TypeError(f"Method 'async_invoke' of class '{type(async_function).__name__}' should be "
                            f"declared as 'async def'.")
        if not hasattr(timeout, "to_milliseconds"):
            raise TypeError(f"timeout must be a Time such as Time.seconds(10), got {timeout!r}")
        if not isinstance(capacity, int) or capacity <= 0:
            raise ValueError(f"capacity (the most elements in flight) must be a positive int, got {capacity!r}")
        if async_retry_strategy is None:
            raise ValueError("Async retry strategy should not be None: use AsyncRetryStrategy.no_restart().")
        if async_retry_strategy is not async_retry_strategies.NO_RETRY_STRATEGY and timeout.to_milliseconds() <= 0:
            raise ValueError("Timeout should be configured when do async with retry.")
        if async_retry_strategy.get_retry_predicate() is None:
            raise ValueError(f"Retry predicate of the async retry strategy "
                             f"'{type(async_retry_strategy).__name__}' is None.")
