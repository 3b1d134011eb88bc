"""``pyflink.table.TableConfig``: the configuration of a TableEnvironment.

Example::

    t_env.get_config().set("parallelism.default", "1")
"""
from __future__ import annotations

from typing import Dict, Optional

from kindling.common.unsupported import unsupported

__all__ = ["TableConfig"]

LOCAL_TIME_ZONE, SQL_DIALECT = "table.local-time-zone", "table.sql-dialect"
_DIALECTS = ["default", "hive"]


def _check(key: str, value: str) -> None:
    """Refuses the settings Kindling cannot honour, naming them."""
    if key == LOCAL_TIME_ZONE and value.upper() not in ("UTC", "Z", "GMT", "ETC/UTC"):
        raise ValueError(f"{key} '{value}' is not supported by Kindling yet: it computes local times in UTC")
    if key == SQL_DIALECT and value.lower() != "default":
        raise ValueError(f"{key} '{value}' is not supported by Kindling: it reads Flink SQL (SqlDialect.DEFAULT)")


class TableConfig:
    """Configuration keys and values; ``parallelism.default`` sets the parallelism of the jobs the
    environment runs, other keys go to the job's configuration."""

    def __init__(self, env):
        self._env = env
        self._values: Dict[str, str] = {}

    def set(self, key: str, value: str) -> "TableConfig":
        _check(key, str(value))
        self._values[key] = str(value)
        if key == "parallelism.default":
            self._env.set_parallelism(int(value))
        else:
            from kindling.common.configuration import Configuration

            self._env.configure(Configuration().set_string(key, str(value)))
        return self

    def get(self, key: str, default_value: Optional[str] = None) -> Optional[str]:
        return self._values.get(key, default_value)

    def add_configuration(self, configuration) -> None:
        """Sets every key of a ``Configuration``."""
        for key, value in configuration.to_dict().items():
            self.set(key, value)

    def to_map(self) -> Dict[str, str]:
        return dict(self._values)

    @staticmethod
    def get_default() -> "TableConfig":
        """A configuration of its own, with nothing set (Kindling's defaults)."""
        from kindling.datastream import StreamExecutionEnvironment

        return TableConfig(StreamExecutionEnvironment.get_execution_environment())

    def get_local_timezone(self) -> str:
        return self._values.get(LOCAL_TIME_ZONE, "UTC")

    def set_local_timezone(self, timezone_id: str) -> None:
        """Only ``UTC``: Kindling computes local times in UTC (its Spark session's time zone)."""
        self.set(LOCAL_TIME_ZONE, timezone_id)

    def get_sql_dialect(self) -> int:
        return _DIALECTS.index(self._values.get(SQL_DIALECT, "default"))

    def set_sql_dialect(self, sql_dialect: int) -> None:
        """Only ``SqlDialect.DEFAULT`` (Flink SQL): Kindling has no Hive dialect."""
        self.set(SQL_DIALECT, _DIALECTS[sql_dialect] if sql_dialect in (0, 1) else str(sql_dialect))

    def get_python_executable(self) -> Optional[str]:
        return self._values.get("python.executable")

    def set_python_executable(self, python_exec: str) -> None:
        """The Python interpreter of Spark's workers (as ``StreamExecutionEnvironment.set_python_executable``)."""
        self.set("python.executable", python_exec)

    @unsupported("state retention (TTL) of table operators is not there yet")
    def get_idle_state_retention(self): ...

    @unsupported("state retention (TTL) of table operators is not there yet")
    def set_idle_state_retention(self, min_time, max_time=None): ...

    @unsupported("it sizes the Java code Flink's planner generates; JVM-only")
    def get_max_generated_code_length(self) -> int: ...

    @unsupported("it sizes the Java code Flink's planner generates; JVM-only")
    def set_max_generated_code_length(self, max_generated_code_length: int): ...

    def get_configuration(self):
        from kindling.common.configuration import Configuration

        configuration = Configuration()
        for key, value in self._values.items():
            configuration.set_string(key, value)
        return configuration
