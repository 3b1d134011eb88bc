"""Broadcast state: rules broadcast to every parallel instance of a keyed operator, read in its
event-time timers (which fire once both inputs' watermarks pass them, so after every rule); the
broadcast function's own output comes once from each parallel instance, at parallelism 2.
# conformance: sorted (two inputs whose interleaving Flink does not define)
"""
from pyflink.common import Types, WatermarkStrategy
from pyflink.common.watermark_strategy import TimestampAssigner
from pyflink.datastream import KeyedBroadcastProcessFunction, StreamExecutionEnvironment
from pyflink.datastream.state import MapStateDescriptor, ValueStateDescriptor

rules = MapStateDescriptor("rules", Types.STRING(), Types.INT())


class SecondField(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[1]


class ApplyRules(KeyedBroadcastProcessFunction):
    def open(self, ctx):
        self.total = ctx.get_state(ValueStateDescriptor("total", Types.INT()))

    def process_element(self, value, ctx):
        self.total.update((self.total.value() or 0) + value[2])
        ctx.timer_service().register_event_time_timer(value[1])

    def process_broadcast_element(self, rule, ctx):
        ctx.get_broadcast_state(rules).put(rule[0], rule[2])
        yield f"rule {rule[0]}={rule[2]}"

    def on_timer(self, timestamp, ctx):
        state = ctx.get_broadcast_state(rules)
        scaled = self.total.value() * state.get("factor")
        verdict = "alert" if scaled > state.get("limit") else "ok"
        yield f"{ctx.get_current_key()} at {timestamp}: {scaled} {verdict}"


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
by_time = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(SecondField())
readings = env.from_collection(
    [("a", 1000, 4), ("b", 2000, 9), ("a", 3000, 5), ("c", 4000, 1), ("b", 5000, 2)],
    type_info=Types.TUPLE([Types.STRING(), Types.LONG(), Types.INT()])).assign_timestamps_and_watermarks(by_time)
rule_stream = env.from_collection([("limit", 0, 20), ("factor", 0, 2)],
                                  type_info=Types.TUPLE([Types.STRING(), Types.LONG(), Types.INT()])
                                  ).assign_timestamps_and_watermarks(by_time)
readings.key_by(lambda r: r[0]).connect(rule_stream.broadcast(rules)).process(ApplyRules(), Types.STRING()).print()
env.execute("broadcast_rules")
