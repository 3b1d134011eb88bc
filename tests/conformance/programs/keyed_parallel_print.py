"""A keyed sum at parallelism 2: each line carries the `n> ` prefix of the subtask that owns its key.
# conformance: sorted
"""
from pyflink.datastream import StreamExecutionEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
words = env.from_collection(["to", "be", "or", "not", "to", "be", "that", "is", "the", "question",
                             "whether", "tis", "nobler", "in", "the", "mind", "to", "suffer"])
words.map(lambda w: (w, 1)).key_by(lambda p: p[0]).sum(1).print()
words.key_by(lambda w: len(w)).map(lambda w: w.upper()).print("upper")
env.execute("keyed_parallel_print")
