"""What window aggregations' plans share: where window properties find a fired window's bounds, the
columns a window TVF adds, the slices of sliding windows. Their operators:
kindling/runtime/table/window_aggregate.py."""
from __future__ import annotations

import math

__all__ = ["WINDOW_BOUNDS", "WINDOW_COLUMNS", "slice_of"]

#: where window properties (``col('w').start``) find the fired window's bounds
WINDOW_BOUNDS = "__window"
#: the columns a window table-valued function adds, and the window bound each one is
WINDOW_COLUMNS = {"window_start": "start", "window_end": "end", "window_time": "rowtime"}


def slice_of(size_ms: int, slide_ms: int) -> int:
    """The slices a sliding window's rows are added by, as Flink's sliced windows: the greatest
    common divisor of size and slide."""
    return math.gcd(size_ms, slide_ms)
