"""Flink's window operator in pure Python: :class:`WindowOperator` (a KeyedOperator).

:mod:`.window_operator` the operator; :mod:`.contexts` the contexts it hands to triggers,
window functions and assigners; :mod:`.merging` the merging window set of session windows.
"""
from kindling.runtime.window.window_operator import (
    CONTENTS_AGGREGATE, CONTENTS_LIST, CONTENTS_REDUCE, WindowOperator,
)

__all__ = ['WindowOperator', 'CONTENTS_REDUCE', 'CONTENTS_AGGREGATE', 'CONTENTS_LIST']
