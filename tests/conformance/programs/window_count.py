"""Tumbling count windows of 2 and sliding count windows (3, slide 2) with process window functions.
# conformance: sorted (two sinks)
"""
from pyflink.common import Types
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.datastream.functions import ProcessWindowFunction


class Describe(ProcessWindowFunction):
    def __init__(self, label):
        self.label = label

    def process(self, key, context, elements):
        yield f"{self.label} {key} {[e[1] for e in elements]} window id {context.window().id}"


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
events = env.from_collection([("a", 1), ("b", 2), ("a", 3), ("a", 4), ("b", 5), ("a", 6), ("a", 7), ("b", 8)],
                             type_info=Types.TUPLE([Types.STRING(), Types.INT()]))
events.key_by(lambda e: e[0]).count_window(2).process(Describe("tumbling"), Types.STRING()).print()
events.key_by(lambda e: e[0]).count_window(3, 2).process(Describe("sliding"), Types.STRING()).print()
env.execute("window_count")
