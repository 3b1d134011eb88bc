"""Checks of the sizes, slides, gaps and counts given to window assigners and triggers."""
from kindling.common.time import to_millis


def millis(value, what: str) -> int:
    """``value`` (a Time, a Duration or int milliseconds) in ms; ``what`` names it in errors."""
    try:
        return to_millis(value)
    except TypeError:
        raise TypeError("%s must be a Time, a Duration or int milliseconds, got %r"
                        % (what, value)) from None


def positive_count(value, what: str) -> int:
    """``value`` checked to be a positive int number of elements."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int number of elements, got %r" % (what, value))
    if value <= 0:
        raise ValueError("%s must be positive, got %d" % (what, value))
    return value
