"""The build-time check that a user function can be shipped to Spark's Python workers."""
from __future__ import annotations

from typing import Any

import cloudpickle


def check_picklable(obj: Any, what: str, operator: str) -> None:
    """Fails at build time when a function cannot be shipped to Spark workers."""
    try:
        cloudpickle.dumps(obj)
    except Exception as exc:
        label = getattr(obj, "__qualname__", None) or type(obj).__qualname__
        raise TypeError(
            f"the {what} {label!r} of operator '{operator}' cannot be pickled, so it cannot run on "
            f"Spark workers: {exc}. Keep non-picklable resources (connections, locks, files) out of "
            f"the function's fields and closure, and create them in open()."
        ) from None
