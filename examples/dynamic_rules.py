"""Dynamic rules with broadcast state: alert thresholds arrive on one stream and change how the
other is processed, in every parallel instance.

Readings are keyed by sensor; each rule (sensor kind, threshold) is broadcast to every instance of
the KeyedBroadcastProcessFunction, which keeps the rules in broadcast state and checks each reading
against the threshold of its kind. Run: python examples/dynamic_rules.py
"""
from kindling.common import Types
from kindling.datastream import KeyedBroadcastProcessFunction, StreamExecutionEnvironment
from kindling.datastream.state import MapStateDescriptor, ValueStateDescriptor

THRESHOLDS = MapStateDescriptor("thresholds", Types.STRING(), Types.DOUBLE())

# (sensor kind, threshold)
RULES = [("temperature", 30.0), ("pressure", 1.2)]
# (sensor, kind, value)
READINGS = [("t1", "temperature", 21.5), ("t2", "temperature", 33.0), ("p1", "pressure", 1.1),
            ("t1", "temperature", 31.2), ("p1", "pressure", 1.4), ("h1", "humidity", 80.0)]


class CheckThresholds(KeyedBroadcastProcessFunction):
    def open(self, runtime_context):
        self.alerts = runtime_context.get_state(ValueStateDescriptor("alerts", Types.INT()))

    def process_element(self, reading, ctx):
        sensor, kind, value = reading
        threshold = ctx.get_broadcast_state(THRESHOLDS).get(kind)
        if threshold is None:
            yield f"{sensor}: no rule for {kind}"
        elif value > threshold:
            count = (self.alerts.value() or 0) + 1
            self.alerts.update(count)
            yield f"{sensor}: {kind} {value} above {threshold} (alert #{count})"

    def process_broadcast_element(self, rule, ctx):
        ctx.get_broadcast_state(THRESHOLDS).put(rule[0], rule[1])


def main():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    rules = env.from_collection(RULES).broadcast(THRESHOLDS)
    readings = env.from_collection(READINGS).key_by(lambda r: r[0])
    readings.connect(rules).process(CheckThresholds(), Types.STRING()).print()
    env.execute("dynamic_rules")


if __name__ == "__main__":
    main()
