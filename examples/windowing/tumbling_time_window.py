"""Sums per key over 5 s tumbling event-time windows.  Run: python examples/windowing/tumbling_time_window.py"""
from kindling.common import Duration, Time, Types, WatermarkStrategy
from kindling.common.watermark_strategy import TimestampAssigner
from kindling.datastream import StreamExecutionEnvironment, TumblingEventTimeWindows

EVENTS = [("hi", 1, 1000), ("hi", 2, 2000), ("hello", 1, 3000), ("hi", 4, 6000), ("hello", 2, 7000), ("hi", 5, 12000)]


class EventTimestamps(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp) -> int:
        return value[2]


def main() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    events = env.from_collection(EVENTS, type_info=Types.TUPLE([Types.STRING(), Types.INT(), Types.LONG()]))
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(1)) \
        .with_timestamp_assigner(EventTimestamps())
    sums = (events.assign_timestamps_and_watermarks(strategy)
            .key_by(lambda e: e[0], key_type=Types.STRING())
            .window(TumblingEventTimeWindows.of(Time.seconds(5)))
            .reduce(lambda a, b: (a[0], a[1] + b[1], max(a[2], b[2])),
                    output_type=Types.TUPLE([Types.STRING(), Types.INT(), Types.LONG()])))
    sums.print()
    env.execute("tumbling time window")


if __name__ == "__main__":
    main()
