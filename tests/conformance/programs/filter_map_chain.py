"""A chain of map, filter and flat_map with typed and untyped outputs, at parallelism 1.
# conformance: sorted (two sinks: PyFlink interleaves their bundles in no defined order)
"""
from pyflink.common import Types
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.datastream.functions import FlatMapFunction, MapFunction


class Tokenize(FlatMapFunction):
    def flat_map(self, value):
        for word in value.split():
            yield word.strip(".,").lower()


class Tag(MapFunction):
    def map(self, value):
        return value, len(value)


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
lines = env.from_collection(["The quick brown fox.", "Jumps over, the lazy dog.", ""])
words = lines.flat_map(Tokenize(), output_type=Types.STRING())
words.filter(lambda w: len(w) > 3).map(Tag(), output_type=Types.TUPLE([Types.STRING(), Types.INT()])).print()
words.map(lambda w: w[::-1]).filter(lambda w: w.startswith("e")).print()
env.execute("filter_map_chain")
