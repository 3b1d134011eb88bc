"""``pyflink.table.EnvironmentSettings``: whether a TableEnvironment runs streaming or batch.

Example::

    TableEnvironment.create(EnvironmentSettings.in_batch_mode())
"""
from __future__ import annotations

__all__ = ["EnvironmentSettings"]


class EnvironmentSettings:
    """Streaming (the default) or batch execution."""

    def __init__(self, streaming: bool = True):
        self._streaming = streaming

    @staticmethod
    def in_streaming_mode() -> "EnvironmentSettings":
        return EnvironmentSettings(True)

    @staticmethod
    def in_batch_mode() -> "EnvironmentSettings":
        return EnvironmentSettings(False)

    @staticmethod
    def new_instance() -> "EnvironmentSettings.Builder":
        return EnvironmentSettings.Builder()

    def is_streaming_mode(self) -> bool:
        return self._streaming

    def get_built_in_catalog_name(self) -> str:
        return "default_catalog"

    def get_built_in_database_name(self) -> str:
        return "default_database"

    def get_configuration(self):
        """The settings as a Configuration (``execution.runtime-mode``)."""
        from kindling.common.configuration import Configuration

        return Configuration().set_string("execution.runtime-mode", "streaming" if self._streaming else "batch")

    class Builder:
        """``EnvironmentSettings.new_instance().in_batch_mode().build()``."""

        def __init__(self) -> None:
            self._streaming = True

        def in_streaming_mode(self) -> "EnvironmentSettings.Builder":
            self._streaming = True
            return self

        def in_batch_mode(self) -> "EnvironmentSettings.Builder":
            self._streaming = False
            return self

        def build(self) -> "EnvironmentSettings":
            return EnvironmentSettings(self._streaming)
