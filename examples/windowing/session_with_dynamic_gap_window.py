"""Sessions whose gap depends on the element.  Run: python examples/windowing/session_with_dynamic_gap_window.py"""
from kindling.common import Types, WatermarkStrategy
from kindling.datastream import EventTimeSessionWindows, StreamExecutionEnvironment, WindowFunction
from kindling.datastream.window import SessionWindowTimeGapExtractor

# (user, clicks, time in ms); premium users ("vip") keep a session open longer
EVENTS = [("vip", 1, 1000), ("guest", 1, 1000), ("guest", 1, 2500), ("vip", 1, 4000), ("guest", 1, 6000),
          ("vip", 1, 12000)]


class GapByUser(SessionWindowTimeGapExtractor):
    def extract(self, element) -> int:
        return 5000 if element[0] == "vip" else 2000


class SessionSummary(WindowFunction):
    def apply(self, key, window, inputs):
        yield f"{key} session [{window.start}, {window.end}): {sum(e[1] for e in inputs)} clicks"


def main() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(lambda e, _: e[2])
    sessions = (env.from_collection(EVENTS).assign_timestamps_and_watermarks(strategy)
                .key_by(lambda e: e[0])
                .window(EventTimeSessionWindows.with_dynamic_gap(GapByUser()))
                .apply(SessionSummary(), output_type=Types.STRING()))
    sessions.print()
    env.execute("session windows with dynamic gap")


if __name__ == "__main__":
    main()
