"""A keyed flat_map whose function keeps ValueState (PyFlink's state_access pattern): emits the
running average of every key after each two elements."""
from pyflink.common import Types
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.datastream.functions import FlatMapFunction, RuntimeContext
from pyflink.datastream.state import ValueStateDescriptor


class PairAverage(FlatMapFunction):
    def open(self, runtime_context: RuntimeContext):
        self.pending = runtime_context.get_state(
            ValueStateDescriptor("pending", Types.TUPLE([Types.INT(), Types.INT()])))

    def flat_map(self, value):
        count, total = self.pending.value() or (0, 0)
        count, total = count + 1, total + value[1]
        if count == 2:
            self.pending.clear()
            yield value[0], total / count
        else:
            self.pending.update((count, total))


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
env.from_collection([("a", 3), ("a", 5), ("b", 1), ("a", 7), ("b", 2), ("a", 9), ("b", 4)],
                    type_info=Types.TUPLE([Types.STRING(), Types.INT()])) \
    .key_by(lambda v: v[0]).flat_map(PairAverage()).print()
env.execute("keyed_flat_map_state")
