"""PyFlink's own example ``examples/datastream/asyncio/remote_model_inference.py`` on a bounded
source, on PyFlink 2.3 or on Kindling:

    PATH=/opt/pyflink-venv/bin:$PATH python tests/datastream/remote_model_inference_driver.py pyflink
    .venv/bin/python tests/datastream/remote_model_inference_driver.py kindling

The example's module is loaded from the installed apache-flink with ``pyflink`` changed to the
engine in its imports. Its ``main`` reads an endless random Table API ``datagen`` table, so its
output is random and never ends (tests/table/test_remote_model_inference.py runs ``main`` itself
on a bounded table); this driver runs the example's ``AsyncLLMRequest`` with ``main``'s own retry
strategy, timeout, capacity and output type on ``ROWS`` known rows (parallelism 2) and prints the
sorted outputs, which both engines must print alike. Every request sleeps 1-2 s and a
third of first attempts raise TimeoutError, retried after 1 s: run one at a time this would take
minutes, in flight together a few seconds.
"""
from __future__ import annotations

import functools
import importlib
import os
import re
import subprocess
import sys
import types

ROWS = 100
PYFLINK_PYTHON = os.environ.get("PYFLINK_PYTHON", "/opt/pyflink-venv/bin/python")
RELATIVE = os.path.join("examples", "datastream", "asyncio", "remote_model_inference.py")


def example_path(relative: str = RELATIVE) -> str | None:
    """Where apache-flink keeps the example (``relative`` to its package), or None without it: the
    examples ``./dev test`` unpacked from the apache-flink wheel (``$PYFLINK_EXAMPLES``), an
    installed apache-flink, or the one of ``$PYFLINK_PYTHON``."""
    unpacked = os.environ.get("PYFLINK_EXAMPLES")
    if unpacked and os.path.exists(os.path.join(unpacked, relative)):
        return os.path.join(unpacked, relative)
    try:
        import pyflink  # only where apache-flink is installed (the reference)

        return os.path.join(os.path.dirname(pyflink.__file__), relative)
    except ImportError:
        pass
    try:
        code = "import os, pyflink; print(os.path.dirname(pyflink.__file__))"
        package = subprocess.run([PYFLINK_PYTHON, "-c", code], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    path = os.path.join(package.strip(), relative)
    return path if os.path.exists(path) else None


def load_example(engine: str, path: str) -> types.ModuleType:
    """The example's module with its imports changed to ``engine`` (the Table API import and
    CheckpointingMode, used only by ``main``, left out)."""
    with open(path) as f:
        source = f.read()
    source = re.sub(r"^from pyflink\.table import .*$", "", source, flags=re.M)
    source = source.replace("async_retry_predicates, CheckpointingMode", "async_retry_predicates")
    source = re.sub(r"\bpyflink\b", engine, source)
    module = types.ModuleType("remote_model_inference")
    module.__file__ = path  # not in sys.modules: cloudpickle ships its classes by value
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def run(engine: str, path: str, env=None) -> list[str]:
    example = load_example(engine, path)
    common = importlib.import_module(f"{engine}.common")
    datastream = importlib.import_module(f"{engine}.datastream")
    Row, Time, Types = common.Row, common.Time, common.Types
    env = env or datastream.StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    rows = [Row(user_id=i, comments=f"comment {i}") for i in range(ROWS)]
    ds = env.from_collection(rows, Types.ROW_NAMED(["user_id", "comments"], [Types.INT(), Types.STRING()])) \
        .rebalance()
    # main()'s strategy and operator, as the example writes them
    async_retry_strategy = example.AsyncRetryStrategy.fixed_delay(
        max_attempts=100,
        backoff_time_millis=1000,
        result_predicate=None,
        exception_predicate=functools.partial(example.async_retry_predicates.exception_type_predicate,
                                              expected_error_type=TimeoutError))
    result_stream = example.AsyncDataStream.unordered_wait_with_retry(
        data_stream=ds,
        async_function=example.AsyncLLMRequest(),
        timeout=Time.seconds(10),
        async_retry_strategy=async_retry_strategy,
        capacity=1000,
        output_type=Types.STRING())
    return sorted(result_stream.execute_and_collect())


if __name__ == "__main__":
    found = example_path()
    if found is None:
        sys.exit("apache-flink is not installed: the example is part of it")
    for line in run(sys.argv[1], found):
        print(line)
