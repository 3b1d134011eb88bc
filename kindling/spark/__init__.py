"""Kindling's Spark side: the compiler from the job graph to Spark plans, sources, sinks, sessions
and the runner (docs/architecture.md). The only package that imports pyspark; it tells the runtime
how to find the Spark task it runs in (``kindling.runtime.lifecycle.current_task``)."""
from typing import Any

from kindling.runtime import lifecycle


def _spark_task() -> Any:
    from pyspark import TaskContext

    return TaskContext.get()


lifecycle.current_task = _spark_task
