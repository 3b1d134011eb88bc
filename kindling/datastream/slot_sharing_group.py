"""Slot sharing groups and memory sizes, as in ``pyflink.datastream.slot_sharing_group``.

Kindling records them as plain data; Spark schedules tasks itself and has no slots, so a
slot sharing group and its resources do not change where or how an operator runs.
"""
from __future__ import annotations

from functools import total_ordering
from typing import Dict, Optional

from kindling.common.unsupported import JVM_ONLY, unsupported

__all__ = ["MemorySize", "SlotSharingGroup"]

_UNITS = {"kibi": 1 << 10, "mebi": 1 << 20, "gibi": 1 << 30, "tebi": 1 << 40}


@total_ordering
class MemorySize:
    """A number of bytes, read in KiB, MiB, GiB or TiB (rounded down)."""

    def __init__(self, j_memory_size=None, bytes_size: int = None):
        if j_memory_size is not None:
            raise TypeError("MemorySize(j_memory_size=...) wraps a Java object; Kindling runs without a JVM: "
                            "use MemorySize(bytes_size=...) or MemorySize.of_mebi_bytes(...)")
        if not isinstance(bytes_size, int) or bytes_size < 0:
            raise ValueError(f"a memory size needs a non-negative number of bytes, got {bytes_size!r}")
        self._bytes = bytes_size

    @staticmethod
    def of_mebi_bytes(mebi_bytes: int) -> "MemorySize":
        return MemorySize(bytes_size=mebi_bytes * _UNITS["mebi"])

    def get_bytes(self) -> int:
        return self._bytes

    def get_kibi_bytes(self) -> int:
        return self._bytes >> 10

    def get_mebi_bytes(self) -> int:
        return self._bytes >> 20

    def get_gibi_bytes(self) -> int:
        return self._bytes >> 30

    def get_tebi_bytes(self) -> int:
        return self._bytes >> 40

    @unsupported(JVM_ONLY)
    def get_java_memory_size(self): ...

    def __eq__(self, other) -> bool:
        return isinstance(other, MemorySize) and other._bytes == self._bytes

    def __hash__(self) -> int:
        return hash(self._bytes)

    def __lt__(self, other: "MemorySize") -> bool:
        if not isinstance(other, MemorySize):
            raise TypeError(f"Does not support comparison with non-MemorySize {other!r}")
        return self._bytes < other._bytes

    def __str__(self) -> str:
        return f"{self._bytes} bytes"

    def __repr__(self) -> str:
        return f"MemorySize(bytes_size={self._bytes})"


class SlotSharingGroup:
    """A named group of operators with optional resource requirements.

    Example::

        group = SlotSharingGroup.builder("heavy").set_cpu_cores(2.0).set_task_heap_memory_mb(512).build()
        env.register_slot_sharing_group(group)
        stream.map(f).slot_sharing_group("heavy")
    """

    def __init__(self, name: str, cpu_cores: Optional[float] = None,
                 task_heap_memory: Optional[MemorySize] = None, task_off_heap_memory: Optional[MemorySize] = None,
                 managed_memory: Optional[MemorySize] = None, external_resources: Optional[Dict[str, float]] = None):
        if not isinstance(name, str) or not name:
            raise ValueError(f"a slot sharing group needs a non-empty name, got {name!r}")
        self._name = name
        self._cpu_cores = cpu_cores
        self._task_heap_memory = task_heap_memory
        self._task_off_heap_memory = task_off_heap_memory
        self._managed_memory = managed_memory
        self._external_resources = dict(external_resources or {})

    def get_name(self) -> str:
        return self._name

    def get_managed_memory(self) -> Optional[MemorySize]:
        return self._managed_memory

    def get_task_heap_memory(self) -> Optional[MemorySize]:
        return self._task_heap_memory

    def get_task_off_heap_memory(self) -> Optional[MemorySize]:
        return self._task_off_heap_memory

    def get_cpu_cores(self) -> Optional[float]:
        return self._cpu_cores

    def get_external_resources(self) -> dict:
        return dict(self._external_resources)

    @unsupported(JVM_ONLY)
    def get_java_slot_sharing_group(self): ...

    @staticmethod
    def builder(name: str) -> "SlotSharingGroup.Builder":
        return SlotSharingGroup.Builder(name)

    def __eq__(self, other) -> bool:
        return isinstance(other, SlotSharingGroup) and other.__dict__ == self.__dict__

    def __hash__(self) -> int:
        return hash(self._name)

    def __repr__(self) -> str:
        return f"SlotSharingGroup({self._name!r})"

    class Builder:
        """Builds a :class:`SlotSharingGroup`; every setter returns the builder."""

        def __init__(self, name: str):
            self._name = name
            self._fields: dict = {}

        def set_cpu_cores(self, cpu_cores: float) -> "SlotSharingGroup.Builder":
            if cpu_cores <= 0:
                raise ValueError(f"cpu_cores must be positive, got {cpu_cores!r}")
            self._fields["cpu_cores"] = float(cpu_cores)
            return self

        def set_task_heap_memory(self, task_heap_memory: MemorySize) -> "SlotSharingGroup.Builder":
            self._fields["task_heap_memory"] = task_heap_memory
            return self

        def set_task_heap_memory_mb(self, task_heap_memory_mb: int) -> "SlotSharingGroup.Builder":
            return self.set_task_heap_memory(MemorySize.of_mebi_bytes(task_heap_memory_mb))

        def set_task_off_heap_memory(self, task_off_heap_memory: MemorySize) -> "SlotSharingGroup.Builder":
            self._fields["task_off_heap_memory"] = task_off_heap_memory
            return self

        def set_task_off_heap_memory_mb(self, task_off_heap_memory_mb: int) -> "SlotSharingGroup.Builder":
            return self.set_task_off_heap_memory(MemorySize.of_mebi_bytes(task_off_heap_memory_mb))

        def set_managed_memory(self, managed_memory: MemorySize) -> "SlotSharingGroup.Builder":
            self._fields["managed_memory"] = managed_memory
            return self

        def set_managed_memory_mb(self, managed_memory_mb: int) -> "SlotSharingGroup.Builder":
            return self.set_managed_memory(MemorySize.of_mebi_bytes(managed_memory_mb))

        def set_external_resource(self, name: str, value: float) -> "SlotSharingGroup.Builder":
            self._fields.setdefault("external_resources", {})[name] = value
            return self

        def build(self) -> "SlotSharingGroup":
            return SlotSharingGroup(self._name, **self._fields)
