"""AsyncFunctions shared by the async I/O tests (tests/runtime/test_async_wait.py, without Spark,
and tests/datastream/test_async_io.py, on Spark)."""
from __future__ import annotations

import asyncio

from kindling.datastream import AsyncFunction


class Gate(AsyncFunction):
    """Calls of a parallel instance go in groups of ``width`` by arrival, each waiting for its
    whole group to be in flight together; outputs ``(value, most calls ever in flight)``.

    Unless the operator keeps ``width`` calls in flight the group never fills: after
    ``patience_s`` the call fails with TimeoutError, or with ``go_on`` set it goes on (a task
    whose input ends before its last group fills)."""

    def __init__(self, width: int, patience_s: float = 20, go_on: bool = False):
        self.width = width
        self.patience_s = patience_s
        self.go_on = go_on

    def open(self, runtime_context):
        self.calls = self.active = self.most = 0
        self.groups = {}

    async def async_invoke(self, value):
        group = self.groups.setdefault(self.calls // self.width, [0, asyncio.Event()])
        self.calls += 1
        self.active += 1
        self.most = max(self.most, self.active)
        group[0] += 1
        if group[0] == self.width:
            group[1].set()
        try:
            await asyncio.wait_for(group[1].wait(), self.patience_s)
        except asyncio.TimeoutError:
            if not self.go_on:
                raise
        self.active -= 1
        return [(value, self.most)]


class Flaky(AsyncFunction):
    """Fails the first two attempts of every element with ConnectionError, then answers
    ``(value, attempts)``."""

    def open(self, runtime_context):
        self.attempts = {}

    async def async_invoke(self, value):
        self.attempts[value] = self.attempts.get(value, 0) + 1
        if self.attempts[value] <= 2:
            raise ConnectionError(f"attempt {self.attempts[value]} for {value}")
        return [(value, self.attempts[value])]
