"""Non-keyed operators at parallelism 2 after a collection source (parallelism 1): rebalanced
round-robin from a random first channel, so only the prefix form, not its number, is Flink's.
# conformance: sorted, ignore-prefix
"""
from pyflink.datastream import StreamExecutionEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
env.from_collection(list(range(10))).map(lambda x: x * x).filter(lambda x: x % 2 == 0).print()
env.from_collection(["a", "b", "c"]).print("letters")
env.execute("rebalanced_print")
