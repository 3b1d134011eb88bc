"""Ready-made retry predicates for async I/O, as in ``pyflink.datastream.async_retry_predicates``.

Use them in a retry strategy, e.g. ``functools.partial(exception_type_predicate,
expected_error_type=TimeoutError)``.
"""
from __future__ import annotations

from typing import Any, List, Optional


def empty_result_predicate(result: Optional[List[Any]]) -> bool:
    """Retries when ``async_invoke`` returned no outputs."""
    return result is None or len(result) == 0


def has_exception_predicate(error: Optional[BaseException]) -> bool:
    """Retries on any exception."""
    return error is not None


def exception_type_predicate(error: Optional[BaseException], expected_error_type: type) -> bool:
    """Retries on exceptions of ``expected_error_type``."""
    return isinstance(error, expected_error_type)
