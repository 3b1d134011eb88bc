"""Side outputs emitted with `yield tag, value` from a process function and a keyed process function.
# conformance: sorted (three sinks)
"""
from pyflink.common import Types
from pyflink.datastream import KeyedProcessFunction, OutputTag, ProcessFunction, StreamExecutionEnvironment

small = OutputTag("small", Types.INT())
odd = OutputTag("odd", Types.STRING())


class SplitSmall(ProcessFunction):
    def process_element(self, value, ctx):
        if value < 5:
            yield small, value
        else:
            yield value


class CountOdd(KeyedProcessFunction):
    def process_element(self, value, ctx):
        if value % 2:
            yield odd, f"odd {value} key {ctx.get_current_key()}"
        yield f"main {value}"


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
numbers = env.from_collection([1, 8, 3, 12, 5, 7, 2], type_info=Types.INT())
split = numbers.process(SplitSmall(), output_type=Types.INT())
split.get_side_output(small).map(lambda v: f"small {v}").print()
keyed = split.key_by(lambda v: v % 3).process(CountOdd(), output_type=Types.STRING())
keyed.print()
keyed.get_side_output(odd).print()
env.execute("side_outputs")
