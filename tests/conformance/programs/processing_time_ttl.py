"""State with a 1 s processing-time TTL, read by event-time timers at the end of a small input:
in Flink the timers fire well within the TTL, so the state is still there."""
from pyflink.common import Time, Types, WatermarkStrategy
from pyflink.common.watermark_strategy import TimestampAssigner
from pyflink.datastream import KeyedProcessFunction, RuntimeContext, StreamExecutionEnvironment
from pyflink.datastream.state import StateTtlConfig, ValueStateDescriptor


class EventTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[1]


class LastSeen(KeyedProcessFunction):
    def open(self, runtime_context: RuntimeContext):
        descriptor = ValueStateDescriptor("last", Types.STRING())
        descriptor.enable_time_to_live(StateTtlConfig.new_builder(Time.seconds(1))
                                       .set_update_type(StateTtlConfig.UpdateType.OnCreateAndWrite)
                                       .set_state_visibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
                                       .build())
        self.last = runtime_context.get_state(descriptor)

    def process_element(self, value, ctx):
        self.last.update(value[2])
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 1000)

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), self.last.value()


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
env.from_collection([("x", 1, "first"), ("y", 2, "only"), ("x", 3, "second")],
                    type_info=Types.TUPLE([Types.STRING(), Types.LONG(), Types.STRING()])) \
    .assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime())) \
    .key_by(lambda e: e[0]).process(LastSeen()).print()
env.execute("processing_time_ttl")
