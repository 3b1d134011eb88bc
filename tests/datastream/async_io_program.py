"""Async I/O (AsyncDataStream) on two parallel splits: the same program runs on PyFlink 2.3 (the
reference) and on Kindling; test_async_io.py holds PyFlink's output and compares Kindling's.

    PATH=/opt/pyflink-venv/bin:$PATH python tests/datastream/async_io_program.py pyflink
    .venv/bin/python tests/datastream/async_io_program.py kindling

Calls complete out of input order (later elements of a split sleep less); 7 never answers (its
timeout() gives a default), 3 fails twice with ConnectionError (retried), 5 answers [] at first
(retried by the result predicate). Prints each stream's outputs per split, in arrival order.
"""
from __future__ import annotations

import asyncio
import functools
import importlib
import sys


def run(engine: str, env=None) -> list[str]:
    common = importlib.import_module(f"{engine}.common")
    datastream = importlib.import_module(f"{engine}.datastream")
    number_seq = importlib.import_module(f"{engine}.datastream.connectors.number_seq")
    predicates = importlib.import_module(f"{engine}.datastream.async_retry_predicates")
    Time, Types, WatermarkStrategy = common.Time, common.Types, common.WatermarkStrategy
    AsyncDataStream, AsyncFunction, AsyncRetryStrategy = (
        datastream.AsyncDataStream, datastream.AsyncFunction, datastream.AsyncRetryStrategy)

    class Lookup(AsyncFunction):
        def open(self, runtime_context):
            self.attempts = {}

        async def async_invoke(self, value):
            self.attempts[value] = self.attempts.get(value, 0) + 1
            if value == 7:
                await asyncio.sleep(3600)
            await asyncio.sleep((10 - value % 10) * 0.02)
            if value == 3 and self.attempts[value] <= 2:
                raise ConnectionError("flaky")
            if value == 5 and self.attempts[value] == 1:
                return []
            return [f"{value}:{value * value}:attempt {self.attempts[value]}"]

        def timeout(self, value):
            return [f"{value}:timed out"]

    env = env or datastream.StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    numbers = env.from_source(number_seq.NumberSequenceSource(0, 19), WatermarkStrategy.no_watermarks(), "numbers")
    retry = AsyncRetryStrategy.fixed_delay(
        max_attempts=3, backoff_time_millis=10,
        result_predicate=predicates.empty_result_predicate,
        exception_predicate=functools.partial(predicates.exception_type_predicate,
                                              expected_error_type=ConnectionError))
    ordered = AsyncDataStream.ordered_wait_with_retry(numbers, Lookup(), Time.seconds(2), retry, capacity=4,
                                                      output_type=Types.STRING())
    unordered = AsyncDataStream.unordered_wait_with_retry(numbers, Lookup(), Time.seconds(2), retry, capacity=4,
                                                          output_type=Types.STRING())
    lines = []
    for name, stream in (("ordered", ordered), ("unordered", unordered)):
        out = list(stream.execute_and_collect())
        for split in (range(0, 10), range(10, 20)):
            values = [v for v in out if int(v.split(":")[0]) in split]
            if name == "unordered":
                values.sort(key=lambda v: int(v.split(":")[0]))  # completion order: not defined
            lines.append(f"{name} {split.start}-{split.stop - 1}: {values}")
    return lines


if __name__ == "__main__":
    for line in run(sys.argv[1]):
        print(line)
