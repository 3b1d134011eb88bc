"""Operators at their own parallelism: a keyed sum at 3 (128 and 8 key groups), partition_custom and
broadcast into a map at 3; each print at its operator's parallelism names the instance.
# conformance: sorted
"""
from pyflink.common import Types
from pyflink.datastream import StreamExecutionEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
env.set_max_parallelism(128)
pairs = env.from_collection([(w, 1) for w in "apple bee cat dog egg fig gnu hat ice jam kit log".split()] * 2,
                            type_info=Types.TUPLE([Types.STRING(), Types.INT()]))
pairs.key_by(lambda p: p[0], Types.STRING()).reduce(lambda a, b: (a[0], a[1] + b[1])) \
    .set_parallelism(3).print("groups128").set_parallelism(3)
pairs.key_by(lambda p: p[0], Types.STRING()).reduce(lambda a, b: (a[0], a[1] + b[1])) \
    .set_parallelism(3).set_max_parallelism(8).print("groups8").set_parallelism(3)
numbers = env.from_collection(list(range(12)), type_info=Types.INT())
numbers.partition_custom(lambda key, n: key % n, lambda v: v).map(lambda v: v * 10, Types.INT()) \
    .set_parallelism(3).print("custom").set_parallelism(3)
numbers.filter(lambda v: v < 2).broadcast().map(lambda v: -v, Types.INT()).set_parallelism(3) \
    .print("broadcast").set_parallelism(3)
env.execute("operator_parallelism")
