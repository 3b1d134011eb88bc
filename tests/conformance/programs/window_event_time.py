"""Tumbling (10 ms), sliding (10 ms every 5 ms) and session (5 ms gap) event-time windows with
process window functions, at parallelism 1.
# conformance: sorted (three sinks; windows of different keys close together at the end of input)
"""
from pyflink.common import Time, Types, WatermarkStrategy
from pyflink.common.watermark_strategy import TimestampAssigner
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.datastream.functions import ProcessWindowFunction
from pyflink.datastream.window import EventTimeSessionWindows, SlidingEventTimeWindows, TumblingEventTimeWindows


class EventTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[1]


class Describe(ProcessWindowFunction):
    def __init__(self, label):
        self.label = label

    def process(self, key, context, elements):
        window = context.window()
        yield f"{self.label} {key} [{window.start}, {window.end}) {[e[2] for e in elements]} max {window.max_timestamp()}"


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
events = env.from_collection(
    [("a", 1, "a1"), ("b", 3, "b3"), ("a", 9, "a9"), ("a", 10, "a10"), ("b", 24, "b24"), ("a", 31, "a31")],
    type_info=Types.TUPLE([Types.STRING(), Types.LONG(), Types.STRING()])) \
    .assign_timestamps_and_watermarks(WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime()))
for label, assigner in [("tumbling", TumblingEventTimeWindows.of(Time.milliseconds(10))),
                        ("sliding", SlidingEventTimeWindows.of(Time.milliseconds(10), Time.milliseconds(5))),
                        ("session", EventTimeSessionWindows.with_gap(Time.milliseconds(5)))]:
    events.key_by(lambda e: e[0]).window(assigner).process(Describe(label), output_type=Types.STRING()).print()
env.execute("window_event_time")
