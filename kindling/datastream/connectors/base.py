"""Base classes of connectors, as in ``pyflink.datastream.connectors.base``."""
from __future__ import annotations

from enum import Enum
from typing import Any


class Source:
    """A source for ``env.from_source``; it carries a spec the Spark layer knows how to read."""

    def __init__(self, spec: Any, type_info: Any = None):
        self._spec = spec
        self._type_info = type_info


class Sink:
    """A sink for ``DataStream.sink_to``; it carries a spec the Spark layer knows how to write."""

    def __init__(self, spec: Any, name: str = "Sink"):
        self._spec = spec
        self._name = name


class DeliveryGuarantee(Enum):
    """What a sink promises when a job restarts."""

    EXACTLY_ONCE = 0
    AT_LEAST_ONCE = 1
    NONE = 2
