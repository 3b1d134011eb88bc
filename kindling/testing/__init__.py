"""Testing utilities: drive Kindling's runtime operators without Spark.

See :class:`KeyedProcessFunctionTestHarness`.
"""
from kindling.testing.harness import (
    KeyedOneInputStreamOperatorTestHarness, KeyedOperatorTestHarness,
    KeyedProcessFunctionTestHarness, StreamRecord,
)

__all__ = ['KeyedOperatorTestHarness', 'KeyedProcessFunctionTestHarness',
           'KeyedOneInputStreamOperatorTestHarness', 'StreamRecord']
