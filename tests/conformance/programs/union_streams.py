"""Union of three streams (two of them mapped) at parallelism 1.
# conformance: sorted
"""
from pyflink.common import Types
from pyflink.datastream import StreamExecutionEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
a = env.from_collection([1, 2, 3], type_info=Types.INT())
b = env.from_collection([10, 20], type_info=Types.INT()).map(lambda x: x + 1, output_type=Types.INT())
c = env.from_collection([100], type_info=Types.INT())
a.union(b, c).map(lambda x: f"value {x}").print()
env.execute("union_streams")
