"""``pyflink.table.ResultKind``: whether a statement's result is a plain ``OK`` or has content."""
from __future__ import annotations

__all__ = ["ResultKind"]


class ResultKind:
    """``SUCCESS`` (DDL: the result is "OK") or ``SUCCESS_WITH_CONTENT`` (DML, queries), as PyFlink's ints."""
    SUCCESS = 0
    SUCCESS_WITH_CONTENT = 1
