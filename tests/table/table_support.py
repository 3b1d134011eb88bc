"""Helpers of the table connector tests: a quiet TableEnvironment, a query's rows, an async function
that fails once."""
from __future__ import annotations

from kindling.table import DataTypes, EnvironmentSettings, TableEnvironment
from kindling.table.udf import udf


def quiet_t_env(mode: str = "streaming", parallelism: int = 2) -> TableEnvironment:
    """A TableEnvironment in ``mode`` (streaming or batch) with ``parallelism``, no progress lines."""
    settings = EnvironmentSettings.in_batch_mode() if mode == "batch" else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", str(parallelism))
    t_env.get_config().set("kindling.progress", "false")
    return t_env


def collected(t_env, query: str) -> list:
    """The rows of ``query`` as sorted tuples (runs a job)."""
    with t_env.execute_sql(query).collect() as rows:
        return sorted(tuple(r) for r in rows)


def runs_in(table) -> str:
    """Where explain says the table's last node runs: ``Spark JVM`` or ``Python``."""
    first = table.explain().splitlines()[1].rsplit(", changelogMode=", 1)[0]
    return first.rsplit(" [", 1)[1].split(",")[0]


def first_call_fails():
    """A function whose first call in each task fails (its calls list is pickled with it into each task)."""
    calls = []

    async def first_fails(v):
        calls.append(v)
        if len(calls) == 1:
            raise ConnectionError("the first call fails")
        return v
    return udf(first_fails, result_type=DataTypes.BIGINT())
