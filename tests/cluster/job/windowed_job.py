"""The cluster test's job: keyed, event-time tumbling windows; its functions live in
``sensor_windows``, shipped to Spark's executors by ``kindling run -pyfs``."""
import sys

from sensor_windows import BySensor, ReadingTimestamps, WindowSummary, readings

from kindling.common import Configuration, Duration, Time, Types, WatermarkStrategy
from kindling.datastream import StreamExecutionEnvironment, TumblingEventTimeWindows


def main(n: int, one_step: str = "") -> None:
    """Prints each window; ``one_step`` ("true"/"false") sets ``kindling.bounded.one-step``."""
    conf = Configuration()
    if one_step:
        conf.set_string("kindling.bounded.one-step", one_step)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    events = env.from_collection(readings(n), type_info=Types.TUPLE([Types.STRING(), Types.INT(), Types.LONG()]))
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(1)) \
        .with_timestamp_assigner(ReadingTimestamps())
    (events.assign_timestamps_and_watermarks(strategy)
     .key_by(BySensor(), key_type=Types.STRING())
     .window(TumblingEventTimeWindows.of(Time.seconds(10)))
     .process(WindowSummary(), Types.TUPLE([Types.STRING(), Types.LONG(), Types.INT(), Types.INT()]))
     .print())
    env.execute("cluster windows")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
