"""Collecting a KeyedStream gives Flink's (key, value) pairs as Row(f0=key, f1=value); printing it
prints the values."""
from pyflink.common import Types
from pyflink.datastream import StreamExecutionEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
pairs = env.from_collection([("a", 1), ("b", 2), ("a", 3)], type_info=Types.TUPLE([Types.STRING(), Types.INT()]))
keyed = pairs.key_by(lambda v: v[0], Types.STRING())
keyed.print()
env.execute("keyed_print")
with keyed.execute_and_collect() as results:
    for row in results:
        print("collected", row)
