"""Rows from Types.ROW carry Flink's field names (f0, f1, ...) once they cross an operator boundary
(the source, a key_by); a Row made and used within one chain of functions keeps none. (PyFlink
chains an operator with its only consumer; one with two consumers hands them named Rows: Kindling
does not copy that.)
# conformance: sorted (three sinks)
"""
from pyflink.common import Row, Types
from pyflink.datastream import ProcessFunction, StreamExecutionEnvironment


class Describe(ProcessFunction):
    def process_element(self, value, ctx):
        yield f"{value} {Row(1, 'b')}"


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
rows = env.from_collection([(1, "a"), (2, "b")], type_info=Types.ROW([Types.INT(), Types.STRING()]))
rows.process(Describe(), output_type=Types.STRING()).print()
swapped = Types.ROW([Types.STRING(), Types.INT()])
rows.map(lambda r: Row(r[1], r[0]), output_type=swapped) \
    .map(lambda r: f"chained {r}", output_type=Types.STRING()).print()
rows.map(lambda r: Row(r[1], r[0]), output_type=swapped) \
    .key_by(lambda r: r[0]).map(lambda r: f"keyed {r}", output_type=Types.STRING()).print()
env.execute("row_field_names")
