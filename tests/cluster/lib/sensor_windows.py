"""The functions of the cluster test's job, in a module of their own: Spark's executors import
it from what ``kindling run -pyfs`` ships, as PyFlink's workers do."""
from kindling.common.watermark_strategy import TimestampAssigner
from kindling.datastream.functions import KeySelector, ProcessWindowFunction


class ReadingTimestamps(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp) -> int:
        return value[2]


class BySensor(KeySelector):
    def get_key(self, value):
        return value[0]


class WindowSummary(ProcessWindowFunction):
    """(sensor, window start, count, sum) of a window's readings."""

    def process(self, key, context, elements):
        values = [e[1] for e in elements]
        yield key, context.window().start, len(values), sum(values)


def readings(n: int) -> list:
    """``n`` readings per sensor; sensor ``s2``'s time runs twice as fast as the others'."""
    out = []
    for i in range(n):
        for sensor, speed in (("s0", 1), ("s1", 1), ("s2", 2)):
            out.append((sensor, i % 7, i * 1000 * speed))
    return out
