"""A keyed process function registering event-time timers on a small bounded collection.

Flink emits the source's watermark periodically (200 ms), so the whole collection is read before
the first watermark: every timer fires at the end of input and sees each key's full sum.
"""
from pyflink.common import Types, WatermarkStrategy
from pyflink.common.watermark_strategy import TimestampAssigner
from pyflink.datastream import KeyedProcessFunction, RuntimeContext, StreamExecutionEnvironment
from pyflink.datastream.state import ValueStateDescriptor


class EventTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[2]


class SumUntilTimer(KeyedProcessFunction):
    def open(self, runtime_context: RuntimeContext):
        self.total = runtime_context.get_state(ValueStateDescriptor("total", Types.INT()))

    def process_element(self, value, ctx):
        self.total.update((self.total.value() or 0) + value[1])
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 10)
        yield f"element {value[0]} {value[1]} at {ctx.timestamp()} watermark {ctx.timer_service().current_watermark()}"

    def on_timer(self, timestamp, ctx):
        yield f"timer {ctx.get_current_key()} at {timestamp}: total {self.total.value()}"


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
events = env.from_collection(
    [("a", 1, 100), ("b", 2, 105), ("a", 3, 130), ("b", 4, 200), ("a", 5, 201)],
    type_info=Types.TUPLE([Types.STRING(), Types.INT(), Types.LONG()]))
events.assign_timestamps_and_watermarks(
    WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime())) \
    .key_by(lambda e: e[0]).process(SumUntilTimer()).print()
env.execute("event_time_timers")
