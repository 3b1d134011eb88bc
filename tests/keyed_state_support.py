"""A keyed co-function's runtime context for driving it by hand in tests: one key's value states, held
in memory, and the job parameters' defaults."""
from __future__ import annotations


class _ValueState:
    def __init__(self):
        self.stored = None

    def value(self):
        return self.stored

    def update(self, value):
        self.stored = value


class KeyContext:
    """One key's state of a keyed co-function (``open(KeyContext())``, one per key)."""

    def __init__(self):
        self.states = {}

    def get_state(self, descriptor):
        return self.states.setdefault(descriptor.name, _ValueState())

    def get_job_parameter(self, name, default):
        return default
