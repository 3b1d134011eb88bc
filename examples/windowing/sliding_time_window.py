"""Counts per key over 10 s windows sliding by 5 s.  Run: python examples/windowing/sliding_time_window.py"""
from kindling.common import Time, Types, WatermarkStrategy
from kindling.datastream import ProcessWindowFunction, SlidingEventTimeWindows, StreamExecutionEnvironment

EVENTS = [("a", 1000), ("a", 4000), ("b", 6000), ("a", 9000), ("b", 14000)]


class CountInWindow(ProcessWindowFunction):
    def process(self, key, context, elements):
        window = context.window()
        yield f"{key} [{window.start}, {window.end}): {len(list(elements))}"


def main() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(lambda e, _: e[1])
    counts = (env.from_collection(EVENTS).assign_timestamps_and_watermarks(strategy)
              .key_by(lambda e: e[0])
              .window(SlidingEventTimeWindows.of(Time.seconds(10), Time.seconds(5)))
              .process(CountInWindow(), output_type=Types.STRING()))
    counts.print()
    env.execute("sliding time window")


if __name__ == "__main__":
    main()
