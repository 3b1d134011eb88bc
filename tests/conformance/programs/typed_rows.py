"""How typed values print: named and positional Rows, tuples, floats, None, lists, dicts.
# conformance: sorted (four sinks)
"""
from pyflink.common import Row, Types
from pyflink.datastream import StreamExecutionEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
people = env.from_collection(
    [Row(name="Alice", age=31, score=1.5), Row(name="Bob", age=None, score=2.0)],
    type_info=Types.ROW_NAMED(["name", "age", "score"], [Types.STRING(), Types.INT(), Types.DOUBLE()]))
people.print()
people.map(lambda r: Row(r.name.upper(), r.score * 2), output_type=Types.ROW([Types.STRING(), Types.DOUBLE()])).print()
people.map(lambda r: (r[0], [r.age or 0, 1]),
           output_type=Types.TUPLE([Types.STRING(), Types.LIST(Types.INT())])).print()
people.map(lambda r: {"name": r.name}).print()
env.execute("typed_rows")
