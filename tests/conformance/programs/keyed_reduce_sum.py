"""Rolling reduce and sum on a keyed stream at parallelism 1; two sinks interleave in no defined order.
# conformance: sorted
"""
from pyflink.common import Types
from pyflink.datastream import StreamExecutionEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
sales = env.from_collection(
    [("pens", 3), ("ink", 1), ("pens", 4), ("paper", 10), ("ink", 2), ("pens", 5), ("paper", 1)],
    type_info=Types.TUPLE([Types.STRING(), Types.INT()]))
sales.key_by(lambda s: s[0]).reduce(lambda a, b: (a[0], a[1] + b[1])).print()
sales.key_by(lambda s: s[0]).sum(1).map(lambda s: f"sum {s[0]}={s[1]}").print()
env.execute("keyed_reduce_sum")
