"""Sums of every 3 elements per key, and of 3 elements sliding by 2.  Run: python examples/windowing/count_window.py"""
from kindling.common import Types
from kindling.datastream import StreamExecutionEnvironment


def main() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    data = env.from_collection([("a", 1), ("b", 10), ("a", 2), ("a", 3), ("b", 20), ("a", 4), ("b", 30), ("a", 5)],
                               type_info=Types.TUPLE([Types.STRING(), Types.INT()]))
    keyed = data.key_by(lambda e: e[0])
    keyed.count_window(3).reduce(lambda x, y: (x[0], x[1] + y[1])).print("tumbling")
    keyed.count_window(3, 2).reduce(lambda x, y: (x[0], x[1] + y[1])).print("sliding")
    env.execute("count windows")


if __name__ == "__main__":
    main()
