"""Connected streams: a keyed co-process join with state and event-time timers shared by both inputs,
side outputs by `yield tag, value` (PyFlink 2.3's keyed co-process context has no `output`), and co-map / co-flat-map, at parallelism 2.
# conformance: sorted (four sinks, two inputs whose interleaving Flink does not define)
"""
from pyflink.common import Types, WatermarkStrategy
from pyflink.common.watermark_strategy import TimestampAssigner
from pyflink.datastream import (CoFlatMapFunction, CoMapFunction, KeyedCoProcessFunction, OutputTag,
                                StreamExecutionEnvironment)
from pyflink.datastream.state import ValueStateDescriptor


class ThirdField(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[2]


seen = OutputTag("seen", Types.STRING())


class Enrich(KeyedCoProcessFunction):
    def open(self, ctx):
        self.name = ctx.get_state(ValueStateDescriptor("name", Types.STRING()))
        self.total = ctx.get_state(ValueStateDescriptor("total", Types.DOUBLE()))

    def process_element1(self, order, ctx):
        self.total.update((self.total.value() or 0.0) + order[1])
        ctx.timer_service().register_event_time_timer(order[2] + 100)

    def process_element2(self, user, ctx):
        self.name.update(user[1])
        yield seen, f"user {user[1]} key {ctx.get_current_key()}"

    def on_timer(self, timestamp, ctx):
        yield seen, f"timer {timestamp}"
        yield f"{ctx.get_current_key()} {self.name.value()} total={self.total.value()} at {timestamp}"


class Describe(CoMapFunction):
    def map1(self, order):
        return f"order {order[0]}"

    def map2(self, user):
        return f"user {user[1]}"


class Split(CoFlatMapFunction):
    def flat_map1(self, order):
        yield f"o{order[0]}"
        yield f"o{order[0]}!"

    def flat_map2(self, user):
        yield f"u{user[0]}"


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
by_third = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(ThirdField())
orders = env.from_collection([(1, 10.0, 1000), (2, 20.0, 2000), (1, 5.0, 3000), (3, 7.0, 9000)],
                             type_info=Types.TUPLE([Types.INT(), Types.DOUBLE(), Types.LONG()])
                             ).assign_timestamps_and_watermarks(by_third)
users = env.from_collection([(1, "ann", 500), (2, "bob", 600), (3, "cy", 8000)],
                            type_info=Types.TUPLE([Types.INT(), Types.STRING(), Types.LONG()])
                            ).assign_timestamps_and_watermarks(by_third)
joined = orders.connect(users).key_by(lambda o: o[0], lambda u: u[0]).process(Enrich(), Types.STRING())
joined.print()
joined.get_side_output(seen).print("seen")
orders.connect(users).map(Describe(), Types.STRING()).set_parallelism(1).print("map").set_parallelism(1)
orders.key_by(lambda o: o[0]).connect(users.key_by(lambda u: u[0])).flat_map(Split(), Types.STRING()).print("flat")
env.execute("connected_streams")
