"""Flink's window operator in pure Python: :class:`WindowOperator` (a KeyedOperator)."""
from kindling.runtime.window.window_operator import (
    CONTENTS_AGGREGATE, CONTENTS_LIST, CONTENTS_REDUCE, WindowOperator,
)

__all__ = ['WindowOperator', 'CONTENTS_REDUCE', 'CONTENTS_AGGREGATE', 'CONTENTS_LIST']
