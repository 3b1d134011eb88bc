"""``pyflink.table.TableConfig``: the configuration of a TableEnvironment.

Example::

    t_env.get_config().set("parallelism.default", "1")
"""
from __future__ import annotations

from typing import Dict, Optional

__all__ = ["TableConfig"]


class TableConfig:
    """Configuration keys and values; ``parallelism.default`` sets the parallelism of the jobs the
    environment runs, other keys go to the job's configuration."""

    def __init__(self, env):
        self._env = env
        self._values: Dict[str, str] = {}

    def set(self, key: str, value: str) -> "TableConfig":
        self._values[key] = str(value)
        if key == "parallelism.default":
            self._env.set_parallelism(int(value))
        else:
            from kindling.common.configuration import Configuration

            self._env.configure(Configuration().set_string(key, str(value)))
        return self

    def get(self, key: str, default_value: Optional[str] = None) -> Optional[str]:
        return self._values.get(key, default_value)

    def get_configuration(self):
        from kindling.common.configuration import Configuration

        configuration = Configuration()
        for key, value in self._values.items():
            configuration.set_string(key, value)
        return configuration
