"""Testing utilities: drive Kindling's runtime operators without Spark.

See :class:`KeyedProcessFunctionTestHarness` and :class:`ProcessFunctionTestHarness`.
"""
from kindling.testing.harness import (
    KeyedOneInputStreamOperatorTestHarness, KeyedOperatorTestHarness,
    KeyedProcessFunctionTestHarness, StreamRecord,
)
from kindling.testing.process_harness import ProcessFunctionTestHarness

__all__ = ['KeyedOperatorTestHarness', 'KeyedProcessFunctionTestHarness',
           'KeyedOneInputStreamOperatorTestHarness', 'ProcessFunctionTestHarness', 'StreamRecord']
